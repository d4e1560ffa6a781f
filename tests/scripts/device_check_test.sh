#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Cheap checks of scripts/device-check and of the headless configuration it builds, so that
# the GPU check cannot fail there for a reason a CPU machine could have shown.
# Usage: device_check_test.sh CASE SOURCE_DIR
#   usage      the script parses (bash -n), --help names both phases and every step, bad
#              usage exits 2 with one sentence
#   headless   -DACCUMLAB_BUILD_GUI=OFF configures with Qt made unfindable: core, the CLI and
#              the core tests need no Qt
#   old_abi    a LibTorch built with the old C++ ABI is refused at configure time, in words
#   cxx20      a LibTorch that declares C++20 (2.12 and later) is refused at configure time
#   mixed_libs a LibTorch whose CMake files picked another LibTorch's library (Debian's, on the
#              system's library path) gets its own instead, and configure says so
set -uo pipefail
case_name="$1" src="$2"
script="$src/scripts/device-check"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }

case "$case_name" in
  usage)
    bash -n "$script" || fail "bash -n found a syntax error"
    [ -x "$script" ] || fail "scripts/device-check is not executable"
    "$script" --help >"$tmp/help" 2>&1 || fail "--help exited $?"
    for word in --prepare OUTDIR --torch-prefix --python summary.txt build core 1 2 3 4 5; do
      grep -qw -- "$word" "$tmp/help" || fail "--help does not mention $word"
    done
    "$script" --no-such-option >"$tmp/out" 2>&1
    [ $? -eq 2 ] || fail "an unknown option should exit 2"
    grep -q "unknown option --no-such-option" "$tmp/out" || fail "unknown option said: $(cat "$tmp/out")"
    "$script" >"$tmp/out" 2>&1
    [ $? -eq 2 ] || fail "no OUTDIR should exit 2"
    "$script" a b >"$tmp/out" 2>&1
    [ $? -eq 2 ] || fail "two OUTDIRs should exit 2"
    ;;
  headless)
    cmake -S "$src" -B "$tmp/build" -DACCUMLAB_BUILD_GUI=OFF -DACCUMLAB_BUILD_BENCH=OFF \
      -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON -DCMAKE_DISABLE_FIND_PACKAGE_QCustomPlotQt6=ON \
      >"$tmp/configure.log" 2>&1 || fail "the headless configure failed: $(grep -m3 -i error "$tmp/configure.log")"
    grep -q -- '-- LibTorch .* from ' "$tmp/configure.log" || fail "configure does not say which LibTorch it found"
    ! grep -qE '^(Qt6|QCustomPlot)[A-Za-z]*_DIR' "$tmp/build/CMakeCache.txt" ||
      fail "the headless configuration looked for Qt: $(grep -m1 -E '^Qt6' "$tmp/build/CMakeCache.txt")"
    cmake --build "$tmp/build" --target help >"$tmp/targets" 2>&1 || fail "cannot list the targets"
    for target in accumlab_engine accumlab-cli accumlab-engine accumlab_core_tests; do
      grep -qw -- "$target" "$tmp/targets" || fail "the headless configuration has no target $target"
    done
    ! grep -qxE '\.\.\. (accumlab_ui|accumlab)' "$tmp/targets" || fail "the headless configuration still has the app or its UI"
    ;;
  old_abi)
    # A stand-in TorchConfig.cmake, as a pre-cxx11-ABI LibTorch would set it.
    mkdir -p "$tmp/torch"
    cat >"$tmp/torch/TorchConfig.cmake" <<'CMAKE'
set(TORCH_FOUND TRUE)
set(TORCH_LIBRARIES "")
set(TORCH_INCLUDE_DIRS "")
set(TORCH_CXX_FLAGS "-D_GLIBCXX_USE_CXX11_ABI=0")
CMAKE
    echo 'set(PACKAGE_VERSION "2.6.0")
