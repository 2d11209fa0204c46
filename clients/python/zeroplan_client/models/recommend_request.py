from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.arrangement_name import ArrangementName
from ..models.precision_preset_name import PrecisionPresetName
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.activations import Activations
    from ..models.estimator_options import EstimatorOptions
    from ..models.fit_cluster import FitCluster
    from ..models.levers import Levers
    from ..models.model_spec import ModelSpec
    from ..models.parallelism import Parallelism
    from ..models.precision_spec import PrecisionSpec
    from ..models.sharding_flags import ShardingFlags
    from ..models.training import Training


T = TypeVar("T", bound="RecommendRequest")


@_attrs_define
class RecommendRequest:
    """
    Attributes:
        cluster (FitCluster): The card and the node; the world size is optional here: given (a /v1/plan body's own), it
            is the GPU
            count asked about.
        model (ModelSpec): The model: a preset, a Hugging Face config.json, a parameter count, or a transformer
            architecture.

            Architecture fields given beside a preset or an hf_config override theirs. Rules the schema
            cannot state: give a preset, an hf_config, a parameter_count or all five of layers,
            hidden_size, attention_heads, ffn_hidden_size and vocab_size; hidden_size is a multiple of
            attention_heads, and attention_heads a multiple of kv_heads.
        activations (Activations | Unset): Activation memory: replicated on every GPU; sharding never touches it.
        arrangement (ArrangementName | None | Unset): The arrangement the job runs now (a /v1/plan body's own): the step
            with it and the request's levers is marked `asked`; where no candidate is that job, it is a step of its own
            ('the job as asked: ...'). Every candidate is listed either way.
        estimator (EstimatorOptions | Unset): Inputs of DeepSpeed's estimators (memory.framework_estimate) that a plan
            does not otherwise carry.
        levers (Levers | Unset): The levers: offload (ZeRO-Offload), overlap, recomputation, MXFP8.
        max_gpus (int | Unset): The most GPUs the team can have. Default: 1024.
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
        sharding (None | ShardingFlags | Unset): The three sharding flags of the job as it runs now, instead of a name.
        training (None | Training | Unset): Training shape; default 1 x 2048 tokens, one micro-batch, the efficiency
            model's compute time.
    """

    cluster: FitCluster
    model: ModelSpec
    activations: Activations | Unset = UNSET
    arrangement: ArrangementName | None | Unset = UNSET
    estimator: EstimatorOptions | Unset = UNSET
    levers: Levers | Unset = UNSET
    max_gpus: int | Unset = 1024
    parallelism: Parallelism | Unset = UNSET
    precision: None | PrecisionPresetName | Unset = UNSET
    precision_spec: None | PrecisionSpec | Unset = UNSET
    sharding: None | ShardingFlags | Unset = UNSET
    training: None | Training | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.precision_spec import PrecisionSpec  # noqa: PLC0415
        from ..models.sharding_flags import ShardingFlags  # noqa: PLC0415
        from ..models.training import Training  # noqa: PLC0415

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

        levers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.levers, Unset):
            levers = self.levers.to_dict()

        max_gpus = self.max_gpus

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

        sharding: dict[str, Any] | None | Unset
        if isinstance(self.sharding, Unset):
            sharding = UNSET
        elif isinstance(self.sharding, ShardingFlags):
            sharding = self.sharding.to_dict()
        else:
            sharding = self.sharding

        training: dict[str, Any] | None | Unset
        if isinstance(self.training, Unset):
            training = UNSET
        elif isinstance(self.training, Training):
            training = self.training.to_dict()
        else:
            training = self.training

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
        if levers is not UNSET:
            field_dict["levers"] = levers
        if max_gpus is not UNSET:
            field_dict["max_gpus"] = max_gpus
        if parallelism is not UNSET:
            field_dict["parallelism"] = parallelism
        if precision is not UNSET:
            field_dict["precision"] = precision
        if precision_spec is not UNSET:
            field_dict["precision_spec"] = precision_spec
        if sharding is not UNSET:
            field_dict["sharding"] = sharding
        if training is not UNSET:
            field_dict["training"] = training

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.activations import Activations  # noqa: PLC0415
        from ..models.estimator_options import EstimatorOptions  # noqa: PLC0415
        from ..models.fit_cluster import FitCluster  # noqa: PLC0415
        from ..models.levers import Levers  # noqa: PLC0415
        from ..models.model_spec import ModelSpec  # noqa: PLC0415
        from ..models.parallelism import Parallelism  # noqa: PLC0415
        from ..models.precision_spec import PrecisionSpec  # noqa: PLC0415
        from ..models.sharding_flags import ShardingFlags  # noqa: PLC0415
        from ..models.training import Training  # noqa: PLC0415

        d = dict(src_dict)
        cluster = FitCluster.from_dict(d.pop("cluster"))

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

        _levers = d.pop("levers", UNSET)
        levers: Levers | Unset
        if isinstance(_levers, Unset):
            levers = UNSET
        else:
            levers = Levers.from_dict(_levers)

        max_gpus = d.pop("max_gpus", UNSET)

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

        def _parse_training(data: object) -> None | Training | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                training_type_0 = Training.from_dict(data)

                return training_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Training | Unset, data)

        training = _parse_training(d.pop("training", UNSET))

        recommend_request = cls(
            cluster=cluster,
            model=model,
            activations=activations,
            arrangement=arrangement,
            estimator=estimator,
            levers=levers,
            max_gpus=max_gpus,
            parallelism=parallelism,
            precision=precision,
            precision_spec=precision_spec,
            sharding=sharding,
            training=training,
        )

        return recommend_request
