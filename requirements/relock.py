"""Refresh the locks, test them, and show what changed.

    .venv/bin/python requirements/relock.py            # newest versions within the ranges
    .venv/bin/python requirements/relock.py --same     # the same versions (after a range edit)
        [--skip-suite] [--skip-bench]

The locks are what the service is installed from and tested with (README,
"Installs"): ``requirements/test.lock`` (the package, its test tools and what
builds it) and ``requirements/service.lock`` (the package and what builds it,
at the very versions of the test lock). Both are compiled by uv from
``pyproject.toml`` for every Python the package supports (``--universal``: one
file, with markers where versions differ), every file with its SHA-256 hashes, so
pip installs exactly those files (``--require-hashes``) or nothing.

Steps, each printed as it goes:

1. compile both locks (``--same``: keep every version that still fits the ranges);
2. say what changed: each package's old and new version, what came and went;
3. install the new test lock in a fresh environment (``.venv-relock``) and run the
   whole suite there, as CI does (the README's test command after the install);
4. run the engine and event-store benchmarks in the current ``.venv`` (the old lock)
   and in ``.venv-relock`` (the new one), one after the other, and print both
   (``bench/compare.py`` does not exist: these two print figures of their own).

The locks are written only if the suite passes; otherwise the old ones stay and the
new ones are left beside them (``*.lock.new``) to look at. uv is in the test
extras; this needs the package registries.
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
VENV = ROOT / ".venv-relock"
PYTHON = "3.11"  # the lowest supported: --universal covers the rest
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)


def say(text: str) -> None:
    print(f"relock: {text}", flush=True)


def run(*args: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None) -> None:
    say(" ".join(str(a) for a in args))
    subprocess.run([str(a) for a in args], cwd=cwd, check=True, env=env)


def pins(text: str) -> dict[str, str]:
    """Package (normalised name) → version, of a lock's text."""
    return {re.sub(r"[-_.]+", "-", n).lower(): v for n, v in PIN.findall(text)}


def build_requirements() -> list[str]:
    """What builds the package (pyproject's [build-system] requires)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return list(data["build-system"]["requires"])


def compile_locks(same: bool, into: Path) -> tuple[Path, Path]:
    """Both locks, compiled into ``into`` (``same``: from the current ones' versions)."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or "uv"
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
        "python requirements/relock.py",
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
    run(python, "-m", "pip", "install", "--quiet", "--require-hashes", "-r", lock)
    run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "-e", ".")
    return python


def bench(python: Path, label: str) -> None:
    """The engine's and the event store's figures (the store's on the local PostgreSQL and
    Redis, as the suite uses them) with one environment."""
    say(f"benchmarks with {label} ({python})")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run(python, "bench/engine.py", "--games", "100", "--rounds", "2", env=env)
    run(python, "bench/store.py", "--seconds", "3", env=env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--same", action="store_true", help="keep the versions that fit")
    parser.add_argument("--skip-suite", action="store_true")
    parser.add_argument("--skip-bench", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        test, service = compile_locks(args.same, Path(tmp))
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
    if not args.skip_suite:
        python = install(VENV, staged_test)
        result = subprocess.run([str(python), "-m", "pytest", "-q"], cwd=ROOT, check=False)
        if result.returncode != 0:
            say(
                f"the suite failed on the new lock: kept the old one ({staged_test.name} beside it)"
            )
            return 1
    if not args.skip_bench:
        old_python = ROOT / ".venv" / "bin" / "python"
        new_python = VENV / "bin" / "python"
        if old_python.exists():
            bench(old_python, "the old lock (.venv)")
        if new_python.exists():
            bench(new_python, "the new lock (.venv-relock)")
    staged_test.replace(TEST)
    staged_service.replace(SERVICE)
    say(f"written {TEST.relative_to(ROOT)} and {SERVICE.relative_to(ROOT)}")
    if old_service and not changes(old_service, new_service) and not diff:
        say("the locks hold the same versions as before (hashes may have been added)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
