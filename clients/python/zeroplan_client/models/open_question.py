from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="OpenQuestion")


@_attrs_define
class OpenQuestion:
    """
    Attributes:
        question (str):
        relevant (bool): Whether this case's answer hinges on it.
        what_settles_it (str):
        why (str):
    """

    question: str
    relevant: bool
    what_settles_it: str
    why: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        question = self.question

        relevant = self.relevant

        what_settles_it = self.what_settles_it

        why = self.why

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "question": question,
                "relevant": relevant,
                "what_settles_it": what_settles_it,
                "why": why,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        question = d.pop("question")

        relevant = d.pop("relevant")

        what_settles_it = d.pop("what_settles_it")

        why = d.pop("why")

        open_question = cls(
            question=question,
            relevant=relevant,
            what_settles_it=what_settles_it,
            why=why,
        )

        open_question.additional_properties = d
        return open_question

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
