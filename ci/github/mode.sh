#!/usr/bin/env bash
# The action's mode (input `mode`, or from the event) and the git revision whose
# package-lock.json pins the sitesync to run: a pull request's base branch
# (fetched shallowly), never the pull request itself; otherwise the commit checked out.
set -euo pipefail
mode=$MODE
if [ "$mode" = auto ]; then
  case "$GITHUB_EVENT_NAME" in
    pull_request | pull_request_target) mode=plan ;;
    push) mode=apply ;;
    schedule | workflow_dispatch) mode=drift ;;
    *) echo "::error::sitesync: no mode for the event $GITHUB_EVENT_NAME: set the input mode"; exit 1 ;;
  esac
fi
ref=HEAD
if [ "$mode" = plan ]; then
  git fetch --quiet --no-tags --depth=1 origin "+refs/heads/$BASE:refs/remotes/origin/$BASE"
  ref="origin/$BASE"
fi
echo "mode=$mode" >> "$GITHUB_OUTPUT"
echo "ref=$ref" >> "$GITHUB_OUTPUT"
