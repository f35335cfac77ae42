"""Settings: the only reader of ``os.environ`` (style.md §9)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    """How the service runs. Everything else receives this object."""

    database_url: str = ""  # empty: SQLite file under data_dir
    redis_url: str = ""  # empty: projections run inline
    queue: str = "tongiaki"  # the rq queue of projection jobs
    sweep_every: float = 30.0  # seconds between a worker's sweeps for lagging games
    data_dir: Path = Path("var")
    testing: bool = False  # allows fixed tile orders (never in production)
    snapshot_every: int = 100
    host: str = "127.0.0.1"
    port: int = 8000

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``DATABASE_URL``, ``REDIS_URL``, ``TONGIAKI_*`` variables."""
        e = os.environ if env is None else env
        return cls(
            database_url=e.get("DATABASE_URL", ""),
            redis_url=e.get("REDIS_URL", ""),
            queue=e.get("TONGIAKI_QUEUE", "tongiaki"),
            sweep_every=float(e.get("TONGIAKI_SWEEP_EVERY", "30")),
            data_dir=Path(e.get("TONGIAKI_DATA_DIR", "var")),
            testing=e.get("TONGIAKI_TESTING", "") == "1",
            snapshot_every=int(e.get("TONGIAKI_SNAPSHOT_EVERY", "100")),
            host=e.get("TONGIAKI_HOST", "127.0.0.1"),
            port=int(e.get("TONGIAKI_PORT", "8000")),
        )

    @property
    def sqlite_path(self) -> Path:
        """The embedded database file."""
        return self.data_dir / "tongiaki.db"

    @property
    def uses_postgres(self) -> bool:
        """Whether ``database_url`` names PostgreSQL."""
        return self.database_url.startswith(("postgresql://", "postgres://"))
