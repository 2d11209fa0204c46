from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.search_objective import SearchObjective
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.search_layout import SearchLayout
    from ..models.search_response_candidates import SearchResponseCandidates
    from ..models.search_response_pruned import SearchResponsePruned
    from ..models.search_response_skipped import SearchResponseSkipped


T = TypeVar("T", bound="SearchResponse")


@_attrs_define
class SearchResponse:
    """
    Attributes:
        candidates (SearchResponseCandidates): The values searched on each axis.
        considered (int): Valid layouts of the space: evaluated + every count of pruned.
        dominated (int): Fitting layouts left out of the ranking: the same layout and arrangement with other levers
            (recompute, offload) is as fast or faster with no more bytes (under asynchronous checkpoint saves with a whole-
            run objective: better by the objective, its saves staging fewer bytes).
        evaluated (int): Valid layouts evaluated.
        fitting (int): Of those, the layouts that fit the card.
        layouts (list[SearchLayout]): The top_k layouts that fit, best first.
        note (None | str): Why the answer is empty, when no layout fits; else null.
        objective (SearchObjective): What the layouts are ranked by.
        pareto (list[SearchLayout]): The Pareto front of GPUs against step time among the layouts that fit: for each
            world size on the front its fastest layout, kept when it is faster than every layout on fewer GPUs.
        pruned (SearchResponsePruned): Valid layouts never evaluated, by reason: what a memory lower bound shows cannot
            fit, and what a lower bound on the step shows cannot rank (branch and bound).
        skipped (SearchResponseSkipped): Combinations that are not valid layouts, by reason.
        asked (None | SearchLayout | Unset): The job as the request states it (its arrangement, layout, micro-batch and
            levers at its first world size), answered as /v1/plan answers it, to compare with the best; null without an
            arrangement.
        never_finishing (int | Unset): Of the fitting layouts, those whose run never finishes training.total_tokens
            under cluster.failures (interruptions come faster than a restart and a checkpoint interval absorb): /v1/plan
            refuses them at /cluster/failures, so they are not ranked. 0 without training.total_tokens. Default: 0.
    """

    candidates: SearchResponseCandidates
    considered: int
    dominated: int
    evaluated: int
    fitting: int
    layouts: list[SearchLayout]
    note: None | str
    objective: SearchObjective
    pareto: list[SearchLayout]
    pruned: SearchResponsePruned
    skipped: SearchResponseSkipped
    asked: None | SearchLayout | Unset = UNSET
    never_finishing: int | Unset = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.search_layout import SearchLayout  # noqa: PLC0415

        candidates = self.candidates.to_dict()

        considered = self.considered

        dominated = self.dominated

        evaluated = self.evaluated

        fitting = self.fitting

        layouts = []
        for layouts_item_data in self.layouts:
            layouts_item = layouts_item_data.to_dict()
            layouts.append(layouts_item)

        note: None | str
        note = self.note

        objective = self.objective.value

        pareto = []
        for pareto_item_data in self.pareto:
            pareto_item = pareto_item_data.to_dict()
            pareto.append(pareto_item)

        pruned = self.pruned.to_dict()

        skipped = self.skipped.to_dict()

        asked: dict[str, Any] | None | Unset
        if isinstance(self.asked, Unset):
            asked = UNSET
        elif isinstance(self.asked, SearchLayout):
            asked = self.asked.to_dict()
        else:
            asked = self.asked

        never_finishing = self.never_finishing

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "candidates": candidates,
                "considered": considered,
                "dominated": dominated,
                "evaluated": evaluated,
                "fitting": fitting,
                "layouts": layouts,
                "note": note,
                "objective": objective,
                "pareto": pareto,
                "pruned": pruned,
                "skipped": skipped,
            }
        )
        if asked is not UNSET:
            field_dict["asked"] = asked
        if never_finishing is not UNSET:
            field_dict["never_finishing"] = never_finishing

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.search_layout import SearchLayout  # noqa: PLC0415
        from ..models.search_response_candidates import SearchResponseCandidates  # noqa: PLC0415
        from ..models.search_response_pruned import SearchResponsePruned  # noqa: PLC0415
        from ..models.search_response_skipped import SearchResponseSkipped  # noqa: PLC0415

        d = dict(src_dict)
        candidates = SearchResponseCandidates.from_dict(d.pop("candidates"))

        considered = d.pop("considered")

        dominated = d.pop("dominated")

        evaluated = d.pop("evaluated")

        fitting = d.pop("fitting")

        layouts = []
        _layouts = d.pop("layouts")
        for layouts_item_data in _layouts:
            layouts_item = SearchLayout.from_dict(layouts_item_data)

            layouts.append(layouts_item)

        def _parse_note(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        note = _parse_note(d.pop("note"))

        objective = SearchObjective(d.pop("objective"))

        pareto = []
        _pareto = d.pop("pareto")
        for pareto_item_data in _pareto:
            pareto_item = SearchLayout.from_dict(pareto_item_data)

            pareto.append(pareto_item)

        pruned = SearchResponsePruned.from_dict(d.pop("pruned"))

        skipped = SearchResponseSkipped.from_dict(d.pop("skipped"))

        def _parse_asked(data: object) -> None | SearchLayout | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                asked_type_0 = SearchLayout.from_dict(data)

                return asked_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SearchLayout | Unset, data)

        asked = _parse_asked(d.pop("asked", UNSET))

        never_finishing = d.pop("never_finishing", UNSET)

        search_response = cls(
            candidates=candidates,
            considered=considered,
            dominated=dominated,
            evaluated=evaluated,
            fitting=fitting,
            layouts=layouts,
            note=note,
            objective=objective,
            pareto=pareto,
            pruned=pruned,
            skipped=skipped,
            asked=asked,
            never_finishing=never_finishing,
        )

        search_response.additional_properties = d
        return search_response

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
