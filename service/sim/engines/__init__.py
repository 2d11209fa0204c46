"""Simulation engines beside the hand-written rings: PyTorch's own implementations.

``torch_*`` modules run DDP, DDP + ZeroRedundancyOptimizer, FSDP2 (``fully_shard``) and HSDP on a
small decoder-only transformer and measure them against the core's plan. Only the rank-side
modules (torch_model, torch_rank, torch_run) import torch, lazily, in the processes that run ranks.
"""
