"""The OpenAPI document against a real server: schemathesis tries every operation.

The machinery; the tests are ``test_openapi_fuzz_1.py`` … ``_3.py``, a third of the
operations each (in modules of their own, so that ``pytest -n`` runs them side by side).

Per backend (the embedded default on SQLite, and one gunicorn web process on
PostgreSQL) a real ``tongiaki serve`` answers requests that schemathesis
generates from the document it serves at ``/api/v1/openapi.json``: for every
operation ``MAX_EXAMPLES`` cases that keep to the document and as many that break
it (wrong types, missing or extra fields, bad headers), derandomised, so every
run sends the same cases; then a few hand-picked ones (``_explicit_cases``). Every
answer must keep to the document: no 5xx, a documented status code, a documented
content type, a body matching its schema.

A failing case does not stop its operation: each distinct failure (operation,
check, status, and the problem code or the schema error) is kept with the first
request that showed it, and the test fails after all operations have run, listing
them all. The number of cases per backend is printed in pytest's terminal summary
("openapi fuzz") and recorded as the test's ``schemathesis_cases`` property.
``TONGIAKI_FUZZ_EXAMPLES=100`` runs a deeper search by hand (1.5 minutes a backend).

Seed data, so that path parameters often name real games: an account ("fuzz",
whose token secured operations send), a game in play (waiting for fuzz, whose
legal commands are mixed into the command bodies), a game played to its end by
random legal moves, and an open game.

The cases come from ``APIOperation.as_strategy`` under a plain ``@given`` rather
than from ``@schema.parametrize()`` with ``schemathesis.pytest.from_fixture``:
that lazy loader (schemathesis 4.32) reads ``Function._nodeid``, which pytest 9.2
no longer has.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from tests.servers import Server, base_env, embedded, free_port, start

# per operation, backend and mode (positive, negative); more for a deeper run by hand
MAX_EXAMPLES = int(os.environ.get("TONGIAKI_FUZZ_EXAMPLES", "20"))
STATEFUL_EXAMPLES = 2 * MAX_EXAMPLES  # sequences of linked calls
STREAM_TIMEOUT = 1  # seconds: ``?timeout=`` of the event stream, so that a case ends
# every check schemathesis has (issue 26: "--checks all"); those that need a sequence of
# calls (use_after_free, ensure_resource_availability) act in the stateful run
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
    "positive_data_acceptance",
    "missing_required_header",
    "unsupported_method",
    "allow_header_conformance",
    "use_after_free",
    "ensure_resource_availability",
    "ignored_auth",
    "object_level_authorization",
)
# A request that keeps to the document yet is refused, for what only the running service
# knows or what OpenAPI 3.0 cannot say: each is named here with its reason, keyed by the
# problem code it answers (and words of the problem). Anything else refused is a finding.
NAMED_EXCEPTIONS = {
    ("bad_tree_size", "size"): "old and new past the log's tree, or old past new: the size is"
    " known only at run time, and OpenAPI 3.0 cannot say old ≤ new (documented: 422"
    " bad_tree_size)",
    ("bad_version", "version"): "min_version / at past the game's last version: the head is"
    " known only at run time (documented: 422 bad_version)",
    ("bad_last_event_id", "past the game's last version"): "Last-Event-ID / after past the"
    " game's last version: known only at run time (documented: 422 bad_last_event_id)",
    ("idempotency_key_reused", ""): "an Idempotency-Key already used for another request of"
    " this game: known only at run time (documented: 422 idempotency_key_reused)",
    ("bad_webhook", "resolve"): "a webhook host that does not resolve: known only when it is"
    " looked up (documented: 422 bad_webhook)",
    ("bad_webhook", "address"): "a webhook host whose address is not public: known only when"
    " it is looked up (documented: 422 bad_webhook)",
    ("confirmation_mismatch", ""): "a deletion's confirmation other than the account's"
    " current name: known only at run time (documented: 422 confirmation_mismatch, P6)",
    ("bad_name", "visible"): "a name of invisible characters only: said in the description,"
    " not in the pattern (service.play.text.patterns says why)",
    ("bad_name", "(U+1"): "a format character past U+FFFF: JSON Schema's regular expressions"
    " (ECMA-262) name it only by a surrogate pair, which other engines read as two; said in"
    " the description (service.play.text.patterns)",
    ("invalid_fields", "(U+1"): "the same, in entropy",
    ("invalid_fields", "(U+E"): "the same (tag characters), in entropy",
    ("bad_name", "(U+E"): "the same (tag characters), in a name",
    ("chat_text", "not only spaces"): "a chat message or reason of invisible characters only:"
    " said in the description (docs/chat.md M3), as a name's",
    ("chat_text", "(U+1"): "the same as a name's, in a chat message or reason",
    ("chat_text", "(U+E"): "the same (tag characters), in a chat message or reason",
    ("bad_webhook", "not a host name"): "a host name's labels (1 to 63 characters each): the"
    " resolver's rule, checked before it is asked",
    ("conflicting_versions", ""): "If-Match and expected_version naming two versions: OpenAPI"
    " cannot relate a header to a field of the body (said in both descriptions)",
    ("malformed_command", "take_from"): "Expand.take_from is [island, beach]: OpenAPI 3.0"
    " has no tuple of different kinds (said in the description)",
    ("not_an_integer", ""): "a number that is not a 32-bit integer inside a passkey answer's"
    " clientExtensionResults (the browser's, free-form and ignored): every number in a request"
    " is such an integer, which OpenAPI 3.0 cannot say of an object's free-form members",
    ("bad_passkey_answer", ""): "a passkey answer's clientDataJSON is the base64url of JSON"
    " naming the challenge: OpenAPI cannot say what an encoded string decodes to (said in"
    " the description)",
}
# values mixed into the generated ones, which would hardly ever hit them: known query
# values, stale and current versions, and Idempotency-Keys that repeat (replays, reuse)
KNOWN = {
    "query": {"include": ["legal"]},
    "header": {
        "If-Match": ['"1"', "*"],
        "Idempotency-Key": ["fuzz-1", "fuzz-2"],
        "Last-Event-ID": ["0", "2"],
    },
}
EXAMPLES = settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,  # the same cases on every run
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


@dataclass
class Finding:
    """One distinct failure, with the first request that showed it."""

    operation: str
    check: str
    status: int | None
    detail: str
    request: str
    response: str
    message: str
    count: int = 1

    def describe(self) -> str:
        return (
            f"- {self.operation}: {self.check} (status {self.status}; {self.detail}) x{self.count}\n"
            f"    request:  {self.request}\n"
            f"    response: {self.response}\n"
            f"    check:    {self.message}"
        )


@dataclass
class Target:
    """A running server with its seed data, and what the cases found on it."""

    backend: str
    server: Server
    token: str
    games: list[str]
    legal: list[dict[str, Any]]
    disputes: list[str] = field(default_factory=list)  # the fuzz account's, on its games
    leagues: list[str] = field(default_factory=list)  # one open, one started (leagues.md)
    forks: list[str] = field(default_factory=list)  # the fuzz account's, of the game in play
    session: Any = field(default_factory=lambda: requests.Session())  # kept alive
    cases: Counter[str] = field(default_factory=Counter)
    explicit: int = 0
    findings: dict[tuple[str, ...], Finding] = field(default_factory=dict)
    excepted: Counter[str] = field(default_factory=Counter)  # NAMED_EXCEPTIONS met, by reason

    def record(
        self, case: Any, sent: dict[str, str], response: Any, check: str, message: str
    ) -> None:
        status = getattr(response, "status_code", None)
        if check.startswith("ST108"):  # the schema error, e.g. "('errors' was unexpected)"
            detail = message.strip().splitlines()[0] if message.strip() else ""
        else:
            problem = _json(response)
            if isinstance(problem, dict) and "code" in problem:
                detail = f"code {problem['code']}"
            else:  # e.g. "Received: application/x-ndjson"
                detail = message.strip().splitlines()[0] if message.strip() else ""
        key = (case.operation.label, check, str(status), detail)
        if key in self.findings:
            self.findings[key].count += 1
            return
        self.findings[key] = Finding(
            operation=case.operation.label,
            check=check,
            status=status,
            detail=detail,
            request=_request(case, sent, self.token),
            response=_clip(getattr(response, "text", "") or ""),
            message=_clip(" ".join(message.split()), 400),
        )

    def summary(self) -> str:
        total = sum(self.cases.values())
        return (
            f"{self.backend}: {total} cases over {len(self.cases)} operations"
            f" ({total - self.explicit} generated, at most {MAX_EXAMPLES} positive and"
            f" {MAX_EXAMPLES} negative per operation, derandomised; {self.explicit} hand-picked),"
            f" {len(self.findings)} distinct failures; refusals named as exceptions: "
            + (", ".join(f"{n} x {r.split(':')[0]}" for r, n in self.excepted.items()) or "none")
        )

    def report(self) -> str:
        order = sorted(self.findings.values(), key=lambda f: (f.operation, f.check, f.detail))
        return "\n".join([self.summary(), *(f.describe() for f in order)])


def _json(response: Any) -> Any:
    try:
        return json.loads(response.content) if response is not None and response.content else None
    except ValueError:
        return None


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def _request(case: Any, sent: dict[str, str], token: str) -> str:
    """The request, as a line: method, path, query, headers (not the token), body."""
    parts = [f"{case.method.upper()} /api/v1{case.formatted_path}"]
    if case.query:
        parts.append(f"query={case.query!r}")
    headers = {
        k: ("Bearer <fuzz's token>" if v == f"Bearer {token}" else v)
        for k, v in {**(case.headers or {}), **sent}.items()
    }
    if headers:
        parts.append(f"headers={headers!r}")
    if case.body is not None and type(case.body).__name__ != "NotSet":
        parts.append(f"body={_clip(repr(case.body), 300)}")
    return " ".join(parts)


# --- the servers and their seed data ---------------------------------------------


@contextmanager
def _server(backend: str, request: pytest.FixtureRequest, tmp: Path) -> Iterator[Server]:
    """``tongiaki serve`` as it runs out of the box (SQLite), or one gunicorn web
    process on a fresh PostgreSQL schema (no Redis: projections inline)."""
    if backend == "sqlite":
        with embedded(tmp) as server:
            yield server
        return
    _, url = request.getfixturevalue("pg_schema")
    port = free_port()
    # sign-in links need a mail server on PostgreSQL (503 without): one that refuses them
    # all (port 9, closed) is enough, the answer never waits for it
    env = base_env(
        DATABASE_URL=url,
        TONGIAKI_DATA_DIR=str(tmp),
        SMTP_URL="smtp://127.0.0.1:9",
        TONGIAKI_PUBLIC_URL=f"http://localhost:{port}",  # where mailed links point
    )
    server = start(["serve", "--workers", "1", "--port", str(port)], env, tmp / "web.log", port)
    try:
        yield server
    finally:
        server.stop()


def _ok(reply: Any) -> Any:
    assert reply.status in (200, 201), (reply.status, reply.raw[:500])
    return reply.json


def _seed(backend: str, server: Server) -> Target:
    """Accounts fuzz and rival; an open game, a game in play waiting for fuzz, an ended game."""
    api = server.http()
    token = _ok(api.call("POST", "/accounts", {"name": "fuzz"}))["token"]
    made = _ok(api.call("POST", "/accounts", {"name": "rival"}))
    rival, rival_id = made["token"], made["account_id"]

    def game(moves: int, stop_at_fuzz: bool) -> tuple[str, dict[str, Any]]:
        gid = _ok(api.call("POST", "/games", {"max_players": 2}, token))["game_id"]
        _ok(api.call("POST", f"/games/{gid}/seats", {"colour": "blue"}, token))
        if not moves:
            return gid, {}
        _ok(api.call("POST", f"/games/{gid}/seats", {"colour": "red"}, rival))
        legal = _ok(api.call("POST", f"/games/{gid}/start?include=legal", None, token))["legal"]
        rng = random.Random(moves)
        for _ in range(moves):
            if not legal["commands"]:
                break  # the game is over
            done = _ok(
                api.call(
                    "POST",
                    f"/games/{gid}/commands?include=legal",
                    rng.choice(legal["commands"]),
                    token if legal["colour"] == "blue" else rival,
                    headers={"If-Match": f'"{legal["version"]}"'},
                )
            )
            legal = done["legal"]
            if stop_at_fuzz and legal["colour"] == "blue":
                break
        return gid, legal

    open_game, _ = game(0, stop_at_fuzz=False)
    playing, legal = game(10, stop_at_fuzz=True)
    ended, _ = game(2000, stop_at_fuzz=False)
    disputes = [
        _ok(
            api.call("POST", f"/games/{gid}/disputes", {"reason": "misclick", "version": 2}, token)
        )["dispute_id"]
        for gid in (playing, ended)
    ]
    league = {"name": "fuzz league", "table_size": 2, "players": [rival_id], "link": True}
    leagues = [_ok(api.call("POST", "/leagues", league, token))["league_id"] for _ in range(2)]
    _ok(api.call("POST", f"/leagues/{leagues[1]}/start", None, token))
    head = _ok(api.call("GET", f"/games/{playing}"))["version"]
    forks = [_ok(api.call("POST", f"/games/{playing}/forks", {"version": head}, token))["fork_id"]]
    api.close()
    mine = legal["commands"] if legal.get("colour") == "blue" else []
    return Target(
        backend, server, token, [playing, ended, open_game], mine, disputes, leagues, forks
    )


# --- schemathesis ----------------------------------------------------------------


def _schema(target: Target) -> Any:
    """The document as the server serves it, with hooks that mix in the seed data."""
    checks: dict[str, Any] = {"enabled": False}
    checks.update({name: {"enabled": True} for name in CHECKS})
    # a request line, headers or body past the HTTP server's limits is refused before
    # the app reads it (414, 431, 413): a rejection like any other
    checks["negative_data_rejection"]["expected-statuses"] = [
        *("400", "401", "403", "404", "405", "406", "409", "415", "422", "428", "429"),
        *("413", "414", "431"),
    ]
    config = schemathesis.Config.from_dict(
        {
            "request-timeout": 10,
            "max-stream-events": 1,  # then the client hangs up on the event stream
            "auth": {"openapi": {"bearer": {"bearer": target.token}}},
            "checks": checks,
            # the document's own links only (and Location headers): links schemathesis would
            # infer from response schemas (a profile's nth game) come and go as the run makes
            # games, which hypothesis reads as a flaky state machine
            "phases": {"stateful": {"inference": {"algorithms": ["location-headers"]}}},
        }
    )
    url = f"http://127.0.0.1:{target.server.port}/api/v1/openapi.json"
    schema = schemathesis.openapi.from_url(url, config=config)

    @schema.hook
    def before_generate_path_parameters(context: Any, strategy: Any) -> Any:
        if "{dispute_id}" in context.operation.path:
            real = st.fixed_dictionaries({"dispute_id": st.sampled_from(target.disputes)})
            return st.one_of(real, strategy)
        if "{league_id}" in context.operation.path:
            real = st.fixed_dictionaries({"league_id": st.sampled_from(target.leagues)})
            return st.one_of(real, strategy)
        if "{fork_id}" in context.operation.path:
            real = st.fixed_dictionaries({"fork_id": st.sampled_from(target.forks)})
            return st.one_of(real, strategy)
        if "{game_id}" not in context.operation.path:
            return strategy
        real = st.fixed_dictionaries({"game_id": st.sampled_from(target.games)})
        if context.operation.path.count("{") > 1:  # a real game, the others (a note's version)
            real = st.tuples(st.sampled_from(target.games), strategy).map(_with_game)
        return st.one_of(real, strategy)

    @schema.hook
    def before_generate_query(context: Any, strategy: Any) -> Any:
        return _known(strategy, context.operation.query, KNOWN["query"])

    @schema.hook
    def before_generate_headers(context: Any, strategy: Any) -> Any:
        return _known(strategy, context.operation.headers, KNOWN["header"])

    @schema.hook
    def before_generate_body(context: Any, strategy: Any) -> Any:
        if context.operation.path == "/me/deletion":
            # the fuzz account must outlive its own deletion's cases (the name it was given
            # by PUT /me/name is short and simple): a line break first, which no name
            # holds, keeps every confirmation schema-valid and mistyped (422, P6)
            return strategy.map(_mistyped)
        if not context.operation.path.endswith("/commands") or not target.legal:
            return strategy
        return st.one_of(st.sampled_from(target.legal), strategy)

    return schema


def _mistyped(body: Any) -> Any:
    """A deletion's body whose confirmation can be no account's name."""
    value = getattr(body, "value", body)
    if isinstance(value, dict) and isinstance(value.get("confirm"), str):
        value["confirm"] = ("\n" + value["confirm"])[:64]
    return body


def _with_game(found: tuple[str, Any]) -> Any:
    """Generated path parameters with a real game's id in place of the one generated."""
    game_id, generated = found
    value = getattr(generated, "value", generated)
    if not isinstance(value, dict):
        return generated
    return {**value, "game_id": game_id}


