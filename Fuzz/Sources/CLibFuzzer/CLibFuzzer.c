// The declaration in include/CLibFuzzer.h is all this module provides; SwiftPM needs a source.
#include "CLibFuzzer.h"
