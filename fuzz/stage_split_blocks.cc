// split-blocks: one record per content block.
#include "fuzz.h"
#include "stages/split_blocks.h"

CONVO_FUZZ_STAGE([] { return std::make_unique<convo::SplitBlocks>(); })
