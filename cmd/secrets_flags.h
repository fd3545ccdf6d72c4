// The flags that choose what counts as a secret (check --secrets, redact):
// --secrets-pattern REGEX and --secrets-file FILE.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "secrets.h"

namespace convo::cli {

struct SecretsArgs {
  std::vector<std::string> patterns;
  std::string file;
};

void add_secrets_flags(CLI::App& sub, SecretsArgs& args);

// Throws CLI::ValidationError (a usage error) when a --secrets-pattern is not a
// regex. For the subcommand's callback, so that the error is reported as CLI11's.
void check_secrets_flags(const SecretsArgs& args);

// The scanner the flags ask for (checked by check_secrets_flags): the patterns, the
// file's values read (one a line; blank lines skipped; an unreadable file is an
// input error, convo::Error).
std::shared_ptr<const SecretScanner> make_scanner(const SecretsArgs& args);

}  // namespace convo::cli