def _known(strategy: Any, parameters: Any, values: dict[str, list[str]]) -> Any:
    """``strategy``, or the parameters that have known values set to one of them."""
    names = [p.name for p in parameters if p.name in values]
    if not names:
        return strategy
    return st.one_of(
        strategy, st.fixed_dictionaries({n: st.sampled_from(values[n]) for n in names})
    )


def _bounded_stream(case: Any) -> None:
    """The event stream stays open ``?timeout=`` seconds (300 by default): ask for
    ``STREAM_TIMEOUT`` unless the case sends a value the server must refuse. (A list or
    an object does not reach the server as one ``timeout``: the default would apply.)"""
    if not case.operation.path.endswith("/stream"):
        return
    query = dict(case.query or {})
    value = query.get("timeout")
    text = str(value).strip()
    if (
        value is None
        or isinstance(value, list | dict)
        or text == ""
        or (text.isascii() and text.isdigit() and 1 <= int(text) <= 3600)
    ):
        query["timeout"] = STREAM_TIMEOUT
        case.query = query


def _objects_as_text(case: Any) -> None:
    """A query value that is an object is sent by schemathesis as its members, each a
    parameter of its own (form style): the parameter itself never reaches the server,
    which then rightly reads it as not given. Sent as text, it does."""
    if case.query and any(isinstance(v, dict) for v in case.query.values()):
        case.query = {k: json.dumps(v) if isinstance(v, dict) else v for k, v in case.query.items()}


