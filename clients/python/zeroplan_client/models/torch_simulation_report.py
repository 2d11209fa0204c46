from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.torch_simulation_report_verdict_type_0 import TorchSimulationReportVerdictType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.sim_check import SimCheck
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
        succeeded (bool): Every rank finished and every arrangement's checks_pass; read `verdict`.
        timed_out (bool):
        wall_s (float):
        wire_allowance_bytes_per_message (int):
        world_size (int):
        checks (list[SimCheck] | Unset): The checks the verdict is made of, per arrangement.
        verdict (None | TorchSimulationReportVerdictType0 | Unset): One meaning for every engine: confirmed (every rank
            finished and every check passed), refuted (every rank finished, a check failed), incomplete (a rank failed or
            the job ran out of time); null in reports stored before verdicts.
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
    checks: list[SimCheck] | Unset = UNSET
    verdict: None | TorchSimulationReportVerdictType0 | Unset = UNSET
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

        checks: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.checks, Unset):
            checks = []
            for checks_item_data in self.checks:
                checks_item = checks_item_data.to_dict()
                checks.append(checks_item)

        verdict: None | str | Unset
        if isinstance(self.verdict, Unset):
            verdict = UNSET
        elif isinstance(self.verdict, TorchSimulationReportVerdictType0):
            verdict = self.verdict.value
        else:
            verdict = self.verdict

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
        if checks is not UNSET:
            field_dict["checks"] = checks
        if verdict is not UNSET:
            field_dict["verdict"] = verdict

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sim_check import SimCheck  # noqa: PLC0415
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

        _checks = d.pop("checks", UNSET)
        checks: list[SimCheck] | Unset = UNSET
        if _checks is not UNSET:
            checks = []
            for checks_item_data in _checks:
                checks_item = SimCheck.from_dict(checks_item_data)

                checks.append(checks_item)

        def _parse_verdict(data: object) -> None | TorchSimulationReportVerdictType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                verdict_type_0 = TorchSimulationReportVerdictType0(data)

                return verdict_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TorchSimulationReportVerdictType0 | Unset, data)

        verdict = _parse_verdict(d.pop("verdict", UNSET))

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
            checks=checks,
            verdict=verdict,
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
