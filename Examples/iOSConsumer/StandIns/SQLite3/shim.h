// A stand-in for the Apple SDK's `SQLite3` module, which is a Clang module over the SDK's
// <sqlite3.h>: the same module over the system's <sqlite3.h> (Debian: libsqlite3-dev), so
// SQLiteSupport's `#if canImport(SQLite3)` branch is compiled here as it is for iOS.
#ifndef SQLITE3_STAND_IN_H
#define SQLITE3_STAND_IN_H

#include <sqlite3.h>

#endif
