"""``tongiaki log keygen`` and ``tongiaki proof verify`` (issue 28): a key made once and
never replaced; a proof checked with nothing but the public files, and refused when it
does not prove its entry or lacks the witnesses asked for."""

from __future__ import annotations

import stat

from click.testing import CliRunner

from service.cli import main
from service.transparency.checkpoint import Checkpoint
from service.transparency.cosignatures import Cosigner
from service.transparency.entries import HeadEntry
from service.transparency.merkle import inclusion_proof, leaf_hash, root
from service.transparency.notes import Signer, sign
from service.transparency.proofs import ProofBundle

ENTRIES = [HeadEntry(f"game/g{i}", 1, f"{i:064x}", "cd" * 32).data for i in range(9)]


def test_keygen_writes_the_signer_key_once_and_prints_its_verifier(tmp_path):
    out = tmp_path / "log.key"
    made = CliRunner().invoke(main, ["log", "keygen", "--name", "t.example/log", "--out", str(out)])
    assert made.exit_code == 0, made.output
    signer = Signer.parse(out.read_text())
    assert made.output.strip() == signer.verifier.text
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    again = CliRunner().invoke(
        main, ["log", "keygen", "--name", "t.example/log", "--out", str(out)]
    )
    assert again.exit_code == 1 and "never replaced" in again.output
    assert Signer.parse(out.read_text()) == signer
    bad = CliRunner().invoke(main, ["log", "keygen", "--name", "a b", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def write_bundle(tmp_path, signer, leaves, witnesses=()):
    point = Checkpoint(signer.name, len(leaves), root(leaves))
    note = sign(point.text, signer) + "".join(w.cosign(point.text, 5).line for w in witnesses)
    found = ProofBundle(4, tuple(inclusion_proof(4, leaves)), note, ENTRIES[4])
    path = tmp_path / "entry.tlog-proof"
    path.write_text(found.text)
    return path


def test_proof_verify_with_public_files_only(tmp_path):
    log, witness = Signer.generate("t.example/log"), Cosigner.generate("w.example")
    leaves = [leaf_hash(e) for e in ENTRIES]
    path = write_bundle(tmp_path, log, leaves, (witness,))
    args = ["proof", "verify", str(path), "--key", log.verifier.text]
    ok = CliRunner().invoke(main, [*args, "--witness", witness.verifier.text, "--quorum", "1"])
    assert ok.exit_code == 0, ok.output
    assert "entry 4 is in t.example/log's tree of 9 (1 witness" in ok.output
    assert "game/g4" in ok.output
    short = CliRunner().invoke(main, [*args, "--quorum", "1"])  # the witness's key not given
    assert short.exit_code == 2 and "--witness" in short.output
    # one witness's cosignature twice is still one witness
    twice = path.read_text() + path.read_text().rsplit("\n", 2)[-2] + "\n"
    path.write_text(twice)
    two = CliRunner().invoke(main, [*args, "--witness", witness.verifier.text, "--quorum", "2"])
    assert two.exit_code == 1 and "1 witness cosignature(s), 2 required" in two.output
    forked = [*leaves[:4], leaf_hash(b"rewritten"), *leaves[5:]]
    lie = write_bundle(tmp_path, log, forked)
    refused = CliRunner().invoke(main, ["proof", "verify", str(lie), "--key", log.verifier.text])
    assert refused.exit_code == 1 and "does not hold" in refused.output
    other = Signer.generate("t.example/log")
    wrong = CliRunner().invoke(main, [*args[:3], "--key", other.verifier.text])
    assert wrong.exit_code == 1 and "does not hold" in wrong.output
    garbage = CliRunner().invoke(main, [*args[:3], "--key", "nonsense"])
    assert garbage.exit_code == 2 and "Traceback" not in garbage.output
