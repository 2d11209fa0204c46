"""Service settings, read once from ZEROPLAN_* environment variables and injected."""

from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from models.fit import MAX_GRID_POINTS
from service.sim.job_limits import SizeLimits

LogLevel = Literal["critical", "error", "warning", "info", "debug"]

MIB_BYTES = 2**20


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ZEROPLAN_", frozen=True)

    # Serving: where uvicorn listens and how many worker processes it runs.
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    workers: int = Field(default=1, ge=1, le=64)
    log_level: LogLevel = "info"
    access_log: bool = Field(default=True, description="One JSON line per request on stderr.")

    # Limits and auth of the HTTP shell.
    max_body_bytes: int = Field(default=MIB_BYTES, ge=1, description="Larger request bodies get a 413.")
    api_token: SecretStr | None = Field(
        default=None, description="When set, every /v1 route needs `Authorization: Bearer <token>`."
    )

    allowed_hosts: str | None = Field(
        default=None,
        description="Host header names served, comma-separated (`*`: any); others get a 400. Unset: the loopback "
        "names and ZEROPLAN_HOST (bound to 0.0.0.0 or ::, also the address a connection arrives on).",
    )
    metrics_token: SecretStr | None = Field(
        default=None, description="When set, /metrics needs `Authorization: Bearer <token>`."
    )
    max_header_bytes: int = Field(
        default=64 * 1024, ge=1024, description="Request line and headers larger than this get a 431."
    )

    # Connections: read timeouts and a cap below the file limit (api.protocol, under `zeroplan serve`).
    head_timeout_s: float = Field(
        default=10.0,
        gt=0,
        le=3600,
        description="A request's line and headers must arrive within this of the connection opening or of the "
        "previous answer; past it the connection is closed.",
    )
    body_timeout_s: float = Field(
        default=60.0, gt=0, le=3600, description="A request's body must arrive within this of its head."
    )
    keep_alive_timeout_s: float = Field(
        default=5.0, gt=0, le=3600, description="A connection quiet this long after an answer is closed."
    )
    max_connections: int = Field(
        default=1000,
        ge=1,
        description="Open connections per process (never more than the open-file limit less 64); past it the "
        "longest-idle connection is closed, or the newcomer gets a 503 when none is idle.",
    )

    # Bounded work: what one request may cost, and how many heavy ones run at once.
    max_fit_grid_points: int = MAX_GRID_POINTS
    max_sweep_cells: int = Field(default=1_000_000, ge=1, description="Largest cartesian product /v1/sweep computes.")
    max_sweep_evaluations: int = Field(
        default=4096,
        ge=1,
        description="Most core evaluations one /v1/sweep may need: one per combination of its categorical axes, "
        "plus its overflow checks.",
    )
    max_search_layouts: int = Field(
        default=100_000_000,
        ge=1,
        description="Most combinations of layouts one /v1/search may consider (world sizes x degrees x schedules x "
        "micro-batch sizes x arrangements x levers whose tensor, pipeline and context degrees divide the world size, "
        "before the other rules; the valid ones are bounded and pruned, not all evaluated); more is a 422.",
    )
    max_response_bytes: int = Field(
        default=128 * MIB_BYTES, ge=1024, description="Largest answer a sweep may encode; larger ones get a 422."
    )
    max_concurrent_heavy_requests: int = Field(
        default=4,
        ge=1,
        description="Sweeps, fit, recommend and limits misses and figures running at once; more get a 429.",
    )
    heavy_queue_wait_s: float = Field(
        default=2.0,
        ge=0,
        le=60,
        description="How long a heavy request waits for a slot before its 429 (0: refused at once).",
    )
    heavy_work_processes: bool = Field(
        default=True,
        description="Sweeps run in worker processes (as many as max_concurrent_heavy_requests, started on demand), "
        "so their CPU time leaves the API process's interpreter lock to the event loop; false: in its threads.",
    )
    work_deadline_s: float = Field(
        default=30.0, gt=0, le=3600, description="Wall-clock limit of one heavy request's work; past it, a 503."
    )
    shutdown_grace_s: float = Field(
        default=10.0,
        ge=0,
        le=3600,
        description="At shutdown (SIGTERM), how long requests in flight and heavy work may take to end; past it "
        "connections are closed and worker processes killed.",
    )
    worker_memory_bytes: int = Field(
        default=1024 * MIB_BYTES,
        ge=0,
        description="Address space each heavy-work process may add to what it holds once started (RLIMIT_AS); "
        "past it the work fails with a 503; 0: unbounded.",
    )
    answer_cache_bytes: int = Field(
        default=64 * MIB_BYTES,
        ge=0,
        description="Bytes of serialised plan, fit, recommend and limits answers kept; 0: off.",
    )

    # The gloo simulation (service/sim): limits passed into the core as arguments.
    sim_max_world_size: int = 8
    sim_max_weights: int = 4_000_000
    sim_max_steps: int = 100
    sim_max_concurrent_jobs: int = Field(
        default=2, ge=0, description="Simulations running at once, counted in the job store across replicas."
    )
    sim_max_queued_jobs: int = Field(default=16, ge=0, description="Simulations waiting beyond those; more: 429.")
    sim_timeout_s: float = Field(default=120.0, gt=0)
    sim_collective_timeout_s: float = Field(default=10.0, gt=0)
    sim_db_path: str = "zeroplan-simulations.sqlite3"

    # The job store and who runs the jobs.
    database_url: str | None = Field(
        default=None,
        description="sqlite:///PATH or postgresql://...; unset: SQLite at sim_db_path. Shared by replicas and workers.",
    )
    sim_runner: Literal["api", "worker"] = Field(
        default="api",
        description="api: each API process runs simulations; worker: only `zeroplan worker` processes do.",
    )
    sim_lease_s: float = Field(
        default=30.0, ge=1, description="A running job's lease; another process may act on it once expired."
    )
    sim_shutdown_grace_s: float = Field(
        default=10.0, ge=0, description="At shutdown, how long running jobs may finish before they are handed back."
    )
    store_timeout_s: float = Field(
        default=2.0, gt=0, description="Limit of one job-store read by /readyz and /metrics."
    )

    @property
    def job_store_url(self) -> str:
        return self.database_url or f"sqlite:///{self.sim_db_path}"

    @property
    def sim_size_limits(self) -> SizeLimits:
        return SizeLimits(self.sim_max_world_size, self.sim_max_weights, self.sim_max_steps)

    @field_validator("log_level", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @field_validator("api_token", "metrics_token", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        return None if value == "" else value
