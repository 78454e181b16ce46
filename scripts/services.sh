#!/usr/bin/env bash
# Starts or reuses the Postgres and Redis that foiaflow needs, then waits until
# both answer. Order: already running → local service → docker compose.
# Uses PG_HOST/PG_PORT and REDIS_ADDR when set.
set -euo pipefail
PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
REDIS_ADDR=${REDIS_ADDR:-127.0.0.1:6379}
REDIS_HOST=${REDIS_ADDR%:*}
REDIS_PORT=${REDIS_ADDR##*:}

pg_up() {
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -h "$PG_HOST" -p "$PG_PORT"
  else
    (exec 3<>"/dev/tcp/$PG_HOST/$PG_PORT") 2>/dev/null
  fi
}
redis_up() {
  if command -v redis-cli >/dev/null 2>&1; then
    [ "$(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = "PONG" ]
  else
    (exec 3<>"/dev/tcp/$REDIS_HOST/$REDIS_PORT") 2>/dev/null
  fi
}
docker_ok() { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }

wait_for() { # name check
  for _ in $(seq 1 60); do "$2" && return 0; sleep 0.5; done
  echo "services: $1 did not come up" >&2; return 1
}

if ! pg_up; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    echo "services: starting local PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  elif docker_ok; then
    echo "services: starting postgres with docker compose"
    docker compose up -d postgres
  else
    echo "services: PostgreSQL is not reachable on $PG_HOST:$PG_PORT and cannot be started here" >&2; exit 1
  fi
  wait_for postgres pg_up
fi
if ! redis_up; then
  if command -v redis-server >/dev/null 2>&1; then
    echo "services: starting local Redis"
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log
  elif docker_ok; then
    echo "services: starting redis with docker compose"
    docker compose up -d redis
  else
    echo "services: Redis is not reachable on $REDIS_ADDR and cannot be started here" >&2; exit 1
  fi
  wait_for redis redis_up
fi
# The default DATABASE_URL names database "foiaflow"; create it on a local
# trust-auth server when it is missing (CREATE DATABASE has no IF NOT EXISTS).
if command -v psql >/dev/null 2>&1; then
  if ! psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='foiaflow'" 2>/dev/null | grep -q 1; then
    psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -qc "CREATE DATABASE foiaflow" 2>/dev/null \
      && echo "services: created database foiaflow" || true
  fi
fi
echo "services: postgres $PG_HOST:$PG_PORT and redis $REDIS_ADDR are up"
