#!/usr/bin/env bash
# Run the service against the local PostgreSQL (trust auth, user postgres):
#   deploy/run-local-postgres.sh [database]
set -euo pipefail
db=${1:-tongiaki}
psql -h 127.0.0.1 -U postgres -tc "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -c "CREATE DATABASE $db"
export DATABASE_URL="postgresql://postgres@127.0.0.1:5432/$db"
tongiaki db upgrade
exec tongiaki serve --workers "${WORKERS:-2}"
