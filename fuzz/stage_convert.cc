// The streaming convert path: detection, decoding, --on-error, -j, every output
// format, --strict.
#include "fuzz.h"
#include "stages/convert.h"

CONVO_FUZZ_STAGE([] { return std::make_unique<convo::PassThrough>(); })
