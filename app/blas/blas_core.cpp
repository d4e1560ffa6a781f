// SPDX-License-Identifier: GPL-3.0-or-later
#include "blas_core.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace accumlab {

namespace {

// The core type OpenBLAS's runtime dispatch falls back to where it does not know the CPU.
constexpr const char* kFallbackCore = "Prescott";

// The best OpenBLAS kernels this CPU's instructions run, or nullptr.
const char* coreForThisCpu() {
#if defined(__GNUC__) && defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    return "SkylakeX";
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return nullptr;
}

}  // namespace

const char* chooseBlasCore() {
  if (std::getenv("OPENBLAS_CORETYPE")) return nullptr;  // the user's choice stands
  const char* core = coreForThisCpu();
  if (!core) return nullptr;
  // Ask the OpenBLAS the engine loads which kernels it picked; another BLAS (BLIS, the
  // reference BLAS) has no such question and is left alone. The library is loaded here (or
  // found loaded) only to ask: exec() replaces this process next.
  void* blas = ::dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!blas) return nullptr;
  using CoreName = char* (*)();
  auto name = reinterpret_cast<CoreName>(::dlsym(blas, "openblas_get_corename"));
  const bool fallback = name && std::strcmp(name(), kFallbackCore) == 0;
  ::dlclose(blas);
  if (!fallback) return nullptr;
  ::setenv("OPENBLAS_CORETYPE", core, 0);
  return core;
}

}  // namespace accumlab
