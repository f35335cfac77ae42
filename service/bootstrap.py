"""One typed way to build the service from its settings: the web app
(``service.app.web_app``), the worker (``workers.jobs``) and the CLI take what they
need from the same ``Services``.

Building starts no thread and serves nothing. The background work a process owns is
started by that process: ``start_embedded_background`` for the embedded default (no
Redis: nobody else sweeps the read models, delivers reminders or keeps the
deadlines), the worker's own loop with Redis.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from domain.state import Phase
from projections.store import ReadModels
from service.audit.disputes import DisputeService
from service.chat.service import ChatService
from service.forks.service import Forks
from service.identity.service import Identity
from service.invitations.service import Invitations
from service.leagues.service import Leagues
from service.live.channels import ChatChannel, events_channel, listener_for, redis_listener_for
from service.live.doorbells import BackgroundDoorbell, InlineDoorbell, RqDoorbell, sweep_inline
from service.live.feed import FD_RESERVE, Feed, FeedDoorbell, fd_budget
from service.notes.service import Notes
from service.notifications.deliverer import NOTIFY_EVERY, run_deliveries
from service.notifications.notify import Notifier
from service.play.attempts import Doorbell
from service.play.games import GameService
from service.play.timekeeper import ClockBell, LocalScheduler, Timekeeper
from service.preferences.languages import Languages
from service.profiles.service import Profiles
from service.rematch.service import Rematches
from service.runtime.settings import ConfigError, Settings
from service.store.base import SqlStore

if TYPE_CHECKING:
    from service.replication.reads import Replica
from service.transparency.integrator import run_integrator
from service.transparency.keys import log_signer
from service.transparency.log import TransparencyLog
from service.vacation.games import Telling
from service.vacation.service import Vacations

# live streams one process holds at once (service.live.feed) unless TONGIAKI_MAX_STREAMS says:
# the embedded server gives each connection a thread of its own (~30 KB each, waiting);
# a gevent worker a greenlet (service.servers.serving)
EMBEDDED_STREAMS = 2000


def open_store(settings: Settings) -> SqlStore:
    """The event store the settings name: PostgreSQL, memory, or the embedded SQLite file."""
    if settings.in_memory:
        from service.store.in_memory import InMemoryStore

        return InMemoryStore()
    if settings.uses_postgres:
        from service.store.postgres import PostgresEventStore

        return PostgresEventStore(settings.database_url)
    from service.store.sqlite import SQLiteEventStore

    try:
        return SQLiteEventStore(settings.sqlite_path)
    except OSError as exc:  # the data directory cannot be made
        raise ConfigError(
            f"TONGIAKI_DATA_DIR: cannot use {settings.data_dir}: {exc.strerror or exc}"
        ) from exc


REDIS_CHECK_TIMEOUT = 2.0  # seconds


def check_services(settings: Settings) -> None:
    """The log's key there (made by the embedded default, refused missing on PostgreSQL);
    the database and Redis reached once, within seconds; or raise with the cause."""
    log_signer(settings)
    store = open_store(settings)  # PostgreSQL: StoreUnavailable after at most 5 s
    try:
        store.upgrade()
    finally:
        store.close()
    if settings.redis_url:
        from redis import Redis
        from redis.exceptions import RedisError

        from service.store.base import StoreUnavailable

        client = Redis.from_url(
            settings.redis_url,
            socket_timeout=REDIS_CHECK_TIMEOUT,
            socket_connect_timeout=REDIS_CHECK_TIMEOUT,
        )
        try:
            client.ping()
        except RedisError as exc:
            where = settings.redis_url.split("@")[-1]
            raise StoreUnavailable(f"cannot reach Redis at {where}: {exc}") from exc
        finally:
            client.close()


@dataclass
class Services:
    """The service's parts, wired: what every process builds the same way."""

    settings: Settings
    store: SqlStore
    readmodels: ReadModels
    doorbell: Doorbell  # the read models' (inline, or rq); commits ring it
    games: GameService
    notifier: Notifier
    disputes: DisputeService
    feed: Feed | None  # live streams' change feed; None where nothing streams (the worker)
    log: TransparencyLog | None  # the transparency log; None where nothing signs (CLI)
    identity: Identity  # sessions, tokens, sign-in links and passkeys (docs/accounts.md)
    notes: Notes  # players' private notes (docs/notes.md)
    languages: Languages  # the accounts' chosen languages (docs/i18n.md)
    background: list[threading.Event] = field(default_factory=list)  # stops, once started
    clocks: LocalScheduler | None = None  # the embedded default's deadlines, once started
    chat: ChatService | None = None  # games' chats (docs/chat.md)
    vacations: Vacations | None = None  # vacation days and spells (docs/vacation.md)
    invitations: Invitations | None = None  # private tables (docs/invitations.md)
    rematches: Rematches | None = None  # rematches (docs/invitations.md)
    profiles: Profiles | None = None  # names and deletions (docs/profiles.md)
    leagues: Leagues | None = None  # round-robin leagues (docs/leagues.md)
    forks: Forks | None = None  # analysis forks (docs/forks.md)
    replica: Replica | None = None  # the read side's standby (docs/replication.md)


