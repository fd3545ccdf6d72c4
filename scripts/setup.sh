# Shared by scripts/demo and scripts/test: install what is missing (Debian) and build.
# Sourced, not run.

# Debian packages convo needs to build and test.
CONVO_PACKAGES=(cmake make g++ libcli11-dev rapidjson-dev libfmt-dev librange-v3-dev catch2)

convo_install_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "setup: not a Debian system; install these yourself: ${CONVO_PACKAGES[*]}" >&2
    return 0
  fi
  local missing=() p
  for p in "${CONVO_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# convo_build BUILD_DIR [cmake options...]
convo_build() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null &&
    cmake --build "$dir" -j "$(nproc)"
}
