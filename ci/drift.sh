#!/usr/bin/env bash
# Scheduled drift check: the live websites against the newest configuration of
# BRANCH, classified against the applied tag. A checkout that is not BRANCH's
# head (an old commit, a stale self-hosted clone) is moved to that head first:
# a site applied after it would otherwise look deleted outside sitesync.
# Exit: 0 in sync, 0 with a warning when only pending changes (merged, not
# applied), 4 drift or a conflict, 3 unsafe, 1 failed.
# Usage: drift.sh [BRANCH]. Without one (a schedule's payload may lack the
# repository, and with it the default branch): the run's branch (GITHUB_REF),
# else origin's default branch.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
branch=${1:-}
if [ -z "$branch" ] && [[ "${GITHUB_REF:-}" == refs/heads/* ]]; then branch=${GITHUB_REF#refs/heads/}; fi
if [ -z "$branch" ]; then
  branch=$(git ls-remote --symref origin HEAD | sed -n 's|^ref: refs/heads/\(.*\)\tHEAD$|\1|p')
  if [ -z "$branch" ]; then echo "sitesync: no branch to check: origin names no default branch; give the branch input" >&2; exit 1; fi
fi
git fetch --quiet --no-tags --depth=1 origin "+refs/heads/$branch:refs/remotes/origin/$branch"
if [ "$(git rev-parse HEAD)" != "$(git rev-parse "origin/$branch")" ]; then
  echo "the checkout ($(git rev-parse --short HEAD)) is not the head of $branch: checking $(git rev-parse --short "origin/$branch") instead"
  git checkout --quiet --detach "origin/$branch"
fi
baseline=(--no-baseline)
if fetch_tag; then baseline=(--baseline "$tag"); else annotate warning "no tag $tag yet: drift and pending changes cannot be told apart"; fi
run_sitesync drift.md drift.err plan "${file_args[@]}" "${target_args[@]}" "${baseline[@]}" --detailed-exitcode --format markdown
cat drift.md >> "$summary"
# A drift check never applies: a password variable it is not given (rightly) is no news.
grep -v ', which is not set; validate and plan do not need it, apply does$' drift.err >&2 || true
echo "code=$code" >> "$output"
case "$code" in
  0) echo "No drift: the live websites match the configuration." ;;
  2)
    if [ "${baseline[0]}" = --no-baseline ]; then
      annotate error "The live websites differ from the configuration (see the job summary)"
      exit 2
    fi
    annotate warning "Pending: changes merged into the configuration are not applied yet (see the job summary)"
    ;;
  4) annotate error "Drift: websites were changed outside sitesync (see the job summary)"; exit 4 ;;
  3) annotate error "The configuration's plan breaks a safety rule (see the job summary)"; exit 3 ;;
  *) exit "$code" ;;
esac
