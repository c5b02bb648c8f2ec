#ifndef STRATA_CLIBPQ_SHIM_H
#define STRATA_CLIBPQ_SHIM_H
// Debian and Ubuntu's libpq-dev put the header in /usr/include/postgresql; found there without
// pkg-config, whose flags would link the library (see module.modulemap).
#if __has_include(<postgresql/libpq-fe.h>)
#include <postgresql/libpq-fe.h>
#else
#include <libpq-fe.h>
#endif
#endif
