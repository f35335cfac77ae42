"""How a process's change feed hears of other processes' commits: PostgreSQL's
``LISTEN`` (``PgListener``, one connection per process, the default on PostgreSQL), or
a Redis channel (``TONGIAKI_CHANGE_FEED=redis``), without one ``LISTEN`` connection per
web process when they are many (docs/replication.md).

Every process that commits publishes the game's id on its queue's events channel:
the doorbell's script does it in the same round trip that marks the game dirty for
the read models (``service.live.doorbells``); a chat that moves publishes its game's
id on the chat channel. Each web process subscribes once (``RedisListener``) and
tells its feed, as ``PgListener`` does for ``LISTEN``; on every (re)subscription the
feed looks at all its hubs, and its safety poll still finds whatever a lost message
or a Redis outage hid. A message is a hint, never the only way a viewer gets a move.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from redis import Redis
from redis.exceptions import RedisError

from service.live.feed import CHANNEL, CHAT_CHANNEL
from service.runtime.outages import Outage

log = logging.getLogger("tongiaki.feed")

TIMEOUT = 10.0  # seconds a Redis call may take before the listener reconnects
HEALTH = 5  # seconds between the listener's pings while nothing is published


class PgListener:
    """One ``LISTEN tongiaki_events`` connection per process, telling the feed which game
    moved; it reconnects after an outage (and the feed looks at every hub then)."""

    def __init__(self, feed: Any, url: str) -> None:
        self.feed = feed
        self.url = url
        threading.Thread(target=self._run, name="feed-listen", daemon=True).start()

    def _run(self) -> None:
        import psycopg

        delay = 0.5
        while not self.feed.closing:
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    conn.execute(f"LISTEN {CHAT_CHANNEL}")
                    self.feed.changed_all()  # whatever came while we were not listening
                    delay = 0.5
                    while not self.feed.closing:
                        for note in conn.notifies(timeout=1.0):
                            chat = note.channel == CHAT_CHANNEL
                            (self.feed.chat_changed if chat else self.feed.changed)(note.payload)
            except Exception as exc:
                log.warning("feed listener: %s; again in %.1f s", exc, delay)
                time.sleep(delay)
                delay = min(delay * 2, 10.0)


def listener_for(url: str) -> Callable[[Any], PgListener]:
    return lambda feed: PgListener(feed, url)


def events_channel(queue: str) -> str:
    """The channel the game ids of commits are published on."""
    return f"tongiaki:feed:{queue}:events"


def chat_channel(queue: str) -> str:
    """The channel the game ids of chats that moved are published on."""
    return f"tongiaki:feed:{queue}:chat"


class ChatChannel:
    """Publishes a game's id on the chat channel (rung from ``BackgroundDoorbell``'s
    thread: a slow Redis never delays a message)."""

    def __init__(self, redis_url: str, queue: str, timeout: float = 1.0) -> None:
        self.redis = Redis.from_url(
            redis_url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        self.channel = chat_channel(queue)
        self.outage = Outage(
            "Redis", log, "chat pings not published", "the feed's poll tells the streams"
        )

    def ring(self, game_id: str) -> None:
        try:
            self.redis.publish(self.channel, game_id)
        except RedisError as exc:
            self.outage.failed(exc)
            return
        self.outage.ok()


class RedisListener:
    """One subscription per process to the events and chat channels, telling the feed
    which game moved; it subscribes again after an outage (and the feed then looks at
    every hub)."""

    def __init__(self, feed: Any, url: str, queue: str) -> None:
        self.feed = feed
        self.url = url
        self.channels: dict[str, Callable[[str], None]] = {
            events_channel(queue): feed.changed,
            chat_channel(queue): feed.chat_changed,
        }
        threading.Thread(target=self._run, name="feed-redis", daemon=True).start()

    def _run(self) -> None:
        delay = 0.5
        while not self.feed.closing:
            client = Redis.from_url(
                self.url,
                socket_timeout=TIMEOUT,
                socket_connect_timeout=TIMEOUT,
                health_check_interval=HEALTH,
            )
            pubsub = client.pubsub()
            try:
                self._subscribe(pubsub)
                delay = 0.5
                self._listen(pubsub)
            except (RedisError, OSError) as exc:
                log.warning("feed listener (Redis): %s; again in %.1f s", exc, delay)
                time.sleep(delay)
                delay = min(delay * 2, 10.0)
            finally:
                pubsub.close()
                client.close()

    def _subscribe(self, pubsub: Any) -> None:
        """Subscribe, wait until Redis confirms both channels, then have the feed look at
        every hub: a commit published before then is read by that look."""
        pubsub.subscribe(*self.channels)
        confirmed: set[str] = set()
        deadline = time.monotonic() + TIMEOUT
        while confirmed != set(self.channels):
            if time.monotonic() > deadline:
                raise RedisError("no confirmation of the subscription")
            message = pubsub.get_message(timeout=1.0)
            if message and message["type"] == "subscribe":
                confirmed.add(_text(message["channel"]))
        self.feed.changed_all()

    def _listen(self, pubsub: Any) -> None:
        while not self.feed.closing:
            message = pubsub.get_message(timeout=1.0)
            if message is None or message["type"] != "message":
                continue
            tell: Callable[[str], None] | None = self.channels.get(_text(message["channel"]))
            if tell is not None:
                tell(_text(message["data"]))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def redis_listener_for(url: str, queue: str) -> Callable[[Any], RedisListener]:
    return lambda feed: RedisListener(feed, url, queue)
