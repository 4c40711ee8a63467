# Shared by scripts/run, scripts/test and scripts/bench: install missing Debian packages, then
# configure and build (Release, all cores). Idempotent: does nothing that is already done.
set -euo pipefail

CLEARFOG_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLEARFOG_BUILD="${CLEARFOG_BUILD:-$CLEARFOG_ROOT/build}"

# Every build and test dependency, from Debian (bookworm) packages; nothing is downloaded at build time.
# clang-14 and libclang-rt-14-dev (its libFuzzer and sanitizer runtimes) serve only scripts/fuzz and
# the fuzz test, which build apart from the normal build. chromium serves only the headless-browser
# test of the HTML report (tests/html/).
CLEARFOG_PACKAGES=(g++ cmake make pkg-config libsimgrid-dev libboost-graph-dev libyaml-cpp-dev catch2
                   libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev libjemalloc-dev
                   clang-14 libclang-rt-14-dev chromium)

clearfog_install_packages() {
  local missing=()
  for p in "${CLEARFOG_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "clearfog: installing ${missing[*]}" >&2
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "clearfog: these Debian packages are missing and installing them needs root: ${missing[*]}" >&2
      echo "          run as root: apt-get install -y ${missing[*]}" >&2
      exit 1
    fi
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

clearfog_build() {
  local werror=OFF
  [ "${CI:-}" = "true" ] && werror=ON
  # CLEARFOG_CMAKE_ARGS and CLEARFOG_BUILD_TYPE: set by scripts/test --sanitize for its own build.
  # shellcheck disable=SC2086
  if [ ! -f "$CLEARFOG_BUILD/CMakeCache.txt" ] || ! grep -q "CLEARFOG_WERROR:BOOL=$werror" "$CLEARFOG_BUILD/CMakeCache.txt"; then
    cmake -S "$CLEARFOG_ROOT" -B "$CLEARFOG_BUILD" -DCMAKE_BUILD_TYPE="${CLEARFOG_BUILD_TYPE:-Release}" \
          -DCLEARFOG_WERROR=$werror ${CLEARFOG_CMAKE_ARGS:-} >/dev/null
  fi
  cmake --build "$CLEARFOG_BUILD" -j "$(nproc)" -- --no-print-directory
}

clearfog_setup() {
  clearfog_install_packages
  clearfog_build
}
