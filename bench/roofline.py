#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A roofline for every arm: achieved GFLOP/s against what the core and the software stack can do.

Usage: bench/roofline.py [--repeats 3] [--models mlp,cnn] [--micro-batches 8,32,128]
                         [--accums 1,8] [--samples-scale 1] [--svg FILE] [--cli PATH]
                         [--bare PATH] [--roofline PATH] [--python /usr/bin/python3]
For each model (MLP 784-256-10; the built-in CNN on 1x28x28), micro-batch m and K it runs,
interleaved, one thread each:
- the engine's arm (`accumlab-cli run --json`, no-accum at K = 1, accum above; noise statistics
  on, as by default), whose JSON gives gflop_per_s = samples/s × the model's FLOPs per sample;
- the PyTorch loop a user would write (bench/python_reference.py) and, for the MLP, the bare
  LibTorch C++ loop (bench/bare_loop.cpp): samples/s × the same FLOPs per sample;
- the ceilings (build/bench/roofline), all with the OpenBLAS kernels the engine runs (its device
  line names them; OPENBLAS_CORETYPE set beforehand chooses them for every program): every matrix product and convolution of the training
  pass at m timed alone through the same LibTorch and BLAS (their FLOPs over their summed
  times), the first layer's forward GEMM alone, and the core's fp32 peak (an FMA loop).
The engine's share of its own run's ceiling (`ceiling_gflop_per_s` in its JSON: its largest
layer's forward timed in the same process just before it trains) is taken run by run, so the
two sides of that ratio are seconds apart, not a round apart; the table gives its median.
FLOPs are 2 per multiply-add of the products and convolutions, forward and backward (the
weight gradient, and the gradient at each layer's input but the first's); biases, ReLU,
pooling and the loss are not counted (under 1% of the MLP's).
Prints a Markdown table (medians of the repeats) and, with --svg, writes the plot.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "..", "build")
DATA = {"mlp": ["--data", "blobs:784", "--model", "mlp:256"],
        "cnn": ["--data", "blobs:1x28x28", "--model", "cnn"]}
# Samples per run: about 1–3 s of training each on one Zen 4 core.
BUDGET = {"mlp": {8: 24000, 32: 64000, 128: 128000}, "cnn": {8: 8000, 32: 16000, 128: 32000}}


def engine_blas_core(args):
    """The OpenBLAS kernels the engine runs, from its device line ("cpu (1 thread, OpenBLAS
    SkylakeX)"): accumlab-cli chooses them where OpenBLAS would fall back to its generic ones
    (app/blas/blas_core.cpp). The ceilings, the Python loop and the bare loop then run the same
    kernels, so that every column is of one software stack."""
    device = run_json([args.cli, "run", *DATA["mlp"], "--synthetic-samples", "2000", "--arms",
                       "no-accum", "--samples", "64", "--threads", "1", "--device", "cpu",
                       "--json", "-q", "--no-store"])["device"]
    hit = re.search(r"OpenBLAS (\w+)", device)
    return hit.group(1) if hit else None


def env():
    e = dict(os.environ)
    e["OMP_NUM_THREADS"] = "1"
    e["OPENBLAS_NUM_THREADS"] = "1"
    return e


def run_json(cmd):
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True,
                                     env=env()).stdout)


def engine(args, model, m, k, samples):
    arm = "accum" if k > 1 else "no-accum"
    out = run_json([args.cli, "run", *DATA[model], "--synthetic-samples", "20000", "--arms", arm,
                    "-m", str(m), "-k", str(k), "--samples", str(samples), "--threads", "1",
                    "--eval-every", str(10 * samples), "--device", "cpu", "--json", "-q",
                    "--no-store"])["arms"][arm]
    # The run's own ceiling (its largest layer's forward, timed in the same process just before
    # it trains): the engine's share of it pairs the two measurements seconds apart at most.
    own = out.get("ceiling_gflop_per_s")
    share = out["gflop_per_s"] / own if out.get("gflop_per_s") and own else None
    return out["samples_per_s"], out.get("gflop_per_s"), out.get("flops_per_sample"), share


def python(args, model, m, k, samples):
    return run_json([args.python, os.path.join(HERE, "python_reference.py"), "--micro-batch",
                     str(m), "--accum", str(k), "--samples", str(samples), "--threads", "1",
                     "--model", model])["samples_per_s"]


def bare(args, m, k, samples):
    return run_json([args.bare, "--micro-batch", str(m), "--accum", str(k), "--samples",
                     str(samples), "--train-size", "18000", "--threads", "1",
                     "--keep-freed", "1"])["samples_per_s"]


def ints(text):
    return [int(v) for v in text.split(",")]


