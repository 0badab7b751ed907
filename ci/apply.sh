#!/usr/bin/env bash
# Apply a reviewed plan file: fetch the commits its baselines were read at
# (a shallow clone lacks them), apply exactly that file with the acknowledgements
# given (one argument per line of ACKNOWLEDGEMENTS), keep one journal per target
# (apply-journal.jsonl, or apply-journal.TARGET.jsonl), and after a verified
# apply push the applied tag that sitesync moved (--mark-applied).
# Usage: apply.sh PLAN_FILE [ACKNOWLEDGEMENTS_FILE]. Exits with sitesync's code.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
plan=$1
acknowledgements=()
if [ -n "${2:-}" ] && [ -s "$2" ]; then mapfile -t acknowledgements < "$2"; fi

fetch_tag || true
while read -r commit; do
  [ -z "$commit" ] || fetch_commit "$commit"
done < <(tool commits "$plan")

run_sitesync apply.txt apply.err apply "$plan" "${file_args[@]}" --journal apply-journal.jsonl \
  --mark-applied "$tag" "${acknowledgements[@]}"
cat apply.txt
cat apply.err >&2
{ echo '```'; cat apply.txt apply.err; echo '```'; } >> "$summary"
echo "code=$code" >> "$output"
if [ "$code" -eq 0 ]; then
  push_tag
  echo "moved $tag to $(git rev-parse --short "refs/tags/$tag") in origin"
fi
exit "$code"