def _check(target: Target, case: Any, sent: dict[str, str] | None = None) -> None:
    """Send one case (with the headers ``sent`` besides its own) and record every check
    it fails."""
    sent = sent or {}
    target.cases[case.operation.label] += 1
    _objects_as_text(case)
    _bounded_stream(case)
    try:
        response = case.call(session=target.session, headers=dict(sent))  # it adds to it
    except requests.RequestException as exc:
        target.record(case, sent, None, "no answer", f"{type(exc).__name__}: {exc}")
        return
    try:
        case.validate_response(response)  # the checks enabled in the config: CHECKS
    except schemathesis.errors.FailureGroup as group:
        for failure in group.exceptions:
            reason = named_exception(response)
            if reason is not None and "rejected" in failure.title:
                target.excepted[reason] += 1
                continue
            check = f"{failure.code} {failure.title}"
            target.record(case, sent, response, check, failure.message)


def named_exception(response: Any) -> str | None:
    """The reason of ``NAMED_EXCEPTIONS`` the refusal is, if any."""
    problem = _json(response)
    if not isinstance(problem, dict):
        return None
    for (code, words), reason in NAMED_EXCEPTIONS.items():
        if problem.get("code") == code and words in str(problem):
            return reason
    return None


def _modes(operation: Any) -> list[Any]:
    """Positive cases; negative ones too, unless a bare string in the path is all there is
    to break (every path segment is a string: hypothesis would search in vain)."""
    raw = operation.definition.raw
    breakable = (
        "requestBody" in raw
        or raw.get("security")
        or any(p["in"] != "path" for p in raw.get("parameters", []))
    )
    modes = schemathesis.GenerationMode
    return [modes.POSITIVE, modes.NEGATIVE] if breakable else [modes.POSITIVE]


