// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <SQLiteCpp/Database.h>

#include <chrono>
#include <exception>
#include <memory>
#include <string>

#include "accumlab/run_store.h"

namespace accumlab::store {

/// One SQLite connection to a run store, opened, checked and migrated.
///
/// Threads: used by the thread that made it, only (SQLite's one-connection-per-thread rule).
class Connection {
 public:
  /// Opens the file (creating it when allowed), refuses non-SQLite, foreign and newer-schema
  /// files without touching them, then turns on WAL and migrates. Throws InputError.
  /// Reads the file only through SQLite: a descriptor of our own, once closed, would drop the
  /// locks of this process's other connections to the file.
  Connection(const std::string& path, const StoreOptions& options);

  SQLite::Database& db() { return *db_; }
  const std::string& path() const { return path_; }
  /// True when the file is write-protected: reads work, writes throw InputError.
  bool readOnly() const { return read_only_; }
  /// The busy timeout, quoted in lock errors.
  int busyTimeoutMs() const { return busy_timeout_ms_; }

  /// Rethrows the exception in flight (inside a catch block) as an InputError naming the file
  /// when the user can act on it (read-only, locked, corrupt, full, …), else as runtime_error.
  /// `waited_ms` is quoted in lock errors (default: the busy timeout).
  [[noreturn]] void rethrow(const std::string& doing, int waited_ms = -1) const;

  /// Runs `body`, translating SQLite failures with rethrow(doing). When another writer holds
  /// the file locked past the busy timeout, `body` runs again, up to kBusyAttempts times in
  /// all, so `body` must be one transaction (or only read).
  template <typename Body>
  auto guarded(const std::string& doing, Body&& body) -> decltype(body()) {
    const auto start = std::chrono::steady_clock::now();
    for (int attempt = 1;; ++attempt) {
      try {
        return body();
      } catch (const SQLite::Exception& e) {
        if (!isBusy(e) || attempt >= kBusyAttempts) rethrow(doing, msSince(start));
      }
      pauseBeforeRetry(attempt);
    }
  }

  /// How many times guarded() tries a body that finds the file locked.
  static constexpr int kBusyAttempts = 3;

 private:
  void open(const StoreOptions& options);
  /// SQLITE_BUSY or SQLITE_LOCKED, in any of their extended forms.
  static bool isBusy(const SQLite::Exception& e);
  /// Sleeps a short, growing, jittered time, so that writers that collided spread out.
  static void pauseBeforeRetry(int attempt);
  static int msSince(std::chrono::steady_clock::time_point start);

  std::string path_;
  std::unique_ptr<SQLite::Database> db_;
  bool read_only_ = false;
  int busy_timeout_ms_ = 0;
};

/// The message for an SQLite error code (primary or extended) on `path` while `doing`, or an
/// empty string when the user cannot act on it (a bug).
std::string describeStoreError(const std::string& path, int code, const std::string& detail,
                               const std::string& doing, int busy_timeout_ms);

}  // namespace accumlab::store
