"""The change feed: one per process, it fans new events out to every live stream.

A stream (``GET /games/{id}/stream``) never reads the database while it waits.
Each watched game has a ``Hub``: the feed reads a game's new events once, as
soon as it hears of them, keeps the last ``BUFFER`` of them as ready-made
server-sent-event frames, and wakes every subscriber of that game, which takes
the frames after the version it has sent. Only a subscriber that starts (or
falls) further back than the buffer reads the store itself, a page at a time,
until it is level.

How the feed hears of new events, fastest first:

- in-process: the service's doorbell rings ``changed(game_id)`` after every
  commit of this process;
- PostgreSQL: a trigger on ``events`` sends ``NOTIFY tongiaki_events`` with the
  game id on every commit, whoever wrote it (another web process, the CLI's
  import); one ``LISTEN`` connection per process (``PgListener``, ``service.live.channels``)
  hears them, or a Redis channel (``TONGIAKI_CHANGE_FEED=redis``);
- a safety poll: every ``poll_every`` seconds, one query for the head version of
  every watched game, for anything missed (the listener reconnecting, or on
  SQLite another process writing the file).

A stream's request writes the frames its viewer lacks, then hands the
connection to the feed's ``Writer`` (``service.live.writer``) and ends: on both
servers (gunicorn's gevent workers, the embedded server's threads) a waiting
viewer holds no greenlet and no thread, only a socket and a small record, and
the writer writes each hub's new frames to all of its parked streams. A server
that gives the app no socket gets ``Subscription.next``: the request waits on
the hub instead (the Flask test client).

Bounds: at most ``max_streams`` open streams per process (503
``too_many_streams`` past it) and ``per_client`` per client address (429
``too_many_streams``). ``close()`` (on SIGTERM) ends every stream at once so that
a process stops within seconds with viewers connected; they reconnect to
another process and resume after their ``Last-Event-ID``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask import json

from domain.state import Phase
from service.errors import TooManyRequests, Unavailable
from service.live.writer import Writer
from service.play.event_json import event_json
from service.runtime import counters as metrics
from service.store.base import StoredEvent, StoreUnavailable

log = logging.getLogger("tongiaki.feed")

BUFFER = 512  # frames kept per watched game
PAGE = 200  # events read at once
HISTORY = 64  # pages of older frames kept per process, for viewers catching up
READERS = 4  # catch-ups reading the store at once in one process
READ_WAIT = 10.0  # seconds a catching-up viewer waits for its turn to read
LOAD_TIMEOUT = 10.0  # seconds a viewer waits for another to load the game's hub
RETRY_AFTER = 10  # seconds a refused viewer waits before asking again
CHANNEL = "tongiaki_events"  # PostgreSQL NOTIFY channel (the trigger's, service.store)
CHAT_CHANNEL = "tongiaki_chat"  # a game's chat moved (service.chat.store notifies it)
ENDED = Phase.ENDED.value  # the games row status of a game that is over


@dataclass(frozen=True)
class View:
    """What a hub holds at one moment, replaced whole (readers take it without a lock)."""

    start: int  # frames hold the versions after this one, in order, none missing
    head: int  # the last version read
    ended: bool  # the game is over (as of ``head``)
    frames: tuple[tuple[int, bytes], ...] = ()

    def after(self, version: int) -> tuple[tuple[int, bytes], ...] | None:
        """The frames after ``version``; None if the buffer no longer reaches back there."""
        first = self.frames[0][0] if self.frames else self.head + 1
        if version + 1 < first and version < self.head:
            return None
        return self.frames[max(0, version + 1 - first) :]

    def then(self, frames: Sequence[tuple[int, bytes]], ended: bool) -> View:
        """This view with ``frames`` read after its head (the last ``BUFFER`` kept)."""
        kept = (self.frames + tuple(frames))[-BUFFER:]
        head = frames[-1][0] if frames else self.head
        return View(kept[0][0] - 1 if kept else head, head, ended, kept)


@dataclass(eq=False)
class Hub:
    """One watched game: its view, its parked streams, a signal for waiting requests.

    A new view replaces the old one whole with the frames read; the writer then writes
    them to the parked streams (``service.live.writer``). A request that waits on the hub
    instead (no socket to park) waits on ``changed``, which is set and replaced with
    every new view: no lock to take again for the waiters."""

    game_id: str
    view: View = field(default_factory=lambda: View(0, 0, False))
    changed: threading.Event = field(default_factory=threading.Event)
    loaded: threading.Event = field(default_factory=threading.Event)
    failed: bool = False  # its first read failed: the hub is dropped
    subscribers: int = 0
    parked: dict[int, Any] = field(default_factory=dict)  # by socket (service.live.writer)
    chat: int = 0  # its chat's last seq known: parked streams are told of a newer one

    def publish(self, view: View) -> None:
        self.view = view
        fired, self.changed = self.changed, threading.Event()
        fired.set()


class Subscription:
    """One open stream: its hub, its client's share, and a way to wait for more."""

    def __init__(self, feed: Feed, hub: Hub, client: str) -> None:
        self.feed = feed
        self.hub = hub
        self.client = client
        self.closed = False
        self.revoked = False  # the credential it was opened with was revoked: it ends

    def pending(self, after: int) -> tuple[Sequence[tuple[int, bytes]], bool, bool]:
        """Frames after ``after`` now, whether the stream is over (the game ended and
        every frame was handed out, or the feed closes), and whether they reach the
        hub's head (else they are a page read from the store: ``after`` was behind the
        hub's buffer, a resume from long ago or a slow reader)."""
        feed, view = self.feed, self.hub.view
        if feed.closing or self.revoked:
            return (), True, True
        frames = view.after(after)
        if frames is not None:
            last = frames[-1][0] if frames else after
            return frames, view.ended and view.head <= last, True
        return feed.history(self.hub.game_id, after), False, False

    def next(self, after: int, timeout: float) -> tuple[Sequence[tuple[int, bytes]], bool]:
        """Frames after ``after`` (waiting up to ``timeout`` s for some), and whether the
        stream is over (``pending``): for servers that cannot hand a stream's connection
        to the writer (``service.live.writer``), whose request then waits here."""
        feed, hub = self.feed, self.hub
        view = hub.view
        if view.head <= after and not feed.closing:
            changed = hub.changed  # before the view is read again: no lost wake-up
            view = hub.view
            if view.head <= after and not view.ended:  # a game that is over: nothing to wait for
                changed.wait(timeout)
        frames, over, _ = self.pending(after)
        return frames, over

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.feed._leave(self)


