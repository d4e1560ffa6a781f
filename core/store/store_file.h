// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <SQLiteCpp/Database.h>

#include <string>

namespace accumlab::store {

/// Opens an SQLite connection to a run store's file: the one place where any AccumLab program
/// opens one (Connection calls it; tests that tamper with a file call it too). Before the
/// first connection of the process it makes SQLite lock with open-file-description locks
/// (see storeLocksSurviveForeignClose). Throws SQLite::Exception as SQLite::Database does.
SQLite::Database openStoreFile(const std::string& path, int flags, int busy_timeout_ms);

/// True when this process's store locks belong to SQLite's own descriptors (Linux's
/// open-file-description locks), so that code which opens and closes a store file outside
/// SQLite (a file dialog sniffing a file's type, a copy) cannot drop them; false where the
/// kernel lacks them and SQLite's per-process POSIX locks are used.
bool storeLocksSurviveForeignClose();

}  // namespace accumlab::store
