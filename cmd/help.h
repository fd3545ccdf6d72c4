// What convo says about itself: the short root help, `convo help SUB`, "did you
// mean" for mistyped flags, and the shell completion scripts generated from the
// same CLI11 app, so that help and completions cannot drift from the flags.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace convo::cli {

// `convo --help`: the subcommands one line each, the flags they share, and where
// to read more; not every subcommand's whole text.
std::string root_help(CLI::App& app);

// The subcommand's one-line summary: the first line of its description, without
// the period.
std::string summary(const CLI::App& sub);

// The first flag in `args` (the words after the subcommand's name) that `sub` does
// not know, as a usage error: "unknown flag '--fro' (did you mean '--from'?)"; ""
// when every flag is known. Words after "--", values of flags that take one, and
// negative numbers are not flags.
std::string unknown_flag(CLI::App& sub, const std::vector<std::string>& args);

// The values an option accepts, when it takes one of a fixed set (a one_of check).
std::vector<std::string> option_choices(CLI::Option& option);

// A completion script for `shell` (bash, zsh or fish) covering `app`'s
// subcommands, their flags and the values of flags with a fixed set of values.
std::string completion_script(CLI::App& app, const std::string& shell);

}  // namespace convo::cli