def _fuzz(target: Target, operation: Any, mode: Any) -> None:
    @EXAMPLES
    @given(case=operation.as_strategy(generation_mode=mode))
    def cases(case: Any) -> None:
        _check(target, case)

    with contextlib.suppress(Unsatisfiable):  # hypothesis found no case at all
        cases()


def _explicit_cases(target: Target, operation: Any) -> list[tuple[Any, dict[str, str]]]:
    """Hand-picked requests beside the generated ones. What schemathesis's coverage phase
    (which runs only under its pytest plugin and CLI) sends too: a JSON body that is not an
    object, a body that is not JSON. And what the README promises but random data hardly
    reaches: a stale If-Match, a repeated Idempotency-Key, events as NDJSON. Each with
    headers to send besides the case's own (schemathesis sets Accept itself)."""
    raw, label, case = operation.definition.raw, operation.label, operation.Case
    auth = {"Authorization": f"Bearer {target.token}"}
    playing = {"game_id": target.games[0]}
    where = playing if "{game_id}" in operation.path else {}
    if "{dispute_id}" in operation.path:
        where = {"dispute_id": target.disputes[0]}
    if "{league_id}" in operation.path:
        where = {"league_id": target.leagues[0]}
    if "{fork_id}" in operation.path:
        where = {"fork_id": target.forks[0]}
    if "{seq}" in operation.path:  # a game's chat message (docs/chat.md)
        where = {**where, "seq": "1"}
    if "{account_id}" in operation.path:
        where = {**where, "account_id": "nobody"}
    if "{version}" in operation.path:  # a note on a move (docs/notes.md)
        where = {**where, "version": 1}
    cases: list[Any] = []
    if "requestBody" in raw:
        cases.append(case(path_parameters=where, headers=auth, body=[]))
        cases.append(case(path_parameters=where, headers=auth, body="{", media_type="text/plain"))
    if label == "POST /games/{game_id}/commands" and target.legal:
        first, last = target.legal[0], target.legal[-1]
        key = {**auth, "Idempotency-Key": "fuzz-explicit"}
        cases.append(case(path_parameters=playing, headers={**auth, "If-Match": '"1"'}, body=first))
        cases.append(case(path_parameters=playing, headers=key, body=first))
        cases.append(case(path_parameters=playing, headers=key, body=first))  # a replay
        cases.append(case(path_parameters=playing, headers=key, body={**last, "x": 1}))  # reused
    if label == "POST /games/{game_id}/start":
        key = {**auth, "Idempotency-Key": "fuzz-explicit"}
        cases += [case(path_parameters=playing, headers=key) for _ in range(2)]  # refused twice
    explicit = [(c, {}) for c in cases]
    if label == "GET /games/{game_id}/events":
        explicit.append((case(path_parameters=playing), {"Accept": "application/x-ndjson"}))
    return explicit


