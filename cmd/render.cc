// convo render: a session as a page to read or share, HTML or Markdown.
#include <sys/stat.h>

#include <memory>

#include "common.h"
#include "stages/render.h"

namespace convo::cli {

namespace {

struct RenderArgs {
  InputArgs input;
  std::string format = "html";
};

constexpr const char* k_render_help = R"(Write sessions as a page to read or share: HTML or Markdown.

Examples:
  convo render -o session.html session.jsonl
  convo render --format markdown session.jsonl
  convo render -o pages/ ~/.claude/projects

HTML is one self-contained file: CSS inline, no script, nothing fetched (images
only as data: URIs, URL images as links). Turns in order, tool calls with their
results (long ones collapsed), thinking collapsed, compaction and interrupts
marked, subagents nested where their call started them. Markdown is
GitHub-flavoured. Several inputs make one page; with -o naming a directory
(an existing one, or a name ending in /), one page per session and an index.
See convo-render(1).)";

// -o names a directory: one that exists, or a name that ends with '/'.
bool names_directory(const std::string& output) {
  if (output.empty() || output == "-") {
    return false;
  }
  struct stat status{};
  return output.back() == '/' || (::stat(output.c_str(), &status) == 0 && S_ISDIR(status.st_mode));
}

int run_render(const RenderArgs& args) {
  RenderOptions options;
  options.style =
      args.format == "markdown" ? RenderOptions::Style::markdown : RenderOptions::Style::html;
  ReadOptions read = read_options(args.input);
  StderrDiagnostics diagnostics;
  if (names_directory(args.input.output)) {
    render_pages(args.input.files, options, read, args.input.output, diagnostics);
    return 0;
  }
  return with_output(args.input, [&](Output& out) {
    render_inputs(args.input.files, options, read, out, diagnostics);
    return 0;
  });
}

}  // namespace

void add_render(CLI::App& app, Runner& run) {
  auto args = std::make_shared<RenderArgs>();
  CLI::App* sub = app.add_subcommand("render", "Write sessions as a page to read: HTML or Markdown");
  sub->description(k_render_help);
  sub->add_option("--format", args->format, "html (one self-contained page) or markdown")
      ->capture_default_str()
      ->check(one_of({"html", "markdown"}, "--format value"));
  add_input_flags(*sub, args->input);
  sub->callback([args, &run] { run = [args] { return run_render(*args); }; });
}

}  // namespace convo::cli