def frame(event: StoredEvent) -> bytes:
    """One event as a server-sent event: its version as the id, its type as the name."""
    data = json.dumps(event_json(event))
    return f"id: {event.version}\nevent: {event.type}\ndata: {data}\n\n".encode()


class Feed:
    """New events of watched games, read once per process and handed to every stream."""

    def __init__(
        self,
        store: Any,
        *,
        max_streams: int,
        per_client: int,
        poll_every: float = 2.0,
        listener: Callable[[Feed], Any] | None = None,
        heartbeat: float = 15.0,
        pages: Callable[[str, int, int], Sequence[StoredEvent]] | None = None,
    ) -> None:
        self.store = store
        # where catch-up pages are read: a replica's whole pages (service.replication.reads)
        self.pages = pages
        self.chat_heads: Callable[[Sequence[str]], dict[str, int]] | None = None  # chat.md
        self.heartbeat = heartbeat  # seconds between a quiet stream's heartbeats
        self.max_streams = max_streams
        self.per_client = per_client
        self.poll_every = poll_every
        self.lock = threading.Lock()
        self.hubs: dict[str, Hub] = {}
        self.clients: dict[str, int] = {}
        self.open = 0
        self.closing = False
        self._dirty: set[str] = set()
        self._chat_dirty: set[str] = set()
        self._wake = threading.Event()
        self._pid = 0
        self._listener = listener
        self.writer = Writer(self)
        # older frames than the hubs hold, by (game, page): events never change, so a
        # page read once serves every viewer catching up through it (a crowd resuming
        # from the start of a long game drained the database pool, one reader each)
        self._history: OrderedDict[tuple[str, int], tuple[tuple[int, bytes], ...]] = OrderedDict()
        self._readers = threading.BoundedSemaphore(READERS)
        FEEDS.append(self)

    # --- subscribers ------------------------------------------------------------

    def subscribe(self, game_id: str, client: str) -> Subscription:
        """Open a stream of ``game_id`` for ``client``, or raise 503 / 429."""
        self._start()
        with self.lock:
            if self.closing:
                raise Unavailable(
                    "shutting_down", "this server process is stopping; retry", retry_after=1
                )
            if self.open >= self.max_streams:
                raise Unavailable(
                    "too_many_streams",
                    f"this server process already holds {self.max_streams} live streams; follow"
                    " the game with GET /games/{id}/events?after= meanwhile, or retry later",
                    retry_after=RETRY_AFTER,
                )
            if self.per_client and self.clients.get(client, 0) >= self.per_client:
                raise TooManyRequests(
                    "too_many_streams",
                    f"one client holds at most {self.per_client} live streams at once on a"
                    " server process; close one first",
                    retry_after=RETRY_AFTER,
                )
            self.open += 1
            self.clients[client] = self.clients.get(client, 0) + 1
            hub = self.hubs.get(game_id)
            loader = hub is None
            if hub is None:  # the first viewer of this game here: it loads the hub
                hub = Hub(game_id)
                self.hubs[game_id] = hub
            hub.subscribers += 1
        metrics.streams(1)
        sub = Subscription(self, hub, client)
        try:
            if loader:
                self._load(hub)
            else:  # another viewer is loading it: wait for that (one read, not one each)
                hub.loaded.wait(LOAD_TIMEOUT)
                if hub.failed or not hub.loaded.is_set():
                    raise StoreUnavailable(f"the events of {game_id} could not be read")
        except BaseException:
            sub.close()
            raise
        return sub

    def _load(self, hub: Hub) -> None:
        """Read the game's head and its latest ``BUFFER`` events into the hub, once."""
        try:
            row = self.store.head(hub.game_id)
            version = row.version if row else 0
            start = max(0, version - BUFFER)
            rows = self.store.read(hub.game_id, start, version - start) if version else []
        except BaseException:
            with self.lock:
                hub.failed = True
                if self.hubs.get(hub.game_id) is hub:
                    del self.hubs[hub.game_id]  # the next viewer tries again
            hub.loaded.set()
            raise
        ended = bool(row and row.status == ENDED)
        hub.publish(View(start, start, False).then([(e.version, frame(e)) for e in rows], ended))
        self.writer.changed(hub)
        hub.loaded.set()
        self._dirty.add(hub.game_id)  # anything committed between the reads and now
        self._wake.set()

    def _release(self, client: str) -> None:
        with self.lock:
            self.open -= 1
            left = self.clients.get(client, 1) - 1
            if left:
                self.clients[client] = left
            else:
                self.clients.pop(client, None)
        metrics.streams(-1)

    def _leave(self, sub: Subscription) -> None:
        with self.lock:
            sub.hub.subscribers -= 1
            if sub.hub.subscribers <= 0 and self.hubs.get(sub.hub.game_id) is sub.hub:
                del self.hubs[sub.hub.game_id]
        self._release(sub.client)

    def history(self, game_id: str, after: int) -> list[tuple[int, bytes]]:
        """The frames after ``after`` from the store, a page at a time (the page of
        ``PAGE`` versions holding ``after + 1``), read by at most ``READERS`` viewers of
        this process at once; full pages are kept for the next viewer."""
        start = after // PAGE * PAGE
        key = (game_id, start)
        with self.lock:
            page = self._history.get(key)
            if page is not None:
                self._history.move_to_end(key)
        if page is None:
            if not self._readers.acquire(timeout=READ_WAIT):
                raise Unavailable(
                    "streams_catching_up",
                    "this server process is busy sending many viewers the game's history;"
                    " retry shortly",
                    retry_after=2,
                )
            try:
                rows = (self.pages or self.store.read)(game_id, start, PAGE)
            finally:
                self._readers.release()
            page = tuple((e.version, frame(e)) for e in rows)
            if len(page) == PAGE:  # complete: it never changes
                with self.lock:
                    self._history[key] = page
                    while len(self._history) > HISTORY:
                        self._history.popitem(last=False)
        return [f for f in page if f[0] > after]

    # --- what changed -------------------------------------------------------------

    def changed(self, game_id: str) -> None:
        """A game has new events (or may have): read them if anybody watches it."""
        if game_id in self.hubs:
            self._dirty.add(game_id)
            self._wake.set()

    def chat_changed(self, game_id: str) -> None:
        """A game's chat moved (or may have): tell its streams if anybody watches it."""
        if game_id in self.hubs:
            self._chat_dirty.add(game_id)
            self._wake.set()

    def changed_all(self) -> None:
        """Anything may have been missed (a listener (re)connected): look at every hub,
        its events and its chat (a chat's ping sent before the listener was up was lost
        until the poll: a CI run found it)."""
        self._dirty.update(self.hubs)
        self._chat_dirty.update(self.hubs)
        self._wake.set()

    def close(self) -> None:
        """End every stream now and refuse new ones (the process is stopping)."""
        with self.lock:
            self.closing = True
            hubs = list(self.hubs.values())
        for hub in hubs:
            hub.publish(hub.view)
        self.writer.wake()
        self._wake.set()

    # --- the reader ---------------------------------------------------------------

    def _start(self) -> None:
        """Start the reader (and the listener) in this process, once (again after a fork)."""
        if self._pid == os.getpid():
            return
        with self.lock:
            if self._pid == os.getpid():
                return
            self._pid = os.getpid()
            threading.Thread(target=self._run, name="feed", daemon=True).start()
            if self._listener is not None:
                self._listener(self)  # its thread keeps it

    def _run(self) -> None:
        last_poll = time.monotonic()
        while not self.closing:
            self._wake.wait(self.poll_every)
            self._wake.clear()
            if self.closing:
                return
            dirty, self._dirty = self._dirty, set()
            chats, self._chat_dirty = self._chat_dirty, set()
            try:
                if time.monotonic() - last_poll >= self.poll_every:
                    last_poll = time.monotonic()
                    dirty |= self._moved(list(self.hubs))
                    chats = set(self.hubs)
                for game_id in dirty:
                    self._read(game_id)
                self._chats(chats)
            except StoreUnavailable as exc:  # the next poll tries again
                self._dirty |= dirty
                log.warning("feed: %s", exc)
                time.sleep(min(self.poll_every, 1.0))
            except Exception:
                self._dirty |= dirty
                log.exception("feed failed")
                time.sleep(min(self.poll_every, 1.0))

    def _chats(self, game_ids: set[str]) -> None:
        """Tell the streams of games whose chat moved (a ping: the page reads the chat)."""
        if not game_ids or self.chat_heads is None:
            return
        for game_id, seq in self.chat_heads(sorted(game_ids)).items():
            hub = self.hubs.get(game_id)
            if hub is not None and seq > hub.chat:
                hub.chat = seq
                self.writer.changed(hub)

    def _moved(self, game_ids: Sequence[str]) -> set[str]:
        """The watched games whose head is past what their hub has read."""
        if not game_ids:
            return set()
        heads = self.store.versions(game_ids)
        return {
            g
            for g, (version, status) in heads.items()
            if (hub := self.hubs.get(g)) is not None
            and hub.loaded.is_set()
            and (version > hub.view.head or (status == ENDED) != hub.view.ended)
        }

    def _read(self, game_id: str) -> None:
        """Read the game's new events once, and wake its subscribers (the reader only)."""
        hub = self.hubs.get(game_id)
        if hub is None or not hub.loaded.is_set() or hub.failed:
            return
        while True:
            view = hub.view
            rows = self.store.read(game_id, view.head, PAGE)
            ended, level = view.ended, False
            if len(rows) < PAGE:  # level with the head: is the game over?
                row = self.store.head(game_id)
                newest = rows[-1].version if rows else view.head
                # the head may have moved on since the read: over only if over *there*
                level = row is None or row.version <= newest
                ended = bool(level and row and row.status == ENDED)
            if rows or ended != view.ended:
                hub.publish(view.then([(e.version, frame(e)) for e in rows], ended))
                self.writer.changed(hub)
            if level:
                return


FEEDS: list[Feed] = []  # this process's feeds, closed together on shutdown

FD_RESERVE = 128  # file descriptors kept for everything but streams (database, Redis, files)


def fd_budget() -> int:
    """Streams this process can hold within its open-file limit (each is a socket)."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return max(0, soft - FD_RESERVE) if soft != resource.RLIM_INFINITY else 1 << 30


def close_all() -> None:
    """End every stream of this process (SIGTERM)."""
    for feed in FEEDS:
        feed.close()


class FeedDoorbell:
    """A doorbell that tells the feed first, then rings ``inner``."""

    def __init__(self, feed: Feed, inner: Any) -> None:
        self.feed = feed
        self.inner = inner

    def ring(self, game_id: str) -> None:
        self.feed.changed(game_id)
        self.inner.ring(game_id)

    def __getattr__(self, name: str) -> Any:  # flush() and friends of the inner bell
        return getattr(self.inner, name)
