"""Soak benchmark: minutes of mixed traffic on the production setting (figures, not a test).

    python -m bench.soak --minutes N [--url postgresql://postgres@127.0.0.1:5432/test]
        [--redis redis://127.0.0.1:6379/13] [--web 2] [--bots 8] [--sleepers 2]
        [--spectators 16] [--streams 16] [--fuzzers 2] [--disputers 1] [--keepers 2]
        [--negotiators 2] [--leaguers 1] [--seed 1]

The stack is the production one, as ``tests/servers.py`` ``production()`` runs it:
``--web`` gunicorn processes (``tongiaki serve --workers 1``, a gevent worker, each on a
port of its own) on a throw-away PostgreSQL schema, Redis for the rq doorbell, and
one ``tongiaki worker``. Rate limits are off. Clients are threads of this process,
each request going to a web process chosen at random:

- bots create accounts and games (2 to 4 seats, both variants), join, start and
  play whole games, POSTing an item of the legal commands they got with the
  previous answer (``?include=legal``) or from ``GET /legal``, with ``If-Match``
  (sometimes ``expected_version``), and now and then an ``Idempotency-Key`` that
  they send twice (the second answer must be a replay with the same receipt);
- sleepers play timed games (5 s a decision) of which the other seat never plays:
  it times out once, is marked absent, and the service's bot (rq's scheduler and
  the worker) plays it to the end; a game that stalls is a finding;
- spectators read games, events (JSON and NDJSON), states, scoreboards,
  timelines, journals, the lobby, the leaderboard and hold
  ``/games/{id}/stream?timeout=`` server-sent-event connections (at most
  ``--streams`` at once), checking the ids they get
  are consecutive;
- fuzzers send malformed, oversized, chunked and deeply nested bodies, bad game
  ids, huge integers in query strings and headers, wrong tokens, commands from
  unseated accounts and stale ``If-Match`` into the bots' games, and reuse the
  bots' ``Idempotency-Key`` with other bodies; each answer is checked against
  the status (and code) it should have.
- disputers open disputes on finished bot games as one of their players (with a
  note and the evidence), and an auditor (made with ``tongiaki auditor create``)
  rules: *stands*, an amended ranking, an annulment, or a *rewind* that the
  disputer then plays to the end again from the re-deal; or the player withdraws.
- keepers sign a browser in with a token (a session cookie), make a bot's token with
  the page's CSRF token (a write without it must be refused), revoke the token and
  sign out on one process, and find both refused at once on every process.
- negotiators take back moves and end games by agreement (docs/table.md).
- leaguers make a league of three at tables of two, start it and play every round's
  game without ever looking at the league: each next round must open by itself
  within a minute (the keeper, docs/leagues.md L7); then they propose a rematch of
  the last game, accept it (a second acceptance must be refused), start and play it.

Every answer is counted by status; an error answer that is not
``application/problem+json``, or has another status than its client expected,
is listed under "findings" with examples. Once, at 40 % of the run, the
worker's process group gets SIGKILL and new workers are started (every 2 s
until one works; after the traffic if none did). After the traffic, the read
models must catch up (every game's scoreboard at its head, ``/projections``
level), every game's events are read back (versions exactly 1..head, the hash
chain linked, every receipt and event a client got a 2xx for present, no
command applied twice) and every game is verified (``GET /verify``). The open
file descriptors, resident memory (VmRSS) and CPU time of every process
(gunicorn masters and their workers, the rq workers) are printed after a
warm-up, at the end of the traffic and once idle; so is how busy the whole host
was (other work on it slows every figure).

Exit status 1 if an event is lost or duplicated, an answer is a 5xx (other than
the documented 503 ``projection_lagging`` of a read model that is behind), an
SSE stream skips or repeats a version, a worker fails to start, a game fails
verification or the read models do not catch up. Everything is removed at the
end, also on Ctrl-C: the processes are stopped, the schema dropped and the Redis
keys of this run's queue, jobs and workers deleted (nothing else in that
database is touched; never FLUSHDB or FLUSHALL). The service logs are kept in a
temporary directory when the run fails.
"""
