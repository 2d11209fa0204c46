from enum import StrEnum


class ProblemCode(StrEnum):
    ANSWER_OUT_OF_RANGE = "answer_out_of_range"
    DEADLINE_EXCEEDED = "deadline_exceeded"
    EMPTY_GRID = "empty_grid"
    GRID_TOO_LARGE = "grid_too_large"
    HOST_NOT_ALLOWED = "host_not_allowed"
    INTERNAL_ERROR = "internal_error"
    INVALID_CLUSTER_SHAPE = "invalid_cluster_shape"
    MALFORMED_JSON = "malformed_json"
    MALFORMED_REQUEST = "malformed_request"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    MISSING_ARCHITECTURE = "missing_architecture"
    NON_MONOTONE_SHARDING = "non_monotone_sharding"
    NOT_ACCEPTABLE = "not_acceptable"
    NOT_FOUND = "not_found"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    REQUEST_HEADERS_TOO_LARGE = "request_headers_too_large"
    RESPONSE_TOO_LARGE = "response_too_large"
    SEARCH_TOO_LARGE = "search_too_large"
    SIMULATION_UNAVAILABLE = "simulation_unavailable"
    SWEEP_OVERFLOW = "sweep_overflow"
    SWEEP_TOO_LARGE = "sweep_too_large"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    TOO_MANY_REQUESTS = "too_many_requests"
    UNAUTHORIZED = "unauthorized"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    VALIDATION_ERROR = "validation_error"
    WORK_CANCELLED = "work_cancelled"
    WORK_OUT_OF_MEMORY = "work_out_of_memory"

    def __str__(self) -> str:
        return str(self.value)
