#!/usr/bin/env bash
# The re-plan path (a stale reviewed plan, or a merge never applied): plan the
# checked-out branch as it is against the applied tag, so every change merged
# since the last verified apply is pending, write-only ones (a password
# rotation, exclude_params) included, and write plan.json and the summary.
# Usage: replan.sh. Exits with the plan's code, but 0 for an unsafe plan (3): it is a
# plan to review, whose apply needs the acknowledgements it lists (SITESYNC_ACKNOWLEDGE:
# the action's acknowledge input, or the GitLab pipeline's variable), checked here.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
tool acknowledge > /dev/null # a line that is no acknowledgement fails now, not after the approval
baseline=(--no-baseline)
if fetch_tag; then baseline=(--baseline "$tag"); fi
run_sitesync plan.md plan.err plan "${file_args[@]}" "${target_args[@]}" "${baseline[@]}" --out plan.json --format markdown
cat plan.md
cat plan.err >&2
{ cat plan.md; if [ "$code" -ne 0 ] && [ "$code" -ne 3 ]; then echo '```'; cat plan.err; echo '```'; fi; } >> "$summary"
echo "code=$code" >> "$output"
if [ "$code" -eq 3 ]; then
  # The plan above lists the acknowledgement lines (worded for a pull request): say where they go here.
  echo "**This plan breaks a safety rule**: on the re-plan path, give the \`sitesync-acknowledge:\` lines above as the run's acknowledge input (GitLab: the variable SITESYNC_ACKNOWLEDGE); its apply refuses the plan without them." | tee -a "$summary"
  exit 0
fi
exit "$code"
