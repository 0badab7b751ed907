# Sourced by the CI steps (bash). Settings from the environment:
#   SITESYNC        the command (install-sitesync.sh prints it)
#   SITESYNC_FILES  configuration files, space or newline separated (default websites.yaml)
#   SITESYNC_TARGETS target names to plan (default: every target)
#   SITESYNC_TAG    the applied tag (default sitesync-applied)
# Also: the step summary and outputs (GITHUB_STEP_SUMMARY, GITHUB_OUTPUT) when set.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tag=${SITESYNC_TAG:-sitesync-applied}
read -r -a files <<< "$(echo "${SITESYNC_FILES:-websites.yaml}" | tr '\n' ' ')"
file_args=()
for file in "${files[@]}"; do file_args+=(-f "$file"); done
target_args=()
read -r -a targets <<< "$(echo "${SITESYNC_TARGETS:-}" | tr '\n' ' ')"
for target in "${targets[@]}"; do target_args+=(--target "$target"); done
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
output=${GITHUB_OUTPUT:-/dev/null}
tool() { node "$here/lib/plan-tool.mjs" "$@"; }

# The applied tag, shallowly, when the remote has it (a shallow clone has no tags).
fetch_tag() {
  git fetch --quiet --no-tags --depth=1 origin "+refs/tags/$tag:refs/tags/$tag" 2> /dev/null || true
  git rev-parse --verify --quiet "refs/tags/$tag^{commit}" > /dev/null
}

# A commit by id, shallowly, unless the clone has it.
fetch_commit() {
  git cat-file -e "$1^{commit}" 2> /dev/null || git fetch --quiet --no-tags --depth=1 origin "$1"
}

# Runs sitesync with stdout to $1, stderr to $2; sets $code.
run_sitesync() {
  local out=$1 err=$2
  shift 2
  set +e
  "$SITESYNC" "$@" > "$out" 2> "$err"
  code=$?
  set -e
}
