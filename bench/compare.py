"""Compare benchmark figures with a saved run, noise included (issue 34).

    python -m bench.compare BASE NEW [--noise 10] [--fail-on-worse]

BASE and NEW are figures files written by a benchmark's ``--json`` (bench/figures.py)
or folders of them (one file per benchmark). For every figure both hold, it prints
the median of each run with its samples' range, the change, and a verdict:

- ``better`` / ``worse``: the two runs' sample ranges do not overlap, so the change is
  larger than what either run varied by (which way is better is the figure's own);
- ``within noise``: the ranges overlap;
- a figure measured once on either side has no range of its own: it counts as
  ``--noise`` per cent either side of its value (10 unless told).

It also says when the runs were made on different machines or Python versions, where
a change may be the machine's, not the code's. It is a tool to read, not a timed test.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bench.figures import load

VERDICTS = ("better", "worse", "within noise")


def span(figure: dict[str, Any], noise: float) -> tuple[float, float]:
    """The range a figure's value is known within: its samples', or ``noise`` (a
    fraction) either side of a single sample."""
    samples = figure["samples"]
    if len(samples) > 1:
        return min(samples), max(samples)
    value = samples[0]
    return value - abs(value) * noise, value + abs(value) * noise


def verdict(base: dict[str, Any], new: dict[str, Any], noise: float) -> str:
    """``better``, ``worse`` or ``within noise`` for one figure measured twice."""
    low_base, high_base = span(base, noise)
    low_new, high_new = span(new, noise)
    if low_new <= high_base and low_base <= high_new:
        return "within noise"
    higher = low_new > high_base
    return "better" if higher == (new.get("better", "higher") == "higher") else "worse"


def change(base: dict[str, Any], new: dict[str, Any]) -> str:
    """The medians' change in per cent (or ``-`` when the base is zero)."""
    if base["median"] == 0:
        return "-"
    return f"{(new['median'] - base['median']) / abs(base['median']) * 100:+.1f} %"


def number(value: float) -> str:
    """``value`` at a precision a reader compares: 12,345 / 123.4 / 1.23."""
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def described(figure: dict[str, Any]) -> str:
    """A figure's median and, when it has several samples, their range."""
    samples = figure["samples"]
    text = number(figure["median"])
    if len(samples) > 1:
        text += f" ({number(min(samples))}-{number(max(samples))})"
    return text


def by_figure(runs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every figure of the runs, keyed by (benchmark, figure)."""
    return {(run["bench"], name): f for run in runs for name, f in run["figures"].items()}


def machines(base: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    """Warnings when the runs were measured on different machines or Pythons."""
    warnings = []
    for key in ("processor", "cores", "python"):
        seen = {str(run["machine"].get(key)) for run in base + new}
        if len(seen) > 1:
            warnings.append(f"runs differ in {key}: {', '.join(sorted(seen))}")
    return warnings


def rows(
    base: list[dict[str, Any]], new: list[dict[str, Any]], noise: float
) -> list[tuple[str, ...]]:
    """One row per figure both sides hold: benchmark, figure, unit, base, new, change,
    verdict."""
    old, now = by_figure(base), by_figure(new)
    table: list[tuple[str, ...]] = []
    for key in sorted(old.keys() & now.keys()):
        b, n = old[key], now[key]
        table.append(
            (*key, n["unit"], described(b), described(n), change(b, n), verdict(b, n, noise))
        )
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="a saved figures file, or a folder of them")
    parser.add_argument("new", help="the run to compare with it")
    parser.add_argument(
        "--noise", type=float, default=10.0, help="per cent either side of a one-sample figure"
    )
    parser.add_argument(
        "--fail-on-worse", action="store_true", help="exit 1 when a figure is worse"
    )
    args = parser.parse_args(argv)
    try:
        base, new = load(args.base), load(args.new)
    except (OSError, ValueError) as error:
        print(f"compare: {error}", file=sys.stderr)
        return 2
    header = ("bench", "figure", "unit", "base", "new", "change", "verdict")
    table = [header, *rows(base, new, args.noise / 100)]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    for warning in machines(base, new):
        print(f"note: {warning}")
    only = by_figure(base).keys() ^ by_figure(new).keys()
    if only:
        print(
            f"note: {len(only)} figure(s) in one run only: "
            + ", ".join(sorted(map("/".join, only)))
        )
    worse = [row for row in table[1:] if row[-1] == "worse"]
    return 1 if worse and args.fail_on_worse else 0


if __name__ == "__main__":
    sys.exit(main())
