"""Service settings, read once from ZEROPLAN_* environment variables and injected."""

from pydantic_settings import BaseSettings, SettingsConfigDict

from models.fit import MAX_GRID_POINTS


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ZEROPLAN_", frozen=True)

    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "info"
    max_fit_grid_points: int = MAX_GRID_POINTS
