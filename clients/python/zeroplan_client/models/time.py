from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.checkpoint_report import CheckpointReport


T = TypeVar("T", bound="Time")


@_attrs_define
class Time:
    """
    Attributes:
        assumptions (list[str]):
        checkpoint (CheckpointReport): Checkpoints and failures as the plan prices them (service.time.goodput).
        checkpoint_hours (float | None): Wall hours stalled saving checkpoints.
        communication_flat_s (float): On flat rings (across nodes at the inter-node speed).
        communication_hierarchical_s (float): Deprecated: equal to communication_flat_s. Collectives are priced as
            NCCL's flat ring at bus bandwidth, which already runs over every NIC of a node (a two-level schedule is never
            faster).
        communication_s (float): All communication of the step on the faster schedule.
        compute_flops (float): The hardware FLOPs of the step (same as hardware_flops_per_step).
        compute_s (float): Forward and backward of every micro-batch: with training.utilisation, model_flops_per_step /
            (N x peak x utilisation); without it, the efficiency model's sum of matrix multiplications, attention and
            memory-bound work on the GPU.
        context_parallel_s (float): Exposed part of the ring-attention exchange: what the stage's compute does not hide.
        cost (float | None): gpu_hours x cluster.gpu_hour_price; null without a price.
        cpu_optimizer_s (float): The CPU optimizer step under offload: the bytes it streams per node over the node's
            host memory bandwidth (cluster.host_memory_bytes_per_s).
        currency (None | str): cluster.currency, the currency of cost; null without a price.
        expected_interruptions (float | None): Wall time / the job's mean time between interruptions; null without a
            token budget.
        expert_parallel_s (float): Expert all-to-all dispatch and combine (exposed).
        exposed_communication_s (float): Communication that overlap does not hide.
        goodput (float): The useful fraction of the run's wall time: ideal time / wall time with checkpoints,
            interruptions and restarts (Daly 2006's complete model); training_days = ideal_training_days / goodput.
        gpu_hours (float | None): training_steps x step_s x world_size / 3600.
        hardware_flops_per_step (float): Model FLOPs plus what recomputation repeats (full: a forward; selective without
            flash attention: the attention core's forward).
        hfu (float): hardware_flops_per_step / (step_s x N x peak).
        ideal_gpu_hours (float | None): training_steps x step_s x world_size / 3600, ideal.
        ideal_training_days (float | None): training_steps x step_s in days: the ideal steps alone, no checkpoint,
            failure or restart.
        lost_work_hours (float | None): Wall hours redoing work lost since the last checkpoint.
        mfu (float): model_flops_per_step / (step_s x N x peak): the step's model FLOPs utilisation.
        model_flops_per_step (float): (6 x N + 12 x L x h x s) x tokens: N the parameters less the input embedding, the
            attention term when the architecture is known (PaLM appendix B).
        offload_s (float): offload_transfer_s + cpu_optimizer_s, not overlapped.
        offload_transfer_s (float): pcie_bytes_per_gpu over the host link, not overlapped.
        pipeline_bubble_fraction (float): pipeline_bubble_s / (compute_s + pipeline_bubble_s): the share of the
            pipeline's time it idles, in [0, 1).
        pipeline_bubble_s (float): Idle time of the pipeline: compute_s x (p - 1) / (v m) for 1f1b and interleaved, (p -
            1) / m for gpipe; for the zero-bubble schedules from the slowest stage's forward, input-gradient and weight-
            gradient pass times T_F, T_B, T_W per micro-batch (Qi et al. 2023, table 2): zb_h1 (p - 1)(T_F + T_B - T_W),
            zero_bubble (p - 1) max(0, T_F + T_B - 2 T_W) plus (p - 1) T_F without optimizer post-validation, zb_v (p - 1)/2
            x the excess of its conditions W + 2B >= 2F, W + 2F >= 2B plus (p - 1) T_F / 2 without post-validation; 0
            without pipeline parallelism.
        pipeline_p2p_s (float): Pipeline sends and receives between stages (exposed).
        restart_hours (float | None): Wall hours re-launching and reading checkpoints back.
        schedule (str): The data group's collective schedule: flat (NCCL's ring over the node's NICs).
        step_s (float): The slowest stage's compute_s + overlap_slowdown_s + pipeline_bubble_s + exposed_communication_s
            (every group's exposed part) + offload_s + optimizer_s.
        tensor_parallel_s (float): Tensor-parallel collectives, on the critical path (exposed).
        tokens_per_s (float): tokens_per_step / step_s, the whole job.
        tokens_per_s_per_gpu (float): tokens_per_s / world_size.
        tokens_per_step (int):
        total_tokens (int | None): training.total_tokens, the token budget; null when not given.
        training_days (float | None): training_steps x step_s, in days of wall time.
        training_steps (int | None): ceil(total_tokens / tokens_per_step) optimizer steps.
        optimizer_s (float | Unset): The optimizer step streaming its shard through HBM (efficiency model; 0 with a
            utilisation). Default: 0.0.
        overlap_slowdown_s (float | Unset): Compute time lost to communication kernels running beside it (efficiency
            model; 0 with a utilisation). Default: 0.0.
        schedule_source (None | str | Unset): The framework that runs the pipeline schedule (and its class or option);
            none without pipeline parallelism.
    """

    assumptions: list[str]
    checkpoint: CheckpointReport
    checkpoint_hours: float | None
    communication_flat_s: float
    communication_hierarchical_s: float
    communication_s: float
    compute_flops: float
    compute_s: float
    context_parallel_s: float
    cost: float | None
    cpu_optimizer_s: float
    currency: None | str
    expected_interruptions: float | None
    expert_parallel_s: float
    exposed_communication_s: float
    goodput: float
    gpu_hours: float | None
    hardware_flops_per_step: float
    hfu: float
    ideal_gpu_hours: float | None
    ideal_training_days: float | None
    lost_work_hours: float | None
    mfu: float
    model_flops_per_step: float
    offload_s: float
    offload_transfer_s: float
    pipeline_bubble_fraction: float
    pipeline_bubble_s: float
    pipeline_p2p_s: float
    restart_hours: float | None
    schedule: str
    step_s: float
    tensor_parallel_s: float
    tokens_per_s: float
    tokens_per_s_per_gpu: float
    tokens_per_step: int
    total_tokens: int | None
    training_days: float | None
    training_steps: int | None
    optimizer_s: float | Unset = 0.0
    overlap_slowdown_s: float | Unset = 0.0
    schedule_source: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        assumptions = self.assumptions

        checkpoint = self.checkpoint.to_dict()

        checkpoint_hours: float | None
        checkpoint_hours = self.checkpoint_hours

        communication_flat_s = self.communication_flat_s

        communication_hierarchical_s = self.communication_hierarchical_s

        communication_s = self.communication_s

        compute_flops = self.compute_flops

        compute_s = self.compute_s

        context_parallel_s = self.context_parallel_s

        cost: float | None
        cost = self.cost

        cpu_optimizer_s = self.cpu_optimizer_s

        currency: None | str
        currency = self.currency

        expected_interruptions: float | None
        expected_interruptions = self.expected_interruptions

        expert_parallel_s = self.expert_parallel_s

        exposed_communication_s = self.exposed_communication_s

        goodput = self.goodput

        gpu_hours: float | None
        gpu_hours = self.gpu_hours

        hardware_flops_per_step = self.hardware_flops_per_step

        hfu = self.hfu

        ideal_gpu_hours: float | None
        ideal_gpu_hours = self.ideal_gpu_hours

        ideal_training_days: float | None
        ideal_training_days = self.ideal_training_days

        lost_work_hours: float | None
        lost_work_hours = self.lost_work_hours

        mfu = self.mfu

        model_flops_per_step = self.model_flops_per_step

        offload_s = self.offload_s

        offload_transfer_s = self.offload_transfer_s

        pipeline_bubble_fraction = self.pipeline_bubble_fraction

        pipeline_bubble_s = self.pipeline_bubble_s

        pipeline_p2p_s = self.pipeline_p2p_s

        restart_hours: float | None
        restart_hours = self.restart_hours

        schedule = self.schedule

        step_s = self.step_s

        tensor_parallel_s = self.tensor_parallel_s

        tokens_per_s = self.tokens_per_s

        tokens_per_s_per_gpu = self.tokens_per_s_per_gpu

        tokens_per_step = self.tokens_per_step

        total_tokens: int | None
        total_tokens = self.total_tokens

        training_days: float | None
        training_days = self.training_days

        training_steps: int | None
        training_steps = self.training_steps

        optimizer_s = self.optimizer_s

        overlap_slowdown_s = self.overlap_slowdown_s

        schedule_source: None | str | Unset
        if isinstance(self.schedule_source, Unset):
            schedule_source = UNSET
        else:
            schedule_source = self.schedule_source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "assumptions": assumptions,
                "checkpoint": checkpoint,
                "checkpoint_hours": checkpoint_hours,
                "communication_flat_s": communication_flat_s,
                "communication_hierarchical_s": communication_hierarchical_s,
                "communication_s": communication_s,
                "compute_flops": compute_flops,
                "compute_s": compute_s,
                "context_parallel_s": context_parallel_s,
                "cost": cost,
                "cpu_optimizer_s": cpu_optimizer_s,
                "currency": currency,
                "expected_interruptions": expected_interruptions,
                "expert_parallel_s": expert_parallel_s,
                "exposed_communication_s": exposed_communication_s,
                "goodput": goodput,
                "gpu_hours": gpu_hours,
                "hardware_flops_per_step": hardware_flops_per_step,
                "hfu": hfu,
                "ideal_gpu_hours": ideal_gpu_hours,
                "ideal_training_days": ideal_training_days,
                "lost_work_hours": lost_work_hours,
                "mfu": mfu,
                "model_flops_per_step": model_flops_per_step,
                "offload_s": offload_s,
                "offload_transfer_s": offload_transfer_s,
                "pipeline_bubble_fraction": pipeline_bubble_fraction,
                "pipeline_bubble_s": pipeline_bubble_s,
                "pipeline_p2p_s": pipeline_p2p_s,
                "restart_hours": restart_hours,
                "schedule": schedule,
                "step_s": step_s,
                "tensor_parallel_s": tensor_parallel_s,
                "tokens_per_s": tokens_per_s,
                "tokens_per_s_per_gpu": tokens_per_s_per_gpu,
                "tokens_per_step": tokens_per_step,
                "total_tokens": total_tokens,
                "training_days": training_days,
                "training_steps": training_steps,
            }
        )
        if optimizer_s is not UNSET:
            field_dict["optimizer_s"] = optimizer_s
        if overlap_slowdown_s is not UNSET:
            field_dict["overlap_slowdown_s"] = overlap_slowdown_s
        if schedule_source is not UNSET:
            field_dict["schedule_source"] = schedule_source

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.checkpoint_report import CheckpointReport  # noqa: PLC0415

        d = dict(src_dict)
        assumptions = cast(list[str], d.pop("assumptions"))

        checkpoint = CheckpointReport.from_dict(d.pop("checkpoint"))

        def _parse_checkpoint_hours(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        checkpoint_hours = _parse_checkpoint_hours(d.pop("checkpoint_hours"))

        communication_flat_s = d.pop("communication_flat_s")

        communication_hierarchical_s = d.pop("communication_hierarchical_s")

        communication_s = d.pop("communication_s")

        compute_flops = d.pop("compute_flops")

        compute_s = d.pop("compute_s")

        context_parallel_s = d.pop("context_parallel_s")

        def _parse_cost(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        cost = _parse_cost(d.pop("cost"))

        cpu_optimizer_s = d.pop("cpu_optimizer_s")

        def _parse_currency(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        currency = _parse_currency(d.pop("currency"))

        def _parse_expected_interruptions(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        expected_interruptions = _parse_expected_interruptions(d.pop("expected_interruptions"))

        expert_parallel_s = d.pop("expert_parallel_s")

        exposed_communication_s = d.pop("exposed_communication_s")

        goodput = d.pop("goodput")

        def _parse_gpu_hours(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        gpu_hours = _parse_gpu_hours(d.pop("gpu_hours"))

        hardware_flops_per_step = d.pop("hardware_flops_per_step")

        hfu = d.pop("hfu")

        def _parse_ideal_gpu_hours(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        ideal_gpu_hours = _parse_ideal_gpu_hours(d.pop("ideal_gpu_hours"))

        def _parse_ideal_training_days(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        ideal_training_days = _parse_ideal_training_days(d.pop("ideal_training_days"))

        def _parse_lost_work_hours(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        lost_work_hours = _parse_lost_work_hours(d.pop("lost_work_hours"))

        mfu = d.pop("mfu")

        model_flops_per_step = d.pop("model_flops_per_step")

        offload_s = d.pop("offload_s")

        offload_transfer_s = d.pop("offload_transfer_s")

        pipeline_bubble_fraction = d.pop("pipeline_bubble_fraction")

        pipeline_bubble_s = d.pop("pipeline_bubble_s")

        pipeline_p2p_s = d.pop("pipeline_p2p_s")

        def _parse_restart_hours(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        restart_hours = _parse_restart_hours(d.pop("restart_hours"))

        schedule = d.pop("schedule")

        step_s = d.pop("step_s")

        tensor_parallel_s = d.pop("tensor_parallel_s")

        tokens_per_s = d.pop("tokens_per_s")

        tokens_per_s_per_gpu = d.pop("tokens_per_s_per_gpu")

        tokens_per_step = d.pop("tokens_per_step")

        def _parse_total_tokens(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        total_tokens = _parse_total_tokens(d.pop("total_tokens"))

        def _parse_training_days(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        training_days = _parse_training_days(d.pop("training_days"))

        def _parse_training_steps(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        training_steps = _parse_training_steps(d.pop("training_steps"))

        optimizer_s = d.pop("optimizer_s", UNSET)

        overlap_slowdown_s = d.pop("overlap_slowdown_s", UNSET)

        def _parse_schedule_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        schedule_source = _parse_schedule_source(d.pop("schedule_source", UNSET))

        time = cls(
            assumptions=assumptions,
            checkpoint=checkpoint,
            checkpoint_hours=checkpoint_hours,
            communication_flat_s=communication_flat_s,
            communication_hierarchical_s=communication_hierarchical_s,
            communication_s=communication_s,
            compute_flops=compute_flops,
            compute_s=compute_s,
            context_parallel_s=context_parallel_s,
            cost=cost,
            cpu_optimizer_s=cpu_optimizer_s,
            currency=currency,
            expected_interruptions=expected_interruptions,
            expert_parallel_s=expert_parallel_s,
            exposed_communication_s=exposed_communication_s,
            goodput=goodput,
            gpu_hours=gpu_hours,
            hardware_flops_per_step=hardware_flops_per_step,
            hfu=hfu,
            ideal_gpu_hours=ideal_gpu_hours,
            ideal_training_days=ideal_training_days,
            lost_work_hours=lost_work_hours,
            mfu=mfu,
            model_flops_per_step=model_flops_per_step,
            offload_s=offload_s,
            offload_transfer_s=offload_transfer_s,
            pipeline_bubble_fraction=pipeline_bubble_fraction,
            pipeline_bubble_s=pipeline_bubble_s,
            pipeline_p2p_s=pipeline_p2p_s,
            restart_hours=restart_hours,
            schedule=schedule,
            step_s=step_s,
            tensor_parallel_s=tensor_parallel_s,
            tokens_per_s=tokens_per_s,
            tokens_per_s_per_gpu=tokens_per_s_per_gpu,
            tokens_per_step=tokens_per_step,
            total_tokens=total_tokens,
            training_days=training_days,
            training_steps=training_steps,
            optimizer_s=optimizer_s,
            overlap_slowdown_s=overlap_slowdown_s,
            schedule_source=schedule_source,
        )

        time.additional_properties = d
        return time

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
