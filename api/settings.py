"""Service settings, read once from ZEROPLAN_* environment variables and injected."""

from pydantic_settings import BaseSettings, SettingsConfigDict

from models.fit import MAX_GRID_POINTS


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ZEROPLAN_", frozen=True)

    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "info"
    max_fit_grid_points: int = MAX_GRID_POINTS

    # The gloo simulation (service/sim): limits passed into the core as arguments.
    sim_max_world_size: int = 8
    sim_max_weights: int = 4_000_000
    sim_max_steps: int = 100
    sim_max_concurrent_jobs: int = 2
    sim_timeout_s: float = 120.0
    sim_collective_timeout_s: float = 10.0
    sim_db_path: str = "zeroplan-simulations.sqlite3"
