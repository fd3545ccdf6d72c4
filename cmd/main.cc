// convo: the command line. Parses, runs the chosen subcommand, and turns a
// convo::Error into one stderr line and an exit code.
#include <malloc.h>

#include <algorithm>
#include <csignal>
#include <cstdio>

#include <fmt/format.h>

#include "common.h"
#include "error.h"

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
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);

  CLI::App app{"convo: clean, cut, check and convert LLM conversation transcripts (JSONL).\n"
               "Run 'convo SUBCOMMAND --help' for a subcommand's flags and examples; "
               "man convo for the whole story.",
               "convo"};
  app.set_version_flag("--version", "convo " CONVO_VERSION);
  app.require_subcommand(1);
  app.footer("Exit status: 0 ok, 1 problems found (check), 2 usage error, 3 bad input, "
             "4 output error, 5 internal error.");

  convo::cli::Runner run;
  // The subcommands, in the order man/convo.1 lists them.
  convo::cli::add_convert(app, run);
  convo::cli::add_normalize_for_api(app, run);
  convo::cli::add_check(app, run);
  convo::cli::add_split_blocks(app, run);
  convo::cli::add_filter(app, run);
  convo::cli::add_merge_runs(app, run);
  convo::cli::add_buffer_string(app, run);
  convo::cli::add_trim(app, run);
  convo::cli::add_assemble(app, run);

  auto usage_error = [](const std::string& what) {
    convo::cli::write_stderr(fmt::format("convo: {}\nRun 'convo --help' for usage.\n", what));
    return static_cast<int>(ExitCode::usage);
  };
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
  }
  if (argc == 1) {
    std::string list;
    for (const std::string& name : names) {
      list += (list.empty() ? "" : ", ") + name;
    }
    return usage_error(fmt::format("missing subcommand: one of {}", list));
  }
  if (argv[1][0] != '-' &&
      std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    std::string what = fmt::format("unknown subcommand '{}'", argv[1]);
    std::string hint = convo::closest_match(argv[1], names);
    if (!hint.empty()) {
      what += fmt::format(" (did you mean '{}'?)", hint);
    }
    return usage_error(what);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      return app.exit(e);  // --help, --version
    }
    return usage_error(e.what());
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