def svg(rows, peak, path):
    """Achieved GFLOP/s of each arm beside its ceilings, one column per configuration."""
    width, height, left, top, bottom = 80 + 70 * len(rows), 420, 60, 30, 70
    top_value = max([peak] + [r["ceiling"] for r in rows]) * 1.1
    y = lambda v: top + (height - top - bottom) * (1 - v / top_value)  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for tick in range(0, int(top_value) + 1, 25 if top_value < 200 else 50):
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{left - 5}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick}</text>')
    out.append(f'<text x="12" y="{(height - bottom + top) / 2}" transform="rotate(-90 12 '
               f'{(height - bottom + top) / 2})" text-anchor="middle">GFLOP/s (one core)</text>')
    out.append(f'<line x1="{left}" x2="{width - 10}" y1="{y(peak):.1f}" y2="{y(peak):.1f}" '
               'stroke="black" stroke-dasharray="6 3"/>')
    out.append(f'<text x="{width - 12}" y="{y(peak) - 4:.1f}" text-anchor="end">'
               f'fp32 FMA peak {peak:.0f}</text>')
    marks = (("ceiling", "#555", "layers alone"), ("engine", "#d62728", "engine"),
             ("bare", "#1f77b4", "bare C++ loop"), ("python", "#2ca02c", "Python loop"))
    for i, r in enumerate(rows):
        x = left + 40 + 70 * i
        for j, (key, colour, _) in enumerate(marks):
            v = r.get(key)
            if v is None:
                continue
            bx = x - 24 + 12 * j
            out.append(f'<rect x="{bx}" y="{y(v):.1f}" width="11" height="{y(0) - y(v):.1f}" '
                       f'fill="{colour}"/>')
        out.append(f'<text x="{x}" y="{height - bottom + 14}" text-anchor="middle">'
                   f'{r["model"]}</text>')
        out.append(f'<text x="{x}" y="{height - bottom + 28}" text-anchor="middle">'
                   f'm={r["m"]} K={r["k"]}</text>')
    for j, (_, colour, label) in enumerate(marks):
        lx = left + 140 * j
        out.append(f'<rect x="{lx}" y="{height - 25}" width="11" height="11" fill="{colour}"/>')
        out.append(f'<text x="{lx + 16}" y="{height - 16}">{label}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli", default=os.path.join(BUILD, "app", "cli", "accumlab-cli"))
    p.add_argument("--bare", default=os.path.join(BUILD, "bench", "bare_loop"))
    p.add_argument("--roofline", default=os.path.join(BUILD, "bench", "roofline"))
    p.add_argument("--python", default="/usr/bin/python3")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--models", default="mlp,cnn")
    p.add_argument("--micro-batches", default="8,32,128")
    p.add_argument("--accums", default="1,8")
    p.add_argument("--samples-scale", type=float, default=1.0)
    p.add_argument("--svg")
    args = p.parse_args()
    core = os.environ.get("OPENBLAS_CORETYPE") or engine_blas_core(args)
    if core:
        os.environ["OPENBLAS_CORETYPE"] = core

    peaks = []
    rows = []
    for model in args.models.split(","):
        for m in ints(args.micro_batches):
            for k in ints(args.accums):
                samples = max(64 * m * k, int(BUDGET[model].get(m, 1000 * m) * args.samples_scale))
                runs = {key: [] for key in ("engine", "python", "bare", "ceiling", "first", "own")}
                flops = None
                for _ in range(args.repeats):  # interleaved, so drift hits every program alike
                    layers = run_json([args.roofline, "layers", "--model", model,
                                       "--micro-batch", str(m)])
                    flops = layers["flops_per_sample"]
                    runs["ceiling"].append(layers["ceiling_gflops"])
                    runs["first"].append(layers["first_gemm_gflops"])
                    runs["python"].append(python(args, model, m, k, samples))
                    rate, gflops, engine_flops, share = engine(args, model, m, k, samples)
                    if share is not None:
                        runs["own"].append(share)
                    if engine_flops is not None and abs(engine_flops - flops) > 1e-6 * flops:
                        sys.exit(f"{model}: the engine counts {engine_flops} FLOPs per sample, "
                                 f"bench/roofline {flops}")
                    runs["engine"].append(rate)
                    if model == "mlp":
                        runs["bare"].append(bare(args, m, k, samples))
                    peaks.append(run_json([args.roofline, "peak"])["peak_gflops"])
                med = {key: statistics.median(v) for key, v in runs.items() if v}
                row = {"model": model, "m": m, "k": k, "flops": flops,
                       "ceiling": med["ceiling"], "first": med["first"], "own": med.get("own")}
                for key in ("engine", "python", "bare"):
                    if key in med:
                        row[key + "_rate"] = med[key]
                        row[key] = med[key] * flops * 1e-9
                rows.append(row)
                print(f"{model} m={m} K={k}: " + ", ".join(
                    f"{key}={', '.join(f'{x:,.2f}' if key == 'own' else f'{x:,.0f}' for x in v)}"
                    for key, v in runs.items() if v),
                    file=sys.stderr, flush=True)
    peak = statistics.median(peaks)

    print(f"one thread, OpenBLAS kernels {core or 'not OpenBLAS'}; medians of {args.repeats} "
          f"interleaved rounds; fp32 FMA peak {peak:.1f} GFLOP/s")
    print()
    print("| model | m | K | MFLOP/sample | Python | bare C++ | engine | engine samples/s | "
          "layers alone | first GEMM alone | engine/layers | engine/first GEMM | "
          "engine/its run's ceiling | engine/peak |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    cell = lambda r, key: f"{r[key]:.1f}" if key in r else "–"  # noqa: E731
    for r in rows:
        print(f"| {r['model']} | {r['m']} | {r['k']} | {r['flops'] / 1e6:.3f} | "
              f"{cell(r, 'python')} | {cell(r, 'bare')} | **{r['engine']:.1f}** | "
              f"{r['engine_rate']:,.0f} | {r['ceiling']:.1f} | {r['first']:.1f} | "
              f"{r['engine'] / r['ceiling']:.0%} | {r['engine'] / r['first']:.0%} | "
              f"{'–' if r['own'] is None else format(r['own'], '.0%')} | "
              f"{r['engine'] / peak:.0%} |")
    if args.svg:
        svg(rows, peak, args.svg)


if __name__ == "__main__":
    main()
