"""The transparency log's storage as a model (issue 28), on every adapter: random
interleavings of game commits, dispute commits, imports, integrations of random batch
sizes and key rotations; after every step, every commit made is pending or logged
exactly once, each stream's entries in version order with the head it had, the stored
tiles are RFC 9162's tree of the entries, and the checkpoint is signed by the key of the
last integration over that tree."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from service.store.base import GENESIS, CommandRecord, JournalEntry, NewEvent, chain_events
from service.transparency import merkle
from service.transparency.checkpoint import Checkpoint
from service.transparency.entries import HeadEntry
from service.transparency.integrator import Integrator
from service.transparency.notes import Signer, open_note
from service.transparency.tiled_tree import TiledTree

COMMITMENT = "ef" * 32


def created() -> NewEvent:
    return NewEvent("GameCreated", {"deck_commitment": COMMITMENT}, {})


class LogModel(RuleBasedStateMachine):
    """The store under test, and what it should hold."""

    store = None  # set per run
    runs = 0

    def __init__(self) -> None:
        super().__init__()
        self.heads: dict[str, tuple[int, str]] = {}  # stream → its head (version, hash)
        self.commits: dict[str, list[tuple[int, str]]] = {}  # stream → every commit, in order
        self.signer = Signer.generate("model.test/log")
        self.games = 0
        self.n = 0  # a counter for unique ids in this run
        LogModel.runs += 1
        self.prefix = f"m{LogModel.runs}x"  # the store is shared by the runs of one test
        self.signed = False  # whether a step of this run signed the checkpoint

    def _commit(self, stream: str, version: int, head: str) -> None:
        self.heads[stream] = (version, head)
        self.commits.setdefault(stream, []).append((version, head))

    @rule(events=st.integers(1, 3))
    def new_game(self, events):
        self.n += 1
        game = f"{self.prefix}g{self.n}"
        record = CommandRecord(game, "c0", {}, "t", {}, None)
        extra = [NewEvent("X", {"i": i}, {}) for i in range(events - 1)]
        done = self.store.append(record, 0, [created(), *extra], "playing")
        self._commit(f"game/{game}", done.version, done.hash)

    @rule(data=st.data(), events=st.integers(1, 3))
    def play(self, data, events):
        games = sorted(s for s in self.heads if s.startswith("game/"))
        if not games:
            return
        stream = data.draw(st.sampled_from(games))
        version, head = self.heads[stream]
        self.n += 1
        record = CommandRecord(stream[5:], f"c{self.n}", {}, "t", {}, None)
        new = [NewEvent("X", {"n": self.n, "i": i}, {}) for i in range(events)]
        done = self.store.append(record, version, new, "playing", head)
        self._commit(stream, done.version, done.hash)

    @rule(data=st.data())
    def dispute(self, data):
        games = sorted(s for s in self.heads if s.startswith("game/"))
        if not games:
            return
        game = data.draw(st.sampled_from(games))[5:]
        self.n += 1
        dispute_id = f"{self.prefix}d{self.n}"
        stored = self.store.append_dispute(
            dispute_id, game, 0, [NewEvent("DisputeOpened", {}, {})], status="open", at="t"
        )
        self._commit(f"dispute/{dispute_id}", stored[-1].version, stored[-1].hash)

    @rule(commands=st.lists(st.integers(1, 3), min_size=1, max_size=4))
    def import_game(self, commands):
        self.n += 1
        game = f"{self.prefix}i{self.n}"
        events = [created()] + [NewEvent("X", {"k": k}, {}) for k in range(sum(commands) - 1)]
        chain = chain_events(game, 0, GENESIS, events)
        journal, first = [], 1
        for i, size in enumerate(commands):
            last = first + size - 1
            journal.append(
                JournalEntry(game, f"i{i}", {}, "t", {}, first - 1, "accepted", first, last, None)
            )
            first = last + 1
        self.store.import_stream(chain, "playing", "t", journal)
        for entry in journal:
            self._commit(f"game/{game}", entry.last_version, chain[entry.last_version - 1].hash)

    @rule(batch=st.integers(1, 9))
    def integrate(self, batch):
        Integrator(self.store.log, self.signer, batch=batch).step()
        self.signed = True

    @rule()
    def rotate_the_key(self):
        self.signer = Signer.generate(f"model.test/log-{self.n}")
        Integrator(self.store.log, self.signer).step()  # re-signs what is there, if any
        self.signed = True

    @invariant()
    def every_commit_once_in_order_with_its_head(self):
        log = self.store.log
        head = log.log_head()
        entries = [HeadEntry.parse(d) for d in log.log_entries(0, head.size)]
        assert len(entries) == head.size
        logged: dict[str, list[tuple[int, str]]] = {}
        for e in entries:
            if e.stream.split("/", 1)[1].startswith(self.prefix):
                logged.setdefault(e.stream, []).append((e.version, e.head))
        made = sum(len(c) for c in self.commits.values())
        pending = log.log_pending()
        mine = sum(len(v) for v in logged.values())
        assert mine + pending >= made  # nothing lost (other runs' rows may wait too)
        for stream, seen in logged.items():
            assert seen == self.commits[stream][: len(seen)], stream  # a prefix, in order
        leaves = [merkle.leaf_hash(d) for d in log.log_entries(0, head.size)]
        if head.note and self.signed:
            point = Checkpoint.parse(open_note(head.note, (self.signer.verifier,)).text)
            assert point.size == head.size and point.root == merkle.root(leaves)
            assert TiledTree(log.log_tile, head.size).root() == point.root

    def teardown(self):
        Integrator(self.store.log, self.signer).drain()
        self.signed = True
        self.every_commit_once_in_order_with_its_head()
        assert self.store.log.log_pending() == 0
        head = self.store.log.log_head()
        logged = {}
        for d in self.store.log.log_entries(0, head.size):
            e = HeadEntry.parse(d)
            logged.setdefault(e.stream, []).append((e.version, e.head))
        for stream, made in self.commits.items():
            assert logged[stream] == made, stream  # all of them, once, in order


@pytest.mark.parametrize("examples", [12])
def test_the_log_keeps_every_commit_once_through_any_interleaving(store, examples):
    LogModel.store = store
    run_state_machine_as_test(
        LogModel,
        settings=settings(
            max_examples=examples,
            stateful_step_count=25,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
