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

// libxml2 reports some errors (I/O failures of its buffers) through the per-thread "generic
// error" handler, which prints to stderr by default. That handler is variadic, which Swift
// cannot implement, so these helpers swap in a silent one around a read or write and put the
// previous one back; Strata reports the failure itself as an error.
static void strata_xml_silent_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

typedef struct {
    void *handler;
    void *context;
} strata_xml_error_handler;

static inline strata_xml_error_handler strata_xml_silence_generic_errors(void) {
    strata_xml_error_handler previous = { (void *)xmlGenericError, xmlGenericErrorContext };
    xmlSetGenericErrorFunc(NULL, strata_xml_silent_error);
    return previous;
}

static inline void strata_xml_restore_generic_errors(strata_xml_error_handler previous) {
    xmlSetGenericErrorFunc(previous.context, (xmlGenericErrorFunc)previous.handler);
}
#endif
