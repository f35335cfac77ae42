"""A PostgreSQL primary and a synchronous standby on one host, to try failover with.

    python deploy/replication.py up      --dir DIR [--port 5440] [--async]
    python deploy/replication.py status  --dir DIR
    python deploy/replication.py url     --dir DIR [--replica]
    python deploy/replication.py promote --dir DIR       # the operator's failover
    python deploy/replication.py rejoin  --dir DIR       # the old primary, a standby again
    python deploy/replication.py kill-primary --dir DIR  # a drill: SIGKILL its postmaster
    python deploy/replication.py down    --dir DIR

Two clusters made with PostgreSQL's own tools (``initdb``, ``pg_basebackup -R``,
``pg_ctl``), nodes ``a`` and ``b`` on ``--port`` and the port after it, each its own
data directory under DIR. ``a`` starts as the primary, ``b`` streams from it and is
named in the primary's ``synchronous_standby_names``: with ``synchronous_commit = on``
a commit (so a command) is acknowledged only once it is on both disks. ``--async``
names no synchronous standby (commits acknowledged on the primary alone: what
asynchronous replication would lose is measured in ``bench/failover.py``).

``promote`` promotes the standby (``pg_ctl promote``); the new primary then runs alone
(no synchronous standby: otherwise every commit would wait for one that is gone) until
``rejoin`` makes the old primary its standby (``pg_rewind``, else a new base backup)
and names it synchronous again. Never start the old primary as a primary after a
promotion: two primaries would each accept commands (docs/replication.md).

On two hosts it is the same commands by hand; docs/replication.md says which. Run as
root, the clusters belong to the ``postgres`` user (PostgreSQL refuses to run as root).
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

NODES = ("a", "b")
DATABASE = "tongiaki"
WAIT = 60.0  # seconds to wait for a cluster to start, stream or be promoted


def bin_dir() -> Path:
    """PostgreSQL's server programs (Debian keeps them out of PATH)."""
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))
    if not versions:
        raise SystemExit("replication: no PostgreSQL server programs (pg_ctl) found")
    return versions[-1]


