// convo filter: keep or drop records by type, name and id; remove tool calls with
// their results.
#include <memory>

#include "common.h"
#include "stages/filter.h"

namespace convo::cli {

namespace {

struct FilterArgs {
  InputArgs input;
  OutputArgs output;
  std::vector<std::string> include_types, exclude_types;
  std::vector<std::string> include_names, exclude_names;
  std::vector<std::string> include_ids, exclude_ids;
  std::vector<std::string> tool_calls;
};

constexpr const char* k_filter_help = R"(Keep or drop records by type, name and id (LangChain's filter_messages).

Examples:
  convo filter --include-types human,ai session.jsonl
  convo filter --exclude-types progress,attachment,bookkeeping session.jsonl
  convo filter --exclude-names bob chat.jsonl
  convo filter --exclude-tool-calls session.jsonl
  convo filter --exclude-tool-calls=call_2,get_weather chat.jsonl

A record matching any --exclude-* is dropped; then, if any --include-* is given,
only records matching one of them are kept. Lists are comma-separated. Types:
human, ai, system, tool, ... and Claude Code's record kinds (see convo(1), TYPES).
--exclude-tool-calls removes every tool call, or (with =ID,...) the calls with
those ids or tool names, together with their results. Kept records are written
byte for byte. See convo-filter(1).)";

NameSet to_set(const std::vector<std::string>& values) {
  return NameSet(values.begin(), values.end());
}

TypeSet to_types(const std::vector<std::string>& values) {
  std::string list;
  for (const std::string& value : values) {
    list += (list.empty() ? "" : ",") + value;
  }
  return TypeSet::parse(list);
}

int run_filter(const FilterArgs& args) {
  auto options = std::make_shared<FilterOptions>();
  options->include_types = to_types(args.include_types);
  options->exclude_types = to_types(args.exclude_types);
  options->include_names = to_set(args.include_names);
  options->exclude_names = to_set(args.exclude_names);
  options->include_ids = to_set(args.include_ids);
  options->exclude_ids = to_set(args.exclude_ids);
  for (const std::string& call : args.tool_calls) {
    if (call == "all" || call == "true") {
      options->all_tool_calls = true;
    } else if (!call.empty()) {
      options->tool_calls.insert(call);
    }
  }
  return run_stream_command(args.input, args.output,
                            [options] { return std::make_unique<Filter>(*options); });
}

}  // namespace

void add_filter(CLI::App& app, Runner& run) {
  auto args = std::make_shared<FilterArgs>();
  CLI::App* sub = app.add_subcommand("filter", "Keep or drop records by type, name and id");
  sub->description(k_filter_help);
  auto list = [&](const char* name, std::vector<std::string>& values, const char* what) {
    return sub->add_option(name, values, what)
        ->delimiter(',')
        ->allow_extra_args(false)
        ->option_text("LIST");
  };
  list("--include-types", args->include_types,
       "Keep only records of these types (and those another --include-* keeps)")
      ->check(type_names());
  list("--exclude-types", args->exclude_types, "Drop records of these types")->check(type_names());
  list("--include-names", args->include_names, "Keep only messages with these names (and ...)");
  list("--exclude-names", args->exclude_names, "Drop messages with these names");
  list("--include-ids", args->include_ids,
       "Keep only records with these ids (Claude Code: uuid or message.id) (and ...)");
  list("--exclude-ids", args->exclude_ids, "Drop records with these ids");
  // Given alone, the flag yields "true" (CLI11's value for a bare flag): all calls.
  sub->add_flag("--exclude-tool-calls", args->tool_calls,
                "Remove every tool call with its results; --exclude-tool-calls=LIST removes "
                "the calls with these ids or tool names")
      ->delimiter(',')
      ->option_text("[=LIST]");
  add_output_flags(*sub, args->output);
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] { run = [args] { return run_filter(*args); }; });
}

}  // namespace convo::cli
