"""``tongiaki log verify`` on a mirror of a log's public files (issue 28): a log that grows
is followed checkpoint to checkpoint; a forked tree, a tampered entry, another log's key,
a missing witness and an unreadable state are each refused with the reason."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from service.cli import main
from service.store.log_memory import MemoryLog
from service.transparency.cosignatures import Cosigner
from service.transparency.integrator import Integrator
from service.transparency.log import TransparencyLog
from service.transparency.tiles import tiles_for


def mirrored(tmp: Path, commits: int, name: str = "mirror.example/log", log=None):
    """A log of ``commits`` game commits (each its own game), mirrored to ``tmp``."""
    import threading

    from service.transparency.notes import Signer as S

    signer = log.signer if log else S.generate(name)
    store = log.store if log else MemoryLog(threading.RLock(), lambda g: None)
    start = store.head.size if log else 0
    for i in range(start, start + commits):
        store.add(f"game/g{i}", 1, f"{i:064x}")
    store.first_event = lambda g: json.dumps({"deck_commitment": "cd" * 32})
    Integrator(store, signer).drain()
    public = TransparencyLog(store, signer)
    size = public.head().size
    (tmp / "checkpoint").write_text(public.head().note)
    for tile in tiles_for(size):
        for path in (tile.path, tile.path.replace(f"tile/{tile.level}/", "tile/entries/", 1)):
            if path.startswith("tile/entries/") and tile.level != 0:
                continue
            target = tmp / path
            target.parent.mkdir(parents=True, exist_ok=True)
            data = public.tile(path)
            assert data is not None, path
            target.write_bytes(data)
    return public


def verify(*args: str):
    return CliRunner().invoke(main, ["log", "verify", *args])


def test_a_growing_log_is_followed_from_checkpoint_to_checkpoint(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    log = mirrored(mirror, 300)
    state = str(tmp_path / "state.json")
    first = verify(str(mirror), "--key", log.key, "--state", state, "--entries")
    assert first.exit_code == 0 and "at 300 entries" in first.output, first.output
    assert "300 entries of 300 streams read back" in first.output
    mirrored(mirror, 45, log=log)
    again = verify(str(mirror), "--key", log.key, "--state", state)
    assert again.exit_code == 0 and "consistent with the 300 kept" in again.output, again.output
    assert json.loads(Path(state).read_text())["size"] == 345


def test_a_forked_tree_signed_by_the_same_key_is_inconsistent(tmp_path):
    mirror, fork = tmp_path / "mirror", tmp_path / "fork"
    mirror.mkdir()
    fork.mkdir()
    log = mirrored(mirror, 20)
    state = tmp_path / "state.json"
    assert verify(str(mirror), "--key", log.key, "--state", str(state)).exit_code == 0
    # the same key, another history of 25 entries (the first ones differ)
    import threading

    other = MemoryLog(threading.RLock(), lambda g: None)
    for i in range(25):
        other.add(f"game/g{i}", 1, f"{i + 1:064x}")
    forked = TransparencyLog(other, log.signer)
    mirrored(fork, 0, log=forked)
    refused = verify(str(fork), "--key", log.key, "--state", str(state))
    assert refused.exit_code == 1 and "INCONSISTENT" in refused.output, refused.output
    evidence = Path(f"{state}.evidence").read_text()
    assert log.head().note in evidence and forked.head().note in evidence
    assert json.loads(state.read_text())["size"] == 20  # the kept checkpoint is not replaced


def test_tampered_files_other_keys_and_missing_witnesses_are_refused(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    log = mirrored(mirror, 10)
    from service.transparency.notes import Signer as S

    stranger = S.generate("mirror.example/log").verifier.text
    assert "does not check" in verify(str(mirror), "--key", stranger).output
    witness = Cosigner.generate("w.example").verifier.text
    unmet = verify(str(mirror), "--key", log.key, "--witness", witness, "--quorum", "1")
    assert unmet.exit_code == 3 and "0 witness cosignature(s), 1 required" in unmet.output
    assert verify(str(mirror), "--key", log.key, "--quorum", "1").exit_code == 2  # whose?
    bundle = mirror / "tile/entries/000.p/10"
    entries = bundle.read_bytes()
    bundle.write_bytes(
        entries.replace(f"{3:064x}".encode(), b"f" * 64)  # entry 3 names another head
    )
    tampered = verify(str(mirror), "--key", log.key, "--entries")
    assert tampered.exit_code == 1 and "entry 3" in tampered.output, tampered.output
    (tmp_path / "bad.json").write_text("{")
    broken = verify(str(mirror), "--key", log.key, "--state", str(tmp_path / "bad.json"))
    assert broken.exit_code == 1 and "not a state file" in broken.output
    gone = verify(str(tmp_path / "nothing"), "--key", log.key)
    assert gone.exit_code == 2 and "neither a URL" in gone.output
    for url in ("http://[::1", "http://127.0.0.1:99999/log", "http:///log"):
        assert verify(url, "--key", log.key).exit_code == 2, url
    away = verify("http://127.0.0.1:9/log", "--key", log.key)  # nothing listens there
    assert away.exit_code == 3 and "cannot be read now" in away.output
    nowhere = verify(str(mirror), "--key", log.key, "--state", str(tmp_path / "no" / "s.json"))
    assert nowhere.exit_code == 2 and "is not a folder" in nowhere.output
    assert "Traceback" not in gone.output + broken.output + tampered.output


def test_a_rotated_key_is_followed_with_the_earlier_one_named(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    log = mirrored(mirror, 30)
    state = str(tmp_path / "state.json")
    assert verify(str(mirror), "--key", log.key, "--state", state).exit_code == 0
    from service.transparency.notes import Signer as S

    rotated = TransparencyLog(log.store, S.generate("mirror.example/log-2"))
    mirrored(mirror, 5, log=rotated)  # the same tree goes on under the new key
    refused = verify(str(mirror), "--key", rotated.key, "--state", state)
    assert refused.exit_code == 1 and "--previous-key" in refused.output
    followed = verify(
        str(mirror), "--key", rotated.key, "--previous-key", log.key, "--state", state
    )
    assert followed.exit_code == 0 and "consistent with the 30 kept" in followed.output
