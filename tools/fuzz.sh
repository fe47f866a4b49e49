#!/usr/bin/env bash
# Fuzz targets (tests/fuzz, libFuzzer + ASan + UBSan): builds build/asan with clang (cmake/sanitizers.cmake),
# replays the inputs of every bug found so far (tests/fuzz/regressions/<target>/), then runs each target
# for SECONDS (default 60), as many at a time as there are cores, from its committed seed corpus
# (tests/fuzz/corpus/<target>/).
# New corpus entries go to build/fuzz-work/ (the committed corpus is only read). Any crash, leak, UB report
# or broken invariant fails the run and leaves the input in build/fuzz-work/.
#   bash tools/fuzz.sh [SECONDS] [TARGET...]     targets: config scenario url_state estimate checkpoint
#                                                 checkpoint_index layer_stack
#                                                 import_yaml command_line (the importers: need yaml-cpp)
# SECONDS 0 means no time limit; VRAMCALC_FUZZ_RUNS=N stops each target after N executions instead
# (the 10-million-execution campaign: VRAMCALC_FUZZ_RUNS=10000000 bash tools/fuzz.sh 0 estimate).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${1:-60}"; shift || true
TARGETS=("$@"); [ ${#TARGETS[@]} -gt 0 ] || TARGETS=(config scenario url_state estimate checkpoint checkpoint_index layer_stack import_yaml command_line)
# VRAMCALC_FUZZ_SAN=fast: the UBSan-only build (cmake/sanitizers-fast.cmake, several times faster; no
# ASan, so no leak or address checks) for long campaigns; the default is the ASan + UBSan build.
if [ "${VRAMCALC_FUZZ_SAN:-asan}" = fast ]; then
  BUILD="$ROOT/build/fuzz-fast"; CACHE="$ROOT/cmake/sanitizers-fast.cmake"
  CHECKED="no UB (UBSan only: leaks and bad memory accesses are not checked by this build)"
else
  BUILD="$ROOT/build/asan"; CACHE="$ROOT/cmake/sanitizers.cmake"
  CHECKED="leak or UB"
fi
WORK="$ROOT/build/fuzz-work"
JOBS="${VRAMCALC_JOBS:-$(nproc)}"

say() { printf '\033[1m[fuzz]\033[0m %s\n' "$*"; }
command -v clang++-14 >/dev/null || { echo "clang++-14 missing: apt-get install clang-14 libclang-rt-14-dev" >&2; exit 1; }
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -C "$CACHE" >/dev/null
fi
cmake --build "$BUILD" -j "$JOBS" $(printf -- '--target fuzz_%s ' "${TARGETS[@]}") >/dev/null

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
# One target's replay and run; its one-line outcome goes to $WORK/$t.outcome, starting with ok or FAILED.
fuzz_one() {
  local t="$1" bin="$BUILD/tests/fuzz/fuzz_$1" log="$WORK/$1.log" out="$WORK/$1.outcome" start execs
  mkdir -p "$WORK/$t"
  if compgen -G "$ROOT/tests/fuzz/regressions/$t/*" >/dev/null; then
    "$bin" "$ROOT"/tests/fuzz/regressions/"$t"/* >"$WORK/$t.replay.log" 2>&1 \
      || { echo "FAILED $t: a regression input fails again (see $WORK/$t.replay.log)" >"$out"; return; }
  fi
  # The seed corpus, where the target has one (git keeps no empty folder: the estimator target builds its
  # scenarios from raw bytes and starts from nothing).
  local seeds=() runs=()
  [ -d "$ROOT/tests/fuzz/corpus/$t" ] && seeds=("$ROOT/tests/fuzz/corpus/$t")
  [ -n "${VRAMCALC_FUZZ_RUNS:-}" ] && runs=(-runs="$VRAMCALC_FUZZ_RUNS")
  start=$(date +%s)
  if "$bin" -max_total_time="$SECONDS_EACH" "${runs[@]}" -print_final_stats=1 -artifact_prefix="$WORK/$t-" \
       "$WORK/$t" "${seeds[@]}" >"$log" 2>&1; then
    execs=$(awk '/stat::number_of_executed_units/{print $2}' "$log")
    echo "ok $t: ${execs:-?} executions in $(( $(date +%s) - start )) s, no crash, $CHECKED" >"$out"
  else
    echo "FAILED $t: (log: $log)" >"$out"
  fi
}

# The targets run side by side, as many at a time as there are cores (each gets SECONDS of its own).
rm -f "$WORK"/*.outcome
running=0
for t in "${TARGETS[@]}"; do
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n || true; running=$((running - 1)); fi
done
wait
rc=0
for t in "${TARGETS[@]}"; do
  line=$(cat "$WORK/$t.outcome" 2>/dev/null || echo "FAILED $t: no outcome")
  say "${line#ok }"
  if [ "${line%% *}" != ok ]; then
    rc=1
    grep -E "ERROR|INVARIANT|runtime error|SUMMARY" "$WORK/$t.log" 2>/dev/null | head -5 >&2 || true
  fi
done
exit $rc
