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

// Number parsing for the XML store's values (CNumberParsing.swift): strtod/strtof in the C
// locale, the conversion Swift's Double(String) and Float(String) make on Linux, without a
// String per value. glibc declares strtod_l and strtof_l only under _GNU_SOURCE.
#include <locale.h>
#include <stdlib.h>
#ifdef __linux__
extern double strtod_l(const char *nptr, char **endptr, locale_t locale);
extern float strtof_l(const char *nptr, char **endptr, locale_t locale);

static inline locale_t strata_c_locale(void) {
    return newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static inline double strata_strtod_c(const char *text, locale_t locale) {
    return strtod_l(text, NULL, locale);
}

static inline float strata_strtof_c(const char *text, locale_t locale) {
    return strtof_l(text, NULL, locale);
}
#endif
#endif
