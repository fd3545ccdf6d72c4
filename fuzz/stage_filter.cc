// filter: LangChain's include/exclude rules and --exclude-tool-calls, which edits
// records and remembers call ids across them.
#include "fuzz.h"
#include "stages/filter.h"

CONVO_FUZZ_STAGE([] {
  convo::FilterOptions options;
  options.exclude_types = convo::TypeSet::parse("system");
  options.all_tool_calls = true;
  return std::make_unique<convo::Filter>(std::move(options));
})
