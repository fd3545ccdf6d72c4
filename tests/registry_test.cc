// The format registry (lib/formats/format.cc) is the one list of formats: these
// checks keep what depends on it from drifting when a format is added. (That it has
// a row per `Format` value is a static_assert there.)
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>

#include "formats/format.h"

using namespace convo;

namespace {

std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::string(CONVO_SOURCE_DIR) + "/" + relative);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("every format has a distinct detection rank and a name that parses back",
          "[registry]") {
  std::set<int> ranks;
  for (const FormatInfo& info : all_formats()) {
    INFO(info.name);
    CHECK(ranks.insert(info.detect_rank).second);
    CHECK(parse_format(info.name) == info.format);
    CHECK(&format_info(info.format) == &info);
    CHECK(info.sniff != nullptr);
    CHECK(info.make_decoder != nullptr);
    CHECK(info.make_encoder != nullptr);
    CHECK_FALSE(info.description.empty());
  }
}

TEST_CASE("records of no known format have every trait at its default", "[registry]") {
  const FormatInfo& none = format_traits(Format::none);
  CHECK(none.name == "unknown");
  CHECK_FALSE(none.calls_apart);
  CHECK(none.api_rules == ApiRules::anthropic);
  CHECK_FALSE(keeps_calls_apart(Format::none));
  CHECK_FALSE(follows_openai_api(Format::none));
}

// A format a user cannot find in the documentation does not exist for them: each
// name is in convo(1)'s list, in convo-convert(1) (which documents each format
// field by field) and in README's list of formats.
TEST_CASE("every format is named in the man pages and README", "[registry]") {
  std::string convo_1 = read_source_file("man/convo.1");
  std::string convert_1 = read_source_file("man/convo-convert.1");
  std::string readme = read_source_file("README.md");
  for (const FormatInfo& info : all_formats()) {
    INFO(info.name);
    // Man pages escape the hyphen: claude\-code.
    std::string roff;
    for (char c : info.name) {
      roff += c == '-' ? std::string("\\-") : std::string(1, c);
    }
    CHECK((convo_1.find(roff) != std::string::npos || convo_1.find(info.name) != std::string::npos));
    CHECK((convert_1.find(roff) != std::string::npos ||
           convert_1.find(info.name) != std::string::npos));
    CHECK(readme.find(fmt::format("`{}`", info.name)) != std::string::npos);
  }
}
