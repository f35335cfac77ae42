"""The report: the figures of the traffic, of the processes and of the reading back,
the findings, and the reasons the run fails."""

from __future__ import annotations

import os
import statistics
from collections import Counter
from typing import Any

from bench.soak.checks import ReadBack
from bench.soak.figures import Figures
from bench.soak.stats import SAMPLES, Stats, excerpt


def counts(counter: Counter[Any]) -> str:
    return ", ".join(f"{k}: {v:,}" for k, v in sorted(counter.items())) or "none"


def report(
    stats: Stats,
    seconds: float,
    notes: list[str],
    failed_starts: list[str],
    figures: Figures,
    after: ReadBack,
) -> list[str]:
    """Print the figures; the reasons to fail (none: a clean run)."""
    print_traffic(stats, seconds)
    print_answers(stats, after)
    for note in notes:
        print(f"  worker            {note}")
    for failure in failed_starts:
        print(f"  worker FAILED TO START: {excerpt(failure.encode(), 400)}")
    print("processes (open file descriptors, VmRSS)")
    figures.print()
    print_read_back(stats, after)
    print_findings(stats)
    return reasons(stats, failed_starts, after)


def print_traffic(stats: Stats, seconds: float) -> None:
    """The host, the requests and the commands."""
    lat = sorted(stats.latencies) or [0.0]
    print(f"\ntraffic ({seconds:.1f} s)")
    print(
        f"  host              {os.cpu_count()} cores, {stats.host_busy:.0%} busy (everything on"
        f" the host, not only this run); the clients used {stats.client_cpu:.1f} s of CPU"
    )
    print(f"  requests          {stats.total():,} ({stats.total() / seconds:,.0f}/s)")
    print(
        f"  commands          {stats.commands:,} accepted ({stats.commands / seconds:,.1f}/s;"
        f" p50 {statistics.median(lat):.1f} ms, p99 {lat[int(0.99 * (len(lat) - 1))]:.1f} ms);"
        f" {stats.game_commands:,} with creates, seats and starts;"
        f" {stats.replays:,} Idempotency-Key retries replayed"
    )


def print_answers(stats: Stats, after: ReadBack) -> None:
    """The games (as read back), the answers by status, the 5xx, the streams."""
    games, checks = after.games, after.checks
    print(
        f"  games             {len(games)} created, {sum(g.finished for g in games)} finished;"
        f" {sum(c.events for c in checks):,} events; {stats.timed_finished} timed games"
        " finished by the bot for an absent seat"
    )
    print(f"  by status         {counts(stats.statuses)}")
    for client, by in sorted(stats.by_client.items()):
        print(f"    {client:<15} {counts(by)}")
    print(
        f"  5xx               {stats.server_error_count}"
        f" (besides {stats.lagging:,} × 503 projection_lagging, documented for a read model"
        " behind)"
    )
    for line in stats.server_errors:
        print(f"    {line}")
    print(f"  transport errors  {counts(stats.transport)}")
    print(
        f"  SSE streams       {stats.streams} held, {stats.stream_events:,} events,"
        f" {stats.stream_gaps} skipped or repeated a version"
    )


def print_read_back(stats: Stats, after: ReadBack) -> None:
    """The read models, the events, the verification and the disputes."""
    checks, lagging, behind = after.checks, after.lagging, after.behind
    print(f"after the traffic ({after.seconds:.1f} s)")
    print(
        f"  read models       {len(checks) - len(lagging)}/{len(checks)} scoreboards at their"
        f" game's head {after.caught_in:.1f} s after the clients stopped; /projections:"
        f" {'level' if not behind else '; '.join(behind)}"
    )
    for gid, last in list(lagging.items())[:SAMPLES]:
        print(f"    {gid}: {last}")
    print(
        f"  events            lost {sum(c.lost for c in checks)},"
        f" duplicated {sum(c.duplicated for c in checks)}"
        f" (versions missing {sum(c.missing for c in checks)},"
        f" repeated {sum(c.repeated for c in checks)},"
        f" receipts missing {sum(c.receipts_missing for c in checks)},"
        f" commands applied twice {sum(c.applied_twice for c in checks)},"
        f" hash-chain breaks {sum(c.chain_breaks for c in checks)})"
    )
    for c in [c for c in checks if c.problems or c.lost or c.duplicated][:SAMPLES]:
        print(f"    {c.game_id}: head {c.head}, {c.events} events; {'; '.join(c.problems)}")
    print(f"  verify            {counts(after.verified)}")
    if stats.rulings:
        print(
            f"  disputes          {counts(stats.rulings)} (each game verified above, disputes too)"
        )
    if stats.offers:
        print(f"  offers            {counts(stats.offers)} (none left open; games verified above)")
    if stats.tables:
        print(f"  between games     {counts(stats.tables)} (each round opened by itself)")
    if stats.keepers:
        print(
            f"  accounts          {stats.keepers} sign-in, token and revocation cycles, each"
            " revocation refused at once on every process"
        )
    for line in after.failed[:SAMPLES]:
        print(f"    {line}")
    print(f"  public log        {after.promises} promises checked, {len(after.broken)} broken")
    for line in after.broken[:SAMPLES]:
        print(f"    {line}")


def print_findings(stats: Stats) -> None:
    """Answers a client did not expect, by kind, with examples."""
    if stats.findings:
        print("findings (answers a client did not expect; examples)")
        for kind, n in stats.finding_count.most_common():
            print(f"  {n:>7} × {kind}")
            for example in stats.findings[kind][:3]:
                print(f"            {example}")


def reasons(stats: Stats, failed_starts: list[str], after: ReadBack) -> list[str]:
    """Why the run fails (none: a clean run)."""
    checks = after.checks
    lost = sum(c.lost for c in checks)
    duplicated = sum(c.duplicated for c in checks)
    found = []
    if lost or duplicated:
        found.append(f"{lost} events lost, {duplicated} duplicated")
    if stats.server_error_count:
        found.append(f"{stats.server_error_count} answers 5xx")
    if stats.stream_gaps:
        found.append(f"{stats.stream_gaps} stream gaps")
    if after.lagging or after.behind:
        found.append("read models did not catch up")
    if failed_starts:
        found.append(f"{len(failed_starts)} worker starts failed")
    if after.failed:
        found.append(f"{len(after.failed)} games failed verification")
    if after.broken:
        found.append(f"{len(after.broken)} promises without their entry in the log")
    if sum(c.chain_breaks for c in checks) or any(c.problems for c in checks):
        found.append("events read back with problems")
    return found
