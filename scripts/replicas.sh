#!/usr/bin/env bash
# A replicated `sitesync serve` on this machine: PostgreSQL, two replicas, HAProxy in front
# (scripts/haproxy.cfg: round robin, /ready as the health check, X-Forwarded-For for --trust-proxy).
# The replicas listen on Unix sockets in a directory only this user can enter, not on TCP ports: no
# other local user can reach them, so none can send them an X-Forwarded-For of its choosing.
#
#   scripts/replicas.sh                       # a throwaway PostgreSQL 15 cluster, removed on exit
#   PGPASSWORD=… scripts/replicas.sh --db postgres://sitesync@127.0.0.1:5432/sitesync   # password not in argv
#   scripts/replicas.sh --port 9000           # HAProxy's port (default 8080)
#   scripts/replicas.sh --log-level info      # the replicas' request logs (default warn), in the temp directory
#
# Prints `export SITESYNC_URL=…` and `export SITESYNC_API_KEY=…` on stdout, then runs until
# Ctrl-C / SIGTERM, which stops HAProxy, the replicas (their pools closed), then the cluster, and
# removes the temporary directory. Keys: SITESYNC_SERVE_KEYS if set (it is the whole provisioned
# set, docs/server.md), else one generated key. SITESYNC_COMMAND replaces `node bin/sitesync.js`
# (the tests run the sources through tsx). Needs haproxy (apt-get install haproxy).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
pg_bin=/usr/lib/postgresql/15/bin
db=""
port=8080
log_level=warn
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db="${2:?--db needs a postgres:// URL}"; shift 2 ;;
    --port) port="${2:?--port needs a number}"; shift 2 ;;
    --log-level) log_level="${2:?--log-level needs a level}"; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "replicas.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

say() { echo "replicas.sh: $*" >&2; }
fail() { say "$*"; exit 1; }

# The replicas get the URL in SITESYNC_SERVE_DB, never on their command lines; this script's own
# argv is as visible (ps), so a password there is warned about: PGPASSWORD or ~/.pgpass keep it out.
if [[ "$db" =~ ^postgres(ql)?://[^:/@]*:[^@]*@ || "$db" =~ [?\&]password= ]]; then
  say "warning: --db holds the database password, which ps shows to every local user: give it in PGPASSWORD or ~/.pgpass"
fi

haproxy_bin="$("$root/scripts/haproxy-path.sh")" || exit 1
if [ -n "${SITESYNC_COMMAND:-}" ]; then
  read -r -a sitesync <<<"$SITESYNC_COMMAND"
else
  [ -f "$root/dist/bin/sitesync.js" ] || fail "run npm run build first"
  sitesync=(node "$root/bin/sitesync.js")
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/sitesync-replicas-XXXXXX")"
chmod 711 "$work" # the postgres user must reach its data directory inside
pids=()
pg_data=""
cleanup() {
  trap - EXIT INT TERM
  # HAProxy first (no new requests), then the replicas (SIGTERM: in-flight requests finish and the
  # pools close), then PostgreSQL: stopping it under open pools makes them log 57P03.
  for ((index = ${#pids[@]} - 1; index >= 0; index--)); do kill -TERM "${pids[index]}" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "$pg_data" ]; then as_postgres "$pg_bin/pg_ctl" -D "$pg_data" -m fast -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

if [ -z "$db" ]; then
  [ -x "$pg_bin/initdb" ] || fail "$pg_bin/initdb is missing (apt-get install postgresql postgresql-contrib)"
  pg_data="$work/pg"
  mkdir -p "$pg_data"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$pg_data"; fi
  chmod 700 "$pg_data"
  pg_port="$(free_port)"
  as_postgres "$pg_bin/initdb" -D "$pg_data" -U postgres --auth=trust -E UTF8 --locale=C >"$work/initdb.log" 2>&1 ||
    fail "initdb failed: $(cat "$work/initdb.log")"
  as_postgres "$pg_bin/pg_ctl" -D "$pg_data" -l "$pg_data/log" -w start \
    -o "-p $pg_port -k $pg_data -c listen_addresses=127.0.0.1" >/dev/null || fail "PostgreSQL did not start"
  as_postgres "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres sitesync
  db="postgres://postgres@127.0.0.1:$pg_port/sitesync"
  say "PostgreSQL 15: $db (throwaway, in $pg_data)"
fi

key="${SITESYNC_SERVE_KEYS:-}"
if [ -z "$key" ]; then key="ss_replicas_$(node -e "console.log(require('crypto').randomBytes(18).toString('hex'))")"; fi
public_url="http://127.0.0.1:$port"

# Replicas start together: migrations and key provisioning run under advisory locks, once.
# Each listens on a Unix socket (0600) in a 0700 directory: whoever can open it is HAProxy (or this
# user, or root), so its X-Forwarded-For is believed (bare --trust-proxy). Any 127.x address a
# replica listened on would be open to every local user, and so would X-Forwarded-For be
# (docs/server.md, "Behind a TLS proxy").
sockets="$work/sockets"
mkdir -m 700 "$sockets"
replica_urls=()
for n in 1 2; do
  SITESYNC_SERVE_KEYS="$key" SITESYNC_SERVE_DB="$db" "${sitesync[@]}" serve --socket "$sockets/replica$n.sock" --trust-proxy \
    --public-url "$public_url" --log-level "$log_level" 2>"$work/replica$n.log" &
  pids+=($!)
done
for n in 1 2; do
  url=""
  for _ in $(seq 300); do
    url="$(sed -n 's/^sitesync serve: listening on \([^,]*\),.*/\1/p' "$work/replica$n.log")"
    [ -n "$url" ] && break
    kill -0 "${pids[n - 1]}" 2>/dev/null || fail "replica $n did not start: $(cat "$work/replica$n.log")"
    sleep 0.1
  done
  [ -n "$url" ] || fail "replica $n did not start within 30 s: $(cat "$work/replica$n.log")"
  replica_urls+=("$url")
  say "replica $n: $url (pid ${pids[n - 1]}, log $work/replica$n.log)"
done

SITESYNC_LB_BIND="127.0.0.1:$port" SITESYNC_REPLICA1="unix@${replica_urls[0]#unix:}" \
  SITESYNC_REPLICA2="unix@${replica_urls[1]#unix:}" "$haproxy_bin" -db -f "$root/scripts/haproxy.cfg" &
haproxy_pid=$!
pids+=("$haproxy_pid")
ready=""
for _ in $(seq 100); do
  kill -0 "$haproxy_pid" 2>/dev/null || fail "haproxy stopped (see its messages above)"
  if node -e "fetch(process.argv[1]).then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))" "$public_url/ready"; then
    ready=1
    break
  fi
  sleep 0.1
done
[ -n "$ready" ] || fail "HAProxy on $public_url did not answer /ready within 10 s"
say "HAProxy (pid $haproxy_pid): $public_url -> ${replica_urls[*]}; Ctrl-C stops everything"
echo "export SITESYNC_URL=$public_url"
echo "export SITESYNC_API_KEY=${key%%,*}"

# Runs as long as HAProxy does; a replica may die (the health check takes it out).
wait "$haproxy_pid" || true
fail "haproxy exited"
