// convo completions: a shell completion script, generated from the flags themselves.
#include <cstdio>
#include <memory>

#include "common.h"
#include "help.h"

namespace convo::cli {

namespace {

struct CompletionsArgs {
  std::string shell;
};

constexpr const char* k_completions_help = R"(Print a shell completion script for convo.

Examples:
  convo completions bash > ~/.local/share/bash-completion/completions/convo
  convo completions zsh > ~/.zfunc/_convo
  convo completions fish > ~/.config/fish/completions/convo.fish

The script completes subcommands, their flags and the values of flags that take
one of a fixed set (--to, --from, --on-error, --strategy, ...), and file names
elsewhere. It is generated from the same definitions as --help, so it knows
every flag this convo knows. Packages and `cmake --install` put the three
scripts where each shell looks; see convo-completions(1).)";

// The script is generated from `app`, the whole command line as main() built it.
int run_completions(const CompletionsArgs& args, CLI::App& app) {
  std::string script = completion_script(app, args.shell);
  std::fwrite(script.data(), 1, script.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : static_cast<int>(ExitCode::output);
}

}  // namespace

void add_completions(CLI::App& app, Runner& run) {
  auto args = std::make_shared<CompletionsArgs>();
  CLI::App* sub =
      app.add_subcommand("completions", "Print a shell completion script: bash, zsh or fish");
  sub->description(k_completions_help);
  sub->add_option("SHELL", args->shell, "bash, zsh or fish")
      ->required()
      ->check(one_of({"bash", "zsh", "fish"}, "shell"));
  sub->callback([args, &app, &run] {
    run = [args, &app] { return run_completions(*args, app); };
  });
}

}  // namespace convo::cli
