#!/bin/sh
# Drift check for cron: plans against the live service (changes nothing) and,
# when the websites differ from the configuration, keeps a dated Markdown
# report and optionally mails it. Run it in the configuration's git checkout:
# when the tag sitesync-applied exists (apply --mark-applied moves it), it is
# the baseline, and drift (changed outside sitesync) is told apart from pending
# changes (merged, not applied yet); SITESYNC_BASELINE names another revision.
# Exit codes: 0 no drift (no output at all, so cron mails nothing; with a
# baseline, also when only pending changes were found: a warning is printed,
# which cron mails), 4 drift or a conflict (with a baseline), 2 the websites
# differ (no baseline: drift and pending cannot be told apart), 3 the plan
# breaks a safety rule, 1 error (cron mails non-empty output to MAILTO).
# sitesync's warnings are shown only when something is wrong, never on the
# quiet path.
#
#   PATH=/usr/local/bin:/usr/bin:/bin
#   17 3 * * *  SITESYNC_API_KEY_FILE=/etc/sitesync/key /opt/sitesync/drift-check.sh
#
# cron runs with PATH=/usr/bin:/bin: set PATH in the crontab to where node and
# sitesync are, or set SITESYNC to the command, e.g.
# SITESYNC="/usr/local/bin/node /opt/sitesync/node_modules/.bin/sitesync".
# Settings (environment): SITESYNC_CONFIG (default websites.yaml),
# SITESYNC_REPORT_DIR (default .; must exist), SITESYNC_MAIL_TO (needs mail(1)),
# SITESYNC_URL / SITESYNC_API_KEY or SITESYNC_API_KEY_FILE, SITESYNC_KEY_DIR (with
# targets, whose keys come from the variables their key_env names: a directory
# of one file per variable, named after it, e.g. /etc/sitesync/keys/SITESYNC_PRODUCTION_KEY),
# SITESYNC (the
# command, default sitesync; split on spaces, so it may carry arguments, e.g.
# "npx --no-install sitesync"). Paths (config, report dir, key file) may hold
# spaces.
set -u

config=${SITESYNC_CONFIG:-websites.yaml}
report_dir=${SITESYNC_REPORT_DIR:-.}
sitesync=${SITESYNC:-sitesync}
if [ ! -d "$report_dir" ] || [ ! -w "$report_dir" ]; then
  echo "sitesync: the drift check did not run: report directory $report_dir does not exist or is not writable (SITESYNC_REPORT_DIR)" >&2
  exit 1
fi
if [ -n "${SITESYNC_KEY_DIR:-}" ]; then
  if [ ! -d "$SITESYNC_KEY_DIR" ]; then
    echo "sitesync: the drift check did not run: key directory $SITESYNC_KEY_DIR does not exist (SITESYNC_KEY_DIR)" >&2
    exit 1
  fi
  for key_file in "$SITESYNC_KEY_DIR"/*; do
    [ -f "$key_file" ] || continue
    name=$(basename "$key_file")
    case "$name" in
      *[!A-Z0-9_]* | [0-9]*)
        echo "sitesync: the drift check did not run: $key_file: name each key file after its variable (A-Z, 0-9, _)" >&2
        exit 1
        ;;
    esac
    # $(cat) drops the file's final newline; the key itself never reaches a command line.
    value=$(cat "$key_file")
    export "$name=$value"
  done
fi
report="$report_dir/drift-$(date -u +%Y%m%dT%H%M%SZ).md"
# The arguments as a list ("$@"), so a path with spaces stays one argument.
set -- plan -f "$config" --detailed-exitcode --format markdown
if [ -n "${SITESYNC_API_KEY_FILE:-}" ]; then set -- "$@" --api-key-file "$SITESYNC_API_KEY_FILE"; fi

# shellcheck disable=SC2086 # $sitesync may be a command with arguments
$sitesync "$@" > "$report.tmp" 2> "$report.err"
code=$?

case "$code" in
  0)
    rm -f "$report.tmp" "$report.err"
    ;;
  2 | 3 | 4)
    mv "$report.tmp" "$report"
    cat "$report.err" >&2
    rm -f "$report.err"
    if [ "$code" -eq 2 ] && grep -q '^Compared with the ' "$report"; then
      # Classified against a baseline: only pending changes. A warning, not a failure.
      subject="sitesync pending: $config"
      echo "sitesync: warning: $config has changes that were not applied yet (pending, no drift): see $report"
      code=0
    elif [ "$code" -eq 4 ]; then
      subject="sitesync drift: $config"
      echo "sitesync: drift found in $config: websites were changed outside sitesync: see $report"
    elif [ "$code" -eq 2 ]; then
      subject="sitesync drift: $config"
      echo "sitesync: drift found in $config: the live websites differ from the configuration: see $report"
    else
      subject="sitesync: unsafe plan for $config"
      echo "sitesync: $config differs from the live websites, and applying it would break a safety rule (exit 3): see $report"
    fi
    if [ -n "${SITESYNC_MAIL_TO:-}" ]; then
      mail -s "$subject" "$SITESYNC_MAIL_TO" < "$report"
    fi
    ;;
  126 | 127)
    cat "$report.err" >&2
    rm -f "$report.tmp" "$report.err"
    echo "sitesync: the drift check did not run: cannot run '$sitesync' (exit $code); set PATH or SITESYNC in the crontab" >&2
    code=1
    ;;
  *)
    cat "$report.err" >&2
    rm -f "$report.tmp" "$report.err"
    echo "sitesync: the drift check failed (exit $code): no drift was checked, see the messages above" >&2
    ;;
esac
exit "$code"
