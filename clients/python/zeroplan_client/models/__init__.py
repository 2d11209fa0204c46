"""Contains all the data models used in inputs/outputs"""

from .activation_component import ActivationComponent
from .activation_memory import ActivationMemory
from .activation_model import ActivationModel
from .activations import Activations
from .admission_request import AdmissionRequest
from .admission_request_kind import AdmissionRequestKind
from .admission_request_object_type_0 import AdmissionRequestObjectType0
from .admission_response import AdmissionResponse
from .admission_review import AdmissionReview
from .admission_review_response import AdmissionReviewResponse
from .admission_status import AdmissionStatus
from .arrangement_fit import ArrangementFit
from .arrangement_limits import ArrangementLimits
from .arrangement_name import ArrangementName
from .attention_backend import AttentionBackend
from .axis_bounds import AxisBounds
from .checkpoint import Checkpoint
from .checkpoint_observation import CheckpointObservation
from .checkpoint_report import CheckpointReport
from .checkpoint_save import CheckpointSave
from .cluster import Cluster
from .collective import Collective
from .collective_name import CollectiveName
from .context_attention import ContextAttention
from .cross_entropy import CrossEntropy
from .dropped_rank_fault import DroppedRankFault
from .dropped_rank_fault_mode import DroppedRankFaultMode
from .dtype import Dtype
from .estimator_options import EstimatorOptions
from .failure_observation import FailureObservation
from .failures import Failures
from .family_rule import FamilyRule
from .field_error import FieldError
from .figure_format import FigureFormat
from .figure_name import FigureName
from .figure_request import FigureRequest
from .fit_cell import FitCell
from .fit_cluster import FitCluster
from .fit_request import FitRequest
from .fit_response import FitResponse
from .fp_8_recipe import Fp8Recipe
from .framework_estimate import FrameworkEstimate
from .gpu_count_grid import GpuCountGrid
from .gpu_generation import GpuGeneration
from .gpu_preset_info import GpuPresetInfo
from .gpu_preset_name import GpuPresetName
from .group_placement import GroupPlacement
from .health import Health
from .levers import Levers
from .limits_request import LimitsRequest
from .limits_response import LimitsResponse
from .link import Link
from .link_preset import LinkPreset
from .link_preset_name import LinkPresetName
from .link_spec import LinkSpec
from .measured_bytes import MeasuredBytes
from .memory import Memory
from .mla_spec import MlaSpec
from .mlp_kind import MlpKind
from .model_preset import ModelPreset
from .model_preset_name import ModelPresetName
from .model_spec import ModelSpec
from .model_spec_hf_config_type_0 import ModelSpecHfConfigType0
from .moe_spec import MoeSpec
from .moe_token_dispatcher import MoeTokenDispatcher
from .mxfp_8_recipe import Mxfp8Recipe
from .normalization import Normalization
from .omitted_step import OmittedStep
from .open_question import OpenQuestion
from .optimizer_kind import OptimizerKind
from .parallel_group import ParallelGroup
from .parallelism import Parallelism
from .parallelism_echo import ParallelismEcho
from .partial_checkpoint_fault import PartialCheckpointFault
from .pipeline_schedule import PipelineSchedule
from .pipeline_split import PipelineSplit
from .plan_request import PlanRequest
from .plan_response import PlanResponse
from .precision_preset_info import PrecisionPresetInfo
from .precision_preset_info_stages import PrecisionPresetInfoStages
from .precision_preset_name import PrecisionPresetName
from .precision_spec import PrecisionSpec
from .presets_response import PresetsResponse
from .problem import Problem
from .problem_code import ProblemCode
from .rank_failure import RankFailure
from .readiness import Readiness
from .readiness_job_store import ReadinessJobStore
from .readiness_status import ReadinessStatus
from .recommend_request import RecommendRequest
from .recommend_response import RecommendResponse
from .recommend_step import RecommendStep
from .recompute import Recompute
from .resolved_arrangement import ResolvedArrangement
from .scale_up_link import ScaleUpLink
from .search_cluster import SearchCluster
from .search_layout import SearchLayout
from .search_layout_equivalents_item import SearchLayoutEquivalentsItem
from .search_objective import SearchObjective
from .search_request import SearchRequest
from .search_response import SearchResponse
from .search_response_candidates import SearchResponseCandidates
from .search_response_pruned import SearchResponsePruned
from .search_response_skipped import SearchResponseSkipped
from .search_restrict import SearchRestrict
from .search_training import SearchTraining
from .sharding_flags import ShardingFlags
from .sim_arrangement import SimArrangement
from .sim_builtin_reduce_scatter import SimBuiltinReduceScatter
from .sim_check import SimCheck
from .sim_collective import SimCollective
from .sim_faults import SimFaults
from .sim_gradient_check import SimGradientCheck
from .sim_learning import SimLearning
from .sim_memory import SimMemory
from .sim_rank_process import SimRankProcess
from .sim_transient import SimTransient
from .simulation_engine import SimulationEngine
from .simulation_job import SimulationJob
from .simulation_precision import SimulationPrecision
from .simulation_report import SimulationReport
from .simulation_report_verdict_type_0 import SimulationReportVerdictType0
from .simulation_request import SimulationRequest
from .simulation_status import SimulationStatus
from .slow_rank_fault import SlowRankFault
from .slow_rank_observation import SlowRankObservation
from .stage_memory import StageMemory
from .state_bytes import StateBytes
from .state_class import StateClass
from .state_location import StateLocation
from .step_cost import StepCost
from .step_levers import StepLevers
from .storage_preset_name import StoragePresetName
from .sweep_axes import SweepAxes
from .sweep_request import SweepRequest
from .sweep_response import SweepResponse
from .sweep_response_columns import SweepResponseColumns
from .sweep_sort_key import SweepSortKey
from .time import Time
from .torch_sim_arrangement import TorchSimArrangement
from .torch_sim_arrangement_tracker_category_peak_bytes_item import TorchSimArrangementTrackerCategoryPeakBytesItem
from .torch_sim_arrangement_tracker_peak_bytes_item import TorchSimArrangementTrackerPeakBytesItem
from .torch_sim_collective import TorchSimCollective
from .torch_sim_convention import TorchSimConvention
from .torch_sim_convention_bytes_by_class import TorchSimConventionBytesByClass
from .torch_sim_cuda import TorchSimCuda
from .torch_sim_cuda_plan import TorchSimCudaPlan
from .torch_sim_layout import TorchSimLayout
from .torch_sim_learning import TorchSimLearning
from .torch_sim_memory import TorchSimMemory
from .torch_sim_memory_state import TorchSimMemoryState
from .torch_sim_model import TorchSimModel
from .torch_sim_plan_comparison import TorchSimPlanComparison
from .torch_sim_plan_stage import TorchSimPlanStage
from .torch_sim_traffic import TorchSimTraffic
from .torch_sim_traffic_engine_bytes_per_step_by_group_type_0_item import (
    TorchSimTrafficEngineBytesPerStepByGroupType0Item,
)
from .torch_sim_traffic_engine_layout_plan_bytes_per_step import TorchSimTrafficEngineLayoutPlanBytesPerStep
from .torch_sim_traffic_model_parallel_predicted_bytes_per_step_type_0_item import (
    TorchSimTrafficModelParallelPredictedBytesPerStepType0Item,
)
from .torch_sim_traffic_plan_bytes_per_step import TorchSimTrafficPlanBytesPerStep
from .torch_sim_traffic_plan_bytes_per_step_by_rank_type_0_item import TorchSimTrafficPlanBytesPerStepByRankType0Item
from .torch_sim_wire import TorchSimWire
from .torch_simulation_report import TorchSimulationReport
from .torch_simulation_report_verdict_type_0 import TorchSimulationReportVerdictType0
from .traffic import Traffic
from .training import Training
from .zero_plus_plus import ZeroPlusPlus

