"""bench/figures.py and bench/compare.py (issue 34): figures written as JSON, and a run
compared with a saved one, its noise included."""

from __future__ import annotations

import json

import pytest

from bench.compare import main, verdict
from bench.figures import FORMAT, Figures, load


def saved(tmp_path, name, bench="engine", **figures):
    run = Figures(bench)
    for figure, (samples, better) in figures.items():
        run.add(figure, samples, "x/s", better=better)
    path = tmp_path / "runs" / name
    run.write(path)
    return path


def test_a_figures_file_says_what_was_measured_where(tmp_path):
    path = saved(tmp_path, "run.json", games=([100.0, 120.0, 110.0], "higher"))
    document = json.loads(path.read_text())
    assert document["format"] == FORMAT and document["bench"] == "engine"
    assert document["figures"]["games"] == {
        "unit": "x/s",
        "better": "higher",
        "samples": [100.0, 120.0, 110.0],
        "median": 110.0,
    }
    assert document["machine"]["cores"] >= 1 and document["machine"]["python"]
    assert document["commit"] and document["argv"]
    assert load(path) == [document]
    assert load(tmp_path / "runs") == [document]  # a folder: every file in it


def test_a_figure_needs_samples_and_a_direction():
    with pytest.raises(ValueError):
        Figures("engine").add("games", [], "games/s")
    with pytest.raises(ValueError):
        Figures("engine").add("games", [1.0], "games/s", better="faster")


def figure(samples, better="higher"):
    return {"samples": samples, "median": sorted(samples)[len(samples) // 2], "better": better}


def test_a_change_within_what_each_run_varied_by_is_noise():
    assert verdict(figure([100, 120]), figure([115, 130]), 0.1) == "within noise"
    assert verdict(figure([100, 120]), figure([121, 130]), 0.1) == "better"
    assert verdict(figure([100, 120]), figure([80, 99]), 0.1) == "worse"


def test_which_way_is_better_is_the_figures_own():
    slower = figure([121, 130], better="lower")
    assert verdict(figure([100, 120], better="lower"), slower, 0.1) == "worse"
    assert verdict(slower, figure([100, 120], better="lower"), 0.1) == "better"


def test_a_single_measure_counts_as_the_noise_told_either_side():
    assert verdict(figure([100]), figure([108]), 0.05) == "within noise"
    assert verdict(figure([100]), figure([112]), 0.05) == "better"
    assert verdict(figure([100]), figure([112]), 0.10) == "within noise"


def test_compare_prints_every_figure_both_runs_hold(tmp_path, capsys):
    base = saved(tmp_path, "a.json", games=([100.0, 105.0], "higher"), p99=([50.0], "lower"))
    new = saved(tmp_path, "b.json", games=([200.0, 210.0], "higher"), fold=([1.0], "higher"))
    assert main([str(base), str(new)]) == 0
    out = capsys.readouterr().out
    line = next(row for row in out.splitlines() if "games" in row)
    assert line.split() == [
        *("engine", "games", "x/s", "102.5", "(100.0-105.0)"),
        *("205.0", "(200.0-210.0)", "+100.0", "%", "better"),
    ]
    assert "2 figure(s) in one run only: engine/fold, engine/p99" in out
    assert main([str(new), str(base), "--fail-on-worse"]) == 1


def test_compare_refuses_what_is_not_a_figures_file(tmp_path, capsys):
    other = tmp_path / "other.json"
    other.write_text('{"games": 3}')
    assert main([str(other), str(other)]) == 2
    assert "is not a figures file" in capsys.readouterr().err
