#!/usr/bin/env python3
"""Refresh the locks, test them, and show what changed.

    .venv/bin/python requirements/relock.py            # newest versions within the ranges
    .venv/bin/python requirements/relock.py --same     # the same versions (after a range edit)
        [--skip-suite] [--skip-bench]

Run it with the test environment (the README's test command makes ``.venv`` so): it
needs uv, which is in the test extras, and the package registries.

The locks are what the service is installed from and tested with (README,
"Installs"): ``requirements/test.lock`` (the package, its test tools and what
builds it) and ``requirements/service.lock`` (the package and what builds it,
at the very versions of the test lock). Both are compiled by uv from
``pyproject.toml`` for every Python the package supports (``--universal``: one
file, with markers where versions differ), every file with its SHA-256 hashes, so
pip installs exactly those files (``--require-hashes``) or nothing.

Steps, each printed as it goes:

1. compile both locks (``--same``: keep every version that still fits the ranges)
   into ``requirements/*.lock.new``;
2. say what changed: each package's old and new version, what came and went;
3. install the new test lock in a fresh environment (``.venv-relock``) and run the
   whole suite there as CI does (``TONGIAKI_REQUIRE_SERVICES=1``), against the new
   locks (``TONGIAKI_TEST_LOCK`` / ``TONGIAKI_SERVICE_LOCK``: the environment is
   checked against the new test lock, and the install test serves from the new
   service lock);
4. install the old test lock in a fresh environment too (``.venv-relock-old``) and
   run the engine and event-store benchmarks with the old and the new one after the
   other (the store's on ``TONGIAKI_TEST_DATABASE_URL`` and ``TONGIAKI_TEST_REDIS_URL``
   when set, else its defaults: database ``test``, Redis db 14).

The new locks replace the old ones only when the suite ran and passed. Otherwise
(the suite failed, or ``--skip-suite``) they stay beside them as ``*.lock.new`` to
look at, and the old ones are untouched.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "requirements"
SERVICE, TEST = HERE / "service.lock", HERE / "test.lock"
VENV, OLD_VENV = ROOT / ".venv-relock", ROOT / ".venv-relock-old"
PYTHON = "3.11"  # the lowest supported: --universal covers the rest
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)
COMMAND = ".venv/bin/python requirements/relock.py"  # as the locks' header says it


class Failed(Exception):
    """A step that did not work: said in one line, exit status 1."""


def say(text: str) -> None:
    print(f"relock: {text}", flush=True)


def run(*args: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None) -> None:
    shown = " ".join(str(a) for a in args)
    say(shown)
    result = subprocess.run([str(a) for a in args], cwd=cwd, check=False, env=env)
    if result.returncode != 0:
        raise Failed(f"{shown} ended with exit status {result.returncode}")


def pins(text: str) -> dict[str, str]:
    """Package (normalised name) → version, of a lock's text."""
    return {re.sub(r"[-_.]+", "-", n).lower(): v for n, v in PIN.findall(text)}


