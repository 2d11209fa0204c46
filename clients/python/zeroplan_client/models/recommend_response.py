from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.omitted_step import OmittedStep
    from ..models.open_question import OpenQuestion
    from ..models.recommend_step import RecommendStep


T = TypeVar("T", bound="RecommendResponse")


@_attrs_define
class RecommendResponse:
    """
    Attributes:
        active_parameter_count (int): Parameters one token uses (top_k of the routed experts in a mixture of experts;
            all of them in a dense model). Compute counts these; memory holds parameter_count.
        card_bytes (int):
        omitted (list[OmittedStep]): Levers left out of the steps because they change nothing this case needs: the same
            per-GPU bytes as the arrangement without them and no shorter step (selective recomputation with flash attention,
            which stores no attention scores; recomputation when activations are not counted).
        parameter_count (int):
        questions (list[OpenQuestion]):
        recommendation (None | RecommendStep): The first step that fits; null if none does.
        steps (list[RecommendStep]):
        summary (str):
        usable_bytes (int): The card less its reserve and fragmentation: what every step must fit.
        warnings (list[str]):
        world_size (int | None): cluster.world_size: the GPU count every step is priced at; null when not given (each
            step at its own smallest fitting count).
    """

    active_parameter_count: int
    card_bytes: int
    omitted: list[OmittedStep]
    parameter_count: int
    questions: list[OpenQuestion]
    recommendation: None | RecommendStep
    steps: list[RecommendStep]
    summary: str
    usable_bytes: int
    warnings: list[str]
    world_size: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.recommend_step import RecommendStep  # noqa: PLC0415

        active_parameter_count = self.active_parameter_count

        card_bytes = self.card_bytes

        omitted = []
        for omitted_item_data in self.omitted:
            omitted_item = omitted_item_data.to_dict()
            omitted.append(omitted_item)

        parameter_count = self.parameter_count

        questions = []
        for questions_item_data in self.questions:
            questions_item = questions_item_data.to_dict()
            questions.append(questions_item)

        recommendation: dict[str, Any] | None
        if isinstance(self.recommendation, RecommendStep):
            recommendation = self.recommendation.to_dict()
        else:
            recommendation = self.recommendation

        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)

        summary = self.summary

        usable_bytes = self.usable_bytes

        warnings = self.warnings

        world_size: int | None
        world_size = self.world_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active_parameter_count": active_parameter_count,
                "card_bytes": card_bytes,
                "omitted": omitted,
                "parameter_count": parameter_count,
                "questions": questions,
                "recommendation": recommendation,
                "steps": steps,
                "summary": summary,
                "usable_bytes": usable_bytes,
                "warnings": warnings,
                "world_size": world_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.omitted_step import OmittedStep  # noqa: PLC0415
        from ..models.open_question import OpenQuestion  # noqa: PLC0415
        from ..models.recommend_step import RecommendStep  # noqa: PLC0415

        d = dict(src_dict)
        active_parameter_count = d.pop("active_parameter_count")

        card_bytes = d.pop("card_bytes")

        omitted = []
        _omitted = d.pop("omitted")
        for omitted_item_data in _omitted:
            omitted_item = OmittedStep.from_dict(omitted_item_data)

            omitted.append(omitted_item)

        parameter_count = d.pop("parameter_count")

        questions = []
        _questions = d.pop("questions")
        for questions_item_data in _questions:
            questions_item = OpenQuestion.from_dict(questions_item_data)

            questions.append(questions_item)

        def _parse_recommendation(data: object) -> None | RecommendStep:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                recommendation_type_0 = RecommendStep.from_dict(data)

                return recommendation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RecommendStep, data)

        recommendation = _parse_recommendation(d.pop("recommendation"))

        steps = []
        _steps = d.pop("steps")
        for steps_item_data in _steps:
            steps_item = RecommendStep.from_dict(steps_item_data)

            steps.append(steps_item)

        summary = d.pop("summary")

        usable_bytes = d.pop("usable_bytes")

        warnings = cast(list[str], d.pop("warnings"))

        def _parse_world_size(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        world_size = _parse_world_size(d.pop("world_size"))

        recommend_response = cls(
            active_parameter_count=active_parameter_count,
            card_bytes=card_bytes,
            omitted=omitted,
            parameter_count=parameter_count,
            questions=questions,
            recommendation=recommendation,
            steps=steps,
            summary=summary,
            usable_bytes=usable_bytes,
            warnings=warnings,
            world_size=world_size,
        )

        recommend_response.additional_properties = d
        return recommend_response

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