def port_taken(port: int) -> bool:
    """Whether something listens on 127.0.0.1:``port``."""
    import socket

    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def as_owner(argv: list[str]) -> list[str]:
    """``argv`` run as the clusters' owner: ``postgres`` when we are root."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def run(argv: list[str], quiet: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(as_owner(argv), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"replication: {' '.join(argv)} failed:\n{done.stdout}{done.stderr}")
    if not quiet:
        print(done.stdout, end="")
    return done


class Pair:
    """The two nodes under one directory, and which one is the primary now."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.state_file = self.root / "pair.json"
        self.bin = bin_dir()

    # --- the pair's state -------------------------------------------------------

    def state(self) -> dict[str, object]:
        if not self.state_file.exists():
            raise SystemExit(f"replication: no pair under {self.root} (run `up` first)")
        state: dict[str, object] = json.loads(self.state_file.read_text())
        return state

    def save(self, state: dict[str, object]) -> None:
        self.state_file.write_text(json.dumps(state, indent=1))

    def port(self, node: str) -> int:
        ports = self.state()["ports"]
        assert isinstance(ports, dict)
        return int(ports[node])

    def primary(self) -> str:
        return str(self.state()["primary"])

    def standby(self) -> str:
        return "b" if self.primary() == "a" else "a"

    def data(self, node: str) -> Path:
        return self.root / node

    # --- programs ---------------------------------------------------------------

    def tool(self, name: str, *args: str) -> subprocess.CompletedProcess[str]:
        return run([str(self.bin / name), *args])

    def sql(self, node: str, statement: str, db: str = "postgres") -> str:
        done = self.tool(
            "psql", "-h", "127.0.0.1", "-p", str(self.port(node)), "-U", "postgres", "-d", db,
            "-At", "-v", "ON_ERROR_STOP=1", "-c", statement,
        )  # fmt: skip
        return done.stdout.strip()

    def running(self, node: str) -> bool:
        pid = self.postmaster(node)
        if pid is None:
            return False
        return self.alive(pid)  # a killed postmaster nobody has reaped yet is a zombie

    def postmaster(self, node: str) -> int | None:
        try:
            return int((self.data(node) / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def start(self, node: str) -> None:
        if self.running(node):
            return
        self.clear_stale_locks(node)
        log = self.root / f"{node}.log"
        try:
            self.tool(
                "pg_ctl", "-D", str(self.data(node)), "-l", str(log), "-w", "-t", "60", "start"
            )  # fmt: skip
        except SystemExit as exc:
            tail = "".join(log.read_text(errors="replace").splitlines(True)[-5:])
            raise SystemExit(f"{exc}\n{log}, its last lines:\n{tail}") from None

    def clear_stale_locks(self, node: str) -> None:
        """A killed postmaster's pid stays taken until it is reaped, and PostgreSQL refuses
        to start while the pid in its lock files exists: wait for it to go, and remove the
        lock files of one that is dead but not reaped (a zombie runs nothing)."""
        locks = [self.data(node) / "postmaster.pid", self.root / f".s.PGSQL.{self.port(node)}.lock"]
        deadline = time.monotonic() + 10
        for lock in locks:
            try:
                pid = int(lock.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                if not self.alive(pid):  # a zombie: its lock is stale
                    break
                time.sleep(0.1)
            if not self.alive(pid):
                run(["rm", "-f", str(lock)])

    @staticmethod
    def alive(pid: int) -> bool:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        return stat.rsplit(")", 1)[-1].split()[0] != "Z"

    def stop(self, node: str) -> None:
        if self.running(node):
            self.tool("pg_ctl", "-D", str(self.data(node)), "-m", "fast", "-w", "stop")

    # --- making the nodes -------------------------------------------------------

    def settings(self, node: str, synchronous: str) -> str:
        return "\n".join(
            [
                "# written by deploy/replication.py",
                "listen_addresses = '127.0.0.1'",
                f"port = {self.port(node)}",
                f"unix_socket_directories = '{self.root}'",
                "wal_level = replica",
                "max_wal_senders = 8",
                "max_replication_slots = 8",
                "wal_keep_size = '512MB'",
                "hot_standby = on",
                "hot_standby_feedback = on",
                "wal_log_hints = on",  # pg_rewind can rewind a failed primary (rejoin)
                "synchronous_commit = on",
                f"synchronous_standby_names = '{synchronous}'",
                "max_connections = 200",
                "fsync = on",
                "",
            ]
        )

    def write_settings(self, node: str, synchronous: str, upstream: str | None) -> None:
        text = self.settings(node, synchronous)
        if upstream is not None:
            text += (
                f"primary_conninfo = 'host=127.0.0.1 port={self.port(upstream)} user=postgres"
                f" application_name={node}'\n"
            )
        auto = self.data(node) / "postgresql.auto.conf"
        tmp = self.root / f".{node}.conf"
        tmp.write_text(text)
        run(["cp", str(tmp), str(auto)])
        tmp.unlink()
        if upstream is not None:
            run(["touch", str(self.data(node) / "standby.signal")])

    def up(self, port: int, synchronous: bool) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        if not self.state_file.exists():
            for taken in (port, port + 1):
                if port_taken(taken):
                    raise SystemExit(f"replication: port {taken} is taken: choose another --port")
            self.save({"ports": {"a": port, "b": port + 1}, "primary": "a", "sync": synchronous})
            try:
                self.init_primary("a")
                self.clone("b", "a")
            except BaseException:  # half a pair is no pair: the next `up` starts afresh
                self.down()
                for node in NODES:
                    run(["rm", "-rf", str(self.data(node))])
                self.state_file.unlink()
                raise
        state = self.state()
        for node in (self.primary(), self.standby()):
            self.start(node)
        if state["sync"] and not state.get("alone"):
            # named only once it streams: a commit meanwhile would wait for it forever
            self.name_synchronous(self.standby())
        self.wait_streaming(bool(state["sync"]) and not state.get("alone"))

    def name_synchronous(self, node: str) -> None:
        self.sql(self.primary(), f"ALTER SYSTEM SET synchronous_standby_names = '{node}'")
        self.sql(self.primary(), "SELECT pg_reload_conf()")

    def init_primary(self, node: str) -> None:
        self.tool(
            "initdb", "-D", str(self.data(node)), "-U", "postgres", "--auth=trust", "-E", "UTF8"
        )
        hba = self.root / ".hba"
        hba.write_text(
            "local all all trust\nhost all all 127.0.0.1/32 trust\n"
            "host replication all 127.0.0.1/32 trust\n"
        )
        run(["cp", str(hba), str(self.data(node) / "pg_hba.conf")])
        hba.unlink()
        self.write_settings(node, "", None)
        self.start(node)
        self.sql(node, f"CREATE DATABASE {DATABASE}")

    def clone(self, node: str, upstream: str) -> None:
        """``node`` a fresh standby of ``upstream`` (a base backup streamed from it)."""
        if self.data(node).exists():
            run(["rm", "-rf", str(self.data(node))])
        self.tool(
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(self.port(upstream)), "-U", "postgres",
            "-D", str(self.data(node)), "-X", "stream", "-c", "fast",
        )  # fmt: skip
        # alone after a promotion until a standby joins it: no synchronous standby named
        self.write_settings(node, "", upstream)

    def wait_streaming(self, synchronous: bool) -> None:
        primary, standby = self.primary(), self.standby()
        wanted = "sync" if synchronous else "async"
        deadline = time.monotonic() + WAIT
        while True:
            found = self.sql(
                primary,
                f"SELECT sync_state FROM pg_stat_replication WHERE application_name = '{standby}'",
            )
            if found == wanted:
                return
            if time.monotonic() > deadline:
                raise SystemExit(f"replication: {standby} is not streaming ({found or 'absent'})")
            time.sleep(0.2)

    # --- failover ---------------------------------------------------------------

    def promote(self) -> float:
        """Promote the standby; the seconds it took. The new primary runs alone."""
        old, new = self.primary(), self.standby()
        if self.running(old):
            raise SystemExit(
                f"replication: the primary {old} is running: promoting {new} now would make two"
                f" primaries. Stop or fence {old} first (kill-primary, or pg_ctl stop)"
            )
        if not self.running(new):
            raise SystemExit(f"replication: {new} is not running: there is nothing to promote")
        began = time.monotonic()
        self.tool("pg_ctl", "-D", str(self.data(new)), "-w", "-t", "60", "promote")
        self.sql(new, "ALTER SYSTEM SET synchronous_standby_names = ''")
        self.sql(new, "SELECT pg_reload_conf()")
        state = self.state()
        state["primary"] = new
        state["alone"] = True
        self.save(state)
        took = time.monotonic() - began
        print(f"replication: {new} is the primary now ({took:.2f} s); {old} must not start as one")
        return took

    def rejoin(self) -> None:
        """The node that is not the primary, a synchronous standby of it again."""
        primary, node = self.primary(), self.standby()
        state = self.state()
        if not state.get("alone") and self.running(node) and self.streams(node):
            print(f"replication: {node} already streams from {primary}: nothing to rejoin")
            return
        self.stop(node)
        # the promotion's checkpoint: without it pg_rewind reads the old timeline in the
        # new primary's control file and finds "no rewind required" on diverged WAL
        self.sql(primary, "CHECKPOINT")
        try:
            self.tool(
                "pg_rewind", "-D", str(self.data(node)),
                f"--source-server=host=127.0.0.1 port={self.port(primary)} user=postgres"
                " dbname=postgres",
            )  # fmt: skip
            self.write_settings(node, "", primary)
            self.start(node)
            self.wait_connected(node)
        except SystemExit:  # never ran cleanly, too far apart, or not streaming after all
            self.stop(node)
            self.clone(node, primary)
            self.start(node)
            self.wait_connected(node)
        if state["sync"]:  # named only once it streams: else every commit waits for it
            self.name_synchronous(node)
        state["alone"] = False
        self.save(state)
        self.wait_streaming(bool(state["sync"]))

    def streams(self, node: str) -> bool:
        """Whether ``node`` streams from the primary now."""
        try:
            found = self.sql(
                self.primary(),
                f"SELECT state FROM pg_stat_replication WHERE application_name = '{node}'",
            )
        except SystemExit:
            return False
        return found == "streaming"

    def wait_connected(self, node: str, seconds: float = 30.0) -> None:
        deadline = time.monotonic() + seconds
        while not self.streams(node):
            if time.monotonic() > deadline:
                raise SystemExit(f"replication: {node} does not stream from {self.primary()}")
            time.sleep(0.2)

    def kill_primary(self) -> None:
        pid = self.postmaster(self.primary())
        if pid is None or not self.running(self.primary()):
            raise SystemExit("replication: the primary is not running")
        os.kill(pid, signal.SIGKILL)

    # --- what an operator reads -------------------------------------------------

    def url(self, replica: bool = False) -> str:
        a, b = self.port("a"), self.port("b")
        if replica:  # one standby (docs/replication.md): the primary's after a promotion
            return (
                f"postgresql://postgres@127.0.0.1:{self.port(self.standby())}/{DATABASE}"
                "?connect_timeout=2"
            )
        return (
            f"postgresql://postgres@127.0.0.1:{a},127.0.0.1:{b}/{DATABASE}"
            "?target_session_attrs=read-write&connect_timeout=2"
        )

    def status(self) -> list[str]:
        lines = []
        for node in NODES:
            role = "primary" if node == self.primary() else "standby"
            if not self.running(node):
                if role == "standby" and self.state().get("alone"):
                    role = "the old primary (rejoin makes it a standby)"
                lines.append(f"{node}: port {self.port(node)}, {role}, stopped")
                continue
            try:
                recovering = self.sql(node, "SELECT pg_is_in_recovery()") == "t"
            except SystemExit:
                lines.append(f"{node}: port {self.port(node)}, {role}, not answering")
                continue
            actual = "standby" if recovering else "primary"
            line = f"{node}: port {self.port(node)}, {actual}, running"
            if not recovering:
                rows = self.sql(
                    node,
                    "SELECT application_name || ' ' || sync_state || ' ' ||"
                    " pg_wal_lsn_diff(pg_current_wal_lsn(), flush_lsn) FROM pg_stat_replication",
                )
                line += "; standbys: " + (", ".join(
                    f"{n} ({s}, {int(float(lag))} bytes behind)"
                    for n, s, lag in (r.split() for r in rows.splitlines())
                ) or "none")  # fmt: skip
            lines.append(line)
        return lines

    def down(self) -> None:
        for node in NODES:
            if self.data(node).exists():
                self.stop(node)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "action", choices=["up", "status", "url", "promote", "rejoin", "kill-primary", "down"]
    )
    parser.add_argument("--dir", required=True, type=Path, help="where the two clusters live")
    parser.add_argument("--port", type=int, default=5440, help="node a's port (b: the next)")
    parser.add_argument(
        "--async", dest="asynchronous", action="store_true",
        help="no synchronous standby (commits acknowledged on one machine)",
    )  # fmt: skip
    parser.add_argument("--replica", action="store_true", help="url: the read replica's")
    args = parser.parse_args()
    pair = Pair(args.dir)
    if args.action == "up":
        pair.up(args.port, not args.asynchronous)
        print(f"replication: primary {pair.primary()} on {pair.port(pair.primary())}, standby"
              f" {pair.standby()} on {pair.port(pair.standby())}")  # fmt: skip
        print(f"DATABASE_URL={pair.url()}")
        print(f"DATABASE_REPLICA_URL={pair.url(replica=True)}")
    elif args.action == "status":
        print("\n".join(pair.status()))
    elif args.action == "url":
        print(pair.url(args.replica))
    elif args.action == "promote":
        pair.promote()
    elif args.action == "rejoin":
        pair.rejoin()
        print("\n".join(pair.status()))
    elif args.action == "kill-primary":
        pair.kill_primary()
        print(f"replication: SIGKILL sent to {pair.primary()}'s postmaster; promote the standby")
    else:
        pair.down()
    return 0


if __name__ == "__main__":
    sys.exit(main())
