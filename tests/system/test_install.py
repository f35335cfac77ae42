"""The README's run command, as a newcomer runs it in a fresh clone: it installs the
service from its lock (hash-checked, nothing else) and serves.

A clone of this repository's last commit (what CI checks out), into a temporary
folder, with this working tree's ``pyproject.toml`` and service lock (or the one
``TONGIAKI_SERVICE_LOCK`` names: ``requirements/relock.py`` checks a new lock before
writing it); the command is read from README.md as ``.ci/run`` reads the test command.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

import pytest

from tests.servers import ROOT, Http, base_env, free_port
from tests.test_lock import LOCKS, here


def readme_command(marker: str) -> str:
    text = (ROOT / "README.md").read_text()
    after = text.split(f"<!-- {marker} -->", 1)[1]
    return after.split("```sh\n", 1)[1].split("\n```", 1)[0].strip()


@pytest.mark.timeout(600)
def test_the_run_command_installs_the_service_lock_and_serves(tmp_path):
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    shutil.copy(LOCKS["service.lock"], clone / "requirements" / "service.lock")
    shutil.copy(ROOT / "pyproject.toml", clone / "pyproject.toml")
    port = free_port()
    env = base_env(TONGIAKI_PORT=str(port), TONGIAKI_DATA_DIR=str(tmp_path / "var"))
    log = (tmp_path / "run.log").open("wb")
    process = subprocess.Popen(
        ["bash", "-c", readme_command("run-command")],
        cwd=clone,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 500
        while True:
            assert process.poll() is None, (tmp_path / "run.log").read_text()[-3000:]
            try:
                if Http(port, prefix="").call("GET", "/healthz").status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "run.log").read_text()[-3000:]
            time.sleep(0.5)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        log.close()
    # the environment is the lock, nothing missing, nothing besides (not even pytest)
    check = subprocess.run(
        [str(clone / ".venv" / "bin" / "tongiaki"), "check-install"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "as locked" in check.stdout and "does not name" not in check.stdout, check.stdout
    wanted = here("service.lock")
    assert "pytest" not in wanted and "flask" in wanted
