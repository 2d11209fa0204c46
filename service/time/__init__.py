"""What a step costs: collectives and their traffic, communication and compute time, efficiency, the budget of a
run.
"""
