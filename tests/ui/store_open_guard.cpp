// SPDX-License-Identifier: GPL-3.0-or-later
// store_open_guard: a preloaded library (LD_PRELOAD) that reports every opening of a run
// store's files that does not come from SQLite. Closing such a descriptor would drop the
// process's POSIX locks on the file (ARCHITECTURE.md, "The store"), so only SQLite may open
// them; the store torture test runs the app under this guard and fails on any report.
//
// Environment: ACCUMLAB_GUARD_STORE   the store's file name (e.g. runs.sqlite); any file whose
//                                     name starts with it (the -wal, -shm and -journal files
//                                     too) is watched, in any folder
//              ACCUMLAB_GUARD_LOG     the file that receives one line per report:
//                                     "<path> opened by <library> (<function>)"
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

typedef int (*open_fn)(const char*, int, ...);
typedef int (*openat_fn)(int, const char*, int, ...);
typedef FILE* (*fopen_fn)(const char*, const char*);

extern "C" {

static const char* baseName(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static int watched(const char* path) {
  const char* store = getenv("ACCUMLAB_GUARD_STORE");
  if (!store || !*store || !path) return 0;
  return strncmp(baseName(path), store, strlen(store)) == 0;
}

static void report(const char* path, void* caller) {
  Dl_info info;
  memset(&info, 0, sizeof info);
  dladdr(caller, &info);
  const char* library = info.dli_fname ? info.dli_fname : "?";
  if (strstr(baseName(library), "libsqlite3")) return;  // SQLite's own descriptor
  const char* log = getenv("ACCUMLAB_GUARD_LOG");
  if (!log || !*log) return;
  static open_fn real_open;
  if (!real_open) real_open = (open_fn)dlsym(RTLD_NEXT, "open");
  const int fd = real_open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[4096];
  const int n = snprintf(line, sizeof line, "%s opened by %s (%s)\n", path, library,
                         info.dli_sname ? info.dli_sname : "?");
  if (n > 0) (void)!write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
  close(fd);
}

#define MODE_ARG(flags, mode)            \
  mode_t mode = 0;                       \
  if ((flags) & (O_CREAT | O_TMPFILE)) { \
    va_list args;                        \
    va_start(args, flags);               \
    mode = (mode_t)va_arg(args, int);    \
    va_end(args);                        \
  }

#define GUARD_OPEN(name)                                          \
  int name(const char* path, int flags, ...) {                    \
    static open_fn real;                                          \
    if (!real) real = (open_fn)dlsym(RTLD_NEXT, #name);           \
    MODE_ARG(flags, mode)                                         \
    if (watched(path)) report(path, __builtin_return_address(0)); \
    return real(path, flags, mode);                               \
  }

#define GUARD_OPENAT(name)                                        \
  int name(int dir, const char* path, int flags, ...) {           \
    static openat_fn real;                                        \
    if (!real) real = (openat_fn)dlsym(RTLD_NEXT, #name);         \
    MODE_ARG(flags, mode)                                         \
    if (watched(path)) report(path, __builtin_return_address(0)); \
    return real(dir, path, flags, mode);                          \
  }

#define GUARD_FOPEN(name)                                         \
  FILE* name(const char* path, const char* how) {                 \
    static fopen_fn real;                                         \
    if (!real) real = (fopen_fn)dlsym(RTLD_NEXT, #name);          \
    if (watched(path)) report(path, __builtin_return_address(0)); \
    return real(path, how);                                       \
  }

GUARD_OPEN(open)
GUARD_OPEN(open64)
GUARD_OPENAT(openat)
GUARD_OPENAT(openat64)
GUARD_FOPEN(fopen)
GUARD_FOPEN(fopen64)

}  // extern "C"
