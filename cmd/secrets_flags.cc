#include "secrets_flags.h"

#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "error.h"

namespace convo::cli {

void add_secrets_flags(CLI::App& sub, SecretsArgs& args) {
  sub.add_option("--secrets-pattern", args.patterns,
                 "Also a secret: what this ECMAScript regex matches (repeatable)")
      ->allow_extra_args(false)
      ->option_text("REGEX");
  sub.add_option("--secrets-file", args.file,
                 "Also a secret: each value listed in FILE, one a line")
      ->option_text("FILE");
}

void check_secrets_flags(const SecretsArgs& args) {
  for (const std::string& pattern : args.patterns) {
    try {
      std::regex compiled(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw CLI::ValidationError("--secrets-pattern",
                                 fmt::format("'{}' is not a regex: {}", pattern, e.what()));
    }
  }
}

std::shared_ptr<const SecretScanner> make_scanner(const SecretsArgs& args) {
  SecretOptions options;
  options.patterns = args.patterns;
  if (!args.file.empty()) {
    std::ifstream in(args.file);
    if (!in) {
      throw Error(Location{std::make_shared<const std::string>(args.file)},
                  "cannot read the secrets file");
    }
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') {
        line.pop_back();
      }
      if (!line.empty()) {
        options.known.push_back(line);
      }
    }
  }
  return std::make_shared<const SecretScanner>(options);
}

}  // namespace convo::cli