def build(
    settings: Settings,
    *,
    store: SqlStore | None = None,
    clock: Callable[[], datetime] | None = None,
    doorbell: Doorbell | None = None,
    streams: int | None = EMBEDDED_STREAMS,
    signed: bool = True,
) -> Services:
    """The services on the settings' store (or ``store``), their schemas upgraded.

    ``doorbell``: how commits reach the read models (default: rq from a thread of its
    own with ``REDIS_URL``, else inline). ``streams``: the live streams this process
    may hold (``None``: no change feed, a process that serves no stream). ``signed``: the
    process signs the log (its key required on PostgreSQL: ``ConfigError`` without it);
    a command of the command line that does not, says ``signed=False``."""
    signer = log_signer(settings) if signed or not settings.uses_postgres else None
    store = store or open_store(settings)
    store.upgrade()
    readmodels = ReadModels(store, store)
    readmodels.upgrade()
    replica = _replica(settings, store, readmodels)
    languages = Languages(store)  # before anything mails: its table is read then
    now = clock or (lambda: datetime.now(UTC))
    doorbell = doorbell or _doorbell(settings, readmodels)
    feed = _feed(settings, store, streams, replica) if streams is not None else None
    bell = FeedDoorbell(feed, doorbell) if feed is not None else doorbell
    games = _games(settings, store, now, bell, readmodels)
    notifier = Notifier(store, settings, games.clock)
    notifier.upgrade()
    disputes = DisputeService(
        store,
        games,
        clock=now,
        window=timedelta(seconds=settings.dispute_window),
        announce=notifier.announce,
    )
    log = TransparencyLog(store.log, signer, witnessed=bool(settings.witnesses)) if signer else None
    identity = Identity(store, settings, games.clock)
    identity.upgrade()
    services = Services(
        settings,
        store,
        readmodels,
        doorbell,
        games,
        notifier,
        disputes,
        feed,
        log,
        identity,
        _notes(store, games),
        languages,
        replica=replica,
    )
    return _around_the_games(services, now)


def _replica(settings: Settings, store: SqlStore, readmodels: ReadModels) -> Replica | None:
    """With ``DATABASE_REPLICA_URL``: the standby the read side reads (docs/replication.md)."""
    if not settings.database_replica_url:
        return None
    from service.replication.reads import Replica

    replica = Replica(settings.database_replica_url, store)
    readmodels.reads = replica.reads
    return replica


def _games(
    settings: Settings,
    store: SqlStore,
    now: Callable[[], datetime],
    doorbell: Doorbell,
    readmodels: ReadModels,
) -> GameService:
    """The games' service on the settings (its seat's bot too, docs/bots.md), loading
    states from the replay's keyframes too."""
    logging.getLogger("tongiaki.clocks").info(
        "the seat's bot (timed-out, absent and resigned seats): %s (TONGIAKI_SEAT_BOT)",
        settings.seat_bot,
    )
    return GameService(
        store,
        clock=now,
        doorbell=doorbell,
        testing=settings.testing,
        snapshot_every=settings.snapshot_every,
        keyframes=readmodels.keyframe,
        seat_bot=settings.seat_bot,
    )


def _around_the_games(services: Services, now: Callable[[], datetime]) -> Services:
    """The services beside the games, each with its own tables: the chat, vacation,
    private tables, rematches and leagues, profiles, analysis forks."""
    store, games = services.store, services.games
    services.chat = _chat(store, games, now, services.feed, services.settings)
    services.vacations = _vacations(store, services.settings, games)
    services.invitations, services.rematches, services.leagues = _tables(store, games)
    services.profiles = _profiles(services)
    services.forks = Forks(store, games)
    services.forks.upgrade()
    return services


def _doorbell(settings: Settings, readmodels: ReadModels) -> Doorbell:
    """How commits reach the read models: rq with ``REDIS_URL``, rung from a thread of
    its own (a slow or hung Redis never delays a command); else inline."""
    if settings.redis_url:
        return BackgroundDoorbell(rq_doorbell(settings, timeout=1.0))
    return InlineDoorbell(readmodels)


def rq_doorbell(settings: Settings, timeout: float = 2.0) -> RqDoorbell:
    """The rq doorbell of every process that commits (web, worker); it publishes each
    commit's game id for the live streams too with ``TONGIAKI_CHANGE_FEED=redis``."""
    publish = events_channel(settings.queue) if settings.change_feed == "redis" else ""
    return RqDoorbell(settings.redis_url, settings.queue, timeout=timeout, publish=publish)


def _profiles(services: Services) -> Profiles:
    """Names and deletions (docs/profiles.md), their table upgraded."""
    games = services.games
    found = Profiles(services.store, games, services.identity, services.readmodels, games.clock)
    found.upgrade()
    return found


