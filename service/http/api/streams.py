"""``/games/{game_id}/stream``: a game's live events as server-sent events.

The request checks where the viewer resumes (``Last-Event-ID`` or ``?after=``),
subscribes to the process's feed (bounded: 503 past the process's streams, 429 past
a client's share) and, on both servers, writes the catch-up and hands the connection
to the feed's writer (``service.live.writer``): a waiting viewer holds no worker. A
server that gives no socket keeps the request, which then waits in a generator.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from flask import Blueprint, Response, current_app, g, request
from flask.typing import ResponseReturnValue

from service.errors import BadRequest
from service.http.api import MAX_INT, bounded_int, caller, client_address, game_service, int_arg
from service.http.api.openapi import VERSION, Operation, documented, header, query
from service.http.api.schemas.games import StreamEvent
from service.http.cookies import session_cookie
from service.live.feed import Feed, Subscription
from service.live.revocations import RevocationWatch
from service.live.streams import ParkingResponse
from service.live.writer import (
    END_FRAME,
    RETRY,
    WHY_END,
    WHY_LEFT,
    WHY_REVOKED,
    WHY_STOPPING,
    WHY_TIMEOUT,
    heartbeat_frame,
    stream_ended,
)

bp = Blueprint("streams", __name__)
STREAM_WAKE = 5.0  # seconds a waiting stream (no socket to park) sleeps at most at a time


def stream_response(response: Response) -> Response:
    """A live stream's headers: server-sent events, never cached or buffered by a proxy."""
    response.mimetype = "text/event-stream"
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/games/<game:game_id>/stream")
@documented(
    Operation(
        "/games/{game_id}/stream",
        "get",
        "Live events as server-sent events; resumes after Last-Event-ID",
        StreamEvent,
        content="text/event-stream",
        params=[
            header(
                "Last-Event-ID",
                "the last version received (empty: none); past the game's last version:"
                " 422 bad_last_event_id",
                pattern=f"^{VERSION}?$",
            ),
            query(
                "after",
                "integer",
                "as Last-Event-ID (for clients that cannot send it)",
                minimum=0,
                maximum=MAX_INT,
            ),
            query("timeout", "integer", "close after this many seconds", minimum=1, maximum=3600),
        ],
        errors=(401, 404, 422, 429, 503),
        more={
            204: "the game is over and the client (a browser reconnecting with its"
            " Last-Event-ID) has every event: nothing more will come",
        },
    )
)
def stream(game_id: str) -> ResponseReturnValue:
    stored, _ = game_service().load(game_id)  # 404 for an unknown game; the store's head
    feed: Feed = current_app.extensions["tongiaki.feed"]
    header_id = request.headers.get("Last-Event-ID")
    after = _resume_after(header_id)
    timeout = int_arg("timeout", 300, 1, 3600) or 300
    # 503 too_many_streams when the process holds its most; 429 past the client's share
    # a stream sent with a credential must bear a live one, and ends when it is revoked
    credential = caller().credential.credential_id if _signed() else None
    sub = feed.subscribe(game_id, client_address())
    if credential is not None:
        watch: RevocationWatch = current_app.extensions["tongiaki.revocations"]
        watch.track(sub, credential)
    head = sub.hub.view.head
    if after > head:
        # this process may not have heard of the last commit yet (another process sent
        # it to this viewer): the store says. Past its head, no process sent it: a
        # client's mistake
        head = max(head, stored)
    if after > head:
        sub.close()
        raise BadRequest(
            "bad_last_event_id",
            f"Last-Event-ID (or ?after=) is {after}, past the game's last version ({head})",
        )
    if header_id is not None and sub.hub.view.ended and head <= after:
        # a browser reconnecting to a game that is over and that it has whole: 204 tells
        # EventSource to stop reconnecting
        sub.close()
        done = Response(status=204)
        del done.headers["Content-Type"]
        return done
    if request.method == "HEAD":  # the head alone: nothing to wait for
        sub.close()
        return stream_response(Response(b""))
    return _follow(feed, sub, game_id, after, timeout)


def _signed() -> bool:
    return bool(request.headers.get("Authorization") or session_cookie())


def _resume_after(header_id: str | None) -> int:
    """The version the viewer has: ``?after=`` or, winning, ``Last-Event-ID`` (each
    checked when given; 422 ``bad_last_event_id``)."""
    given = request.args.get("after")
    try:
        after = bounded_int(given, "after") if given is not None else 0
        if header_id:
            after = bounded_int(header_id, "Last-Event-ID")
    except BadRequest as exc:
        raise BadRequest(
            "bad_last_event_id", "Last-Event-ID (or ?after=) is a version number"
        ) from exc
    return after


def _follow(feed: Feed, sub: Subscription, game_id: str, after: int, timeout: int) -> Response:
    """The stream's answer: parked with the feed's writer when the server gives its
    socket, else a generator the request waits in."""
    rid = g.get("request_id", "")
    opened = time.monotonic()
    connection = request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket")
    if connection is not None:
        # both servers: the request writes the catch-up, then hands the connection to the
        # feed's writer and ends (service.live.writer): a waiting viewer holds no worker. The
        # first of it is taken now, so that a store away or busy is a 503, not a stream
        # that closes before its head
        try:
            first = sub.pending(after)
        except BaseException:
            sub.close()
            raise
        response = ParkingResponse(feed.writer, sub, after, first, timeout, rid, opened)
        return stream_response(response)
    # no request context is kept for the stream's life: the generator needs none. Started
    # here, so that the server closing it at any point runs its ``finally``
    body = _waiting(feed, sub, game_id, after, timeout, opened, rid)
    next(body)
    return stream_response(Response(body, direct_passthrough=True))


def _waiting(
    feed: Feed,
    sub: Subscription,
    game_id: str,
    after: int,
    timeout: int,
    opened: float,
    rid: str,
) -> Iterator[bytes]:
    """A stream the request waits in (a server that gives no socket): frames as they
    come, heartbeats in silence, the end frame when the game is over."""
    sent, why = 0, WHY_LEFT
    try:
        yield b""  # taken at once: from here on, closing the generator runs ``finally``
        deadline = opened + timeout
        beat = time.monotonic()
        every = feed.heartbeat
        yield RETRY + heartbeat_frame(every)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                why = WHY_TIMEOUT
                return
            frames, over = sub.next(after, min(left, STREAM_WAKE))
            if frames:
                yield b"".join(f for _, f in frames)
                after = frames[-1][0]
                sent += len(frames)
                beat = time.monotonic()
            if over:
                if sub.revoked:
                    why = WHY_REVOKED
                elif feed.closing:
                    why = WHY_STOPPING
                else:  # the game is over and every event was sent
                    why = WHY_END
                    yield END_FRAME
                return
            if not frames and time.monotonic() - beat >= every:
                beat = time.monotonic()
                yield heartbeat_frame(every)
    finally:
        sub.close()
        stream_ended(game_id, why, sent, after, opened, rid)
