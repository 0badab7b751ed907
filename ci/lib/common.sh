# Sourced by the CI steps (bash). Settings from the environment:
#   SITESYNC        the command (install-sitesync.sh prints it)
#   SITESYNC_FILES  configuration files, space or newline separated (default websites.yaml)
#   SITESYNC_TARGETS target names to plan (default: every target)
#   SITESYNC_TAG    the applied tag (default sitesync-applied)
# Results: the step summary (GITHUB_STEP_SUMMARY on GitHub) and `code=N` in GITHUB_OUTPUT,
# or elsewhere (GitLab) in sitesync.env, which the job's script sources.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tag=${SITESYNC_TAG:-sitesync-applied}
read -r -a files <<< "$(echo "${SITESYNC_FILES:-websites.yaml}" | tr '\n' ' ')"
file_args=()
for file in "${files[@]}"; do file_args+=(-f "$file"); done
target_args=()
read -r -a targets <<< "$(echo "${SITESYNC_TARGETS:-}" | tr '\n' ' ')"
for target in "${targets[@]}"; do target_args+=(--target "$target"); done
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
output=${GITHUB_OUTPUT:-sitesync.env}
tool() { node "$here/lib/plan-tool.mjs" "$@"; }

# How to take the re-plan path here, for the messages that send the user there.
replan_hint() {
  if [ -z "${CI_API_V4_URL:-}" ]; then
    echo "run the re-plan path: this apply workflow by hand on the default branch (Run workflow; jobs replan, then apply-replanned), with the acknowledge input if its plan needs one"
  else
    echo "run the re-plan path: a pipeline by hand on the default branch (sitesync:replan, then sitesync:apply-replanned), with SITESYNC_ACKNOWLEDGE if its plan needs one"
  fi
}

# A warning or an error line for the job log: a workflow command (an annotation) on
# GitHub, plain `warning: …` elsewhere (GitLab prints `::warning::` as it is).
# Usage: annotate warning|error MESSAGE
annotate() {
  if [ "${GITHUB_ACTIONS:-}" = true ]; then echo "::$1::$2"; else echo "$1: $2"; fi
}

# The applied tag, shallowly, when the remote has it (a shallow clone has no tags).
fetch_tag() {
  git fetch --quiet --no-tags --depth=1 origin "+refs/tags/$tag:refs/tags/$tag" 2> /dev/null || true
  git rev-parse --verify --quiet "refs/tags/$tag^{commit}" > /dev/null
}

# A commit by id, shallowly, unless the clone has it.
fetch_commit() {
  git cat-file -e "$1^{commit}" 2> /dev/null || git fetch --quiet --no-tags --depth=1 origin "$1"
}

# Moves the applied tag in origin to the commit sitesync tagged: git push (the GitHub
# job's token), or GitLab's tags API (SITESYNC_GITLAB_TOKEN; a job token cannot push).
push_tag() {
  if [ -z "${CI_API_V4_URL:-}" ]; then
    git push --quiet --force origin "refs/tags/$tag"
    return
  fi
  local tags="$CI_API_V4_URL/projects/$CI_PROJECT_ID/repository/tags"
  curl --silent --output /dev/null --request DELETE --header "PRIVATE-TOKEN: $SITESYNC_GITLAB_TOKEN" "$tags/$tag"
  curl --fail --silent --show-error --output /dev/null --request POST --header "PRIVATE-TOKEN: $SITESYNC_GITLAB_TOKEN" \
    --data-urlencode "tag_name=$tag" --data-urlencode "ref=$(git rev-parse "refs/tags/$tag")" "$tags"
}

# Runs sitesync with stdout to $1, stderr to $2; sets $code.
run_sitesync() {
  local out=$1 err=$2
  shift 2
  if [ -z "${SITESYNC:-}" ]; then
    echo "sitesync: SITESYNC is not set: the install step did not run or failed (see it above)" >&2
    exit 1
  fi
  set +e
  "$SITESYNC" "$@" > "$out" 2> "$err"
  code=$?
  set -e
}
