// The system's PostgreSQL client library (Debian: libpq-dev; Homebrew: libpq), for the
// ReplayGuardPostgres target.
#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#error "PostgreSQL's client library (libpq) was not found; it is needed by ReplayGuardPostgres and the mediate CLI only, every other product builds without it. Linux: apt-get install libpq-dev pkg-config. Mac: brew install libpq pkg-config, then export PKG_CONFIG_PATH=\"$(brew --prefix libpq)/lib/pkgconfig\" (Homebrew installs libpq keg-only)"
#endif

// PG_DIAG_SQLSTATE is a character-literal macro (postgres_ext.h): the field code of a result's
// SQLSTATE, as a function Swift can call.
static inline int clibpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }

#endif
