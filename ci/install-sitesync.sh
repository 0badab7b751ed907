#!/usr/bin/env bash
# Installs the sitesync a CI job runs, from a release tarball, never from the
# files of the pull request being planned (its lockfile could name any package,
# and the plan job holds a key that can change every website).
# Usage: install-sitesync.sh SOURCE REF
#   SOURCE lockfile: the tarball node_modules/sitesync of package-lock.json AT REF
#          pins (REF: the pull request's base branch, or the commit being applied),
#          a vendored file (file:vendor/sitesync-X.tgz, read from REF) or a URL,
#          checked against the lockfile's integrity;
#          otherwise: the URL or path of a release tarball (a pinned version).
# Installs without optional (server) dependencies and without lifecycle scripts,
# once per tarball under SITESYNC_TOOL_CACHE (a runner's cached folder; or
# RUNNER_TOOL_CACHE, RUNNER_TEMP, TMPDIR), and
# prints the path of an executable that runs it.
set -euo pipefail
source=${1:-lockfile}
ref=${2:-HEAD}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$work/sitesync.tgz
integrity=-

fetch() { # URL or path → $tarball
  case "$1" in
    http://* | https://*) curl --fail --silent --show-error --location --output "$tarball" "$1" ;;
    file://*) cp "${1#file://}" "$tarball" ;;
    *) cp "$1" "$tarball" ;;
  esac
}

if [ "$source" = lockfile ]; then
  if ! git show "$ref:package-lock.json" > "$work/package-lock.json" 2> /dev/null; then
    echo "sitesync: no package-lock.json at $ref to take sitesync's version from (a pull request's own lockfile is never used: it could name any package): merge the pin into $ref first, or give the action's version input a release tarball" >&2
    exit 1
  fi
  read -r resolved integrity < <(node "$here/lib/plan-tool.mjs" lockfile-pin "$work/package-lock.json")
  case "$resolved" in
    file:*) git show "$ref:${resolved#file:}" > "$tarball" ;; # vendored in the repository, as it is at REF
    http://* | https://*) fetch "$resolved" ;;
    *)
      echo "sitesync: package-lock.json at $ref pins sitesync as $resolved: only a release tarball (a URL or a vendored file) can be installed this way" >&2
      exit 1
      ;;
  esac
else
  fetch "$source"
fi

if [ "$integrity" != - ]; then
  actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [ "$actual" != "$integrity" ]; then
    echo "sitesync: the sitesync tarball does not match the integrity package-lock.json at $ref records: not installed" >&2
    exit 1
  fi
fi

key=$(sha256sum "$tarball" | cut -c1-16)
home=${SITESYNC_TOOL_CACHE:-${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}}/sitesync/$key
if [ ! -x "$home/sitesync" ]; then
  mkdir -p "$home"
  echo '{ "private": true }' > "$home/package.json"
  cp "$tarball" "$home/sitesync.tgz"
  npm install --prefix "$home" --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error "$home/sitesync.tgz" >&2
  printf '#!/bin/sh\nexec node "%s/node_modules/sitesync/bin/sitesync.js" "$@"\n' "$home" > "$home/sitesync"
  chmod +x "$home/sitesync"
fi
echo "$home/sitesync"