def _notes(store: SqlStore, games: GameService) -> Notes:
    """Players' private notes (docs/notes.md), their table upgraded."""
    notes = Notes(store, games)
    notes.upgrade()
    return notes


def _vacations(store: SqlStore, settings: Settings, games: GameService) -> Vacations:
    """Vacation (docs/vacation.md): its table upgraded, its planner given to the games."""
    vacations = Vacations(store, settings.vacation_days, games.clock)
    vacations.upgrade()
    games.leaves = vacations.plan
    vacations.tell = Telling(games, vacations.ledger)  # V4: the games record a spell
    return vacations


def _tables(store: SqlStore, games: GameService) -> tuple[Invitations, Rematches, Leagues]:
    """Private tables and rematches (docs/invitations.md) and leagues (docs/leagues.md),
    their tables upgraded."""
    invitations = Invitations(store, games)
    rematches = Rematches(store, games, invitations.keep_private)
    leagues = Leagues(store, games, invitations)
    invitations.upgrade()
    rematches.upgrade()
    leagues.upgrade()
    return invitations, rematches, leagues


def _chat(
    store: SqlStore,
    games: GameService,
    now: Callable[[], datetime],
    feed: Feed | None,
    settings: Settings,
) -> ChatService:
    """The games' chats (docs/chat.md), their tables upgraded; a chat that moves pings
    its game's live streams (the feed hears of it at once here, by NOTIFY or its poll
    elsewhere)."""
    chat = ChatService(store, lambda game_id: seats(games, game_id), now)
    chat.upgrade()
    bells: list[Callable[[str], None]] = []
    if feed is not None:
        bells.append(feed.chat_changed)
        feed.chat_heads = chat.chats.heads
    if settings.change_feed == "redis":  # the other processes' streams hear of it by Redis
        bells.append(BackgroundDoorbell(ChatChannel(settings.redis_url, settings.queue)).ring)

    def ring(game_id: str) -> None:
        for bell in bells:
            bell(game_id)

    chat.bell = ring
    return chat


def seats(games: GameService, game_id: str) -> tuple[frozenset[str], bool]:
    """A game's players and whether it ended: all the chat knows of a game (docs/chat.md)."""
    _, state = games.load(game_id)
    return frozenset(p.player_id for p in state.players), state.phase is Phase.ENDED


def _feed(settings: Settings, store: SqlStore, streams: int, replica: Replica | None) -> Feed:
    max_streams = settings.max_streams or streams
    budget = fd_budget()
    if budget < max_streams:  # past the open-file limit the whole process stops answering
        logging.getLogger("tongiaki.feed").warning(
            "at most %d live streams (not %d): the open-file limit is %d; raise it (ulimit -n)",
            budget,
            max_streams,
            budget + FD_RESERVE,
        )
        max_streams = budget
    return Feed(
        store,
        max_streams=max_streams,
        per_client=settings.streams_per_client,
        poll_every=settings.feed_poll,
        heartbeat=settings.stream_heartbeat,
        listener=_listener(settings),
        pages=replica.read if replica is not None else None,
    )


def _listener(settings: Settings) -> Callable[[Feed], object] | None:
    """How this process's feed hears of other processes' commits: a Redis channel
    (``TONGIAKI_CHANGE_FEED=redis``), PostgreSQL's ``LISTEN``, or only its poll (SQLite)."""
    if settings.change_feed == "redis":
        return redis_listener_for(settings.redis_url, settings.queue)
    return listener_for(settings.database_url) if settings.uses_postgres else None


def start_embedded_background(services: Services) -> None:
    """The embedded default's own background work, in threads of this process: with no
    Redis nobody else does it. The read models' sweep (projections left behind by a
    crash or a failed catch-up), reminder deliveries, and the deadlines' scheduler
    (each commit rings it too). With ``REDIS_URL`` the worker does all three: nothing
    starts here."""
    settings, store = services.settings, services.store
    if settings.redis_url:
        return
    closed = lambda: store.closed  # noqa: E731
    services.background.append(sweep_inline(services.readmodels, settings.sweep_every, closed))
    services.background.append(run_deliveries(services.notifier, NOTIFY_EVERY, closed))
    if services.leagues is not None:  # leagues' next rounds, opened by themselves (L7)
        services.background.append(services.leagues.rounds.run(settings.league_every, closed))
    if services.log is not None:
        services.background.append(
            run_integrator(store.log, services.log.signer, settings.log_every, closed)
        )
    scheduler = LocalScheduler(
        Timekeeper(services.games), services.readmodels, settings.sweep_every, closed
    )
    bell = ClockBell(services.doorbell, services.readmodels, scheduler)
    feed = services.feed
    services.games.doorbell = FeedDoorbell(feed, bell) if feed is not None else bell
    services.clocks = scheduler.start()
