// SPDX-License-Identifier: GPL-3.0-or-later
// Why the store locks with open-file-description locks (ARCHITECTURE.md, "The store").
//
// SQLite's unix VFS locks with fcntl(F_SETLK): POSIX advisory locks, which belong to the
// process, and which close() of *any* descriptor of the file drops, whoever opened it. A
// file dialog that sniffs the type of every file in the store's folder opens and closes
// runs.sqlite; from then on the app holds no lock on it, although its connections are open.
// The next CLI process to close its connection then finds itself alone, checkpoints, and
// unlinks the WAL and shared-memory files that the app's connections still use: the app's
// next commits go to a deleted file and the store is corrupt. SQLite's documentation lists
// this under "How To Corrupt An SQLite Database File" (2.2, POSIX advisory locks cancelled
// by a separate thread doing close()).
//
// Linux (3.15+) has open-file-description locks: F_OFD_SETLK, F_OFD_SETLKW, F_OFD_GETLK.
// They belong to the open file description of the descriptor that took them, so another
// descriptor's close() leaves them alone, and they conflict with POSIX locks of other
// processes exactly as POSIX locks do (a process that still uses POSIX locks, the sqlite3
// shell say, sees ours). The unix VFS lets a program replace its system calls
// (xSetSystemCall); here fcntl's three lock commands become their OFD twins.
//
// Within one process SQLite counts its connections' locks per file (unixInodeInfo) and takes
// the kernel's lock only once, through the descriptor of the connection that asked first;
// with OFD locks that lock stays with that descriptor, which SQLite keeps open while any
// lock on the file is held. The shared-memory locks all go through one descriptor per
// process. The one difference: when the connection that first locked the database closes
// while another connection of the process is still open, the last one to close cannot take
// the EXCLUSIVE lock that would let it checkpoint and delete the WAL, so the WAL stays for
// the next connection to use. That errs on the safe side. The switch happens once, before
// the process's first connection: a lock taken with one kind and released with the other
// would leak.
#include "store/store_file.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace accumlab::store {

namespace {

#if defined(__linux__) && defined(F_OFD_SETLK)
constexpr bool kKernelHasOfdLocks = true;
#else
constexpr bool kKernelHasOfdLocks = false;
#define F_OFD_SETLK F_SETLK
#define F_OFD_SETLKW F_SETLKW
#define F_OFD_GETLK F_GETLK
#endif

using FcntlCall = int (*)(int, int, ...);
FcntlCall sqlite_fcntl = nullptr;  ///< the VFS's own fcntl, for the commands that are not locks
bool ofd_locks = false;

/// SQLite's fcntl, with POSIX lock commands turned into open-file-description ones.
int ofdFcntl(int fd, int cmd, ...) {
  va_list args;
  va_start(args, cmd);
  void* arg = va_arg(args, void*);
  va_end(args);
  const int ofd_cmd = cmd == F_SETLK    ? F_OFD_SETLK
                      : cmd == F_SETLKW ? F_OFD_SETLKW
                      : cmd == F_GETLK  ? F_OFD_GETLK
                                        : 0;
  if (ofd_cmd == 0) return sqlite_fcntl(fd, cmd, arg);
  auto* lock = static_cast<struct flock*>(arg);
  lock->l_pid = 0;  // an OFD lock has no owning process; the kernel refuses any other value
  return ::fcntl(fd, ofd_cmd, lock);
}

/// Whether this kernel takes OFD locks (Linux before 3.15 answers EINVAL).
bool kernelTakesOfdLocks() {
  if (!kKernelHasOfdLocks) return false;
  std::FILE* probe = std::tmpfile();
  if (probe == nullptr) return false;
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  const bool works = ::fcntl(::fileno(probe), F_OFD_GETLK, &lock) == 0;
  std::fclose(probe);
  return works;
}

void switchToOfdLocks() {
  sqlite3_vfs* unix_vfs = sqlite3_vfs_find("unix");
  if (unix_vfs == nullptr || unix_vfs->iVersion < 3 || !kernelTakesOfdLocks()) return;
  sqlite_fcntl = reinterpret_cast<FcntlCall>(unix_vfs->xGetSystemCall(unix_vfs, "fcntl"));
  if (sqlite_fcntl == nullptr) return;
  ofd_locks = unix_vfs->xSetSystemCall(
                  unix_vfs, "fcntl", reinterpret_cast<sqlite3_syscall_ptr>(&ofdFcntl)) == SQLITE_OK;
}

std::once_flag switched;

}  // namespace

SQLite::Database openStoreFile(const std::string& path, int flags, int busy_timeout_ms) {
  std::call_once(switched, switchToOfdLocks);
  return SQLite::Database(path, flags, busy_timeout_ms);
}

bool storeLocksSurviveForeignClose() {
  std::call_once(switched, switchToOfdLocks);
  return ofd_locks;
}

}  // namespace accumlab::store
