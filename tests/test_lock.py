"""The locks agree with pyproject.toml, and this environment is what they say.

``requirements/test.lock`` and ``requirements/service.lock`` are what the README,
CI and ``deploy/`` install (``requirements/relock.py`` makes them). A range edited
in ``pyproject.toml`` without relocking, a requirement removed without relocking,
a lock edited by hand, or an environment installed some other way fails here.

``TONGIAKI_TEST_LOCK`` and ``TONGIAKI_SERVICE_LOCK`` name other files to check
(``relock.py`` runs the suite on its new locks before it writes them).
"""

from __future__ import annotations

import importlib.metadata
import os
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from service.runtime import installs

ROOT = Path(__file__).resolve().parents[1]
LOCKS = {
    "test.lock": Path(os.environ.get("TONGIAKI_TEST_LOCK") or installs.TEST_LOCK),
    "service.lock": Path(os.environ.get("TONGIAKI_SERVICE_LOCK") or installs.SERVICE_LOCK),
}


def pins(lock: str) -> list[installs.Pin]:
    """Every entry of a lock (``test.lock`` or ``service.lock``)."""
    return installs.read(LOCKS[lock])


def here(lock: str) -> dict[str, installs.Pin]:
    """The entries of a lock that apply to this Python and platform, by name."""
    return installs.applying(pins(lock))


def project() -> dict[str, list[Requirement]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {
        "runtime": [Requirement(r) for r in data["project"]["dependencies"]],
        "test": [Requirement(r) for r in data["project"]["optional-dependencies"]["test"]],
        "build": [Requirement(r) for r in data["build-system"]["requires"]],
    }


def needed(roots: list[Requirement]) -> set[str]:
    """Every package ``roots`` need here, following the installed packages' own
    requirements (with their extras and markers)."""
    found: set[str] = set()
    todo = [(r, frozenset()) for r in roots if r.marker is None or r.marker.evaluate()]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        req, _ = todo.pop()
        name = canonicalize_name(req.name)
        key = (name, frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        found.add(name)
        try:
            requires = importlib.metadata.distribution(name).requires or []
        except importlib.metadata.PackageNotFoundError:
            continue  # test_this_environment_is_the_test_lock says so
        for text in requires:
            sub = Requirement(text)
            if sub.marker is None or any(
                sub.marker.evaluate({"extra": extra}) for extra in (req.extras or {""})
            ):
                todo.append((sub, frozenset()))
    return found


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


def test_nothing_is_locked_that_nothing_needs():
    """A requirement (or an extra) taken out of pyproject.toml without relocking."""
    wanted = project()
    for lock, roots in (
        ("test.lock", wanted["runtime"] + wanted["test"] + wanted["build"]),
        ("service.lock", wanted["runtime"] + wanted["build"]),
    ):
        stale = sorted(here(lock).keys() - needed(roots))
        assert not stale, f"requirements/{lock} holds {stale}, needed by nothing: relock"


def test_the_service_ships_the_versions_it_was_tested_with():
    test, service = here("test.lock"), here("service.lock")
    for name, pin in service.items():
        assert name in test, f"{name} is in the service lock only"
        assert test[name].version == pin.version, (name, pin.version, test[name].version)


def test_every_locked_file_has_its_hash():
    for lock in ("test.lock", "service.lock"):
        for pin in pins(lock):
            assert pin.hashes >= 1, f"{pin.name} in {lock} has no hash"
        header = LOCKS[lock].read_text().splitlines()[1]
        assert "requirements/relock.py" in header, f"{lock} was not made by relock.py"


def test_this_environment_is_the_test_lock():
    """What runs the suite is what the lock says, and nothing besides (the README
    installs it so; ``tongiaki check-install --lock requirements/test.lock`` says the
    same)."""
    diff = installs.check(LOCKS["test.lock"])
    assert not diff.lines(), (
        f"install from {LOCKS['test.lock'].name} (README) into a fresh environment:\n"
        + "\n".join(diff.lines())
    )


def test_a_difference_is_named_whichever_it_is():
    lock = {
        "flask": installs.Pin("flask", "3.1.3", None, 2),
        "click": installs.Pin("click", "8.5.1", None, 2),
    }
    diff = installs.compare(lock, {"flask": "3.1.3", "six": "1.17.0", "pip": "24.2"})
    assert diff.missing == ["click: not installed (8.5.1 locked)"]
    assert diff.extra == ["six: 1.17.0 installed, not in the lock"]  # pip is no package's
    diff = installs.compare(lock, {"flask": "3.0.3", "click": "8.5.1"})
    assert diff.different == ["flask: 3.0.3 installed, 3.1.3 locked"] and not diff.extra
