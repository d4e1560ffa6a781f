#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `accumlab-cli report`: the desktop app's HTML report, rendered off-screen.
# Usage: report_cli_test.sh PATH/TO/accumlab-cli
set -uo pipefail
cli="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [report]: $*" >&2; exit 1; }
unset DISPLAY WAYLAND_DISPLAY  # the report must not need a display

"$cli" run --samples 2048 --accum 4 --db "$tmp/runs.sqlite" -q >/dev/null 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
"$cli" run --samples 2048 --accum 8 --db "$tmp/runs.sqlite" -q >/dev/null 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
"$cli" report 1 --db "$tmp/runs.sqlite" --out "$tmp/one.html" >"$tmp/out" 2>"$tmp/err" || fail "report failed: $(cat "$tmp/err")"
"$cli" report 1 4 --db "$tmp/runs.sqlite" --out "$tmp/two.html" >/dev/null 2>"$tmp/err" || fail "compare report failed: $(cat "$tmp/err")"
# The arms' ratios to no-accum are no test of K, and the report must not say they are.
grep -q "these ratios are no test of K" "$tmp/one.html" || fail "the report pairs the arms' ratios with K"
! grep -q "theory expects about K" "$tmp/one.html" || fail "the report pairs the arms' ratios with K"
/usr/bin/python3 - "$tmp/one.html" "$tmp/two.html" <<'PY' || fail "the report is malformed"
import base64, html.parser, sys

class Report(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.tables, self.open = [], 0, []
    def handle_starttag(self, tag, attrs):
        if tag == "img":
            src = dict(attrs)["src"]
            assert src.startswith("data:image/png;base64,"), src[:40]
            png = base64.b64decode(src.split(",", 1)[1])
            assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
            self.images.append(png)
        if tag == "table":
            self.tables += 1

for path, experiments in zip(sys.argv[1:], (1, 2)):
    text = open(path, encoding="utf-8").read()
    r = Report()
    r.feed(text)
    assert len(r.images) == 6, (path, len(r.images))
    assert r.tables == 2 * experiments, (path, r.tables)  # summary + config per experiment
    for arm in ("no-accum", "accum", "big-batch"):
        assert arm in text, arm
    assert "Window normalisation" in text
PY
expect2() {
  "$cli" "$@" >/dev/null 2>"$tmp/err"
  [ $? -eq 2 ] || fail "expected exit 2 for: $*"
  [ "$(wc -l <"$tmp/err")" -le 2 ] || fail "error message is not one line for: $*"
}
expect2 report 99 --db "$tmp/runs.sqlite" --out "$tmp/x.html"
expect2 report abc --db "$tmp/runs.sqlite" --out "$tmp/x.html"
expect2 report 1 --db "$tmp/missing.sqlite" --out "$tmp/x.html"
expect2 report 1 --db "$tmp/runs.sqlite" --out "$tmp/no/such/dir/x.html"
expect2 report 1 --db "$tmp/runs.sqlite"

# A sweep's report: its points, fits and five plots.
"$cli" sweep --db "$tmp/runs.sqlite" --data blobs -m 8 -B 8,16,32,64 --lr 0.01 --lr-scaling linear \
  --samples 20000 --probe-repeats 0 --target-loss 0.3 --jobs 2 -q >/dev/null 2>"$tmp/err" ||
  fail "sweep failed: $(cat "$tmp/err")"
"$cli" report --sweep 1 --db "$tmp/runs.sqlite" --out "$tmp/sweep.html" >/dev/null 2>"$tmp/err" ||
  fail "sweep report failed: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/sweep.html" <<'PY' || fail "the sweep report is malformed"
import base64, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
pngs = re.findall(r"src='data:image/png;base64,([^']+)'", text)
assert len(pngs) == 5, len(pngs)
for p in pngs:
    assert base64.b64decode(p)[:8] == b"\x89PNG\r\n\x1a\n"
for words in ("Steps to target against B", "B_crit = E_min/S_min", "B_simple", "theory −1"):
    assert words in text, words
assert text.count("<tr") == 5, text.count("<tr")  # header + 4 points
PY
expect2 report --sweep 9 --db "$tmp/runs.sqlite" --out "$tmp/x.html"
expect2 report 1 --sweep 1 --db "$tmp/runs.sqlite" --out "$tmp/x.html"

# A wrong recipe is reported as far from the big batch as the CLI and the app say it is.
"$cli" run --samples 2048 --accum 4 --arms accum,big-batch,pitfall:sum --grad-check-every 2 \
  --db "$tmp/pitfalls.sqlite" -q >/dev/null 2>"$tmp/err" || fail "pitfall run failed: $(cat "$tmp/err")"
"$cli" report 1 --db "$tmp/pitfalls.sqlite" --out "$tmp/pitfalls.html" >/dev/null 2>"$tmp/err" ||
  fail "pitfall report failed: $(cat "$tmp/err")"
grep -q "Wrong recipe <b>pitfall:sum</b>: ×4.00 the big-batch gradient" "$tmp/pitfalls.html" ||
  fail "the report does not say how far pitfall:sum is: $(grep -o 'Wrong recipe[^<]*<b>[^<]*</b>[^<]*' "$tmp/pitfalls.html")"
exit 0
