#!/usr/bin/env bash
# The deployment suite's prerequisites (npm run test:deployment): checked before any test runs,
# each missing one named in one line with the command that installs it (exit 1).
root="$(cd "$(dirname "$0")/.." && pwd)"
missing=()
"$root/scripts/haproxy-path.sh" >/dev/null 2>&1 || missing+=(haproxy)
[ -x /usr/lib/postgresql/15/bin/initdb ] || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  echo "the deployment suite needs ${missing[*]}: apt-get install ${missing[*]}" >&2
  exit 1
fi
