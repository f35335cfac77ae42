"""Sending the due deliveries: a pool of ``SENDERS`` threads, at most ``PER_ACCOUNT`` of
them on one account's deliveries (a slow endpoint holds up only its own account's),
each delivery claimed under a lease (``service.notifications.outbox``), sent as soon as
a sender takes it and its attempt recorded as it ends; and the loop that looks for
them (``run_deliveries``: the embedded default's thread, the worker's)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Protocol

from service.notifications import outbox
from service.notifications.outbox import Delivery
from service.notifications.preferences import to_ms
from service.runtime.loops import repeat
from service.store.base import SqlStore, StoreUnavailable

log = logging.getLogger("tongiaki.notify")

SENDERS = 16  # deliveries sent at once by one process
PER_ACCOUNT = 2  # of them for one account at most
NOTIFY_EVERY = 0.25  # seconds between the deliverer's looks for due deliveries
REMIND_EVERY = 1.0  # seconds between its looks for deadlines coming


class Deliverer:
    """Claims due deliveries for the senders that are free and hands each to one."""

    def __init__(
        self,
        store: SqlStore,
        send: Callable[[Delivery], tuple[bool, str]],
        clock: Callable[[], datetime],
        backoff: Sequence[float],
    ) -> None:
        self.store = store
        self.send = send  # one delivery on its channel (service.notifications.channels)
        self.clock = clock
        self.backoff = backoff  # seconds before each retry
        self.pool = ThreadPoolExecutor(SENDERS, thread_name_prefix="notify")
        self._lock = threading.Lock()
        self._sending: dict[str, int] = {}  # account → its deliveries being sent now
        self._busy = 0  # senders at work

    def pump(self, now: datetime) -> int:
        """Claim the due deliveries the free senders can take (``PER_ACCOUNT`` at most
        for one account, counting those under way) and hand each to a sender, which
        sends it and records the attempt. Deliveries handed over."""
        with self._lock:
            free = SENDERS - self._busy
            sending = dict(self._sending)
        if free <= 0:
            return 0
        taken = outbox.claim(self.store, to_ms(now), free, sending, PER_ACCOUNT)
        for delivery in taken:
            account = delivery.account_id
            with self._lock:
                self._busy += 1
                self._sending[account] = self._sending.get(account, 0) + 1
            try:
                self.pool.submit(self._deliver, delivery)
            except RuntimeError:  # shutting down: the lease ends, another process sends it
                self._done(account)
        return len(taken)

    def idle(self) -> bool:
        """Whether no delivery is being sent (tests)."""
        return self._busy == 0

    def send_due(self, now: datetime, wait: float = 30.0) -> int:
        """Hand the due deliveries to senders and wait until every sender is idle
        (tests and tools: the deliverer itself does not wait)."""
        handed = self.pump(now)
        deadline = time.monotonic() + wait
        while not self.idle() and time.monotonic() < deadline:
            time.sleep(0.01)
        return handed

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _deliver(self, delivery: Delivery) -> None:
        """A sender: send one delivery, record the attempt."""
        n, channel = delivery.notification_id, delivery.channel
        try:
            ok, detail = self.send(delivery)
            outbox.record(self.store, delivery, ok, detail, self.clock(), self.backoff)
        except StoreUnavailable as exc:  # the lease ends and it is sent again
            log.warning("delivery of %s by %s not recorded: %s", n, channel, exc)
        except Exception:
            log.exception("delivery of %s by %s failed", n, channel)
        finally:
            self._done(delivery.account_id)

    def _done(self, account: str) -> None:
        with self._lock:
            self._busy -= 1
            left = self._sending.get(account, 1) - 1
            if left:
                self._sending[account] = left
            else:
                self._sending.pop(account, None)


class Rounds(Protocol):
    """What the loop runs: one look of the notifier (``service.notifications.notify``)."""

    def round(self, remind: bool = True) -> int: ...


def run_deliveries(notifier: Rounds, every: float, closed: Callable[[], bool]) -> threading.Event:
    """A thread that looks for due deliveries every ``every`` seconds (and for coming
    deadlines every ``REMIND_EVERY``) until ``closed()`` or the returned event is set
    (the embedded default and the worker); the senders work beside it."""
    stop = threading.Event()
    reminded = 0.0

    def look() -> None:
        nonlocal reminded
        remind = time.monotonic() - reminded >= REMIND_EVERY
        if remind:
            reminded = time.monotonic()
        notifier.round(remind)

    repeat(
        look,
        every,
        stop,
        name="notify",
        log=log,
        what="notifications",
        skipped=(StoreUnavailable,),
        until=closed,
    )
    return stop
