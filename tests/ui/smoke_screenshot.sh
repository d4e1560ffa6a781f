#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Starts the real app under a virtual X server, trains, saves a screenshot and checks that
# it shows plotted data. Usage: smoke_screenshot.sh ACCUMLAB PNG_CHECK WORKDIR
set -euo pipefail
app="$1"; check="$2"; work="$3"
rm -rf "$work" && mkdir -p "$work"
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
export XDG_RUNTIME_DIR="$work/runtime" && mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
xvfb-run -a -s "-screen 0 1600x1000x24" \
  "$app" --fresh --run --data spirals --samples 200000 --db "$work/runs.sqlite" \
  --screenshot "$work/screenshot.png" --quit-after 8
test -s "$work/screenshot.png" || { echo "no screenshot written"; exit 1; }
"$check" "$work/screenshot.png"
