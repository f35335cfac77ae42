"""``tongiaki witness`` as a process (issue 28): a key made once, bad keys and logs refused
in one line, and its HTTP answers to what a client may send — a checkpoint cosigned,
garbage, an unknown log, a body too large — each a clear status, never a crash."""

from __future__ import annotations

import time

from service.transparency.cosignatures import CosignatureVerifier
from service.transparency.integrator import checkpoint_note
from service.transparency.merkle import leaf_hash, root
from service.transparency.notes import Signer, open_note
from tests.servers import Http, base_env, free_port, start
from tests.system.test_log_served import tongiaki


def test_a_witness_process_cosigns_and_answers_bad_requests_clearly(tmp_path):
    env = base_env()
    key = tmp_path / "w.key"
    made = tongiaki(env, "witness", "keygen", "--name", "w.test", "--out", str(key))
    assert made.returncode == 0, made.stderr
    witness_key = CosignatureVerifier.parse(made.stdout.strip())
    again = tongiaki(env, "witness", "keygen", "--name", "w.test", "--out", str(key))
    assert again.returncode == 1 and "never replaced" in again.stderr
    log = Signer.generate("log.test/log")
    bad = tongiaki(env, "witness", "serve", "--key", str(key), "--log", "nonsense",
                   "--state", str(tmp_path / "s.json"))  # fmt: skip
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    port = free_port()
    server = start(
        ["witness", "serve", "--key", str(key), "--log", log.verifier.text,
         "--state", str(tmp_path / "state.json"), "--port", str(port)],
        env, tmp_path / "witness.log",
    )  # fmt: skip
    try:
        http = Http(port, "")
        deadline = time.monotonic() + 30
        while True:
            try:
                if http.call("GET", "/healthz").status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.05)
        leaves = [leaf_hash(b"a"), leaf_hash(b"b")]
        note = checkpoint_note(log, 2, root(leaves))
        good = http.call("POST", "/add-checkpoint", raw=f"old 0\n\n{note}".encode())
        assert good.status == 200, good.raw
        cosigned = open_note(note + good.raw.decode(), (log.verifier, witness_key))
        assert {s.name for s in cosigned.verified} == {"log.test/log", "w.test"}
        stranger = checkpoint_note(Signer.generate("other/log"), 2, root(leaves))
        for body, status in [
            (b"", 400),
            (b"garbage", 400),
            (b"old x\n\n" + note.encode(), 400),
            (f"old 0\n\n{stranger}".encode(), 404),
            (f"old 0\n\n{note}".encode(), 409),  # it holds 2 now: text/x.tlog.size
            (b"\xff\xfe", 400),
            (b"x" * 70_000, 400),
        ]:
            reply = http.call("POST", "/add-checkpoint", raw=body)
            assert reply.status == status, (body[:30], reply.status, reply.raw)
        assert http.call("GET", "/evidence").json == {"log.test/log": []}
        assert http.call("GET", "/nothing").status == 404
        assert http.call("GET", "/add-checkpoint").status == 405
        assert http.call("PUT", "/add-checkpoint", raw=b"x").headers["allow"] == "GET, POST"
        # a fork of the tree it cosigned (one size, another root): refused, kept as evidence
        fork = checkpoint_note(log, 2, root([leaf_hash(b"a"), leaf_hash(b"z")]))
        assert http.call("POST", "/add-checkpoint", raw=f"old 2\n\n{fork}".encode()).status == 409
        (kept,) = http.call("GET", "/evidence").json["log.test/log"]
        assert fork in kept and note in kept  # both signed checkpoints: the proof of a fork
        # one witness process per state file
        second = tongiaki(env, "witness", "serve", "--key", str(key), "--log", log.verifier.text,
                          "--state", str(tmp_path / "state.json"), "--port", str(free_port()))  # fmt: skip
        assert second.returncode == 1 and "another witness process" in second.stderr
        assert "Traceback" not in server.output()
    finally:
        server.stop()
