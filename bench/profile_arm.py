#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where an arm's time goes: a `perf` profile of one training run, in the roofline's categories.

Usage: bench/profile_arm.py [--cli build/app/cli/accumlab-cli] [--models mlp,cnn]
                            [--micro-batches 8,32,128] [--accums 1,8] [--samples-scale 1]
                            [--extra "--no-noise-stats"]
Runs the engine's arm (one thread, as bench/roofline.py does) under `perf record` (Linux perf,
user and kernel samples at 4,999 Hz) and sorts every sample by the symbol it hit:
- GEMM: the BLAS library (its kernels and packing);
- convolution: oneDNN/NNPACK and im2col (`slow_conv2d`, `Unfold`);
- element-wise and reductions: ATen's CPU kernels (ReLU, softmax, sums, additions, copies,
  pooling; with Debian's LibTorch also every unnamed address in libtorch_cpu, which keeps no
  symbols for its kernels' inner loops, so that the CNN's convolutions partly land here);
- autograd: torch::autograd (the graph, its engine and nodes);
- dispatch and tensor set-up: the dispatcher, TensorIterator's set-up, tensor and storage
  bookkeeping;
- allocation: malloc/free and c10's allocator;
- data gather: index_select of the micro-batch's rows;
- engine: AccumLab's own code (records, hooks, noise sums, the sample stream);
- kernel: the operating system (page faults, scheduling);
- start-up and other: loading, the synthetic dataset, evaluation, everything else.
The run is long enough that training is most of it; the start-up share is printed so that the
reader can discount it. Prints a Markdown table, one row per configuration, percentages of
the run's samples.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = {"mlp": ["--data", "blobs:784", "--model", "mlp:256"],
        "cnn": ["--data", "blobs:1x28x28", "--model", "cnn"]}
BUDGET = {"mlp": {8: 96000, 32: 256000, 128: 512000}, "cnn": {8: 24000, 32: 48000, 128: 96000}}
CATEGORIES = ["GEMM", "convolution", "element-wise", "autograd", "dispatch", "allocation",
              "data gather", "engine", "kernel", "start-up and other"]


def category(dso, sym):
    if dso.startswith("[kernel"):
        return "kernel"
    if "index_select" in sym or "gatherInto" in sym:  # ATen's gather, or the engine's own
        return "data gather"
    if "accumlab::" in sym or dso.startswith("accumlab"):
        return "engine"
    if "torch::autograd" in sym:
        return "autograd"
    if re.search(r"malloc|free\b|_int_free|cfree|memalign|c10::alloc|DefaultCPUAllocator|"
                 r"c10::free_cpu|c10::alloc_cpu|ProfiledCPUMemoryReporter", sym):
        return "allocation"
    if "blas" in dso or "blis" in dso:
        return "GEMM"
    if re.search(r"dnnl|mkldnn|nnpack|slow_conv2d|Unfold|im2col|col2im|conv", sym, re.I):
        return "convolution"
    if re.search(r"Dispatcher|OperatorHandle|KernelFunction|TensorIteratorBase|TensorIterator|"
                 r"TensorImpl|StorageImpl|intrusive_ptr|c10::impl|at::_ops|DispatchKey|"
                 r"TensorOptions|SymInt|c10::IValue|ArrayRef|DimVector|SmallVector|at::meta|"
                 r"structured|TensorBase|wrapper_", sym):
        return "dispatch"
    if re.search(r"at::native|at::vec|Vectorized|vectorized|cpu_kernel|basic_loop|reduce|"
                 r"memcpy|memset|memmove|__memcpy|exp|log", sym):
        return "element-wise"
    # Debian's libtorch_cpu keeps no symbols for most of its kernels' inner loops: an address
    # there is ATen's compute (element-wise, reductions, pooling, im2col), not bookkeeping,
    # whose functions are exported and named.
    if "libtorch_cpu" in dso and sym.startswith("0x"):
        return "element-wise"
    return "start-up and other"


def profile(args, model, m, k):
    arm = "accum" if k > 1 else "no-accum"
    samples = max(64 * m * k, int(BUDGET[model].get(m, 2000 * m) * args.samples_scale))
    cmd = [args.cli, "run", *DATA[model], "--synthetic-samples", "20000", "--arms", arm, "-m",
           str(m), "-k", str(k), "--samples", str(samples), "--threads", "1", "--eval-every",
           str(10 * samples), "--device", "cpu", "-q", "--no-store", *args.extra.split()]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as folder:
        data = os.path.join(folder, "perf.data")
        subprocess.run(["perf", "record", "-q", "-F", "4999", "-o", data, "--", *cmd], check=True,
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children",
                                 "--sort", "dso,sym", "--percent-limit", "0"], check=True,
                                capture_output=True, text=True).stdout
    shares = {c: 0.0 for c in CATEGORIES}
    for line in report.splitlines():
        hit = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)", line)
        if hit:
            shares[category(hit.group(2), hit.group(3))] += float(hit.group(1))
    return shares


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli", default=os.path.join(HERE, "..", "build", "app", "cli", "accumlab-cli"))
    p.add_argument("--models", default="mlp,cnn")
    p.add_argument("--micro-batches", default="8,32,128")
    p.add_argument("--accums", default="1,8")
    p.add_argument("--samples-scale", type=float, default=1.0)
    p.add_argument("--extra", default="", help="more options for `run`, e.g. --no-noise-stats")
    args = p.parse_args()
    print("| model | m | K | " + " | ".join(CATEGORIES) + " |")
    print("|---|---|---|" + "---|" * len(CATEGORIES))
    for model in args.models.split(","):
        for m in (int(v) for v in args.micro_batches.split(",")):
            for k in (int(v) for v in args.accums.split(",")):
                s = profile(args, model, m, k)
                print(f"| {model} | {m} | {k} | " +
                      " | ".join(f"{s[c]:.0f}%" for c in CATEGORIES) + " |", flush=True)
                print(f"{model} m={m} K={k} done", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