def _stateful(target: Target, schema: Any) -> None:
    """Sequences of calls that follow the document's links (a new game's id to its every
    operation, a new dispute's to its own), with every check: what a run of the
    schemathesis command line with its stateful phase does."""
    base = schema.as_state_machine()

    class Machine(base):  # type: ignore[misc, valid-type]
        def before_call(self, case: Any) -> None:
            _objects_as_text(case)
            _bounded_stream(case)
            target.cases[f"stateful {case.operation.label}"] += 1

        def validate_response(self, response: Any, case: Any, *args: Any, **kwargs: Any) -> None:
            try:
                super().validate_response(response, case, *args, **kwargs)
            except schemathesis.errors.FailureGroup as group:
                for failure in group.exceptions:
                    reason = named_exception(response)
                    if reason is not None and "rejected" in failure.title:
                        target.excepted[reason] += 1
                        continue
                    check = f"{failure.code} {failure.title} (stateful)"
                    target.record(case, {}, response, check, failure.message)

    Machine.run(
        settings=settings(
            max_examples=STATEFUL_EXAMPLES,
            stateful_step_count=8,
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
    )


SHARDS = 3  # test_openapi_fuzz_{1,2,3}.py: modules, so that pytest -n spreads them
# a hang guard per shard: ~10-20 s per backend alone, 2-3 times that under pytest -n 4
HANG_GUARD = 15 * max(MAX_EXAMPLES, 20)


def run(backend: str, shard: int, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Fuzz the operations of one shard (every ``SHARDS``-th of them by label, from
    ``shard``; the stateful sequences with the last) against a real server of
    ``backend``, and fail listing every finding."""
    with _server(backend, request, tmp_path) as server:
        target = _seed(backend, server)
        schema = _schema(target)
        operations = sorted(
            (result.ok() for result in schema.get_all_operations()), key=lambda op: op.label
        )
        for operation in operations[shard - 1 :: SHARDS]:
            for mode in _modes(operation):
                _fuzz(target, operation, mode)
            for case, sent in _explicit_cases(target, operation):
                target.explicit += 1
                _check(target, case, sent)
        if shard == SHARDS:
            _stateful(target, schema)
        target.session.close()
    request.node.user_properties.append(("schemathesis_cases", sum(target.cases.values())))
    _summary(request.config).lines.append(f"shard {shard}/{SHARDS} {target.summary()}")
    if target.findings:
        pytest.fail(f"{target.report()}\nserver log: {server.log}", pytrace=False)


class _Summary:
    """The case count per backend, in pytest's terminal summary."""

    name = "tongiaki-openapi-fuzz"

    def __init__(self) -> None:
        self.lines: list[str] = []

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminalreporter.write_sep("-", "openapi fuzz")
        for line in self.lines:
            terminalreporter.write_line(line)


def _summary(config: pytest.Config) -> _Summary:
    plugin = config.pluginmanager.get_plugin(_Summary.name)
    if plugin is None:
        plugin = _Summary()
        config.pluginmanager.register(plugin, _Summary.name)
    assert isinstance(plugin, _Summary)
    return plugin
