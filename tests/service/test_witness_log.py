"""A witness (issue 28, C2SP tlog-witness add-checkpoint): it cosigns a log's growing
tree, refuses what the protocol says to refuse, keeps a rewritten history as evidence,
and resumes from its file after a restart."""

from __future__ import annotations

import base64

from service.transparency.checkpoint import Checkpoint
from service.transparency.cosignatures import Cosigner
from service.transparency.merkle import consistency_proof, leaf_hash, root
from service.transparency.notes import Signer, open_note, sign
from service.transparency.witness import SIZE_TYPE, Witness, WitnessState

LOG = Signer.generate("tongiaki.example/log")
LEAVES = [leaf_hash(f"entry {i}\n".encode()) for i in range(40)]


def request(old: int, new: int, leaves: list[bytes] = LEAVES, signer: Signer = LOG) -> str:
    point = Checkpoint(signer.name, new, root(leaves[:new]))
    proof = consistency_proof(old, leaves[:new]) if old else []
    lines = "".join(base64.b64encode(h).decode() + "\n" for h in proof)
    return f"old {old}\n{lines}\n" + sign(point.text, signer)


def witness(tmp_path, clock: float = 1_700_000_000.0) -> Witness:
    cosigner = Cosigner("witness.example/w1", b"\x07" * 32)
    return Witness(
        cosigner, {LOG.name: (LOG.verifier,)}, WitnessState(tmp_path / "w.json"), lambda: clock
    )


def test_it_cosigns_a_growing_tree_and_the_cosignature_checks(tmp_path):
    w = witness(tmp_path)
    for old, new in ((0, 3), (3, 10), (10, 10), (10, 40)):
        answer = w.add_checkpoint(request(old, new))
        assert answer.status == 200, answer.body
        checkpoint = Checkpoint(LOG.name, new, root(LEAVES[:new])).text
        note = sign(checkpoint, LOG) + answer.body
        opened = open_note(note, (LOG.verifier, w.cosigner.verifier))
        assert [s.name for s in opened.verified] == [LOG.name, "witness.example/w1"]
        assert w.cosigner.verifier.timestamp(checkpoint, opened.verified[1].signature) == 1700000000


def test_an_old_size_that_is_not_the_witnesss_is_told_the_size_it_holds(tmp_path):
    w = witness(tmp_path)
    assert w.add_checkpoint(request(0, 10)).status == 200
    stale = w.add_checkpoint(request(3, 12))  # a slower request from an older view
    assert (stale.status, stale.body, stale.content_type) == (409, "10\n", SIZE_TYPE)
    assert w.add_checkpoint(request(10, 12)).status == 200
    assert w.add_checkpoint(request(0, 5)).status == 409  # never rolled back


def test_a_rewritten_history_is_refused_and_kept_as_evidence(tmp_path):
    w = witness(tmp_path)
    assert w.add_checkpoint(request(0, 20)).status == 200
    forked = list(LEAVES)
    forked[7] = leaf_hash(b"an event rewritten by a superuser")
    answer = w.add_checkpoint(request(20, 30, forked))  # re-signed by the log's own key
    assert answer.status == 422 and answer.evidence
    same_size = w.add_checkpoint(request(20, 20, forked))
    assert same_size.status == 409 and same_size.evidence
    assert len(w.state.evidence(LOG.name)) == 2
    assert w.add_checkpoint(request(20, 30)).status == 200  # the true history goes on


def test_what_the_protocol_refuses(tmp_path):
    w = witness(tmp_path)
    other = Signer.generate("other.example/log")
    assert w.add_checkpoint(request(0, 3, signer=other)).status == 404
    impostor = Signer.generate(LOG.name)
    assert w.add_checkpoint(request(0, 3, signer=impostor)).status == 403
    assert w.add_checkpoint("old 5\n\n" + request(0, 3).split("\n\n", 1)[1]).status == 400
    assert w.add_checkpoint("old 01\n\n" + request(0, 3).split("\n\n", 1)[1]).status == 400
    assert w.add_checkpoint("nonsense").status == 400
    with_proof = "old 0\n" + base64.b64encode(bytes(32)).decode() + "\n\n"
    assert w.add_checkpoint(with_proof + request(0, 3).split("\n\n", 1)[1]).status == 422


def test_a_restarted_witness_resumes_from_its_file(tmp_path):
    assert witness(tmp_path).add_checkpoint(request(0, 10)).status == 200
    again = witness(tmp_path)  # a new process on the same state file
    assert again.add_checkpoint(request(0, 12)).body == "10\n"
    assert again.add_checkpoint(request(10, 12)).status == 200
