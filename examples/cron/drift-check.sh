#!/bin/sh
# Drift check for cron: plans against the live service (changes nothing) and,
# when the websites differ from the configuration, keeps a dated Markdown
# report and optionally mails it. Exit codes: 0 no drift, 2 drift, 3 the plan
# breaks a safety rule, 1 error (cron mails non-empty output to MAILTO).
#
#   17 3 * * *  SITESYNC_API_KEY_FILE=/etc/sitesync/key /opt/sitesync/drift-check.sh
#
# Settings (environment): SITESYNC_CONFIG (default websites.yaml),
# SITESYNC_REPORT_DIR (default .), SITESYNC_MAIL_TO (needs mail(1)),
# SITESYNC_URL / SITESYNC_API_KEY or SITESYNC_API_KEY_FILE, SITESYNC (the
# command, default sitesync; split on spaces, so it may carry arguments, e.g.
# "npx --no-install sitesync"). Paths (config, report dir, key file) may hold
# spaces.
set -u

config=${SITESYNC_CONFIG:-websites.yaml}
report_dir=${SITESYNC_REPORT_DIR:-.}
sitesync=${SITESYNC:-sitesync}
report="$report_dir/drift-$(date -u +%Y%m%dT%H%M%SZ).md"
# The arguments as a list ("$@"), so a path with spaces stays one argument.
set -- plan -f "$config" --detailed-exitcode --format markdown
if [ -n "${SITESYNC_API_KEY_FILE:-}" ]; then set -- "$@" --api-key-file "$SITESYNC_API_KEY_FILE"; fi

# shellcheck disable=SC2086 # $sitesync may be a command with arguments
$sitesync "$@" > "$report.tmp"
code=$?

case "$code" in
  0)
    rm -f "$report.tmp"
    ;;
  2 | 3)
    mv "$report.tmp" "$report"
    echo "sitesync: drift found in $config: see $report"
    if [ -n "${SITESYNC_MAIL_TO:-}" ]; then
      mail -s "sitesync drift: $config" "$SITESYNC_MAIL_TO" < "$report"
    fi
    ;;
  *)
    rm -f "$report.tmp"
    echo "sitesync: the drift check failed (exit $code)" >&2
    ;;
esac
exit "$code"
