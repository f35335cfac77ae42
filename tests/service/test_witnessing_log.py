"""The log's side of witnessing (issue 28): each new checkpoint goes to every witness with
the consistency proof from the size it holds; their cosignatures are published beside
the log's signature; a witness that holds another size is asked again from it; one that
is away is asked again later; a forked log gets no cosignature, and the witness keeps
the evidence."""

from __future__ import annotations

import json
import threading

from service.store.log_memory import MemoryLog
from service.transparency.cosignatures import Cosigner
from service.transparency.integrator import Integrator
from service.transparency.log import TransparencyLog
from service.transparency.notes import Signer, open_note
from service.transparency.witness import Witness, WitnessState
from service.transparency.witnessing import Witnessing


def a_log(signer=None):
    store = MemoryLog(threading.RLock(), lambda g: json.dumps({"deck_commitment": "ab" * 32}))
    return TransparencyLog(store, signer or Signer.generate("w.test/log"), witnessed=True)


def grow(log, n, salt=0):
    start = log.store.head.size
    for i in range(start, start + n):
        log.store.add(f"game/g{i}", 1, f"{i + salt:064x}")
    Integrator(log.store, log.signer).drain()


def witness_for(log, tmp_path, name="witness.test"):
    cosigner = Cosigner.generate(name)
    state = WitnessState(tmp_path / f"{name}.json")
    return Witness(cosigner, {log.origin: (log.verifier,)}, state), cosigner


def through(*witnesses):
    """A post function answering as in-process witnesses (by URL)."""
    by_url = {f"http://{i}": w for i, w in enumerate(witnesses)}

    def post(url, body):
        answer = by_url[url].add_checkpoint(body)
        return answer.status, answer.content_type, answer.body

    return post, tuple(by_url)


def cosigned_by(log, *cosigners):
    opened = open_note(log.head().note, (log.verifier, *(c.verifier for c in cosigners)))
    return {s.name for s in opened.verified} - {log.origin}


def test_each_new_checkpoint_is_cosigned_by_every_witness_and_published(tmp_path):
    log = a_log()
    (w1, c1), (w2, c2) = witness_for(log, tmp_path, "one"), witness_for(log, tmp_path, "two")
    post, urls = through(w1, w2)
    witnessing = Witnessing(log, urls, post)
    assert witnessing.round() == 0  # nothing logged yet
    grow(log, 5)
    assert witnessing.round() == 2
    assert cosigned_by(log, c1, c2) == {"one", "two"}
    grow(log, 300)  # a new checkpoint, proven consistent with the 5 they cosigned
    assert witnessing.round() == 2 and cosigned_by(log, c1, c2) == {"one", "two"}
    assert w1.state.latest(log.origin).size == 305
    assert witnessing.round() == 0  # nothing new: nobody is asked again


def test_a_witness_holding_another_size_is_asked_again_from_it(tmp_path):
    log = a_log()
    grow(log, 10)
    witness, cosigner = witness_for(log, tmp_path)
    post, urls = through(witness)
    Witnessing(log, urls, post).round()  # the witness now holds 10
    grow(log, 7)
    fresh = Witnessing(log, urls, post)  # a restarted process: it thinks the witness holds 0
    assert fresh.round() == 1 and cosigned_by(log, cosigner) == {"witness.test"}
    assert witness.state.latest(log.origin).size == 17


def test_a_forked_log_gets_no_cosignature_and_the_witness_keeps_the_evidence(tmp_path, caplog):
    log = a_log()
    grow(log, 10)
    witness, cosigner = witness_for(log, tmp_path)
    post, urls = through(witness)
    Witnessing(log, urls, post).round()
    forked = a_log(log.signer)  # the same key, another history
    grow(forked, 12, salt=1)
    assert Witnessing(forked, urls, post).round() == 0
    assert cosigned_by(forked, cosigner) == set()
    assert witness.state.evidence(log.origin)
    assert "refused the checkpoint of 12" in caplog.text


def test_a_witness_that_is_away_is_asked_again_later(tmp_path):
    log = a_log()
    grow(log, 3)
    witness, cosigner = witness_for(log, tmp_path)
    calls, now = [], [0.0]

    def flaky(url, body):
        calls.append(url)
        if len(calls) == 1:
            raise OSError("connection refused")
        answer = witness.add_checkpoint(body)
        return answer.status, answer.content_type, answer.body

    witnessing = Witnessing(log, ("http://w",), flaky, clock=lambda: now[0])
    assert witnessing.round() == 0 and len(calls) == 1
    assert witnessing.round() == 0 and len(calls) == 1  # not before its backoff
    now[0] = 1.5
    assert witnessing.round() == 1 and cosigned_by(log, cosigner) == {"witness.test"}


def test_a_witness_asked_again_replaces_its_own_cosignature(tmp_path):
    log = a_log()
    grow(log, 4)
    witness, _ = witness_for(log, tmp_path)
    post, urls = through(witness)
    for _ in range(3):  # restarted processes ask again for the same checkpoint
        assert Witnessing(log, urls, post).round() == 1
    lines = [line for line in log.head().note.splitlines() if line.startswith("— witness.test")]
    assert len(lines) == 1


def test_the_newest_checkpoint_is_published_when_the_cosigned_one_grows_old(tmp_path):
    log = a_log()
    grow(log, 4)
    witness, cosigner = witness_for(log, tmp_path)
    post, urls = through(witness)
    Witnessing(log, urls, post).round()
    grow(log, 3)  # not cosigned yet: the cosigned tree of 4 is published meanwhile
    assert log.head().size == 4 and cosigned_by(log, cosigner) == {"witness.test"}
    log.grace = 0.0  # the witnesses away for longer than the grace: the newest, unwitnessed
    assert log.head().size == 7 and cosigned_by(log, cosigner) == set()


def test_after_a_key_rotation_the_same_tree_is_signed_by_the_new_key(tmp_path):
    old = a_log(Signer.generate("w.test/log"))
    grow(old, 9)
    new_key = Signer.generate("w.test/log-2")
    rotated = TransparencyLog(old.store, new_key)
    before = old.store.log_head()
    fresh = rotated.head()  # before the next integration: signed now, the same tree
    assert (
        open_note(fresh.note, (new_key.verifier,)).text.split("\n")[1:3]
        == (open_note(before.note, (old.verifier,)).text.split("\n")[1:3])
    )
    Integrator(rotated.store, new_key).step()  # nothing pending: the integrator re-signs
    assert old.store.log_head().note == fresh.note
