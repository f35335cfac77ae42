"""Run the processes of deploy/Procfile, restart any that dies, stop them all together.

    python deploy/stack.py [--web N] [--worker M] [--port 8000] [--procfile deploy/Procfile]

Each process type runs as many times as asked (``--web``, ``--worker``; any other
type of the Procfile once); web process *i* gets ``PORT`` = port + *i* - 1, as
separate hosts would have their own address. Every line a process writes is
printed with its name in front (``web.1 | …``). A process that exits while the
stack runs is started again, after 1 s, then 2, 4 … up to 30 s if it keeps
failing (back to 1 s once it has run for a minute): killing one web process
leaves the others serving, and it comes back. SIGTERM or SIGINT (Ctrl-C) stops
every process (SIGTERM, then SIGKILL after 10 s); if this supervisor is killed
outright, its processes get SIGTERM from the kernel (Linux ``PR_SET_PDEATHSIG``).
Standard library only: it is the one command, not another dependency.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

STOP_WAIT = 10.0  # seconds between SIGTERM and SIGKILL when stopping
STEADY = 60.0  # seconds a process must run for its restart delay to start afresh
MAX_DELAY = 30.0
PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the supervisor dies (Linux)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class Process:
    name: str
    command: str
    env: dict[str, str]
    popen: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    delay: float = 0.5  # doubled at each quick death: the first restart waits 1 s
    due: float = 0.0  # when to start it again (0: running or never stopped)
    restarts: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


VARIABLE = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)")


def expanded(command: str, env: dict[str, str]) -> str:
    """``command`` as the shell runs it: ``$NAME``, ``${NAME}`` and ``${NAME:-default}``
    replaced from ``env`` (what the log shows is what runs)."""

    def value(m: re.Match[str]) -> str:
        name = m[1] or m[3]
        found = env.get(name, "")
        return found if found or m[2] is None else m[2]

    return VARIABLE.sub(value, command)


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def pump(proc: Process, stream) -> None:  # type: ignore[no-untyped-def]
    for raw in iter(stream.readline, b""):
        say(f"{proc.name} | {raw.decode(errors='replace').rstrip()}")


def start(proc: Process) -> None:
    proc.popen = subprocess.Popen(
        f"exec {proc.command}",  # the shell becomes the process: signals reach it directly
        shell=True,
        env=proc.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: signals reach all of its workers
        preexec_fn=die_with_parent,
    )
    proc.started = time.monotonic()
    proc.due = 0.0
    threading.Thread(target=pump, args=(proc, proc.popen.stdout), daemon=True).start()
    say(f"stack | {proc.name} started (pid {proc.popen.pid}): {expanded(proc.command, proc.env)}")


def group_alive(proc: Process) -> bool:
    """Whether any process of ``proc``'s group is left (gunicorn's workers, say)."""
    if proc.popen is None:
        return False
    try:
        os.killpg(proc.popen.pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def signal_group(proc: Process, sig: int) -> None:
    if proc.popen is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.popen.pid, sig)


def read_procfile(path: Path) -> list[tuple[str, str]]:
    entries = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or ":" not in line:
            continue
        name, _, command = line.partition(":")
        entries.append((name.strip(), command.strip()))
    return entries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--procfile", default=str(Path(__file__).with_name("Procfile")))
    parser.add_argument("--web", type=int, default=1, help="web processes")
    parser.add_argument("--worker", type=int, default=2, help="worker processes")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    args = parser.parse_args()
    counts = {"web": args.web, "worker": args.worker}
    processes: list[Process] = []
    for name, command in read_procfile(Path(args.procfile)):
        for i in range(1, counts.get(name, 1) + 1):
            env = dict(os.environ)
            if name == "web":
                env["PORT"] = str(args.port + i - 1)
            processes.append(Process(f"{name}.{i}", command, env))
    stopping = threading.Event()

    def stop(signum: int, _frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for proc in processes:
        start(proc)
    while not stopping.wait(0.2):
        now = time.monotonic()
        for proc in processes:
            if proc.popen is None:
                continue
            code = proc.popen.poll()
            if code is not None and proc.due == 0.0:  # it just died
                ran = now - proc.started
                proc.delay = 1.0 if ran >= STEADY else min(proc.delay * 2, MAX_DELAY)
                proc.due = now + proc.delay
                say(f"stack | {proc.name} exited ({code}); starting it again in {proc.delay:g} s")
            elif code is not None and now >= proc.due:
                proc.restarts += 1
                start(proc)
    say("stack | stopping every process")
    for proc in processes:
        signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + STOP_WAIT
    for proc in processes:
        if proc.popen is None:
            continue
        # the whole group: a gunicorn master's workers may outlive it by a moment
        while (proc.popen.poll() is None or group_alive(proc)) and time.monotonic() < deadline:
            time.sleep(0.05)
        if proc.popen.poll() is None or group_alive(proc):
            say(f"stack | {proc.name} did not stop within {STOP_WAIT:g} s: killed")
            signal_group(proc, signal.SIGKILL)
        proc.popen.wait()
    say("stack | stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
