# Sourced by the CI and test scripts: `timed CMD...` runs CMD and says on stderr how long it
# took, so a slow CI run shows which step to look at.
timed() {
  local start=$SECONDS
  "$@"
  echo "[timed] $((SECONDS - start)) s: $*" >&2
}