__all__ = (
    "ActivationComponent",
    "ActivationMemory",
    "ActivationModel",
    "Activations",
    "AdmissionRequest",
    "AdmissionRequestKind",
    "AdmissionRequestObjectType0",
    "AdmissionResponse",
    "AdmissionReview",
    "AdmissionReviewResponse",
    "AdmissionStatus",
    "ArrangementFit",
    "ArrangementLimits",
    "ArrangementName",
    "AttentionBackend",
    "AxisBounds",
    "Checkpoint",
    "CheckpointObservation",
    "CheckpointReport",
    "CheckpointSave",
    "Cluster",
    "Collective",
    "CollectiveName",
    "ContextAttention",
    "CrossEntropy",
    "DroppedRankFault",
    "DroppedRankFaultMode",
    "Dtype",
    "EstimatorOptions",
    "FailureObservation",
    "Failures",
    "FamilyRule",
    "FieldError",
    "FigureFormat",
    "FigureName",
    "FigureRequest",
    "FitCell",
    "FitCluster",
    "FitRequest",
    "FitResponse",
    "Fp8Recipe",
    "FrameworkEstimate",
    "GpuCountGrid",
    "GpuGeneration",
    "GpuPresetInfo",
    "GpuPresetName",
    "GroupPlacement",
    "Health",
    "Levers",
    "LimitsRequest",
    "LimitsResponse",
    "Link",
    "LinkPreset",
    "LinkPresetName",
    "LinkSpec",
    "MeasuredBytes",
    "Memory",
    "MlaSpec",
    "MlpKind",
    "ModelPreset",
    "ModelPresetName",
    "ModelSpec",
    "ModelSpecHfConfigType0",
    "MoeSpec",
    "MoeTokenDispatcher",
    "Mxfp8Recipe",
    "Normalization",
    "OmittedStep",
    "OpenQuestion",
    "OptimizerKind",
    "ParallelGroup",
    "Parallelism",
    "ParallelismEcho",
    "PartialCheckpointFault",
    "PipelineSchedule",
    "PipelineSplit",
    "PlanRequest",
    "PlanResponse",
    "PrecisionPresetInfo",
    "PrecisionPresetInfoStages",
    "PrecisionPresetName",
    "PrecisionSpec",
    "PresetsResponse",
    "Problem",
    "ProblemCode",
    "RankFailure",
    "Readiness",
    "ReadinessJobStore",
    "ReadinessStatus",
    "RecommendRequest",
    "RecommendResponse",
    "RecommendStep",
    "Recompute",
    "ResolvedArrangement",
    "ScaleUpLink",
    "SearchCluster",
    "SearchLayout",
    "SearchLayoutEquivalentsItem",
    "SearchObjective",
    "SearchRequest",
    "SearchResponse",
    "SearchResponseCandidates",
    "SearchResponsePruned",
    "SearchResponseSkipped",
    "SearchRestrict",
    "SearchTraining",
    "ShardingFlags",
    "SimArrangement",
    "SimBuiltinReduceScatter",
    "SimCheck",
    "SimCollective",
    "SimFaults",
    "SimGradientCheck",
    "SimLearning",
    "SimMemory",
    "SimRankProcess",
    "SimTransient",
    "SimulationEngine",
    "SimulationJob",
    "SimulationPrecision",
    "SimulationReport",
    "SimulationReportVerdictType0",
    "SimulationRequest",
    "SimulationStatus",
    "SlowRankFault",
    "SlowRankObservation",
    "StageMemory",
    "StateBytes",
    "StateClass",
    "StateLocation",
    "StepCost",
    "StepLevers",
    "StoragePresetName",
    "SweepAxes",
    "SweepRequest",
    "SweepResponse",
    "SweepResponseColumns",
    "SweepSortKey",
    "Time",
    "TorchSimArrangement",
    "TorchSimArrangementTrackerCategoryPeakBytesItem",
    "TorchSimArrangementTrackerPeakBytesItem",
    "TorchSimCollective",
    "TorchSimConvention",
    "TorchSimConventionBytesByClass",
    "TorchSimCuda",
    "TorchSimCudaPlan",
    "TorchSimLayout",
    "TorchSimLearning",
    "TorchSimMemory",
    "TorchSimMemoryState",
    "TorchSimModel",
    "TorchSimPlanComparison",
    "TorchSimPlanStage",
    "TorchSimTraffic",
    "TorchSimTrafficEngineBytesPerStepByGroupType0Item",
    "TorchSimTrafficEngineLayoutPlanBytesPerStep",
    "TorchSimTrafficModelParallelPredictedBytesPerStepType0Item",
    "TorchSimTrafficPlanBytesPerStep",
    "TorchSimTrafficPlanBytesPerStepByRankType0Item",
    "TorchSimulationReport",
    "TorchSimulationReportVerdictType0",
    "TorchSimWire",
    "Traffic",
    "Training",
    "ZeroPlusPlus",
)
