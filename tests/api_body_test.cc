// Request and response bodies translated whole between the four model APIs
// (lib/formats/api_body.h): the shared mappings, a request's settings through every
// pair and back, and every real body of ../shared/corpus to each other API and back.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/api_body.h"
#include "formats/json_out.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

constexpr Format k_apis[] = {Format::anthropic, Format::openai, Format::openai_responses,
                             Format::gemini};

JsonDoc parse(const std::string& text) {
  JsonDoc doc;
  REQUIRE_FALSE(parse_json(text, doc));
  return doc;
}

// An Anthropic request with every setting the four APIs share.
constexpr std::string_view k_request =
    R"({"model":"m","max_tokens":3000,"system":"Be brief.",)"
    R"("messages":[{"role":"user","content":"Weather in Oslo?"}],)"
    R"("tools":[{"name":"get_weather","description":"Weather","input_schema":)"
    R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],)"
    R"("tool_choice":{"type":"tool","name":"get_weather"},"stop_sequences":["END"],)"
    R"("thinking":{"type":"enabled","budget_tokens":2048}})";

}  // namespace

TEST_CASE("thinking budgets and efforts map as LiteLLM maps them", "[api_body]") {
  CHECK(budget_of_effort("low") == 1024);
  CHECK(budget_of_effort("medium") == 2048);
  CHECK(budget_of_effort("high") == 4096);
  CHECK(budget_of_effort("minimal") == 1024);
  for (const char* effort : {"low", "medium", "high"}) {
    CHECK(effort_of_budget(budget_of_effort(effort)) == effort);
  }
  CHECK(effort_of_budget(3000) == "high");
  CHECK(effort_of_budget(1500) == "medium");
}

TEST_CASE("a request's shared settings survive every pair of APIs and back", "[api_body]") {
  for (Format to : k_apis) {
    if (to == Format::anthropic) {
      continue;
    }
    CAPTURE(format_name(to));
    ConvertResult there = convert_text(std::string(k_request), to, {.from = Format::anthropic});
    ConvertResult back = convert_text(there.out, Format::anthropic, {.from = to});
    JsonDoc doc = parse(back.out);
    REQUIRE(doc.IsObject());
    CHECK(find_member(doc, "max_tokens")->GetInt64() == 3000);
    std::string system = to_json(*find_member(doc, "system"));
    CHECK((system == R"("Be brief.")" || system == R"([{"type":"text","text":"Be brief."}])"));
    CHECK(to_json(*find_member(doc, "tools")) ==
          R"([{"name":"get_weather","description":"Weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}])");
    CHECK(to_json(*find_member(doc, "tool_choice")) == R"({"type":"tool","name":"get_weather"})");
    CHECK(to_json(*find_member(doc, "thinking")) == R"({"type":"enabled","budget_tokens":2048})");
    if (to != Format::openai_responses) {  // Responses has no stop sequences
      CHECK(to_json(*find_member(doc, "stop_sequences")) == R"(["END"])");
    }
  }
}

TEST_CASE("a body converted to its own API is written byte for byte", "[api_body]") {
  std::string spaced = "{\"model\": \"m\", \"max_tokens\": 5, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n";
  CHECK(convert_text(spaced, Format::anthropic, {.from = Format::anthropic}).out == spaced);
}

TEST_CASE("every real body converts to each other API's body and back", "[api_body][corpus]") {
  namespace fs = std::filesystem;
  static constexpr std::pair<const char*, Format> k_folders[] = {
      {"anthropic-api", Format::anthropic},
      {"openai-chat", Format::openai},
      {"openai-responses", Format::openai_responses},
      {"gemini", Format::gemini},
  };
  fs::path root = CONVO_CORPUS_DIR;
  if (!fs::is_directory(root)) {
    WARN("skipped: no corpus at " << root.string());
    return;
  }
  std::size_t bodies = 0;
  for (const auto& [folder, from] : k_folders) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      std::string name = entry.path().filename().string();
      if (!entry.is_regular_file() ||
          !(name.ends_with("request.json") || name.ends_with("response.json"))) {
        continue;
      }
      std::ifstream in(entry.path(), std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      for (Format to : k_apis) {
        if (to == from) {
          continue;
        }
        CAPTURE(entry.path().string(), format_name(to));
        ConvertResult there;
        try {
          there = convert_text(text.str(), to, {.from = from});
        } catch (const Error&) {
          continue;  // not a body convo reads (an error body): refused, not converted
        }
        JsonDoc doc;
        bool is_object = !there.out.empty() && !parse_json(there.out, doc) && doc.IsObject();
        if (!is_object) {
          continue;  // several records, or none: not a body
        }
        bool body = find_member(doc, "messages") || find_member(doc, "input") ||
                    find_member(doc, "contents") || find_member(doc, "choices") ||
                    find_member(doc, "output") || find_member(doc, "candidates") ||
                    string_member(doc, "type").value_or("") == "message";
        if (!body) {
          continue;
        }
        ++bodies;
        CHECK_NOTHROW(convert_text(there.out, from, {.from = to}));
      }
    }
  }
  CHECK(bodies > 1000);
}
