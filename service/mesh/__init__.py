"""The mesh: the degrees of each parallelism, the layers and parameters of each pipeline stage, the schedules."""
