// The system's SQLite (Debian: libsqlite3-dev), for the RewardLedgerSQLite target.
#ifndef CSQLITE3_SHIM_H
#define CSQLITE3_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: it tells sqlite3_bind_text to copy the
// bytes before it returns.
static inline sqlite3_destructor_type csqlite3_transient(void) { return SQLITE_TRANSIENT; }

#endif
