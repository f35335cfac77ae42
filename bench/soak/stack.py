"""The server processes the soak starts: gunicorn web processes and rq workers on one
PostgreSQL schema and one Redis queue; and the cleaning of that queue's keys."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from redis import Redis

from bench.client import answers, free_port

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Proc:
    """A service process, started in a process group of its own."""

    role: str
    process: subprocess.Popen[bytes]
    log: Path
    port: int = 0

    @property
    def pid(self) -> int:
        return self.process.pid

    def signal_group(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signum)


class Stack:
    """``web`` gunicorn processes (one gevent worker each) and an rq worker,
    on one PostgreSQL schema and one Redis queue, as ``tests/servers.py`` runs them."""

    def __init__(self, database_url: str, redis_url: str, queue: str, tmp: Path, web: int) -> None:
        self.queue = queue
        self.tmp = tmp
        self.web_count = web
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("TONGIAKI_", "DATABASE_", "REDIS_"))
        }
        self.env.update(
            DATABASE_URL=database_url,
            REDIS_URL=redis_url,
            TONGIAKI_QUEUE=queue,
            TONGIAKI_DATA_DIR=str(tmp),
            TONGIAKI_RATE_LIMITS="off",
            TONGIAKI_LOG_KEY=self.log_key(),
        )
        self.web: list[Proc] = []
        self.workers: list[Proc] = []  # every worker started; the last one is alive
        self.failed_starts: list[str] = []  # workers that exited before they listened

    def log_key(self) -> str:
        """The transparency log's key, made as an operator makes it (``tongiaki log
        keygen``); its file."""
        path = self.tmp / "log.key"
        if not path.exists():
            subprocess.run(
                [sys.executable, "-m", "service.cli", "log", "keygen", "--name", "soak/log",
                 "--out", str(path)],
                cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
            )  # fmt: skip
        return str(path)

    def auditor_token(self) -> str:
        """An auditor account made with the CLI, as an operator would; its token."""
        made = subprocess.run(
            [sys.executable, "-m", "service.cli", "auditor", "create", "soak auditor"],
            cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        return made.stdout.split("token: ")[1].strip()

    @property
    def ports(self) -> list[int]:
        return [p.port for p in self.web]

    @property
    def worker(self) -> Proc:
        return self.workers[-1]

    def start(self) -> None:
        for i in range(self.web_count):
            port = free_port()
            args = ["serve", "--workers", "1", "--port", str(port)]
            self.web.append(self.launch(f"web{i}", args, port))
        if self.start_worker() is None:
            raise RuntimeError(f"the worker did not start: {self.failed_starts[-1]}")

    def launch(self, role: str, args: list[str], port: int = 0) -> Proc:
        log = self.tmp / f"{role}.log"
        with log.open("ab") as handle:
            process = subprocess.Popen(
                [sys.executable, "-m", "service.cli", *args],
                cwd=ROOT,
                env=self.env,
                stdout=handle,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: a signal reaches its children too
            )
        proc = Proc(role, process, log, port)
        if port:
            self.wait_serving(proc)
        return proc

    @staticmethod
    def wait_serving(proc: Proc) -> None:
        """Until the gunicorn worker answers (the master listens before it boots)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.process.poll() is not None:
                raise RuntimeError(f"{proc.role} exited:\n{proc.log.read_text(errors='replace')}")
            if answers(proc.port):
                return
            time.sleep(0.1)
        raise RuntimeError(f"{proc.role} did not answer within 60 s")

    def start_worker(self, attempts: int = 1) -> Proc | None:
        """A new ``tongiaki worker``, once it listens (None if it never did): a failed
        start is kept in ``failed_starts`` and tried again, up to ``attempts`` in all."""
        for attempt in range(1, attempts + 1):
            proc = self.launch(f"worker{len(self.workers) + 1}", ["worker"])
            self.workers.append(proc)
            deadline = time.monotonic() + 30
            while b"Listening on" not in proc.log.read_bytes():  # rq's line once it works
                if proc.process.poll() is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            else:
                return proc
            proc.signal_group(signal.SIGKILL)
            proc.process.wait()
            output = " ".join(proc.log.read_text(errors="replace").split())
            self.failed_starts.append(f"{proc.role} (exit {proc.process.returncode}): {output}")
            if attempt < attempts:
                time.sleep(1)
        return None

    def kill_worker(self) -> None:
        """SIGKILL the worker's whole process group."""
        self.worker.signal_group(signal.SIGKILL)
        self.worker.process.wait()

    @property
    def worker_alive(self) -> bool:
        return self.worker.process.poll() is None

    def stop(self) -> None:
        for proc in [*self.workers, *self.web]:
            if proc.process.poll() is None:
                proc.signal_group(signal.SIGTERM)
        for proc in [*self.workers, *self.web]:
            try:
                proc.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.signal_group(signal.SIGKILL)
                proc.process.wait()

    def processes(self) -> list[tuple[str, int]]:
        """(role, pid) of every live service process: masters, their workers, the rq worker."""
        found = []
        for proc in [*self.web, self.worker]:
            if proc.process.poll() is not None:
                continue
            master = "gunicorn master" if proc.port else "rq worker"
            found.append((f"{proc.role} {master}", proc.pid))
            found += [(f"{proc.role}  └ child", child) for child in children(proc.pid)]
        return found

    def tracebacks(self) -> dict[str, int]:
        """Tracebacks each process wrote to its log (its errors, whatever a client saw)."""
        return {
            p.role: p.log.read_text(errors="replace").count("Traceback")
            for p in [*self.web, *self.workers]
        }


def children(pid: int) -> list[int]:
    """Child processes of ``pid`` (Linux: the ppid field of /proc/*/stat)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return sorted(found)


def clean_redis(url: str, queue: str) -> int:
    """Delete this run's keys: every key naming the queue, and its jobs, workers and
    schedulers (rq hashes whose ``origin`` or ``queues`` is the queue) with their keys."""
    redis = Redis.from_url(url)
    doomed: set[bytes] = set()
    owners: set[str] = set()  # ids of this queue's jobs, workers and schedulers
    for key in redis.scan_iter(count=1000):
        name = key.decode(errors="replace")
        if queue in name:
            doomed.add(key)
        elif name.count(":") >= 2 and name.startswith("rq:") and redis.type(key) == b"hash":
            values = [redis.hget(key, field) for field in ("origin", "queues")]
            if any(isinstance(v, bytes) and queue in v.decode().split(",") for v in values):
                doomed.add(key)
                owners.add(name.split(":")[2])
    for key in redis.scan_iter(match="rq:*", count=1000):
        parts = key.decode(errors="replace").split(":")
        if len(parts) > 2 and parts[2] in owners:
            doomed.add(key)
    redis.srem("rq:queues", f"rq:queue:{queue}")
    workers = [f"rq:worker:{o}" for o in owners]
    if workers:
        redis.srem("rq:workers", *workers)
    keys = sorted(doomed)
    for i in range(0, len(keys), 500):
        redis.delete(*keys[i : i + 500])
    redis.close()
    return len(keys)
