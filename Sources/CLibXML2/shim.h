#ifndef STRATA_CLIBXML2_SHIM_H
#define STRATA_CLIBXML2_SHIM_H
// Debian's libxml2 is built with ICU, and its headers would pull in the system's
// unicode/utypes.h, which clashes with Foundation's bundled ICU ("'UErrorCode' has different
// definitions in different modules"). Strata never touches the ICU-specific fields.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>
#include <libxml/xmlsave.h>
#endif
