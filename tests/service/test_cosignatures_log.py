"""C2SP tlog-cosignature v1 (issue 28): a witness's timestamped cosignature of a
checkpoint, beside the log's own signature in one note."""

from __future__ import annotations

import base64

import pytest

from service.transparency.checkpoint import Checkpoint
from service.transparency.cosignatures import CosignatureVerifier, Cosigner, message
from service.transparency.merkle import EMPTY
from service.transparency.notes import NoteError, Signer, open_note, sign

CHECKPOINT = Checkpoint("tongiaki.example/log", 7, EMPTY).text


def test_the_signed_message_is_the_header_the_time_and_the_whole_checkpoint():
    assert message(CHECKPOINT, 1679315147) == (
        b"cosignature/v1\ntime 1679315147\ntongiaki.example/log\n7\n"
        b"47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n"
    )
    with pytest.raises(NoteError):
        message(CHECKPOINT, -1)
    with pytest.raises(NoteError):
        message(CHECKPOINT, 2**63)


def test_a_cosignature_carries_its_time_and_checks_against_the_checkpoint():
    witness = Cosigner.generate("witness.example/w1")
    line = witness.cosign(CHECKPOINT, 1700000000)
    raw = base64.b64decode(line.line.split(" ")[-1])
    assert raw[:4] == witness.verifier.id and int.from_bytes(raw[4:12], "big") == 1700000000
    verifier = CosignatureVerifier.parse(witness.verifier.text)
    assert verifier == witness.verifier
    assert verifier.timestamp(CHECKPOINT, line.signature) == 1700000000
    with pytest.raises(NoteError):  # another tree
        verifier.timestamp(CHECKPOINT.replace("\n7\n", "\n8\n"), line.signature)
    forged = (1700000001).to_bytes(8, "big") + line.signature[8:]
    with pytest.raises(NoteError):  # another time
        verifier.timestamp(CHECKPOINT, forged)


def test_a_log_signature_and_a_cosignature_in_one_note():
    log = Signer.generate("tongiaki.example/log")
    witness = Cosigner.generate("witness.example/w1")
    note = sign(CHECKPOINT, log) + witness.cosign(CHECKPOINT, 1700000000).line
    opened = open_note(note, (log.verifier, witness.verifier))
    assert [s.name for s in opened.verified] == ["tongiaki.example/log", "witness.example/w1"]
    # the same seed as a log key and as a cosigning key: two ids, never confused
    same = Cosigner("tongiaki.example/log", log.seed)
    assert same.verifier.id != log.verifier.id
    with pytest.raises(NoteError):
        open_note(sign(CHECKPOINT, log).replace(log.name, "x"), (same.verifier,))


@pytest.mark.parametrize(
    "key",
    [
        "w+00000000",
        "w+00000000+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  # a note key (0x01)
        "w w+00000000+BBpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "w+00000000+BBpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  # not its id
    ],
)
def test_what_is_not_a_cosigning_key(key):
    with pytest.raises(NoteError):
        CosignatureVerifier.parse(key)