def build_requirements() -> list[str]:
    """What builds the package (pyproject's [build-system] requires)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return list(data["build-system"]["requires"])


def find_uv() -> str:
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        raise Failed(
            f"uv is not installed beside {sys.executable}: run this with the test"
            " environment (the README's test command installs requirements/test.lock,"
            " uv with it), e.g. .venv/bin/python requirements/relock.py"
        )
    return uv


def compile_locks(uv: str, same: bool, into: Path) -> tuple[Path, Path]:
    """Both locks, compiled into ``into`` (``same``: from the current ones' versions)."""
    build = into / "build.in"
    build.write_text("\n".join(build_requirements()) + "\n")
    test, service = into / "test.lock", into / "service.lock"
    if same:
        shutil.copy(TEST, test)  # uv keeps the versions of an existing output file
        shutil.copy(SERVICE, service)
    common = [
        "pip",
        "compile",
        "--universal",
        "--python-version",
        PYTHON,
        "--generate-hashes",
        "--quiet",
        "--custom-compile-command",
        COMMAND,
    ]
    upgrade = [] if same else ["--upgrade"]
    run(uv, *common, *upgrade, "pyproject.toml", build, "--extra", "test", "-o", test)
    # the service lock: the very versions the tests ran with (the test lock constrains it)
    run(uv, *common, "pyproject.toml", build, "-c", test, "-o", service)
    for lock in (test, service):  # the temporary paths, said as what they are
        text = lock.read_text().replace(str(build), "pyproject.toml [build-system]")
        lock.write_text(text.replace(str(test), "requirements/test.lock"))
    return test, service


def changes(old: str, new: str) -> list[str]:
    before, after = pins(old), pins(new)
    lines = []
    for name in sorted(before.keys() | after.keys()):
        if name not in before:
            lines.append(f"  + {name} {after[name]}")
        elif name not in after:
            lines.append(f"  - {name} {before[name]}")
        elif before[name] != after[name]:
            lines.append(f"  ~ {name} {before[name]} -> {after[name]}")
    return lines


def install(venv: Path, lock: Path) -> Path:
    """A fresh environment from ``lock``, with the package (as the README installs it)."""
    if venv.exists():
        shutil.rmtree(venv)
    run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    pip = [python, "-m", "pip", "install", "--quiet"]
    run(*pip, "--require-hashes", "--only-binary", ":all:", "-r", lock)
    run(*pip, "--no-deps", "--no-build-isolation", "-e", ".")
    return python


def suite(python: Path, test: Path, service: Path) -> None:
    """The whole suite with ``python``, as CI runs it, checking the locks given."""
    env = {
        **os.environ,
        "TONGIAKI_REQUIRE_SERVICES": "1",
        "TONGIAKI_TEST_LOCK": str(test),
        "TONGIAKI_SERVICE_LOCK": str(service),
    }
    # as the README's test command: in parallel, then the tests that measure time, alone
    run(python, "-m", "pytest", "-q", "-n", "4", "-m", "not alone", env=env)
    run(python, "-m", "pytest", "-q", "-m", "alone", env=env)


def bench(python: Path, label: str) -> None:
    """The engine's and the event store's figures with one environment."""
    say(f"benchmarks with {label} ({python.parent.parent.name})")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run(python, "bench/engine.py", "--games", "100", "--rounds", "2", env=env)
    where = []
    if os.environ.get("TONGIAKI_TEST_DATABASE_URL"):
        where += ["--url", os.environ["TONGIAKI_TEST_DATABASE_URL"]]
    if os.environ.get("TONGIAKI_TEST_REDIS_URL"):
        where += ["--redis", os.environ["TONGIAKI_TEST_REDIS_URL"]]
    run(python, "bench/store.py", "--seconds", "3", *where, env=env)


def relock(args: argparse.Namespace) -> int:
    uv = find_uv()
    with tempfile.TemporaryDirectory() as tmp:
        test, service = compile_locks(uv, args.same, Path(tmp))
        new_test, new_service = test.read_text(), service.read_text()
    old_test = TEST.read_text() if TEST.exists() else ""
    old_service = SERVICE.read_text() if SERVICE.exists() else ""
    diff = changes(old_test, new_test)
    say("what changed in the test lock:" if diff else "no version changed")
    for line in diff:
        print(line)
    staged_test, staged_service = TEST.with_suffix(".lock.new"), SERVICE.with_suffix(".lock.new")
    staged_test.write_text(new_test)
    staged_service.write_text(new_service)
    new_python = None
    if not (args.skip_suite and args.skip_bench):
        new_python = install(VENV, staged_test)
    if not args.skip_suite:
        assert new_python is not None
        try:
            suite(new_python, staged_test, staged_service)
        except Failed:
            say(
                f"the suite failed on the new locks: kept the old ones ({staged_test.name},"
                f" {staged_service.name} beside them)"
            )
            return 1
    if not args.skip_bench:
        assert new_python is not None
        if TEST.exists():
            bench(install(OLD_VENV, TEST), "the old lock")
        bench(new_python, "the new lock")
    if args.skip_suite:
        say(
            f"the suite did not run: the old locks stay; the new ones are {staged_test.name}"
            f" and {staged_service.name} (rerun without --skip-suite to write them)"
        )
        return 0
    staged_test.replace(TEST)
    staged_service.replace(SERVICE)
    say(f"written {TEST.relative_to(ROOT)} and {SERVICE.relative_to(ROOT)}")
    if old_service and not changes(old_service, new_service) and not diff:
        say("the locks hold the same versions as before (hashes or notes may differ)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--same", action="store_true", help="keep the versions that fit")
    parser.add_argument(
        "--skip-suite", action="store_true", help="no suite: leave the new locks as *.lock.new"
    )
    parser.add_argument("--skip-bench", action="store_true", help="no benchmarks")
    args = parser.parse_args()
    try:
        return relock(args)
    except Failed as exc:
        say(str(exc))
        return 1


if __name__ == "__main__":
    sys.exit(main())
