#!/usr/bin/env bash
# Prints the path of the haproxy binary, or says in one line how to install it (exit 1).
# The one lookup that scripts/replicas.sh, bench/haproxy.ts and the deployment tests share:
# Debian installs it in /usr/sbin, which is not on every user's PATH.
for candidate in "$(command -v haproxy 2>/dev/null)" /usr/sbin/haproxy /usr/bin/haproxy /usr/local/sbin/haproxy; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    echo "$candidate"
    exit 0
  fi
done
echo "haproxy is not installed: apt-get install haproxy" >&2
exit 1
