#include "error.h"

#include <fmt/format.h>

namespace convo {

std::string Location::str() const {
  std::string out = file ? *file : std::string();
  if (line != 0) {
    out += fmt::format(":{}", line);
    if (column != 0) {
      out += fmt::format(":{}", column);
    }
  }
  return out;
}

Error::Error(std::string what, ExitCode code)
    : std::runtime_error(std::move(what)), m_code(code) {}

Error::Error(Location where, std::string what, ExitCode code)
    : std::runtime_error(std::move(what)), m_where(std::move(where)), m_code(code) {}

std::string Error::message() const {
  std::string where = m_where.str();
  if (where.empty()) {
    return what();
  }
  return where + ": " + what();
}

}  // namespace convo
