#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SIGKILLs `accumlab-cli run` mid-run 20 times and reports integrity, interrupted status and
# how close the stored rows get to the kill (tests/cli/store_kill_test.py; the test suite
# runs 5 of these). Usage: bench/store_kill.sh [PATH/TO/accumlab-cli] [REPEAT]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec /usr/bin/python3 "$here/../tests/cli/store_kill_test.py" "${1:-build/app/cli/accumlab-cli}" \
  --repeat "${2:-20}" --report
