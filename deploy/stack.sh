#!/usr/bin/env bash
# The real stack with one command: web processes (gunicorn, gevent workers) and rq
# workers on PostgreSQL and Redis, from deploy/Procfile, run by deploy/stack.py (which
# starts again any process that dies, and stops them all on Ctrl-C or SIGTERM).
#
#   deploy/stack.sh [WEB_PROCESSES [WORKERS]]        (defaults: 1 and 2)
#
# DATABASE_URL defaults to the local PostgreSQL's database "tongiaki" (made if missing),
# REDIS_URL to the local Redis, db 0, TONGIAKI_LOG_KEY to var/log.key (the transparency
# log's signing key, made once with `tongiaki log keygen` if missing: keep it, back it up,
# never replace it; docs/transparency.md). Web process i (1, 2, …) listens on PORT+i-1 (PORT: 8000).
# Ctrl-C (or SIGTERM) stops them all: web processes end their live streams and exit
# within 5 s.
set -euo pipefail
cd "$(dirname "$0")/.."
# the service as the README installs it: the exact versions of the lock, hash-checked,
# installed again when the lock changed since (a git pull), then checked against it
lock_sum=$(sha256sum requirements/service.lock | cut -d' ' -f1)
if [ ! -x .venv/bin/tongiaki ] || [ "$(cat .venv/service.lock.sha256 2>/dev/null)" != "$lock_sum" ]; then
  echo "stack: installing the service into .venv from requirements/service.lock"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install --quiet --require-hashes --only-binary :all: -r requirements/service.lock
  .venv/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
  echo "$lock_sum" > .venv/service.lock.sha256
fi
# a package missing or at another version stops it; packages the lock does not name (a
# test environment's tools: pip never removes them) are counted, not refused
if ! checked=$(.venv/bin/tongiaki check-install --allow-extra 2>&1); then
  echo "$checked" >&2
  echo "stack: .venv is not requirements/service.lock (above)" >&2
  exit 1
fi
echo "stack: ${checked##*$'\n'}"
bin=.venv/bin/  # the Procfile finds tongiaki there
export PATH="$PWD/.venv/bin:$PATH"
export DATABASE_URL=${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/tongiaki}
export REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/0}
web=${1:-1}
workers=${2:-2}
python=${bin}python
"$python" - <<'PY'
import os, psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
info = conninfo_to_dict(os.environ["DATABASE_URL"])
name = info.get("dbname")
try:
    psycopg.connect(os.environ["DATABASE_URL"], connect_timeout=5).close()
except psycopg.OperationalError as exc:
    if not name or f'database "{name}" does not exist' not in str(exc):
        raise SystemExit(f"stack: cannot reach PostgreSQL: {exc}")
    with psycopg.connect(make_conninfo(**{**info, "dbname": "postgres"}), autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    print(f"stack: created database {name}")
PY
export TONGIAKI_LOG_KEY=${TONGIAKI_LOG_KEY:-var/log.key}
if [ ! -e "$TONGIAKI_LOG_KEY" ]; then
  mkdir -p "$(dirname "$TONGIAKI_LOG_KEY")"
  echo "stack: made the transparency log's key $TONGIAKI_LOG_KEY; its verifier key:"
  "${bin}tongiaki" log keygen --name "${TONGIAKI_LOG_NAME:-localhost/tongiaki-log}" --out "$TONGIAKI_LOG_KEY"
fi
"${bin}tongiaki" db upgrade
exec "$python" deploy/stack.py --web "$web" --worker "$workers" --port "${PORT:-8000}"
