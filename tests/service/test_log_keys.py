"""The transparency log's key (issue 28): the embedded default makes it once under its data
directory (readable by its owner only) and keeps it across restarts; a key file names
its problems; on PostgreSQL a process refuses to start without one, in one clear line."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from service.runtime.settings import ConfigError, Settings
from service.transparency.keys import log_signer
from service.transparency.notes import Signer
from tests.servers import base_env

ROOT = Path(__file__).resolve().parents[2]


def test_the_embedded_default_makes_its_key_once_and_keeps_it(tmp_path):
    settings = Settings(data_dir=tmp_path / "data")
    first = log_signer(settings)
    path = tmp_path / "data" / "log.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert log_signer(settings) == first  # a restart signs with the same key
    assert first.name == "localhost/tongiaki-log"
    named = Settings(data_dir=tmp_path / "other", public_url="https://games.example.org/play")
    assert log_signer(named).name == "games.example.org/play/log"


def test_a_key_file_is_read_and_its_problems_are_named(tmp_path):
    good = tmp_path / "good.key"
    signer = Signer.generate("ops.example/log")
    good.write_text(signer.text + "\n")
    assert log_signer(Settings(log_key=str(good), database_url="postgresql://x/y")) == signer
    for content, says in [
        (b"", "not a log signer key"),
        (b"PRIVATE+KEY+x+00000000+AAAA\n", "not a log signer key"),
        (b"\xff\xfe", "not a log signer key"),
        (b"x" * 10_000, "too long"),
    ]:
        bad = tmp_path / "bad.key"
        bad.write_bytes(content)
        with pytest.raises(ConfigError, match=says):
            log_signer(Settings(log_key=str(bad)))
    with pytest.raises(ConfigError, match=r"cannot read .*missing\.key"):
        log_signer(Settings(log_key=str(tmp_path / "missing.key")))


def test_postgresql_without_a_key_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="TONGIAKI_LOG_KEY is not set"):
        log_signer(Settings(database_url="postgresql://postgres@127.0.0.1/test"))
    memory = log_signer(Settings(database_url="memory:"))
    assert memory != log_signer(Settings(database_url="memory:"))  # a key per process


@pytest.mark.parametrize("command", [["serve", "--workers", "1", "--port", "8601"], ["worker"]])
def test_a_production_process_without_a_key_refuses_to_start_in_one_line(
    tmp_path, postgres_url, redis_url, command
):
    env = base_env(DATABASE_URL=postgres_url, REDIS_URL=redis_url, TONGIAKI_DATA_DIR=str(tmp_path))
    env.pop("TONGIAKI_LOG_KEY", None)
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", *command],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: TONGIAKI_LOG_KEY is not set"), lines
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "log.key").exists()
    assert os.environ.get("TONGIAKI_LOG_KEY")  # the run's own key is untouched


@pytest.mark.parametrize(
    "raw",
    [
        " http://w.example:8700",
        "http://w.example:99999",
        "http://w.example:0",
        "notaurl",
        "ftp://w.example",
        "http://user:pw@w.example",
        "http://w.example/?x=1",
        "http://[::1",
        ",".join(["http://w.example"] * 17),
    ],
)
def test_witness_urls_that_cannot_be_one_are_refused_naming_it(raw):
    with pytest.raises(ConfigError, match="TONGIAKI_WITNESSES"):
        Settings.from_env({"TONGIAKI_WITNESSES": raw})


def test_witness_urls_with_paths_and_ports_are_taken():
    raw = "http://w.example:8700,https://w2.example/witness/"
    assert Settings.from_env({"TONGIAKI_WITNESSES": raw}).witnesses == (
        "http://w.example:8700",
        "https://w2.example/witness",
    )


def test_the_in_memory_store_refuses_a_real_logs_key():
    with pytest.raises(ConfigError, match="second history"):
        Settings.from_env({"DATABASE_URL": "memory:", "TONGIAKI_LOG_KEY": "/some/log.key"})
