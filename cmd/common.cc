#include "common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace convo::cli {

void add_input_flags(CLI::App& sub, InputArgs& args) {
  sub.add_option("FILE", args.files, "Transcripts to read; none or - reads standard input");
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
  return options;
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

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    out += out.empty() ? "" : ", ";
    out += word;
  }
  return out;
}

}  // namespace

std::string closest_match(const std::string& word, const std::vector<std::string>& choices) {
  std::string best;
  std::size_t best_distance = 3;  // farther than this is no hint at all
  for (const std::string& choice : choices) {
    std::size_t d = edit_distance(word, choice);
    if (d < best_distance) {
      best = choice;
      best_distance = d;
    }
  }
  return best;
}

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
      description);
}

void StderrDiagnostics::warning(const Location& where, std::string_view what) {
  std::string place = where.str();
  if (place.empty()) {
    fmt::print(stderr, "convo: warning: {}\n", what);
  } else {
    fmt::print(stderr, "convo: {}: warning: {}\n", place, what);
  }
}

}  // namespace convo::cli
