"""The locks agree with pyproject.toml, and this environment is what they say.

``requirements/test.lock`` and ``requirements/service.lock`` are what the README,
CI and ``deploy/`` install (``requirements/relock.py`` makes them). A range edited
in ``pyproject.toml`` without relocking, a lock edited by hand, or an environment
installed some other way fails here.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCKS = ROOT / "requirements"
ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)(?:\s*;\s*([^\\]+?))?\s*\\?$")


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    marker: str | None
    hashes: int

    def applies(self) -> bool:
        return self.marker is None or Marker(self.marker).evaluate()


def pins(lock: str) -> list[Pin]:
    """Every entry of a lock: name, version, marker, and how many hashes it has."""
    found: list[Pin] = []
    lines = (LOCKS / lock).read_text().splitlines()
    for i, line in enumerate(lines):
        m = ENTRY.match(line)
        if not m:
            continue
        hashes = 0
        for follow in lines[i + 1 :]:
            if not follow.startswith("    --hash=sha256:"):
                break
            hashes += 1
        found.append(Pin(canonicalize_name(m[1]), m[2], m[3], hashes))
    return found


def here(lock: str) -> dict[str, Pin]:
    """The entries of a lock that apply to this Python and platform, by name."""
    return {p.name: p for p in pins(lock) if p.applies()}


def project() -> dict[str, list[Requirement]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {
        "runtime": [Requirement(r) for r in data["project"]["dependencies"]],
        "test": [Requirement(r) for r in data["project"]["optional-dependencies"]["test"]],
        "build": [Requirement(r) for r in data["build-system"]["requires"]],
    }


def test_every_requirement_of_pyproject_is_locked_within_its_range():
    wanted = project()
    test, service = here("test.lock"), here("service.lock")
    for group, requirements in wanted.items():
        for req in requirements:
            if req.marker is not None and not req.marker.evaluate():
                continue
            name = canonicalize_name(req.name)
            assert name in test, f"{req} ({group}) is not in requirements/test.lock: relock"
            assert req.specifier.contains(test[name].version, prereleases=True), (
                f"requirements/test.lock has {name} {test[name].version}, outside {req}"
                " (pyproject.toml): run requirements/relock.py"
            )
            if group in ("runtime", "build"):
                assert name in service, f"{req} is not in requirements/service.lock: relock"


def test_the_service_ships_the_versions_it_was_tested_with():
    test, service = here("test.lock"), here("service.lock")
    for name, pin in service.items():
        assert name in test, f"{name} is in the service lock only"
        assert test[name].version == pin.version, (name, pin.version, test[name].version)


def test_every_locked_file_has_its_hash():
    for lock in ("test.lock", "service.lock"):
        for pin in pins(lock):
            assert pin.hashes >= 1, f"{pin.name} in {lock} has no hash"
        header = (LOCKS / lock).read_text().splitlines()[1]
        assert "requirements/relock.py" in header, f"{lock} was not made by relock.py"


def test_this_environment_is_the_test_lock():
    """What runs the suite is what the lock says (the README installs it so)."""
    off = []
    for name, pin in here("test.lock").items():
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            off.append(f"{name}: not installed (lock: {pin.version})")
            continue
        if Version(installed) != Version(pin.version):
            off.append(f"{name}: {installed} installed, {pin.version} locked")
    assert not off, "install from requirements/test.lock (README):\n" + "\n".join(off)
