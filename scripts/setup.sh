# Shared by scripts/demo and scripts/test: install what is missing (Debian) and build.
# Sourced, not run.

# Debian packages convo needs to build and test.
CONVO_PACKAGES=(cmake make g++ libcli11-dev rapidjson-dev libfmt-dev librange-v3-dev catch2
                zlib1g-dev libzstd-dev libxxhash-dev gzip zstd parallel
                libmimalloc-dev  # the allocator convo links (CMakeLists.txt, CONVO_MIMALLOC)
                chromium)  # chromium: the render browser test (CTest label chromium)

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
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCONVO_UNITY_BUILD=ON "$@" >/dev/null &&
    cmake --build "$dir" -j "$(nproc)"
}

# convo_build_sanitized BUILD_DIR: the build the sanitizer suite and the fuzzers
# share: AddressSanitizer and UndefinedBehaviorSanitizer, with clang and the
# libFuzzer targets where clang is installed, with g++ and without them elsewhere.
# Warnings are not errors here (the plain build enforces them). -O1 -g1 (line
# tables only) compiles about a fifth faster than -O2 -g and keeps stack traces.
convo_build_sanitized() {
  local dir=$1 compiler=() fuzz=OFF
  if command -v clang++ >/dev/null 2>&1 &&
     echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
       clang++ -x c++ -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
    compiler=(-DCMAKE_CXX_COMPILER=clang++) fuzz=ON
  fi
  convo_build "$dir" "${compiler[@]}" "-DCONVO_SANITIZE=address;undefined" -DCONVO_FUZZ=$fuzz \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
}

# convo_npm_ci DIR WHAT: installs the pinned npm packages of DIR (its
# package-lock.json), the real program WHAT's tests compare convo with, when node
# 20+ and npm are here; otherwise, or when npm ci fails, those tests are skipped
# (they print SKIPPED), with a notice. Does nothing when DIR is installed already.
convo_npm_ci() {
  local dir=$1 what=$2
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1 ||
     [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
    echo "notice: node 20+ and npm are needed for the $what tests; they will be skipped" >&2
    return 0
  fi
  if [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    return 0
  fi
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
    echo "notice: npm ci failed in $dir; the $what tests will be skipped" >&2
}

# The pinned programs the conformance tests run (each directory's package.json says
# what and why).
convo_install_langchain() { convo_npm_ci tests/langchain "LangChain.js conformance"; }
convo_install_ai_sdk() { convo_npm_ci tests/ai-sdk "AI SDK schema"; }
convo_install_sdk_streams() {
  convo_npm_ci tests/sdk-streams "SDK stream and type (@anthropic-ai/sdk, openai, @google/genai)"
}
convo_install_ccusage() { convo_npm_ci tests/ccusage "ccusage comparison"; }
convo_install_secretlint() { convo_npm_ci tests/secretlint "secretlint comparison"; }
convo_install_agent_clis() {
  convo_npm_ci tests/codex_oracle "Codex CLI"
  convo_npm_ci tests/gemini_cli_oracle "Gemini CLI"
}

# Installs the pinned Claude Code of ../shared/cc-oracle (the harness that resumes a
# session with the real `claude` against a loopback stand-in for the Messages API),
# when the harness is beside this clone and npm is here; otherwise the cc-oracle
# tests are skipped, with a notice.
convo_install_cc_oracle() {
  local dir=../shared/cc-oracle
  if [ ! -f "$dir/package-lock.json" ] || ! command -v npm >/dev/null 2>&1; then
    echo "notice: ../shared/cc-oracle or npm is missing; the Claude Code oracle tests will be skipped" >&2
    return 0
  fi
  if [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    return 0
  fi
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1) ||
    echo "notice: npm ci failed in $dir; the Claude Code oracle tests will be skipped" >&2
}

