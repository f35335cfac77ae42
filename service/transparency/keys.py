"""The log's signing key, as a process gets it: from ``TONGIAKI_LOG_KEY`` (a file written
by ``tongiaki log keygen``), made once under the data directory by the embedded default,
made afresh by the in-memory store (nothing of it outlives the process), and refused
on PostgreSQL when it is missing: a production log signs with a key its operator keeps.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from urllib.parse import urlsplit

from service.runtime.settings import ConfigError, Settings
from service.transparency.notes import NoteError, Signer

log = logging.getLogger("tongiaki.log")
KEY_FILE = "log.key"  # under the data directory, the embedded default's
MAX_KEY_FILE = 4096


def default_name(settings: Settings) -> str:
    """The name (checkpoints' origin) of a key the service makes itself."""
    if settings.log_name:
        return settings.log_name
    if settings.public_url:
        parts = urlsplit(settings.public_url)
        return f"{parts.netloc}{parts.path.rstrip('/')}/log"
    return "localhost/tongiaki-log"


def read_key(path: Path) -> Signer:
    """The signer key in ``path`` (``ConfigError`` naming the file and what is wrong; a
    file others may read is said in the log, not refused)."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_KEY_FILE + 1)
    except OSError as exc:
        raise ConfigError(
            f"TONGIAKI_LOG_KEY: cannot read {path}: {exc.strerror or exc}"
            " (make one with: tongiaki log keygen --name <origin> --out <file>)"
        ) from exc
    try:
        if len(raw) > MAX_KEY_FILE:
            raise NoteError("the file is too long to be a key")
        signer = Signer.parse(raw.decode("ascii"))
    except (NoteError, UnicodeDecodeError) as exc:
        raise ConfigError(f"TONGIAKI_LOG_KEY: {path} is not a log signer key: {exc}") from exc
    if path.stat().st_mode & 0o077:
        log.warning("the log's key %s may be read by others than its owner (chmod 600 it)", path)
    return signer


def write_key_file(path: Path, text: str) -> None:
    """A secret key's text into a new file readable by its owner only, on disk before
    this returns (``FileExistsError``: a key is never replaced; ``OSError`` otherwise)."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(handle, "w") as written:
        written.write(text + "\n")
        written.flush()
        os.fsync(written.fileno())


def make_key(path: Path, name: str) -> Signer:
    """A new key written to ``path`` (readable by its owner only), unless a process
    starting beside this one wrote it first: then that one."""
    signer = Signer.generate(name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_key_file(path, signer.text)
    except FileExistsError:
        return read_key(path)
    except OSError as exc:
        raise ConfigError(
            f"TONGIAKI_DATA_DIR: cannot use {path.parent}: cannot write the log's key {path}:"
            f" {exc.strerror or exc}"
        ) from exc
    return signer


def log_signer(settings: Settings) -> Signer:
    """The key this process signs the log with (see the module's docstring)."""
    if settings.log_key:
        return read_key(Path(settings.log_key))
    if settings.in_memory:
        return Signer.generate(default_name(settings))
    if settings.uses_postgres:
        raise ConfigError(
            "TONGIAKI_LOG_KEY is not set: on PostgreSQL the transparency log signs with a key"
            " its operator keeps (tongiaki log keygen --name <origin> --out <file>, then"
            " TONGIAKI_LOG_KEY=<file> for every web process and worker)"
        )
    path = settings.data_dir / KEY_FILE
    if path.exists():
        signer = read_key(path)
        if settings.log_name and settings.log_name != signer.name:
            log.warning(
                "TONGIAKI_LOG_NAME is %r, but the log's key in %s is named %r: a key keeps its"
                " name (a new name is a new key: docs/transparency.md, Rotation)",
                settings.log_name, path, signer.name,
            )  # fmt: skip
        return signer
    signer = make_key(path, default_name(settings))
    log.warning(
        "made the transparency log's key %s (keep it and back it up); its verifier key: %s",
        path, signer.verifier.text,
    )  # fmt: skip
    return signer
