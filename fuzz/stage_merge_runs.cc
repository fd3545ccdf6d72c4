// merge-runs: holds a run back and merges it into one message.
#include "fuzz.h"
#include "stages/merge_runs.h"

CONVO_FUZZ_STAGE([] { return std::make_unique<convo::MergeRuns>(convo::MergeRunsOptions{}); })
