"""Measurements of the processes: file handles, memory and CPU time of each service
process at named moments, and how busy the whole host is."""

from __future__ import annotations

import os
from pathlib import Path

from bench.soak.stack import Stack


def usage(pid: int) -> tuple[int, int, float] | None:
    """(open file descriptors, VmRSS in KiB, CPU seconds) of a process, None if it is gone."""
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    rss = next((int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0)
    cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    return fds, rss, cpu


class Figures:
    """Handles, memory and CPU time of every process at named moments."""

    def __init__(self) -> None:
        self.moments: list[str] = []
        self.rows: dict[tuple[str, int], dict[str, tuple[int, int, float]]] = {}

    def take(self, moment: str, stack: Stack) -> None:
        if moment not in self.moments:
            self.moments.append(moment)
        for role, pid in stack.processes():
            seen = usage(pid)
            if seen is not None:  # a moment taken again only adds processes new since
                self.rows.setdefault((role, pid), {}).setdefault(moment, seen)

    def print(self) -> None:
        head = "".join(f"{m:>7}" for m in self.moments)
        print(f"  {'process':<24}{'pid':>8}  fds{head}  RSS MiB{head}  CPU s{head}")
        for (role, pid), seen in self.rows.items():
            line = f"  {role:<24}{pid:>8}     "
            for i, form in enumerate(("{:>7}", "{:>7.1f}", "{:>7.1f}")):
                scale = 1024 if i == 1 else 1  # RSS in MiB
                line += "".join(
                    form.format(seen[m][i] / scale if scale > 1 else seen[m][i])
                    if m in seen
                    else f"{'-':>7}"
                    for m in self.moments
                )
                line += " " * (9 if i == 0 else 7)
            print(line.rstrip())


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of the whole host since boot (/proc/stat)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)
