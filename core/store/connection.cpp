// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/connection.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <thread>

#include "accumlab/input_error.h"
#include "store/schema.h"
#include "store/store_file.h"

namespace accumlab::store {

namespace {

constexpr int kCacheKiB = 16 * 1024;  ///< page cache per connection
constexpr int kRetryPauseMs = 50;     ///< the base pause between two tries of a locked write

/// A file whose write bits are all off counts as read-only even for root, so a user who
/// protects a lab notebook with `chmod a-w` gets the same answer everywhere.
bool isWriteProtected(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  return (st.st_mode & 0222) == 0 || ::access(path.c_str(), W_OK) != 0;
}

}  // namespace

std::string describeStoreError(const std::string& path, int code, const std::string& detail,
                               const std::string& doing, int busy_timeout_ms) {
  const std::string other_file = "choose another file with --db";
  switch (code & 0xff) {
    case SQLITE_READONLY:
      return path + " is read-only, so " + doing + " failed; make it writable or " + other_file;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return path + " is locked by another program writing to it (waited " +
             std::to_string(busy_timeout_ms) + " ms while " + doing +
             "); retry when it is done or " + other_file;
    case SQLITE_NOTADB:
      return path + " is not an SQLite database (expected an AccumLab run store); " + other_file;
    case SQLITE_CORRUPT:
      return path + " is corrupt (" + detail + " while " + doing + "); restore a backup or " +
             other_file;
    case SQLITE_FULL:
      return path + " cannot grow while " + doing +
             ": the disk is full or the file hit its size limit; free some space (rows "
             "stored before are kept)";
    case SQLITE_IOERR:
      return path + " could not be written while " + doing + " (" + detail +
             "); check that the disk has free space (rows stored before are kept)";
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return path + " cannot be opened (" + detail +
             "); check that its folder exists and is "
             "accessible, or " +
             other_file;
    default:
      return "";
  }
}

Connection::Connection(const std::string& path, const StoreOptions& options)
    : path_(path), busy_timeout_ms_(options.busy_timeout_ms) {
  // Opening may write (WAL mode on a new file, a migration): it waits and retries as any write.
  guarded("opening it", [&] { open(options); });
}

bool Connection::isBusy(const SQLite::Exception& e) {
  const int code = e.getErrorCode() & 0xff;
  return code == SQLITE_BUSY || code == SQLITE_LOCKED;
}

void Connection::pauseBeforeRetry(int attempt) {
  // Busy handlers give up at once, without waiting, where waiting could deadlock (a read
  // transaction that wants to write while another writer waits, or a stale snapshot); a
  // fresh try of the whole transaction gets past those.
  thread_local std::minstd_rand jitter(static_cast<unsigned>(
      std::chrono::steady_clock::now().time_since_epoch().count() ^ ::getpid()));
  const int ms = kRetryPauseMs * attempt + static_cast<int>(jitter() % kRetryPauseMs);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

int Connection::msSince(std::chrono::steady_clock::time_point start) {
  return static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count());
}

void Connection::open(const StoreOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool exists = fs::exists(path_, ec);
  if (!exists) {
    if (!options.create_if_missing) {
      throw InputError("no run database at " + path_ +
                       "; run `accumlab-cli run` first or pass --db with an existing file");
    }
    const fs::path folder = fs::path(path_).parent_path();
    if (!folder.empty() && !fs::exists(folder, ec) && !fs::create_directories(folder, ec)) {
      throw InputError("cannot create the folder " + folder.string() + " for the run database " +
                       path_ + " (" + ec.message() + "); choose another file with --db");
    }
  } else if (fs::is_directory(path_, ec)) {
    throw InputError(path_ + " is a folder, not a run database file; pass a file path to --db");
  }
  // Only stat() the file, never open it: closing any descriptor of ours on the database would
  // drop every POSIX lock this process holds on it, those of its other open connections
  // included, and another process's last connection would then checkpoint and delete the WAL
  // and shared-memory files those connections still use. SQLite reads the header itself.
  const auto size_before = exists ? fs::file_size(path_, ec) : std::uintmax_t{0};
  const bool had_bytes = !ec && size_before > 0;

  read_only_ = exists && isWriteProtected(path_);
  // NOMUTEX: a connection belongs to one thread, so SQLite's per-call locking is pure cost.
  const int flags =
      SQLite::OPEN_NOMUTEX |
      (read_only_ ? SQLite::OPEN_READONLY : SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db_ = std::make_unique<SQLite::Database>(openStoreFile(path_, flags, options.busy_timeout_ms));

  // Refuse what we cannot read before changing anything in the file (journal mode included).
  // A file that is not SQLite fails here with SQLITE_NOTADB (see describeStoreError).
  const int version = db_->execAndGet("PRAGMA user_version").getInt();
  // SQLite reads a 1-byte file as an empty database (a workaround for some file systems);
  // a file that has bytes but no page is not one of ours.
  if (had_bytes && db_->execAndGet("PRAGMA page_count").getInt64() == 0) {
    throw InputError(path_ +
                     " is not an SQLite database (expected an AccumLab run store); "
                     "choose another file with --db");
  }
  if (version > kSchemaVersion) {
    throw InputError(path_ + " was written by a newer AccumLab (schema version " +
                     std::to_string(version) + ", this build reads up to " +
                     std::to_string(kSchemaVersion) +
                     "); open it with that version or "
                     "choose another file with --db");
  }
  if (version == 0 && db_->execAndGet("SELECT count(*) FROM sqlite_master").getInt() > 0) {
    throw InputError(path_ +
                     " is an SQLite database of another program, not an AccumLab run "
                     "store; choose another file with --db");
  }
  db_->exec("PRAGMA foreign_keys = ON");
  // A larger page cache keeps a batch's b-tree pages in memory while it is written. (No
  // mmap: an I/O error on a mapped page is a SIGBUS, not an error message.)
  db_->exec("PRAGMA cache_size = " + std::to_string(-kCacheKiB));
  if (read_only_) {
    if (version == 0) {
      throw InputError(path_ +
                       " is read-only and empty, so no run store can be created in it; "
                       "make it writable or choose another file with --db");
    }
    return;
  }
  db_->exec("PRAGMA journal_mode = WAL");
  // FULL syncs the WAL at each commit (a few per second at most), so a power cut loses
  // no committed batch.
  db_->exec("PRAGMA synchronous = FULL");
  if (options.max_page_count > 0) {
    db_->execAndGet("PRAGMA max_page_count = " + std::to_string(options.max_page_count));
  }
  migrateSchema(*db_);
}

void Connection::rethrow(const std::string& doing, int waited_ms) const {
  try {
    throw;
  } catch (const SQLite::Exception& e) {
    const std::string message = describeStoreError(path_, e.getErrorCode(), e.what(), doing,
                                                   waited_ms >= 0 ? waited_ms : busy_timeout_ms_);
    if (!message.empty()) throw InputError(message);
    throw std::runtime_error("run store " + path_ + ": " + doing + ": " + e.what());
  }
}

}  // namespace accumlab::store
