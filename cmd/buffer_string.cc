// convo buffer-string: a transcript as text, one "Prefix: text" entry per message.
#include <memory>

#include "common.h"
#include "stages/buffer_string.h"
#include "stages/convert.h"

namespace convo::cli {

namespace {

struct BufferStringArgs {
  InputArgs input;
  BufferStringOptions options;
  std::string format = "prefix";
};

constexpr const char* k_buffer_string_help = R"(Write a transcript as text, one "Prefix: text" entry per message
(LangChain's get_buffer_string).

Examples:
  convo buffer-string chat.jsonl
  convo buffer-string --human-prefix User --ai-prefix Assistant chat.jsonl
  convo buffer-string session.jsonl
  convo buffer-string --format xml chat.jsonl
  convo buffer-string --readable session.jsonl

Text is written as it is; images and other blocks as [image], [thinking], ...;
an assistant's tool calls follow its text as JSON; each tool result is a
"Tool:" entry. Records that are not conversation turns are not written.
--format xml writes LangChain Python's <message type="..."> transcript instead;
--readable writes for people: a message's parts on lines of their own, no empty
entries.
See convo-buffer-string(1).)";

int run_buffer_string(const BufferStringArgs& args) {
  BufferStringOptions options = args.options;
  options.style = args.format == "xml" ? BufferStringOptions::Style::xml
                                       : BufferStringOptions::Style::prefix;
  auto shared = std::make_shared<const BufferStringOptions>(std::move(options));
  return run_stream_command(args.input, OutputArgs{},
                            [] { return std::make_unique<PassThrough>(); },
                            buffer_string_sink(shared));
}

}  // namespace

void add_buffer_string(CLI::App& app, Runner& run) {
  auto args = std::make_shared<BufferStringArgs>();
  CLI::App* sub = app.add_subcommand("buffer-string", "Write a transcript as readable text");
  sub->description(k_buffer_string_help);
  BufferStringOptions& o = args->options;
  auto prefix = [&](const char* name, std::string& value, const char* what) {
    sub->add_option(name, value, what)->capture_default_str()->option_text("TEXT");
  };
  sub->add_option("--format", args->format,
                  "prefix (Prefix: text) or xml (<message type=\"human\">text</message>)")
      ->capture_default_str()
      ->check(one_of({"prefix", "xml"}, "--format value"));
  sub->add_flag("--readable", o.readable,
                "For people: a message's parts on lines of their own, empty entries left out");
  prefix("--human-prefix", o.human_prefix, "Prefix of user messages");
  prefix("--ai-prefix", o.ai_prefix, "Prefix of assistant messages");
  prefix("--system-prefix", o.system_prefix, "Prefix of system and developer messages");
  prefix("--tool-prefix", o.tool_prefix, "Prefix of tool results");
  prefix("--function-prefix", o.function_prefix, "Prefix of legacy function messages");
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] { run = [args] { return run_buffer_string(*args); }; });
}

}  // namespace convo::cli
