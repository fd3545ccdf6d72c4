#include "common.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <limits>
#include <optional>
#include <cstdio>
#include <memory>
#include <thread>

#include "io/input.h"
#include "io/output.h"
#include "message_types.h"
#include "progress.h"

namespace convo::cli {

namespace {

// The run's progress counters and, while a run shows them, the meter drawing them
// (through which warnings are printed, so that the two do not collide).
Progress g_progress;
ProgressMeter* g_meter = nullptr;

// Not while standard output is the terminal standard error is, even with
// --progress: the output would break into the line (see progress.h).
bool shows_progress(const InputArgs& args) {
  return !args.quiet && (args.progress || ::isatty(STDERR_FILENO) == 1) && progress_allowed();
}

// The largest --max-record-size: RapidJSON counts a string's bytes in 32 bits.
constexpr std::uint64_t k_largest_record_size = (std::uint64_t{1} << 32) - 1;

// A size in bytes, with an optional K, M or G (KiB, MiB, GiB): "64M". Nullopt
// when it is not one, or is 0, or does not fit.
std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::uint64_t unit = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': case 'k': unit = std::uint64_t{1} << 10; break;
      case 'M': case 'm': unit = std::uint64_t{1} << 20; break;
      case 'G': case 'g': unit = std::uint64_t{1} << 30; break;
      default: break;
    }
    if (unit != 1) {
      text.remove_suffix(1);
    }
  }
  std::uint64_t n = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || n == 0 ||
      n > std::numeric_limits<std::uint64_t>::max() / unit) {
    return std::nullopt;
  }
  return n * unit;
}

}  // namespace

void add_input_flags(CLI::App& sub, InputArgs& args) {
  sub.add_option("FILE", args.files,
                 "Transcripts to read: files (gzip or zstd too) and directories (their "
                 "*.jsonl[.gz|.zst] and Gemini CLI session-*.json files); none or - reads standard "
                 "input");
  sub.add_option("--from", args.from,
                 "Input format: auto (detected per file from its first records), " +
                     format_names())
      ->capture_default_str()
      ->check(one_of(format_choices(true), "format"));
  sub.add_option("--on-error", args.on_error,
                 "A bad record: fail (stop, exit 3), skip (warn and go on), "
                 "keep (warn and write the line through unchanged)")
      ->capture_default_str()
      ->check(one_of({"fail", "skip", "keep"}, "--on-error value"));
  sub.add_option("-o,--output", args.output,
                 "Write to FILE instead of standard output; FILE appears only when the run "
                 "succeeds")
      ->option_text("FILE");
  sub.add_option("-j,--jobs", args.jobs,
                 "Process N inputs at once (0: one per CPU); the output is the same as with 1")
      ->option_text("N");
  sub.add_option("--max-record-size", args.max_record_size,
                 "The longest record (line) to read, in bytes or with K, M, G; a longer "
                 "one stops the run (exit 3)")
      ->capture_default_str()
      ->option_text("SIZE")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            std::optional<std::uint64_t> size = parse_size(value);
            if (!size) {
              return fmt::format("'{}' is not a size in bytes (such as 1048576, 64M or 2G)",
                                 value);
            }
            // The JSON parser counts a string's bytes in 32 bits.
            if (*size > k_largest_record_size) {
              return fmt::format("'{}' is too large: at most 4294967295 bytes (4G less one)",
                                 value);
            }
            return "";
          },
          "SIZE"));
  sub.add_flag("--mmap", args.mmap,
               "Read regular files through a memory mapping instead of read(2): the same "
               "records; faster or slower by the machine");
  sub.add_flag("-q,--quiet", args.quiet, "No progress line on stderr (warnings still appear); check: no reports either, the exit status only");
  sub.add_flag("--progress", args.progress,
               "Show progress on stderr even when it is not a terminal (never while stdout is the same terminal)");
}

int with_output(const InputArgs& args, const std::function<int(Output& out)>& body) {
  std::unique_ptr<ProgressMeter> meter;
  if (shows_progress(args)) {
    meter = std::make_unique<ProgressMeter>(g_progress, ::isatty(STDERR_FILENO) == 1);
    g_meter = meter.get();
  }
  struct Detach {
    ~Detach() { g_meter = nullptr; }
  } detach;
  if (args.output.empty() || args.output == "-") {
    FdOutput out(STDOUT_FILENO);
    int code = body(out);
    out.flush();
    return code;
  }
  FileOutput out(args.output);
  int code = body(out);
  out.commit();
  return code;
}

