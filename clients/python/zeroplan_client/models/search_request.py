from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.search_objective import SearchObjective
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.model_spec import ModelSpec
    from ..models.search_cluster import SearchCluster
    from ..models.search_restrict import SearchRestrict
    from ..models.search_training import SearchTraining


T = TypeVar("T", bound="SearchRequest")


@_attrs_define
class SearchRequest:
    """A model, a cluster and a training shape: every valid layout, ranked by the objective.

    Attributes:
        cluster (SearchCluster): The card, GPUs per node and the world sizes to search.
        model (ModelSpec): The model: a preset, a Hugging Face config.json, a parameter count, or a transformer
            architecture.

            Architecture fields given beside a preset or an hf_config override theirs. Rules the schema
            cannot state: give a preset, an hf_config, a parameter_count or all five of layers,
            hidden_size, attention_heads, ffn_hidden_size and vocab_size; hidden_size is a multiple of
            attention_heads, and attention_heads a multiple of kv_heads.
        training (SearchTraining): The training shape every layout keeps: sequences per optimizer step and tokens per
            sequence.
        expert_tensor (int | None | Unset): The expert tensor-parallel degree every layout keeps
            (parallelism.expert_tensor of /v1/plan, Megatron-LM's --expert-tensor-parallel-size). Omitted: each layout's
            tensor degree. A layout whose expert_tensor x expert does not divide its tensor x context x data GPUs is
            skipped.
        objective (SearchObjective | Unset): What the layouts are ranked by.
        restrict (SearchRestrict | Unset): Restrictions on the search space; a field left out searches its default
            candidates.
        top_k (int | Unset): How many of the best layouts to return. Default: 10.
    """

    cluster: SearchCluster
    model: ModelSpec
    training: SearchTraining
    expert_tensor: int | None | Unset = UNSET
    objective: SearchObjective | Unset = UNSET
    restrict: SearchRestrict | Unset = UNSET
    top_k: int | Unset = 10

    def to_dict(self) -> dict[str, Any]:
        cluster = self.cluster.to_dict()

        model = self.model.to_dict()

        training = self.training.to_dict()

        expert_tensor: int | None | Unset
        if isinstance(self.expert_tensor, Unset):
            expert_tensor = UNSET
        else:
            expert_tensor = self.expert_tensor

        objective: str | Unset = UNSET
        if not isinstance(self.objective, Unset):
            objective = self.objective.value

        restrict: dict[str, Any] | Unset = UNSET
        if not isinstance(self.restrict, Unset):
            restrict = self.restrict.to_dict()

        top_k = self.top_k

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "cluster": cluster,
                "model": model,
                "training": training,
            }
        )
        if expert_tensor is not UNSET:
            field_dict["expert_tensor"] = expert_tensor
        if objective is not UNSET:
            field_dict["objective"] = objective
        if restrict is not UNSET:
            field_dict["restrict"] = restrict
        if top_k is not UNSET:
            field_dict["top_k"] = top_k

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.model_spec import ModelSpec  # noqa: PLC0415
        from ..models.search_cluster import SearchCluster  # noqa: PLC0415
        from ..models.search_restrict import SearchRestrict  # noqa: PLC0415
        from ..models.search_training import SearchTraining  # noqa: PLC0415

        d = dict(src_dict)
        cluster = SearchCluster.from_dict(d.pop("cluster"))

        model = ModelSpec.from_dict(d.pop("model"))

        training = SearchTraining.from_dict(d.pop("training"))

        def _parse_expert_tensor(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expert_tensor = _parse_expert_tensor(d.pop("expert_tensor", UNSET))

        _objective = d.pop("objective", UNSET)
        objective: SearchObjective | Unset
        if isinstance(_objective, Unset):
            objective = UNSET
        else:
            objective = SearchObjective(_objective)

        _restrict = d.pop("restrict", UNSET)
        restrict: SearchRestrict | Unset
        if isinstance(_restrict, Unset):
            restrict = UNSET
        else:
            restrict = SearchRestrict.from_dict(_restrict)

        top_k = d.pop("top_k", UNSET)

        search_request = cls(
            cluster=cluster,
            model=model,
            training=training,
            expert_tensor=expert_tensor,
            objective=objective,
            restrict=restrict,
            top_k=top_k,
        )

        return search_request
