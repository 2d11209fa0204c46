from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.arrangement_name import ArrangementName
from ..models.simulation_engine import SimulationEngine
from ..models.simulation_precision import SimulationPrecision
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.dropped_rank_fault import DroppedRankFault
    from ..models.model_spec import ModelSpec
    from ..models.parallelism import Parallelism
    from ..models.partial_checkpoint_fault import PartialCheckpointFault
    from ..models.slow_rank_fault import SlowRankFault


T = TypeVar("T", bound="SimulationRequest")


@_attrs_define
class SimulationRequest:
    """
    Attributes:
        world_size (int): Ranks (gloo processes on the service's machine).
        arrangements (list[ArrangementName] | Unset): Arrangement names, as in /v1/plan (an object of the three sharding
            flags is accepted in place of a name).
        engine (SimulationEngine | Unset): rings: hand-written rings over a flat vector; torch: PyTorch's own DDP,
            ZeRO-1, FSDP2, HSDP.
        faults (list[DroppedRankFault | PartialCheckpointFault | SlowRankFault] | Unset):
        keep_gather (bool | Unset): Also run ZeRO-3 keeping the forward gather for the backward pass: 2P of traffic
            instead of 3P, the whole model resident at the peak. Default: False.
        micro_batches (int | None | Unset): torch engine with parallelism.pipeline: micro-batches per step on each
            pipeline (default the pipeline degree; at least it for 1f1b).
        model (ModelSpec | None | Unset): torch engine only: the transformer's architecture fields as in /v1/plan (gelu
            MLP, multi-head attention, untied embeddings); default 2 layers, hidden 64, 4 heads, MLP 256, vocabulary 128.
        parallelism (None | Parallelism | Unset): torch engine: a layout, named as /v1/plan's parallelism block. tensor
            (DTensor parallelize_module) and pipeline (torch.distributed.pipelining, 1f1b or gpipe) with FSDP2 (zero3 or
            shard_grad_op) over the data dimension d = world_size / (tensor x pipeline); context, expert, sequence_parallel
            and virtual_stages are not run.
        parameter_count (int | Unset): Approximate weights; the report gives the exact count of the 4-layer MLP used.
            Default: 1000000.
        precision (SimulationPrecision | Unset): mixed_bf16_adam and fp32_adam as in GET /v1/presets; fp64_adam for
            bitwise checks.
        ranks_per_node (int | None | Unset): torch engine, hybrid: ranks per node, the shard degree (default 2).
        steps (int | Unset): Optimizer steps per arrangement. Default: 10.
    """

    world_size: int
    arrangements: list[ArrangementName] | Unset = UNSET
    engine: SimulationEngine | Unset = UNSET
    faults: list[DroppedRankFault | PartialCheckpointFault | SlowRankFault] | Unset = UNSET
    keep_gather: bool | Unset = False
    micro_batches: int | None | Unset = UNSET
    model: ModelSpec | None | Unset = UNSET
    parallelism: None | Parallelism | Unset = UNSET
    parameter_count: int | Unset = 1000000
    precision: SimulationPrecision | Unset = UNSET
    ranks_per_node: int | None | Unset = UNSET
    steps: int | Unset = 10

    def to_dict(self) -> dict[str, Any]:
        from ..models.dropped_rank_fault import DroppedRankFault  # noqa: PLC0415
        from ..models.model_spec import ModelSpec  # noqa: PLC0415
        from ..models.parallelism import Parallelism  # noqa: PLC0415
        from ..models.slow_rank_fault import SlowRankFault  # noqa: PLC0415

        world_size = self.world_size

        arrangements: list[str] | Unset = UNSET
        if not isinstance(self.arrangements, Unset):
            arrangements = []
            for arrangements_item_data in self.arrangements:
                arrangements_item = arrangements_item_data.value
                arrangements.append(arrangements_item)

        engine: str | Unset = UNSET
        if not isinstance(self.engine, Unset):
            engine = self.engine.value

        faults: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.faults, Unset):
            faults = []
            for faults_item_data in self.faults:
                faults_item: dict[str, Any]
                if isinstance(faults_item_data, SlowRankFault):
                    faults_item = faults_item_data.to_dict()
                elif isinstance(faults_item_data, DroppedRankFault):
                    faults_item = faults_item_data.to_dict()
                else:
                    faults_item = faults_item_data.to_dict()

                faults.append(faults_item)

        keep_gather = self.keep_gather

        micro_batches: int | None | Unset
        if isinstance(self.micro_batches, Unset):
            micro_batches = UNSET
        else:
            micro_batches = self.micro_batches

        model: dict[str, Any] | None | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        elif isinstance(self.model, ModelSpec):
            model = self.model.to_dict()
        else:
            model = self.model

        parallelism: dict[str, Any] | None | Unset
        if isinstance(self.parallelism, Unset):
            parallelism = UNSET
        elif isinstance(self.parallelism, Parallelism):
            parallelism = self.parallelism.to_dict()
        else:
            parallelism = self.parallelism

        parameter_count = self.parameter_count

        precision: str | Unset = UNSET
        if not isinstance(self.precision, Unset):
            precision = self.precision.value

        ranks_per_node: int | None | Unset
        if isinstance(self.ranks_per_node, Unset):
            ranks_per_node = UNSET
        else:
            ranks_per_node = self.ranks_per_node

        steps = self.steps

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "world_size": world_size,
            }
        )
        if arrangements is not UNSET:
            field_dict["arrangements"] = arrangements
        if engine is not UNSET:
            field_dict["engine"] = engine
        if faults is not UNSET:
            field_dict["faults"] = faults
        if keep_gather is not UNSET:
            field_dict["keep_gather"] = keep_gather
        if micro_batches is not UNSET:
            field_dict["micro_batches"] = micro_batches
        if model is not UNSET:
            field_dict["model"] = model
        if parallelism is not UNSET:
            field_dict["parallelism"] = parallelism
        if parameter_count is not UNSET:
            field_dict["parameter_count"] = parameter_count
        if precision is not UNSET:
            field_dict["precision"] = precision
        if ranks_per_node is not UNSET:
            field_dict["ranks_per_node"] = ranks_per_node
        if steps is not UNSET:
            field_dict["steps"] = steps

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dropped_rank_fault import DroppedRankFault  # noqa: PLC0415
        from ..models.model_spec import ModelSpec  # noqa: PLC0415
        from ..models.parallelism import Parallelism  # noqa: PLC0415
        from ..models.partial_checkpoint_fault import PartialCheckpointFault  # noqa: PLC0415
        from ..models.slow_rank_fault import SlowRankFault  # noqa: PLC0415

        d = dict(src_dict)
        world_size = d.pop("world_size")

        _arrangements = d.pop("arrangements", UNSET)
        arrangements: list[ArrangementName] | Unset = UNSET
        if _arrangements is not UNSET:
            arrangements = []
            for arrangements_item_data in _arrangements:
                arrangements_item = ArrangementName(arrangements_item_data)

                arrangements.append(arrangements_item)

        _engine = d.pop("engine", UNSET)
        engine: SimulationEngine | Unset
        if isinstance(_engine, Unset):
            engine = UNSET
        else:
            engine = SimulationEngine(_engine)

        _faults = d.pop("faults", UNSET)
        faults: list[DroppedRankFault | PartialCheckpointFault | SlowRankFault] | Unset = UNSET
        if _faults is not UNSET:
            faults = []
            for faults_item_data in _faults:

                def _parse_faults_item(data: object) -> DroppedRankFault | PartialCheckpointFault | SlowRankFault:
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        faults_item_type_0 = SlowRankFault.from_dict(data)

                        return faults_item_type_0
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        faults_item_type_1 = DroppedRankFault.from_dict(data)

                        return faults_item_type_1
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    if not isinstance(data, dict):
                        raise TypeError()
                    faults_item_type_2 = PartialCheckpointFault.from_dict(data)

                    return faults_item_type_2

                faults_item = _parse_faults_item(faults_item_data)

                faults.append(faults_item)

        keep_gather = d.pop("keep_gather", UNSET)

        def _parse_micro_batches(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        micro_batches = _parse_micro_batches(d.pop("micro_batches", UNSET))

        def _parse_model(data: object) -> ModelSpec | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                model_type_0 = ModelSpec.from_dict(data)

                return model_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ModelSpec | None | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_parallelism(data: object) -> None | Parallelism | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                parallelism_type_0 = Parallelism.from_dict(data)

                return parallelism_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Parallelism | Unset, data)

        parallelism = _parse_parallelism(d.pop("parallelism", UNSET))

        parameter_count = d.pop("parameter_count", UNSET)

        _precision = d.pop("precision", UNSET)
        precision: SimulationPrecision | Unset
        if isinstance(_precision, Unset):
            precision = UNSET
        else:
            precision = SimulationPrecision(_precision)

        def _parse_ranks_per_node(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ranks_per_node = _parse_ranks_per_node(d.pop("ranks_per_node", UNSET))

        steps = d.pop("steps", UNSET)

        simulation_request = cls(
            world_size=world_size,
            arrangements=arrangements,
            engine=engine,
            faults=faults,
            keep_gather=keep_gather,
            micro_batches=micro_batches,
            model=model,
            parallelism=parallelism,
            parameter_count=parameter_count,
            precision=precision,
            ranks_per_node=ranks_per_node,
            steps=steps,
        )

        return simulation_request
