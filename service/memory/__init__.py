"""What each GPU holds: model states, activations, the working set, the reserve, offload, framework estimators."""
