"""RFC 9457 problem details: the body of every error response."""

from enum import StrEnum

from pydantic import BaseModel, Field

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_TYPE_BASE = "https://zeroplan.dev/problems/"


class ProblemCode(StrEnum):
    """The closed list of error codes; a caller may switch on these."""

    malformed_json = "malformed_json"
    malformed_request = "malformed_request"
    host_not_allowed = "host_not_allowed"
    too_many_connections = "too_many_connections"
    validation_error = "validation_error"
    non_monotone_sharding = "non_monotone_sharding"
    invalid_cluster_shape = "invalid_cluster_shape"
    empty_grid = "empty_grid"
    grid_too_large = "grid_too_large"
    missing_architecture = "missing_architecture"
    sweep_too_large = "sweep_too_large"
    search_too_large = "search_too_large"
    sweep_overflow = "sweep_overflow"
    unauthorized = "unauthorized"
    not_found = "not_found"
    method_not_allowed = "method_not_allowed"
    not_acceptable = "not_acceptable"
    payload_too_large = "payload_too_large"
    unsupported_media_type = "unsupported_media_type"
    too_many_requests = "too_many_requests"
    response_too_large = "response_too_large"
    answer_out_of_range = "answer_out_of_range"
    deadline_exceeded = "deadline_exceeded"
    work_cancelled = "work_cancelled"
    work_out_of_memory = "work_out_of_memory"
    request_headers_too_large = "request_headers_too_large"
    simulation_unavailable = "simulation_unavailable"
    internal_error = "internal_error"


class FieldError(BaseModel):
    detail: str = Field(description="What is wrong with the field, naming it.")
    pointer: str = Field(description="JSON pointer (RFC 6901) into the request body.")


class Problem(BaseModel):
    type: str = Field(description="URI that identifies the problem type.")
    title: str = Field(description="Short, human-readable summary of the problem type.")
    status: int = Field(description="The HTTP status code.")
    detail: str = Field(description="Explanation specific to this occurrence.")
    code: ProblemCode
    instance: str | None = Field(default=None, description="The request path.")
    request_id: str | None = Field(default=None, description="Find this request in the service's log.")
    errors: list[FieldError] | None = Field(
        default=None, description="Each invalid field, for validation problems: the first 20 at most."
    )
    error_count: int | None = Field(
        default=None,
        description="How many fields are invalid in all, for validation problems (errors lists 20 at most).",
    )
