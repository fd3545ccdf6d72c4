// Errors, source locations and exit codes: the one vocabulary every layer uses to say
// what went wrong and where.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace convo {

// Process exit codes. Stable: scripts and CI jobs depend on them, and man/convo.1
// lists them under EXIT STATUS. Add new codes at the end; never renumber.
enum class ExitCode : int {
  ok = 0,        // success
  problems = 1,  // `convo check` found rule violations
  usage = 2,     // bad command line: unknown subcommand, flag or value
  input = 3,     // unreadable or malformed input, undetectable format, loss under --strict
  output = 4,    // output could not be written (disk full, closed descriptor, ...)
  internal = 5,  // a bug in convo, or out of memory
};

// Where something is in the input: `file:line:column`, 1-based. A zero line or
// column means "not known" and is left out when printed.
struct Location {
  std::shared_ptr<const std::string> file;
  std::uint64_t line = 0;
  std::uint64_t column = 0;

  // `file:line:column`, `file:line` or `file`, whichever parts are known.
  std::string str() const;
};

// The "stop now" error: caught once in cmd/main.cc and printed as
// `convo: <where>: <what>` followed by an exit with `code`.
class Error : public std::runtime_error {
 public:
  explicit Error(std::string what, ExitCode code = ExitCode::input);
  Error(Location where, std::string what, ExitCode code = ExitCode::input);

  const Location& where() const { return m_where; }
  ExitCode code() const { return m_code; }

  // The whole diagnostic line without the `convo: ` prefix.
  std::string message() const;

 private:
  Location m_where;
  ExitCode m_code;
};

// Thrown by the output layer when the reader of our standard output has gone away
// (EPIPE, as in `convo ... | head -1`). main.cc exits quietly with success.
class BrokenPipe : public std::exception {
 public:
  const char* what() const noexcept override { return "broken pipe"; }
};

}  // namespace convo
