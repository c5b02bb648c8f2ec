#ifndef STRATA_CLIBFUZZER_H
#define STRATA_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (the runtime `-sanitize=fuzzer` links): parses the command line and runs
/// `callback` on every input. Called from each target's `main`, because SwiftPM names an
/// executable's entry point itself and libFuzzer's own `main` is then never linked.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
