from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.sim_faults import SimFaults
    from ..models.sim_rank_process import SimRankProcess
    from ..models.torch_sim_arrangement import TorchSimArrangement
    from ..models.torch_sim_layout import TorchSimLayout
    from ..models.torch_sim_model import TorchSimModel


T = TypeVar("T", bound="TorchSimulationReport")


@_attrs_define
class TorchSimulationReport:
    """
    Attributes:
        arrangements (list[TorchSimArrangement]):
        backend (str):
        engine (Literal['torch']):
        faults (SimFaults):
        learning_tolerance (float):
        measured_steps (int):
        model (TorchSimModel):
        not_run (str):
        parallelism (TorchSimLayout):
        parameter_count (int):
        precision (str):
        ranks (list[SimRankProcess]):
        ranks_per_node (int):
        steps (int):
        succeeded (bool):
        timed_out (bool):
        wall_s (float):
        wire_allowance_bytes_per_message (int):
        world_size (int):
    """

    arrangements: list[TorchSimArrangement]
    backend: str
    engine: Literal["torch"]
    faults: SimFaults
    learning_tolerance: float
    measured_steps: int
    model: TorchSimModel
    not_run: str
    parallelism: TorchSimLayout
    parameter_count: int
    precision: str
    ranks: list[SimRankProcess]
    ranks_per_node: int
    steps: int
    succeeded: bool
    timed_out: bool
    wall_s: float
    wire_allowance_bytes_per_message: int
    world_size: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arrangements = []
        for arrangements_item_data in self.arrangements:
            arrangements_item = arrangements_item_data.to_dict()
            arrangements.append(arrangements_item)

        backend = self.backend

        engine = self.engine

        faults = self.faults.to_dict()

        learning_tolerance = self.learning_tolerance

        measured_steps = self.measured_steps

        model = self.model.to_dict()

        not_run = self.not_run

        parallelism = self.parallelism.to_dict()

        parameter_count = self.parameter_count

        precision = self.precision

        ranks = []
        for ranks_item_data in self.ranks:
            ranks_item = ranks_item_data.to_dict()
            ranks.append(ranks_item)

        ranks_per_node = self.ranks_per_node

        steps = self.steps

        succeeded = self.succeeded

        timed_out = self.timed_out

        wall_s = self.wall_s

        wire_allowance_bytes_per_message = self.wire_allowance_bytes_per_message

        world_size = self.world_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangements": arrangements,
                "backend": backend,
                "engine": engine,
                "faults": faults,
                "learning_tolerance": learning_tolerance,
                "measured_steps": measured_steps,
                "model": model,
                "not_run": not_run,
                "parallelism": parallelism,
                "parameter_count": parameter_count,
                "precision": precision,
                "ranks": ranks,
                "ranks_per_node": ranks_per_node,
                "steps": steps,
                "succeeded": succeeded,
                "timed_out": timed_out,
                "wall_s": wall_s,
                "wire_allowance_bytes_per_message": wire_allowance_bytes_per_message,
                "world_size": world_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sim_faults import SimFaults  # noqa: PLC0415
        from ..models.sim_rank_process import SimRankProcess  # noqa: PLC0415
        from ..models.torch_sim_arrangement import TorchSimArrangement  # noqa: PLC0415
        from ..models.torch_sim_layout import TorchSimLayout  # noqa: PLC0415
        from ..models.torch_sim_model import TorchSimModel  # noqa: PLC0415

        d = dict(src_dict)
        arrangements = []
        _arrangements = d.pop("arrangements")
        for arrangements_item_data in _arrangements:
            arrangements_item = TorchSimArrangement.from_dict(arrangements_item_data)

            arrangements.append(arrangements_item)

        backend = d.pop("backend")

        engine = cast(Literal["torch"], d.pop("engine"))
        if engine != "torch":
            raise ValueError(f"engine must match const 'torch', got '{engine}'")

        faults = SimFaults.from_dict(d.pop("faults"))

        learning_tolerance = d.pop("learning_tolerance")

        measured_steps = d.pop("measured_steps")

        model = TorchSimModel.from_dict(d.pop("model"))

        not_run = d.pop("not_run")

        parallelism = TorchSimLayout.from_dict(d.pop("parallelism"))

        parameter_count = d.pop("parameter_count")

        precision = d.pop("precision")

        ranks = []
        _ranks = d.pop("ranks")
        for ranks_item_data in _ranks:
            ranks_item = SimRankProcess.from_dict(ranks_item_data)

            ranks.append(ranks_item)

        ranks_per_node = d.pop("ranks_per_node")

        steps = d.pop("steps")

        succeeded = d.pop("succeeded")

        timed_out = d.pop("timed_out")

        wall_s = d.pop("wall_s")

        wire_allowance_bytes_per_message = d.pop("wire_allowance_bytes_per_message")

        world_size = d.pop("world_size")

        torch_simulation_report = cls(
            arrangements=arrangements,
            backend=backend,
            engine=engine,
            faults=faults,
            learning_tolerance=learning_tolerance,
            measured_steps=measured_steps,
            model=model,
            not_run=not_run,
            parallelism=parallelism,
            parameter_count=parameter_count,
            precision=precision,
            ranks=ranks,
            ranks_per_node=ranks_per_node,
            steps=steps,
            succeeded=succeeded,
            timed_out=timed_out,
            wall_s=wall_s,
            wire_allowance_bytes_per_message=wire_allowance_bytes_per_message,
            world_size=world_size,
        )

        torch_simulation_report.additional_properties = d
        return torch_simulation_report

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
