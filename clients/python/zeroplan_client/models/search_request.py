from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.arrangement_name import ArrangementName
from ..models.precision_preset_name import PrecisionPresetName
from ..models.search_objective import SearchObjective
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.activations import Activations
    from ..models.estimator_options import EstimatorOptions
    from ..models.levers import Levers
    from ..models.model_spec import ModelSpec
    from ..models.parallelism import Parallelism
    from ..models.precision_spec import PrecisionSpec
    from ..models.search_cluster import SearchCluster
    from ..models.search_restrict import SearchRestrict
    from ..models.search_training import SearchTraining
    from ..models.sharding_flags import ShardingFlags


T = TypeVar("T", bound="SearchRequest")


@_attrs_define
class SearchRequest:
    """A model, a cluster and a training shape: every valid layout, ranked by the objective. A /v1/plan body is
    a valid search: its layout, arrangement and levers are the job as it runs now (answered as `asked`), and
    the search looks for better ones.

        Attributes:
            cluster (SearchCluster): The card, GPUs per node and the world sizes to search.
            model (ModelSpec): The model: a preset, a Hugging Face config.json, a parameter count, or a transformer
                architecture.

                Architecture fields given beside a preset or an hf_config override theirs. Rules the schema
                cannot state: give a preset, an hf_config, a parameter_count or all five of layers,
                hidden_size, attention_heads, ffn_hidden_size and vocab_size; hidden_size is a multiple of
                attention_heads, and attention_heads a multiple of kv_heads.
            activations (Activations | Unset): Activation memory: replicated on every GPU; sharding never touches it.
            arrangement (ArrangementName | None | Unset): The job's arrangement now (a /v1/plan body's own): with it the
                answer's `asked` row is the job as stated. Every arrangement of restrict.arrangement is searched either way.
            estimator (EstimatorOptions | Unset): Inputs of DeepSpeed's estimators (memory.framework_estimate) that a plan
                does not otherwise carry.
            expert_tensor (int | None | Unset): The expert tensor-parallel degree every layout keeps
                (parallelism.expert_tensor of /v1/plan, Megatron-LM's --expert-tensor-parallel-size). Omitted:
                parallelism.expert_tensor, else each layout's tensor degree. A layout whose expert_tensor x expert does not
                divide its tensor x context x data GPUs is skipped.
            levers (Levers | Unset): The levers: offload (ZeRO-Offload), overlap, recomputation, MXFP8.
            objective (SearchObjective | Unset): What the layouts are ranked by.
            parallelism (Parallelism | Unset): Degrees of the mesh beside data parallelism (torchtitan's ParallelDims,
                Megatron-LM's PTD-P).

                The data-parallel degree is what is left: d = cluster.world_size / (tensor x pipeline x context).
                Ranks are placed tensor innermost, then context, data, pipeline outermost (Megatron-LM's order),
                so a tensor group of up to gpus_per_node GPUs stays inside a node. The arrangement (ddp, zero1,
                zero2, zero3, ...) shards over the data-parallel group x context, as Megatron's distributed
                optimizer does; expert weights shard over the expert-data-parallel group (d x context / expert, or
                world / (pipeline x expert_tensor x expert) with an expert tensor degree of its own, Megatron-Core's
                expert grid).
            precision (None | PrecisionPresetName | Unset): A precision preset name (see GET /v1/presets); or give
                `precision_spec` instead. Omitted or null: mixed_bf16_adam.
            precision_spec (None | PrecisionSpec | Unset): Explicit dtypes and optimizer instead of a `precision` preset
                name (e.g. fp16 parameters and gradients, no master copy and fp64 Adam moments: the textbook rough sketch, 20
                B/weight).
            restrict (SearchRestrict | Unset): Restrictions on the search space; a field left out searches its default
                candidates.
            sharding (None | ShardingFlags | Unset): The job's arrangement as its three sharding flags, instead of a name.
            top_k (int | Unset): How many of the best layouts to return. Default: 10.
            training (SearchTraining | Unset): The training shape every layout keeps: sequences per optimizer step and
                tokens per sequence; the rest
                as /v1/plan's training takes it.
    """

    cluster: SearchCluster
    model: ModelSpec
    activations: Activations | Unset = UNSET
    arrangement: ArrangementName | None | Unset = UNSET
    estimator: EstimatorOptions | Unset = UNSET
    expert_tensor: int | None | Unset = UNSET
    levers: Levers | Unset = UNSET
    objective: SearchObjective | Unset = UNSET
    parallelism: Parallelism | Unset = UNSET
    precision: None | PrecisionPresetName | Unset = UNSET
    precision_spec: None | PrecisionSpec | Unset = UNSET
    restrict: SearchRestrict | Unset = UNSET
    sharding: None | ShardingFlags | Unset = UNSET
    top_k: int | Unset = 10
    training: SearchTraining | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.precision_spec import PrecisionSpec  # noqa: PLC0415
        from ..models.sharding_flags import ShardingFlags  # noqa: PLC0415

        cluster = self.cluster.to_dict()

        model = self.model.to_dict()

        activations: dict[str, Any] | Unset = UNSET
        if not isinstance(self.activations, Unset):
            activations = self.activations.to_dict()

        arrangement: None | str | Unset
        if isinstance(self.arrangement, Unset):
            arrangement = UNSET
        elif isinstance(self.arrangement, ArrangementName):
            arrangement = self.arrangement.value
        else:
            arrangement = self.arrangement

        estimator: dict[str, Any] | Unset = UNSET
        if not isinstance(self.estimator, Unset):
            estimator = self.estimator.to_dict()

        expert_tensor: int | None | Unset
        if isinstance(self.expert_tensor, Unset):
            expert_tensor = UNSET
        else:
            expert_tensor = self.expert_tensor

        levers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.levers, Unset):
            levers = self.levers.to_dict()

        objective: str | Unset = UNSET
        if not isinstance(self.objective, Unset):
            objective = self.objective.value

        parallelism: dict[str, Any] | Unset = UNSET
        if not isinstance(self.parallelism, Unset):
            parallelism = self.parallelism.to_dict()

        precision: None | str | Unset
        if isinstance(self.precision, Unset):
            precision = UNSET
        elif isinstance(self.precision, PrecisionPresetName):
            precision = self.precision.value
        else:
            precision = self.precision

        precision_spec: dict[str, Any] | None | Unset
        if isinstance(self.precision_spec, Unset):
            precision_spec = UNSET
        elif isinstance(self.precision_spec, PrecisionSpec):
            precision_spec = self.precision_spec.to_dict()
        else:
            precision_spec = self.precision_spec

        restrict: dict[str, Any] | Unset = UNSET
        if not isinstance(self.restrict, Unset):
            restrict = self.restrict.to_dict()

        sharding: dict[str, Any] | None | Unset
        if isinstance(self.sharding, Unset):
            sharding = UNSET
        elif isinstance(self.sharding, ShardingFlags):
            sharding = self.sharding.to_dict()
        else:
            sharding = self.sharding

        top_k = self.top_k

        training: dict[str, Any] | Unset = UNSET
        if not isinstance(self.training, Unset):
            training = self.training.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "cluster": cluster,
                "model": model,
            }
        )
        if activations is not UNSET:
            field_dict["activations"] = activations
        if arrangement is not UNSET:
            field_dict["arrangement"] = arrangement
        if estimator is not UNSET:
            field_dict["estimator"] = estimator
        if expert_tensor is not UNSET:
            field_dict["expert_tensor"] = expert_tensor
        if levers is not UNSET:
            field_dict["levers"] = levers
        if objective is not UNSET:
            field_dict["objective"] = objective
        if parallelism is not UNSET:
            field_dict["parallelism"] = parallelism
        if precision is not UNSET:
            field_dict["precision"] = precision
        if precision_spec is not UNSET:
            field_dict["precision_spec"] = precision_spec
        if restrict is not UNSET:
            field_dict["restrict"] = restrict
        if sharding is not UNSET:
            field_dict["sharding"] = sharding
        if top_k is not UNSET:
            field_dict["top_k"] = top_k
        if training is not UNSET:
            field_dict["training"] = training

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.activations import Activations  # noqa: PLC0415
        from ..models.estimator_options import EstimatorOptions  # noqa: PLC0415
        from ..models.levers import Levers  # noqa: PLC0415
        from ..models.model_spec import ModelSpec  # noqa: PLC0415
        from ..models.parallelism import Parallelism  # noqa: PLC0415
        from ..models.precision_spec import PrecisionSpec  # noqa: PLC0415
        from ..models.search_cluster import SearchCluster  # noqa: PLC0415
        from ..models.search_restrict import SearchRestrict  # noqa: PLC0415
        from ..models.search_training import SearchTraining  # noqa: PLC0415
        from ..models.sharding_flags import ShardingFlags  # noqa: PLC0415

        d = dict(src_dict)
        cluster = SearchCluster.from_dict(d.pop("cluster"))

        model = ModelSpec.from_dict(d.pop("model"))

        _activations = d.pop("activations", UNSET)
        activations: Activations | Unset
        if isinstance(_activations, Unset):
            activations = UNSET
        else:
            activations = Activations.from_dict(_activations)

        def _parse_arrangement(data: object) -> ArrangementName | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                arrangement_type_0 = ArrangementName(data)

                return arrangement_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ArrangementName | None | Unset, data)

        arrangement = _parse_arrangement(d.pop("arrangement", UNSET))

        _estimator = d.pop("estimator", UNSET)
        estimator: EstimatorOptions | Unset
        if isinstance(_estimator, Unset):
            estimator = UNSET
        else:
            estimator = EstimatorOptions.from_dict(_estimator)

        def _parse_expert_tensor(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expert_tensor = _parse_expert_tensor(d.pop("expert_tensor", UNSET))

        _levers = d.pop("levers", UNSET)
        levers: Levers | Unset
        if isinstance(_levers, Unset):
            levers = UNSET
        else:
            levers = Levers.from_dict(_levers)

        _objective = d.pop("objective", UNSET)
        objective: SearchObjective | Unset
        if isinstance(_objective, Unset):
            objective = UNSET
        else:
            objective = SearchObjective(_objective)

        _parallelism = d.pop("parallelism", UNSET)
        parallelism: Parallelism | Unset
        if isinstance(_parallelism, Unset):
            parallelism = UNSET
        else:
            parallelism = Parallelism.from_dict(_parallelism)

        def _parse_precision(data: object) -> None | PrecisionPresetName | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                precision_type_0 = PrecisionPresetName(data)

                return precision_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PrecisionPresetName | Unset, data)

        precision = _parse_precision(d.pop("precision", UNSET))

        def _parse_precision_spec(data: object) -> None | PrecisionSpec | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                precision_spec_type_0 = PrecisionSpec.from_dict(data)

                return precision_spec_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PrecisionSpec | Unset, data)

        precision_spec = _parse_precision_spec(d.pop("precision_spec", UNSET))

        _restrict = d.pop("restrict", UNSET)
        restrict: SearchRestrict | Unset
        if isinstance(_restrict, Unset):
            restrict = UNSET
        else:
            restrict = SearchRestrict.from_dict(_restrict)

        def _parse_sharding(data: object) -> None | ShardingFlags | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                sharding_type_0 = ShardingFlags.from_dict(data)

                return sharding_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ShardingFlags | Unset, data)

        sharding = _parse_sharding(d.pop("sharding", UNSET))

        top_k = d.pop("top_k", UNSET)

        _training = d.pop("training", UNSET)
        training: SearchTraining | Unset
        if isinstance(_training, Unset):
            training = UNSET
        else:
            training = SearchTraining.from_dict(_training)

        search_request = cls(
            cluster=cluster,
            model=model,
            activations=activations,
            arrangement=arrangement,
            estimator=estimator,
            expert_tensor=expert_tensor,
            levers=levers,
            objective=objective,
            parallelism=parallelism,
            precision=precision,
            precision_spec=precision_spec,
            restrict=restrict,
            sharding=sharding,
            top_k=top_k,
            training=training,
        )

        return search_request
