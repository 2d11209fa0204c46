"""The evaluation of a case: every figure of a plan from the formulas of inputs, mesh, memory and time."""
