#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs each libFuzzer harness of the input readers for SECONDS, one after another, from its
# seed corpus in tests/fuzz/corpus/<format>/, and prints per format: execs/s, coverage
# (libFuzzer's final cov: and ft:), and crashes. Builds build-fuzz/ first when needed
# (clang, -DACCUMLAB_FUZZ=ON).
#   bench/fuzz.sh SECONDS [FORMAT...]     FORMAT: idx csv cifar10 config torchscript
# Environment: ACCUMLAB_FUZZ_BUILD_DIR (default build-fuzz), ACCUMLAB_JOBS (build jobs),
# ACCUMLAB_FUZZ_OUT (where logs and crash inputs go; default a fresh temp folder, kept).
# The corpus is copied to a temp folder, so the committed one does not grow. A crash input
# goes to the output folder as crash-*, leak-*, timeout-* or oom-*; make it a regression test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:?usage: bench/fuzz.sh SECONDS [FORMAT...]}"
shift
formats=("$@")
[ ${#formats[@]} -eq 0 ] && formats=(idx csv cifar10 config torchscript)
build="${ACCUMLAB_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${ACCUMLAB_JOBS:-$(nproc)}"

# The longest input per format: a few records or rows more than the largest seed.
declare -A max_len=([idx]=4096 [csv]=4096 [cifar10]=16384 [config]=4096 [torchscript]=16384)

# Only this script needs clang; scripts/setup leaves it out of the normal build's packages.
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "bench/fuzz.sh needs clang and libFuzzer: run as root: apt-get install -y clang libclang-rt-14-dev" >&2
  exit 1
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DACCUMLAB_FUZZ=ON >/dev/null
fi
cmake --build "$build" -j "$jobs" --target "${formats[@]/#/fuzz_}"

out="${ACCUMLAB_FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/accumlab-fuzz-out-XXXXXX")}"
mkdir -p "$out"
# Leaks are checked after each input that allocated more than it freed, but for the ones
# tests/sanitize/lsan.supp explains; UBSan findings abort.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/tests/sanitize/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export OMP_NUM_THREADS=1

# seconds: libFuzzer's own count of time spent fuzzing; wall: the process, exit included
# (which under ASan can take a minute for a process with a large heap).
printf '%-12s %8s %6s %12s %10s %8s %8s %8s\n' format seconds wall execs execs/s cov ft crashes
status=0
for f in "${formats[@]}"; do
  corpus="$(mktemp -d "${TMPDIR:-/tmp}/accumlab-corpus-$f-XXXXXX")"
  cp "$root/tests/fuzz/corpus/$f/"* "$corpus/"
  mkdir -p "$out/$f"
  log="$out/$f/fuzz.log"
  start=$(date +%s)
  set +e
  "$build/tests/fuzz/fuzz_$f" -max_total_time="$seconds" -rss_limit_mb=2048 \
    -max_len="${max_len[$f]}" -timeout=30 -print_final_stats=1 \
    -artifact_prefix="$out/$f/" "$corpus" >"$log" 2>&1
  rc=$?
  set -e
  ran=$(( $(date +%s) - start ))
  fuzzed=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  crashes=$(find "$out/$f" -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o \
            -name 'oom-*' | wc -l)
  printf '%-12s %8s %6s %12s %10s %8s %8s %8s\n' "$f" "${fuzzed:-?}" "$ran" "${execs:-?}" \
    "${rate:-?}" "${cov:-?}" "${ft:-?}" "$crashes"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    echo "  $f: exit $rc; log and inputs in $out/$f/" >&2
    status=1
  fi
  rm -rf "$corpus"
done
echo "logs: $out"
exit $status
