"""Prometheus metrics at /metrics: requests by route, commands by outcome, refusals by
code, open streams, the read models' lag."""

from __future__ import annotations

import re
import time

from tests.service.api import open_game


def value(text: str, name: str, **labels: str) -> float:
    """A sample's value in the exposition text (0 if absent)."""
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        m = re.match(r"^(\w+)(?:\{(.*)\})? (\S+)$", line)
        if m and m[1] == name and ",".join(sorted((m[2] or "").split(","))) == want:
            return float(m[3])
    return 0.0


def test_metrics_count_commands_refusals_requests_and_lag(client):
    before = client.get("/metrics").get_data(as_text=True)
    game_id, (blue, red) = open_game(client, ["blue", "red"])
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover, idle = (blue, red) if legal["player_id"] == blue.id else (red, blue)
    assert idle.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 403
    assert mover.post(f"/games/{game_id}/commands", legal["commands"][0]).status_code == 200
    r = client.get("/metrics")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain")
    text = r.get_data(as_text=True)

    def grew(name: str, **labels: str) -> float:
        return value(text, name, **labels) - value(before, name, **labels)

    # opening a game, seats and starts are commands too: 1 + 2 + 1, and the move
    assert grew("tongiaki_commands_total", outcome="accepted") == 5
    assert grew("tongiaki_commands_total", outcome="rejected") == 1
    assert grew("tongiaki_rejections_total", code="not_your_turn") == 1
    route = "/api/v1/games/<game:game_id>/commands"
    assert grew("tongiaki_requests_seconds_count", method="POST", route=route, status="200") == 1
    assert grew("tongiaki_requests_seconds_count", method="POST", route=route, status="403") == 1
    assert value(text, "tongiaki_projection_events_behind", projection="scoreboard") == 0
    assert "tongiaki_open_streams" in text
    # the transparency log: its 5 commits in the tree once nothing is pending
    deadline = time.monotonic() + 30
    now = text
    while value(now, "tongiaki_log_pending") > 0:
        assert time.monotonic() < deadline, "the log's commits were never integrated"
        time.sleep(0.05)
        now = client.get("/metrics").get_data(as_text=True)
    grown = value(now, "tongiaki_log_size") - value(before, "tongiaki_log_size")
    assert grown - value(before, "tongiaki_log_pending") == 5
    client.get("/no/such/page")
    text = client.get("/metrics").get_data(as_text=True)
    assert 'route="unmatched"' in text and "/no/such/page" not in text


def test_a_client_cannot_grow_the_metrics_with_made_up_methods(client):
    for method in ("FOO", "BAR1", "BAZ2"):
        assert client.open("/api/v1/lobby", method=method).status_code == 405
    text = client.get("/metrics").get_data(as_text=True)
    assert 'method="FOO"' not in text and 'method="BAR1"' not in text
    assert (
        value(
            text, "tongiaki_requests_seconds_count", method="other", route="unmatched", status="405"
        )
        >= 3
    )


def test_threads_that_first_count_at_once_make_the_metrics_once():
    """A worker's clock thread and its job both counted a command first: the second
    registered every metric again, and prometheus_client refused with a traceback (the
    soak found it). In a fresh interpreter, with the making slowed down, 8 threads."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import threading, time
        import prometheus_client
        made = prometheus_client.Histogram.__init__
        def slowly(self, *a, **k):
            time.sleep(0.05)
            made(self, *a, **k)
        prometheus_client.Histogram.__init__ = slowly
        from service.runtime import counters as metrics
        start, errors = threading.Barrier(8), []
        def count():
            start.wait()
            try:
                metrics.command("accepted")
            except Exception as exc:
                errors.append(repr(exc))
        threads = [threading.Thread(target=count) for _ in range(8)]
        for t in threads: t.start()
        for t in threads: t.join()
        assert errors == [], errors
        from prometheus_client import REGISTRY
        assert REGISTRY.get_sample_value("tongiaki_commands_total", {"outcome": "accepted"}) == 8
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_metrics_that_cannot_be_made_never_fail_a_request_and_are_made_whole_later(monkeypatch):
    """A gunicorn worker whose metrics directory was removed under it (its master
    stopping) answered 500 and registered half its metrics, then refused the rest as
    duplicates at every request."""
    from prometheus_client import REGISTRY

    from service.runtime import counters as metrics

    monkeypatch.setattr(metrics, "_MADE", [])
    monkeypatch.setattr(metrics, "_FAILED", [])
    names = set(REGISTRY._names_to_collectors)

    def broken(counter, gauge, histogram):  # type: ignore[no-untyped-def]
        histogram("tongiaki_test_half", "made before the failure")
        raise FileNotFoundError("the metrics directory is gone")

    real = metrics._made
    monkeypatch.setattr(metrics, "_made", broken)
    metrics.command("accepted")  # no exception: counting never fails a request
    assert set(REGISTRY._names_to_collectors) == names  # nothing half made is left
    assert metrics._FAILED
    monkeypatch.setattr(metrics, "_made", real)
    if not any(n.startswith("tongiaki_requests") for n in names):
        metrics.command("accepted")  # made whole now
        assert metrics._MADE
