# Shared by scripts/run, scripts/test and scripts/bench: install missing Debian packages, then
# configure and build (Release, all cores). Idempotent: does nothing that is already done.
#   clearfog_setup        the simulator only (target clearfog): what scripts/run needs
#   clearfog_setup tests  everything: the test suite, its tools (fuzzers, Chromium, Slurm) and benches
set -euo pipefail

CLEARFOG_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLEARFOG_BUILD="${CLEARFOG_BUILD:-$CLEARFOG_ROOT/build}"

# What the simulator needs to build, from Debian (bookworm) packages; nothing is downloaded at build time.
CLEARFOG_PACKAGES=(g++ cmake make pkg-config libsimgrid-dev libboost-graph-dev libyaml-cpp-dev
                   libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev libjemalloc-dev
                   protobuf-compiler libprotobuf-dev)
# What only the tests and developer tools need: Catch2 and Google Benchmark for the test and bench
# binaries; clang-14 and libclang-rt-14-dev (its libFuzzer and sanitizer runtimes) for scripts/fuzz and
# the fuzz test, which build apart from the normal build; chromium for the headless-browser tests of
# the HTML pages (tests/html/); slurmctld, slurmd, slurm-client and munge for the test that submits a
# sweep to a real single-node Slurm (tests/sweep/slurm/), which starts and stops its own daemons (the
# packages' own services are neither needed nor started by it).
CLEARFOG_TEST_PACKAGES=(catch2 libbenchmark-dev clang-14 libclang-rt-14-dev chromium
                        slurmctld slurmd slurm-client munge)

# The first build of the simulator alone, measured on the 2-core machine (docs/performance.md).
CLEARFOG_FIRST_BUILD_MINUTES=4

clearfog_install_packages() {
  local missing=()
  for p in "$@"; do
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

# clearfog_configure TESTS: (re)configure when the build directory is new, or when the warning mode
# (CI=true: warnings are errors) or the test switch differs from what is asked. A build configured with
# the tests keeps them when scripts/run comes after scripts/test: only a missing test switch is added.
clearfog_configure() {
  local tests=$1 werror=OFF cache="$CLEARFOG_BUILD/CMakeCache.txt"
  [ "${CI:-}" = "true" ] && werror=ON
  if [ "$tests" = OFF ] && [ -f "$cache" ] && grep -q "CLEARFOG_TESTS:BOOL=ON" "$cache"; then tests=ON; fi
  if [ -f "$cache" ] && grep -q "CLEARFOG_WERROR:BOOL=$werror" "$cache" && grep -q "CLEARFOG_TESTS:BOOL=$tests" "$cache"; then
    return 0
  fi
  # CLEARFOG_CMAKE_ARGS and CLEARFOG_BUILD_TYPE: set by scripts/test --sanitize for its own build.
  # shellcheck disable=SC2086
  cmake -S "$CLEARFOG_ROOT" -B "$CLEARFOG_BUILD" -DCMAKE_BUILD_TYPE="${CLEARFOG_BUILD_TYPE:-Release}" \
        -DCLEARFOG_WERROR=$werror -DCLEARFOG_TESTS=$tests ${CLEARFOG_CMAKE_ARGS:-} >/dev/null
}

# The simulator alone, quietly: one line before a first build, the compiler's log only on failure.
clearfog_build_simulator() {
  local log="$CLEARFOG_BUILD/build-clearfog.log"
  if [ ! -x "$CLEARFOG_BUILD/sim/clearfog" ]; then
    echo "clearfog: building the simulator, the first time only (about $CLEARFOG_FIRST_BUILD_MINUTES minutes on 2 cores;" \
         "log: ${log#"$CLEARFOG_ROOT"/})" >&2
  fi
  if ! cmake --build "$CLEARFOG_BUILD" -j "$(nproc)" --target clearfog -- --no-print-directory >"$log" 2>&1; then
    grep -E "error|Error" "$log" | head -n 40 >&2 || tail -n 40 "$log" >&2
    echo "clearfog: the build failed; the whole log is $log" >&2
    exit 1
  fi
}

clearfog_setup() {
  if [ "${1:-}" = tests ]; then
    clearfog_install_packages "${CLEARFOG_PACKAGES[@]}" "${CLEARFOG_TEST_PACKAGES[@]}"
    clearfog_configure ON
    cmake --build "$CLEARFOG_BUILD" -j "$(nproc)" -- --no-print-directory
  else
    clearfog_install_packages "${CLEARFOG_PACKAGES[@]}"
    clearfog_configure OFF
    clearfog_build_simulator
  fi
}
