# SPDX-License-Identifier: GPL-3.0-or-later
# What the data-parallel benchmarks share (sourced by bench/data_parallel.sh and
# bench/data_parallel_check.sh): their arguments [REPEATS] [MODEL] [M] [K], the data
# (fashion-mnist when its package is installed, else blobs of the model's input shape), the
# engine, one BLAS thread per process, the samples per run and a median.
repeats="${1:-5}"
model="${2:-mlp}"
m="${3:-32}"
k="${4:-8}"
data=blobs:784
[ -d /usr/share/datasets/fashion-mnist ] && data=fashion-mnist
[ "$model" = cnn ] && [ "$data" = blobs:784 ] && data=blobs:1x28x28
cli=build/app/cli/accumlab-cli
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
samples=120000
[ "$model" = cnn ] && samples=20000  # a CNN trains ~20× slower
median() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
