#pragma once

#include <SQLiteCpp/Database.h>

namespace accumlab::store {

/// The schema version this build writes and reads (`PRAGMA user_version`).
inline constexpr int kSchemaVersion = 2;

/// Creates or upgrades the tables. Every step from the file's version to kSchemaVersion runs
/// in one IMMEDIATE transaction, so a failed migration leaves the file as it was.
/// The caller has already refused files newer than kSchemaVersion.
void migrateSchema(SQLite::Database& db);

}  // namespace accumlab::store
