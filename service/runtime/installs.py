"""What is installed, against what a lock says (README, "Installs").

``requirements/service.lock`` and ``requirements/test.lock`` name every package
with its exact version, for every supported Python (entries may carry markers).
pip installs them hash-checked, but never takes away what a lock does not name,
and a ``git pull`` that changes a lock leaves an environment as it was. This
module reads a lock and says how the running environment differs from it:
packages missing, at another version, or there without the lock naming them
(``tongiaki check-install``; ``tests/test_lock.py``; ``deploy/stack.sh``).
"""

from __future__ import annotations

import importlib.metadata
import re
from dataclasses import dataclass, field
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[2]
SERVICE_LOCK = ROOT / "requirements" / "service.lock"
TEST_LOCK = ROOT / "requirements" / "test.lock"
ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)(?:\s*;\s*([^\\]+?))?\s*\\?$")
HASH = "    --hash=sha256:"
# never in a lock: the installer itself (it comes with the Python) and this package
# (installed from the checkout, --no-deps)
NOT_LOCKED = frozenset({"pip", "tongiaki"})


class LockError(Exception):
    """A lock that cannot be read."""


@dataclass(frozen=True)
class Pin:
    """One entry of a lock: a package at one version, where its marker holds."""

    name: str
    version: str
    marker: str | None
    hashes: int

    def applies(self) -> bool:
        """Whether the entry is for this Python and platform."""
        return self.marker is None or Marker(self.marker).evaluate()


@dataclass
class Difference:
    """How an environment differs from a lock (all empty: it is the lock)."""

    missing: list[str] = field(default_factory=list)
    different: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    def lines(self, *, extra: bool = True) -> list[str]:
        return self.missing + self.different + (self.extra if extra else [])


def read(path: Path) -> list[Pin]:
    """Every entry of the lock at ``path``, with how many file hashes it has."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise LockError(f"{path}: {exc.strerror or exc}") from exc
    found: list[Pin] = []
    for i, line in enumerate(lines):
        m = ENTRY.match(line)
        if not m:
            continue
        hashes = 0
        for follow in lines[i + 1 :]:
            if not follow.startswith(HASH):
                break
            hashes += 1
        found.append(Pin(canonicalize_name(m[1]), m[2], m[3], hashes))
    if not found:
        raise LockError(f"{path}: no package in it (is it a lock made by requirements/relock.py?)")
    return found


def applying(pins: list[Pin]) -> dict[str, Pin]:
    """The entries for this Python and platform, by (normalised) name."""
    return {p.name: p for p in pins if p.applies()}


def installed() -> dict[str, str]:
    """Every distribution this Python sees: normalised name → version."""
    found: dict[str, str] = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(canonicalize_name(name), dist.version)
    return found


def same_version(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def compare(lock: dict[str, Pin], present: dict[str, str]) -> Difference:
    """What of ``lock`` is missing or different in ``present``, and what is there besides."""
    diff = Difference()
    for name, pin in sorted(lock.items()):
        have = present.get(name)
        if have is None:
            diff.missing.append(f"{name}: not installed ({pin.version} locked)")
        elif not same_version(have, pin.version):
            diff.different.append(f"{name}: {have} installed, {pin.version} locked")
    for name in sorted(present.keys() - lock.keys() - NOT_LOCKED):
        diff.extra.append(f"{name}: {present[name]} installed, not in the lock")
    return diff


def check(path: Path) -> Difference:
    """This environment against the lock at ``path``."""
    return compare(applying(read(path)), installed())
