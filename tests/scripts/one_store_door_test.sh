#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every connection to a run store, in every program and test of AccumLab, is opened by
# store::openStoreFile (core/store/store_file.cpp), which makes SQLite's locks survive a
# foreign close() before the process's first connection. A connection opened anywhere else
# would lock with plain POSIX locks. This test fails on any other opening of an SQLite file in
# the C++ sources, and on a file dialog opened without file_dialogs (ui/files/), whose dialogs
# never open a listed file.
# Usage: one_store_door_test.sh SOURCE_DIR
set -uo pipefail
root="$1"
cd "$root" || exit 1
status=0
sources=(core app ui tests bench)
door="core/store/store_file.cpp"
# SQLite::Database constructed directly (not moved from openStoreFile), or SQLite's C API.
found="$(grep -rnE --include='*.cpp' --include='*.h' \
  'SQLite::Database[[:space:]]*[A-Za-z_]+[[:space:]]*\(|SQLite::Database[[:space:]]*[({]|make_unique<SQLite::Database>\([^o]|new[[:space:]]+SQLite::Database|sqlite3_open' \
  "${sources[@]}" | grep -vE "^core/store/store_file\.(cpp|h):")"
if [ -n "$found" ]; then
  echo "FAIL: an SQLite connection is opened outside store::openStoreFile ($door):"
  echo "$found"
  status=1
fi
dialogs="$(grep -rnE --include='*.cpp' --include='*.h' 'QFileDialog::get|QFileDialog[[:space:]]+[a-z_]+[[:space:]]*\(' \
  core app ui | grep -v '^ui/files/')"
if [ -n "$dialogs" ]; then
  echo "FAIL: a file dialog is opened outside ui/files/file_dialogs (it may read the store's files):"
  echo "$dialogs"
  status=1
fi
[ $status -eq 0 ] && echo "PASS: one door to the store, one kind of file dialog"
exit $status
