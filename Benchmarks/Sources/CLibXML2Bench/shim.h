#ifndef STRATA_BENCH_CLIBXML2_SHIM_H
#define STRATA_BENCH_CLIBXML2_SHIM_H
// See Sources/CLibXML2/shim.h in the main package: ICU off so that Foundation's ICU does not clash.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#endif
