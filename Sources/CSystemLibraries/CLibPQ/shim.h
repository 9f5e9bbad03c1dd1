// The system's PostgreSQL client library (Debian: libpq-dev), for the ReplayGuardPostgres target.
#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

#include <libpq-fe.h>

// PG_DIAG_SQLSTATE is a character-literal macro (postgres_ext.h): the field code of a result's
// SQLSTATE, as a function Swift can call.
static inline int clibpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }

#endif
