#!/usr/bin/env bash
# The re-plan path (a stale reviewed plan, or a merge never applied): plan the
# checked-out branch as it is against the applied tag, so every change merged
# since the last verified apply is pending, write-only ones (a password
# rotation, exclude_params) included, and write plan.json and the summary.
# Usage: replan.sh. Exits with the plan's code (3 is not acknowledged on this path).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
baseline=(--no-baseline)
if fetch_tag; then baseline=(--baseline "$tag"); fi
run_sitesync plan.md plan.err plan "${file_args[@]}" "${target_args[@]}" "${baseline[@]}" --out plan.json --format markdown
cat plan.md
cat plan.err >&2
{ cat plan.md; if [ "$code" -ne 0 ]; then echo '```'; cat plan.err; echo '```'; fi; } >> "$summary"
echo "code=$code" >> "$output"
exit "$code"
