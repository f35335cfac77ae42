"""The benchmarks' server processes: run under py-spy when asked, stopped, their CPU.

``TONGIAKI_BENCH_PROFILE=<folder>`` has ``profiled`` start a command under
``py-spy record --subprocesses`` (a flame graph of it and its children, the web
workers), ``served`` find the command's own pid under it, and ``stop`` end the command
so py-spy writes its graph (bench/flames/README.md).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.soak.stack import children


def profiled(name: str, command: list[str]) -> list[str]:
    """``command`` under py-spy when ``TONGIAKI_BENCH_PROFILE`` names a folder: a flame
    graph of it and its children (the web workers) is written there as ``name``.svg
    (``pip install py-spy``; bench/flames/README.md)."""
    folder = os.environ.get("TONGIAKI_BENCH_PROFILE")
    if not folder:
        return command
    Path(folder).mkdir(parents=True, exist_ok=True)
    out = Path(folder) / f"{name}.svg"
    spy = str(Path(sys.executable).with_name("py-spy"))
    return [
        spy,
        "record",
        "--subprocesses",
        "--nonblocking",
        "-r",
        "200",
        "-o",
        str(out),
        "--",
        *command,
    ]


def served(proc: subprocess.Popen[bytes]) -> int:
    """The pid of the command ``proc`` runs: under py-spy (``profiled``), its child."""
    if not os.environ.get("TONGIAKI_BENCH_PROFILE"):
        return proc.pid
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = children(proc.pid)
        if found:
            return found[0]
        time.sleep(0.05)
    raise RuntimeError("py-spy started no process")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop ``proc``; under py-spy, stop what it runs, so it writes its flame graph."""
    if os.environ.get("TONGIAKI_BENCH_PROFILE"):
        for pid in children(proc.pid):
            os.kill(pid, signal.SIGTERM)
        proc.wait(timeout=120)
        return
    proc.terminate()
    proc.wait(timeout=20)


def cpu_seconds(parent: int) -> float:
    """CPU time (user + system) used so far by ``parent``'s child processes (Linux)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:  # ppid
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total