set(PACKAGE_VERSION_COMPATIBLE TRUE)' >"$tmp/torch/TorchConfigVersion.cmake"
    cmake -S "$src" -B "$tmp/build" -DACCUMLAB_BUILD_GUI=OFF -DACCUMLAB_BUILD_BENCH=OFF \
      -DTorch_DIR="$tmp/torch" >"$tmp/configure.log" 2>&1 && fail "configure accepted the old ABI"
    grep -q "uses the old C++ ABI" "$tmp/configure.log" ||
      fail "configure failed without saying why: $(grep -m3 -i error "$tmp/configure.log")"
    ;;
  cxx20)
    mkdir -p "$tmp/torch"
    cat >"$tmp/torch/TorchConfig.cmake" <<'CMAKE'
set(TORCH_FOUND TRUE)
set(TORCH_LIBRARIES "")
set(TORCH_INCLUDE_DIRS "")
set(TORCH_CXX_FLAGS "-D_GLIBCXX_USE_CXX11_ABI=1")
add_library(torch SHARED IMPORTED)
set_target_properties(torch PROPERTIES CXX_STANDARD 20)
CMAKE
    echo 'set(PACKAGE_VERSION "2.14.1")
set(PACKAGE_VERSION_COMPATIBLE TRUE)' >"$tmp/torch/TorchConfigVersion.cmake"
    cmake -S "$src" -B "$tmp/build" -DACCUMLAB_BUILD_GUI=OFF -DACCUMLAB_BUILD_BENCH=OFF \
      -DTorch_DIR="$tmp/torch" >"$tmp/configure.log" 2>&1 && fail "configure accepted a C++20 LibTorch"
    grep -q "needs C++20, but AccumLab is" "$tmp/configure.log" ||
      fail "configure failed without saying why: $(grep -m3 -i error "$tmp/configure.log")"
    ;;
  mixed_libs)
    # A stand-in pip LibTorch (<torch>/share/cmake/Torch) whose libc10 was found elsewhere.
    mkdir -p "$tmp/torch/share/cmake/Torch" "$tmp/torch/lib" "$tmp/system"
    touch "$tmp/torch/lib/libtorch.so" "$tmp/torch/lib/libc10.so" "$tmp/system/libc10.so"
    cat >"$tmp/torch/share/cmake/Torch/TorchConfig.cmake" <<'CMAKE'
set(TORCH_FOUND TRUE)
get_filename_component(TORCH_INSTALL_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../../../" ABSOLUTE)
set(TORCH_INCLUDE_DIRS "")
set(TORCH_CXX_FLAGS "-D_GLIBCXX_USE_CXX11_ABI=1")
set(TORCH_LIBRARY "${TORCH_INSTALL_PREFIX}/lib/libtorch.so")
get_filename_component(other "${TORCH_INSTALL_PREFIX}/../system/libc10.so" ABSOLUTE)
set(c10_LIBRARY "${other}" CACHE FILEPATH "")
set(TORCH_LIBRARIES "${TORCH_LIBRARY};${c10_LIBRARY}")
CMAKE
    echo 'set(PACKAGE_VERSION "2.11.0")
set(PACKAGE_VERSION_COMPATIBLE TRUE)' >"$tmp/torch/share/cmake/Torch/TorchConfigVersion.cmake"
    cmake -S "$src" -B "$tmp/build" -DACCUMLAB_BUILD_GUI=OFF -DACCUMLAB_BUILD_BENCH=OFF \
      -DACCUMLAB_TENSORBOARD=OFF -DTorch_DIR="$tmp/torch/share/cmake/Torch" \
      >"$tmp/configure.log" 2>&1 || fail "configure failed: $(grep -m3 -i error "$tmp/configure.log")"
    grep -q "LibTorch's libc10.so: $tmp/torch/lib/libc10.so, not $tmp/system/libc10.so" \
      "$tmp/configure.log" || fail "configure did not say it took the LibTorch's own libc10"
    grep -qx "c10_LIBRARY:FILEPATH=$tmp/torch/lib/libc10.so" "$tmp/build/CMakeCache.txt" ||
      fail "the cache kept $(grep '^c10_LIBRARY' "$tmp/build/CMakeCache.txt")"
    grep -rqF "$tmp/system/libc10.so" "$tmp/build" --include='*.make' --include='*.txt' \
      --exclude=CMakeCache.txt --exclude=CMakeOutput.log &&
      fail "the build still links $tmp/system/libc10.so"
    ;;
  *) fail "unknown case" ;;
esac
echo "PASS [$case_name]"
