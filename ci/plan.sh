#!/usr/bin/env bash
# Pull request → plan: validate, plan against the base branch (the pull request's
# own changes are pending, write-only ones included), write plan.json, plan.md
# and comment.md (the plan, the acknowledgement lines a refused plan needs, and
# the plan file itself for the apply on merge), the step summary, and `code`.
# Usage: plan.sh BASE_BRANCH HEAD_COMMIT. Exit 0 whenever a plan was made
# (3 included: the plan is worth reviewing); the caller fails the job after
# posting the comment when `code` is not 0 or 3.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
base=$1
head=$2

git fetch --quiet --no-tags --depth=1 origin "+refs/heads/$base:refs/remotes/origin/$base"
baseline=(--baseline "origin/$base")
note=
if ! git cat-file -e "origin/$base:${files[0]}" 2> /dev/null; then
  # The first pull request: nothing was configured at the base, so every change is pending.
  baseline=(--no-baseline)
  note="First plan: ${files[0]} is not on $base yet, so there is no baseline and every change is new."
fi

run_sitesync validate.txt validate.err validate "${file_args[@]}"
if [ "$code" -eq 0 ]; then
  run_sitesync plan.md plan.err plan "${file_args[@]}" "${target_args[@]}" "${baseline[@]}" --out plan.json --format markdown
fi
{
  echo '<!-- sitesync-plan -->'
  if [ -n "$note" ]; then echo "> $note"; echo; fi
  if [ "$code" -eq 0 ] || [ "$code" -eq 3 ]; then
    # A refused plan's Markdown ends with the acknowledgement lines to copy, escaped as every line sitesync prints.
    cat plan.md
  else
    echo "**sitesync failed (exit $code)**: no plan for this commit."
    echo '```'
    cat validate.txt validate.err plan.err 2> /dev/null || true
    echo '```'
  fi
} > comment.md
cp comment.md summary.md
if [ "$code" -eq 0 ] || [ "$code" -eq 3 ]; then
  if ! tool embed plan.json "$head" >> comment.md 2> embed.err; then
    cat embed.err >&2
    { echo; echo "**$(cat embed.err)**"; } | tee -a comment.md >> summary.md
    code=1
  fi
fi
cat summary.md >> "$summary"
cat summary.md
echo "code=$code" >> "$output"
