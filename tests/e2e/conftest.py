"""Browser tests: a real ``tongiaki serve`` process and headless Chromium (Playwright).

Chromium comes from Debian (``apt-get install chromium``; ``.ci/run`` installs it).
Without it these tests skip, except under ``TONGIAKI_REQUIRE_SERVICES=1``: then
they fail. Screenshots go to ``test-output/screenshots/``; the README's pictures in
``docs/screenshots/`` are replaced only with ``TONGIAKI_UPDATE_SCREENSHOTS=1`` (a test
run leaves the checkout as it found it).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-output" / "screenshots"
CHROMIUM = os.environ.get("TONGIAKI_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def to_docs(shot: Path) -> None:
    """Copy a screenshot over the README's picture of the same name, when asked to."""
    if os.environ.get("TONGIAKI_UPDATE_SCREENSHOTS") == "1":
        docs = ROOT / "docs" / "screenshots"
        docs.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, docs / shot.name)


class Served(str):
    """The server's base URL, knowing its data directory (for the CLI beside it)."""

    def __new__(cls, url: str, data: Path) -> Served:
        served = super().__new__(cls, url)
        served.data = data
        return served


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real service in testing mode (fixed tile orders allowed), embedded SQLite."""
    port = _free_port()
    data = tmp_path_factory.mktemp("e2e")
    env = {
        **os.environ,
        "TONGIAKI_DATA_DIR": str(data),
        "TONGIAKI_TESTING": "1",
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "TONGIAKI_PORT": str(port),
        "TONGIAKI_RATE_LIMITS": "off",
    }
    log = open(data / "server.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"], cwd=ROOT, env=env, stderr=log, stdout=log
    )
    # until it answers (a deadline, not a count of tries: on a busy machine, as under
    # pytest -n, a start takes longer than 200 tries of a free one), or fails
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                log.close()
                text = (data / "server.log").read_text(errors="replace")
                pytest.fail(f"the e2e server did not start on port {port}:\n{text}")
            time.sleep(0.05)
    yield Served(f"http://127.0.0.1:{port}", data)
    proc.terminate()
    proc.wait(timeout=20)
    log.close()


@pytest.fixture(scope="module")
def browser():
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        message = f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("TONGIAKI_REQUIRE_SERVICES") == "1":
            pytest.fail(message + " and TONGIAKI_REQUIRE_SERVICES=1")
        pytest.skip(message)
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def shots():
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS
