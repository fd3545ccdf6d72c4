// convo: the command line. Parses, runs the chosen subcommand, and turns a
// convo::Error into one stderr line and an exit code.
#include <malloc.h>

#include <algorithm>
#include <csignal>
#include <cstdio>

#include <fmt/format.h>

#include "common.h"
#include "error.h"
#include "help.h"

using convo::ExitCode;

namespace {

// The last word of a failed run, written without allocating or throwing (memory
// may be exhausted, stderr closed or full): the exit code must survive both.
void report(std::string_view what, std::string_view more = {}) noexcept {
  convo::cli::write_stderr("convo: ");
  convo::cli::write_stderr(what);
  convo::cli::write_stderr(more);
  convo::cli::write_stderr("\n");
}

}  // namespace

int main(int argc, char** argv) {
  // A closed pipe shows up as EPIPE on write, so `convo ... | head` can end quietly.
  std::signal(SIGPIPE, SIG_IGN);
  // Transcripts carry tool outputs of 50-200 KB on a few percent of lines. With
  // glibc's defaults each of those buffers is mmapped and unmapped again, and the
  // page faults cost as much as parsing (measured: 23.7k vs 1.3k faults, 0.60 s vs
  // 0.40 s on a 200 MB log). Keep such blocks in the heap for reuse instead.
  // (Where mimalloc is linked in, CMakeLists.txt, these set a malloc no one calls.)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);

  CLI::App app{"convo: clean, cut, check and convert LLM conversation transcripts (JSONL).",
               "convo"};
  app.set_version_flag("-V,--version", "convo " CONVO_VERSION);
  app.require_subcommand(1);

  convo::cli::Runner run;
  // The subcommands, in the order man/convo.1 lists them.
  convo::cli::add_convert(app, run);
  convo::cli::add_normalize_for_api(app, run);
  convo::cli::add_check(app, run);
  convo::cli::add_redact(app, run);
  convo::cli::add_usage(app, run);
  convo::cli::add_sessions(app, run);
  convo::cli::add_split_blocks(app, run);
  convo::cli::add_filter(app, run);
  convo::cli::add_merge_runs(app, run);
  convo::cli::add_buffer_string(app, run);
  convo::cli::add_trim(app, run);
  convo::cli::add_assemble(app, run);
  convo::cli::add_stream(app, run);
  convo::cli::add_render(app, run);
  convo::cli::add_completions(app, run);

  // A usage error names the help to read: the subcommand's when there is one.
  auto usage_error = [](const std::string& what, const std::string& sub = "") {
    convo::cli::write_stderr(fmt::format("convo: {}\nRun 'convo {}--help' for usage.\n", what,
                                         sub.empty() ? "" : sub + " "));
    return static_cast<int>(ExitCode::usage);
  };
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
  }
  auto unknown_subcommand = [&](const std::string& name) {
    std::vector<std::string> choices = names;
    choices.emplace_back("help");
    std::string what = fmt::format("unknown subcommand '{}'", name);
    std::string hint = convo::closest_match(name, choices);
    if (!hint.empty()) {
      what += fmt::format(" (did you mean '{}'?)", hint);
    }
    return usage_error(what);
  };
  if (argc == 1) {
    std::string list;
    for (const std::string& name : names) {
      list += (list.empty() ? "" : ", ") + name;
    }
    return usage_error(fmt::format("missing subcommand: one of {}", list));
  }
  std::string first = argv[1];
  if (first == "-h" || first == "--help" || (first == "help" && argc == 2)) {
    std::fputs(convo::cli::root_help(app).c_str(), stdout);
    return static_cast<int>(ExitCode::ok);
  }
  if (first == "help") {
    if (argv[2][0] == '-' || std::string(argv[2]) == "help") {
      std::fputs(convo::cli::root_help(app).c_str(), stdout);
      return static_cast<int>(ExitCode::ok);
    }
    if (std::find(names.begin(), names.end(), argv[2]) == names.end()) {
      return unknown_subcommand(argv[2]);
    }
    CLI::App* sub = app.get_subcommand(argv[2]);
    std::fputs(sub->help("convo").c_str(), stdout);
    return static_cast<int>(ExitCode::ok);
  }
  if (first[0] != '-' && std::find(names.begin(), names.end(), first) == names.end()) {
    return unknown_subcommand(first);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      return app.exit(e);  // --help, --version
    }
    // A mistyped flag is the error to report, even when CLI11 stopped at another
    // (a required flag that the typo meant to give).
    bool has_sub = first[0] != '-';
    CLI::App* sub = has_sub ? app.get_subcommand(first) : &app;
    std::vector<std::string> words(argv + (has_sub ? 2 : 1), argv + argc);
    std::string typo = convo::cli::unknown_flag(*sub, words);
    return usage_error(typo.empty() ? e.what() : typo, has_sub ? first : "");
  }

  try {
    return run();
  } catch (const convo::BrokenPipe&) {
    return static_cast<int>(ExitCode::ok);
  } catch (const convo::Error& e) {
    std::fflush(stdout);
    try {
      report(e.message());
    } catch (...) {
      report(e.what());  // no memory left to say where
    }
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    report("out of memory");
    return static_cast<int>(ExitCode::internal);
  } catch (const std::exception& e) {
    report("internal error: ", e.what());
    return static_cast<int>(ExitCode::internal);
  }
}
