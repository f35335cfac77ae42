"""Benchmark figures as JSON, so a run can be compared with a saved one (issue 34).

A benchmark collects each figure's samples (one per round, or one per run when it
measures once), its unit and which way is better, then writes them with ``--json``::

    figures = Figures("engine")
    figures.add("games_per_s", [118.2, 121.0, 119.5], "games/s")
    figures.add("p99_ms", [48.0], "ms", better="lower")
    figures.write(path)

The file also says what was measured where: the commit, the command line, the
machine (processor, cores, Python) and when. ``bench/compare.py`` reads two such
files (or folders of them) and shows each figure's change with its noise.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

FORMAT = "tongiaki-bench/1"
BETTER = ("higher", "lower")


class Figures:
    """The figures of one benchmark run."""

    def __init__(self, bench: str) -> None:
        self.bench = bench
        self.figures: dict[str, dict[str, Any]] = {}

    def add(
        self, name: str, samples: list[float] | float, unit: str, better: str = "higher"
    ) -> None:
        """Record ``name``'s samples (a single measure is a one-sample figure)."""
        values = [float(samples)] if isinstance(samples, (int, float)) else list(samples)
        if not values:
            raise ValueError(f"figure {name} has no samples")
        if better not in BETTER:
            raise ValueError(f"better must be one of {BETTER}, not {better!r}")
        self.figures[name] = {
            "unit": unit,
            "better": better,
            "samples": [float(v) for v in values],
            "median": statistics.median(values),
        }

    def document(self) -> dict[str, Any]:
        """The JSON document: the figures and where they were measured."""
        return {
            "format": FORMAT,
            "bench": self.bench,
            "commit": _commit(),
            "argv": sys.argv,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": machine(),
            "figures": self.figures,
        }

    def write(self, path: str | os.PathLike[str] | None) -> None:
        """Write the document to ``path`` (nothing when it is None: no ``--json``)."""
        if path is None:
            return
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(self.document(), indent=2) + "\n", encoding="utf-8")
        print(f"figures written to {path}")


def machine() -> dict[str, Any]:
    """What the figures depend on: processor, cores, memory, Python."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "processor": model or platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
        "load": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def _commit() -> str | None:
    """The checkout's commit (with ``+`` when it has uncommitted changes), if any."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
        )
    except OSError:
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")


def load(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The runs in ``path``: one figures file, or every ``*.json`` in a folder."""
    where = Path(path)
    files = sorted(where.glob("*.json")) if where.is_dir() else [where]
    runs = []
    for file in files:
        document = json.loads(file.read_text(encoding="utf-8"))
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise ValueError(f"{file} is not a figures file ({FORMAT})")
        runs.append(document)
    if not runs:
        raise ValueError(f"no figures files in {where}")
    return runs