ReadOptions read_options(const InputArgs& args) {
  ReadOptions options;
  if (args.from != "auto") {
    options.from = parse_format(args.from);
  }
  if (args.on_error == "skip") {
    options.on_error = OnError::skip;
  } else if (args.on_error == "keep") {
    options.on_error = OnError::keep;
  }
  options.max_record_size = parse_size(args.max_record_size).value_or(k_default_max_record_size);
  options.map_files = args.mmap;
  options.jobs = args.jobs != 0 ? args.jobs : std::max(1u, std::thread::hardware_concurrency());
  if (shows_progress(args)) {
    options.progress = &g_progress;
  }
  return options;
}

void add_output_flags(CLI::App& sub, OutputArgs& args, bool to_required) {
  CLI::Option* to = sub.add_option(
      "--to", args.to,
      to_required ? "Output format: " + format_names()
                  : "Output format: " + format_names() + " (default: the input's format)");
  to->check(one_of(format_choices(false), "format"));
  if (to_required) {
    to->required();
  }
  sub.add_flag("--strict", args.strict,
               "Fail (exit 3) instead of dropping what the output format cannot hold");
}

StreamOptions stream_options(const InputArgs& input, const OutputArgs& output) {
  StreamOptions options;
  options.inputs = input.files;
  options.read = read_options(input);
  if (!output.to.empty()) {
    options.to = parse_format(output.to);
  }
  options.strict = output.strict;
  return options;
}

int run_stream_command(const InputArgs& input, const OutputArgs& output,
                       const StageFactory& make_stage, const SinkFactory& make_sink,
                       bool explain_empty) {
  StreamOptions options = stream_options(input, output);
  options.read.explain_empty = explain_empty;
  return with_output(input, [&](Output& out) {
    StderrDiagnostics diagnostics;
    run_stream(options, make_stage,
               make_sink ? make_sink : format_sink(options.to, encode_options(options.read)), out,
               diagnostics);
    return static_cast<int>(ExitCode::ok);
  });
}

void add_conversation_flags(CLI::App& sub, ConversationArgs& args) {
  sub.add_option("--group-by", args.group_by,
                 "What makes one conversation: session (an input, split where Claude Code's "
                 "sessionId changes) or file (an input)")
      ->capture_default_str()
      ->check(one_of({"session", "file"}, "--group-by value"));
}

GroupBy group_by(const ConversationArgs& args) {
  return args.group_by == "file" ? GroupBy::file : GroupBy::session;
}

std::vector<std::string> format_choices(bool with_auto) {
  std::vector<std::string> names;
  if (with_auto) {
    names.emplace_back("auto");
  }
  for (const FormatInfo& info : all_formats()) {
    names.emplace_back(info.name);
  }
  return names;
}

namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    out += out.empty() ? "" : ", ";
    out += word;
  }
  return out;
}

}  // namespace

CLI::Validator one_of(std::vector<std::string> choices, std::string what) {
  std::string description = join(choices);
  return CLI::Validator(
      [choices, what](std::string& value) -> std::string {
        if (std::find(choices.begin(), choices.end(), value) != choices.end()) {
          return "";
        }
        std::string hint = closest_match(value, choices);
        if (!hint.empty()) {
          return fmt::format("unknown {} '{}' (did you mean '{}'?)", what, value, hint);
        }
        return fmt::format("unknown {} '{}' (choose from {})", what, value, join(choices));
      },
      description, "one_of");
}

CLI::Validator type_names() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        try {
          TypeSet::parse(value);
        } catch (const Error& error) {
          return error.message();
        }
        return "";
      },
      "TYPE,...");
}

std::string text_or_file(const std::string& argument) {
  if (argument.empty() || argument.front() != '@') {
    return argument;
  }
  std::unique_ptr<ByteSource> input = open_input(argument.substr(1));
  std::string text;
  char buffer[1 << 16];
  while (std::size_t n = input->read(buffer, sizeof buffer)) {
    text.append(buffer, n);
  }
  return text;
}

void write_stderr(std::string_view text) noexcept {
  while (!text.empty()) {
    ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;  // closed, full or gone: nothing better to do with a diagnostic
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void StderrDiagnostics::warning(const Location& where, std::string_view what) {
  std::string place = where.str();
  std::string line = place.empty() ? fmt::format("convo: warning: {}\n", what)
                                   : fmt::format("convo: {}: warning: {}\n", place, what);
  if (g_meter != nullptr) {
    g_meter->print_above(line);
  } else {
    write_stderr(line);
  }
}

}  // namespace convo::cli
