# SPDX-License-Identifier: GPL-3.0-or-later
# Runtime options of the sanitizer build (scripts/test --sanitize sources this file).
# Each option is explained in docs/contributing.md.
_accumlab_sanitize_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1"
export LSAN_OPTIONS="suppressions=$_accumlab_sanitize_dir/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# Instrumented programs run 3-5x slower (docs/contributing.md): tests with a
# wall-clock bound (a lesson's time, a worker's timeout) multiply it by this.
export ACCUMLAB_TEST_TIME_SCALE=4
unset _accumlab_sanitize_dir
