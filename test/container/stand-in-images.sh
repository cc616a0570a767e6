#!/usr/bin/env bash
# Stand-ins for the two images compose.yaml pulls (postgres, caddy), assembled like base-image.sh from
# Debian's packages where no container registry is reachable: PostgreSQL 15 with an entrypoint that
# initialises the data directory from POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB as the official
# image does, and Caddy. Idempotent; prints `POSTGRES_IMAGE=…` and `PROXY_IMAGE=…` for compose.
set -euo pipefail

CACHE="${SHELFMARK_CONTAINER_CACHE:-/var/tmp/shelfmark-container}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$CACHE/containers.conf}"
mkdir -p "$CACHE"

POSTGRES_IMAGE=localhost/shelfmark-base/postgres:15-bookworm
PROXY_IMAGE=localhost/shelfmark-base/caddy:2-bookworm

if ! podman image exists "$POSTGRES_IMAGE"; then
  cat >"$CACHE/postgres-entrypoint.sh" <<'SH'
#!/bin/sh
set -e
BIN=/usr/lib/postgresql/15/bin
export PGDATA="${PGDATA:-/var/lib/postgresql/data}"
mkdir -p "$PGDATA" /var/run/postgresql
chown -R postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "${POSTGRES_PASSWORD:?}" >/tmp/pwfile && chown postgres /tmp/pwfile
  as_postgres "$BIN/initdb" -D "$PGDATA" -U "${POSTGRES_USER:-postgres}" --pwfile=/tmp/pwfile \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ]; then
    as_postgres "$BIN/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=" -w start >/dev/null
    as_postgres psql -U "${POSTGRES_USER:-postgres}" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\"" >/dev/null
    as_postgres "$BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
  fi
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups "$BIN/postgres" -D "$PGDATA" -c listen_addresses='*'
SH
  mmdebstrap --variant=minbase --format=tar --include=postgresql-15 \
    --customize-hook="install -m 0755 '$CACHE/postgres-entrypoint.sh' \"\$1/usr/local/bin/docker-entrypoint.sh\"" \
    bookworm "$CACHE/postgres.tar" "$MIRROR" >&2
  podman import --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
    --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'STOPSIGNAL SIGINT' "$CACHE/postgres.tar" "$POSTGRES_IMAGE" >&2
  rm -f "$CACHE/postgres.tar"
fi

if ! podman image exists "$PROXY_IMAGE"; then
  mmdebstrap --variant=minbase --format=tar --include=caddy,ca-certificates bookworm "$CACHE/caddy.tar" "$MIRROR" >&2
  podman import --change 'ENV XDG_CONFIG_HOME=/config' --change 'ENV XDG_DATA_HOME=/data' \
    --change 'CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]' \
    "$CACHE/caddy.tar" "$PROXY_IMAGE" >&2
  rm -f "$CACHE/caddy.tar"
fi

echo "POSTGRES_IMAGE=$POSTGRES_IMAGE"
echo "PROXY_IMAGE=$PROXY_IMAGE"
