#ifndef STRATA_BENCH_CLIBPQRAW_SHIM_H
#define STRATA_BENCH_CLIBPQRAW_SHIM_H
#include <libpq-fe.h>
#endif
