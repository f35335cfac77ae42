"""C2SP signed notes with Ed25519 (issue 28): the vectors of Go's note package
documentation, keys made here, and every way a note can fail to check."""

from __future__ import annotations

import pytest

from service.transparency.notes import (
    NoteError,
    Signer,
    Verifier,
    open_note,
    sign,
)

# golang.org/x/mod/sumdb/note: ExampleSign and ExampleOpen
SIGNER = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
TEXT = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
)
SIGNED = (
    TEXT + "\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FF"
    "YC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
)


def test_the_go_note_package_vectors():
    signer = Signer.parse(SIGNER)
    assert signer.text == SIGNER and signer.verifier.text == VERIFIER
    assert sign(TEXT, signer) == SIGNED
    note = open_note(SIGNED, (Verifier.parse(VERIFIER),))
    assert note.text == TEXT and [s.name for s in note.verified] == ["PeterNeumann"]


def test_a_new_key_signs_and_a_second_unknown_signature_is_kept_unverified():
    log, witness = Signer.generate("tongiaki.example/log"), Signer.generate("w.example")
    signed = sign("tongiaki.example/log\n3\nAAAA\n", log, witness)
    note = open_note(signed, (Verifier.parse(log.verifier.text),))
    assert [s.name for s in note.verified] == ["tongiaki.example/log"]
    assert [s.name for s in note.unverified] == ["w.example"]
    both = open_note(signed, (log.verifier, witness.verifier))
    assert len(both.verified) == 2 and not both.unverified


def test_a_changed_text_or_signature_does_not_check():
    verifier = (Verifier.parse(VERIFIER),)
    with pytest.raises(NoteError, match="does not check"):
        open_note(SIGNED.replace("answer", "Answer"), verifier)
    with pytest.raises(NoteError, match="does not check"):
        open_note(SIGNED.replace("SffcvIAQ", "SffcvIAR"), verifier)
    other = Signer.generate("PeterNeumann")  # the same name, another key: not known
    with pytest.raises(NoteError, match="no known key"):
        open_note(sign(TEXT, other), verifier)


@pytest.mark.parametrize(
    "note",
    [
        TEXT,  # no signature
        TEXT + "\n",
        SIGNED[:-1],  # no final newline
        TEXT + "\n- PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2p\n",
        TEXT + "\n\u2014 PeterNeumann !!!\n",
        TEXT + "\n\u2014 PeterNeumann AAAA\n",  # shorter than a key id and a signature
        "a\tb\n\n" + SIGNED.split("\n\n")[1],  # a control character
    ],
)
def test_what_is_not_a_signed_note(note):
    with pytest.raises(NoteError):
        open_note(note, (Verifier.parse(VERIFIER),))


@pytest.mark.parametrize(
    "key",
    [
        "PeterNeumann+c74f20a3",
        "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  # wrong id
        "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+c74f20a3+AhpjZ2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  # algorithm 2
        "PeterNeumann+c74f20a3+ARpc",
    ],
)
def test_what_is_not_a_verifier_key(key):
    with pytest.raises(NoteError):
        Verifier.parse(key)


def test_what_is_not_a_signer_key():
    with pytest.raises(NoteError):
        Signer.parse(SIGNER.replace("c74f20a3", "c74f20a4"))
    with pytest.raises(NoteError):
        Signer.parse(VERIFIER)
    with pytest.raises(NoteError):
        Signer.generate("has space")
