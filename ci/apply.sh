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
# Where sitesync says to plan again (a stale or altered plan), CI's way is the re-plan path;
# the plan it refused is not worth printing again (it was reviewed; nothing was applied).
hint=
if [ "$code" -eq 1 ] && grep -qE 'is stale|plan again' apply.err; then
  : > apply.txt
  hint="the reviewed plan no longer holds: $(replan_hint)"
fi
if [ "$code" -eq 0 ]; then
  push_tag
  # Pushed here: sitesync's "(push it: git push …)" is done already.
  sed -i 's/ (push it: git push [^)]*)//' apply.txt apply.err
  echo "moved $tag to $(git rev-parse --short "refs/tags/$tag") in origin" >> apply.txt
fi
cat apply.txt
cat apply.err >&2
if [ -n "$hint" ]; then annotate error "$hint"; fi
{ echo '```'; cat apply.txt apply.err; if [ -n "$hint" ]; then echo "$hint"; fi; echo '```'; } >> "$summary"
echo "code=$code" >> "$output"
exit "$code"
