// Wrong types in every field: each value of a few representative records of each
// format is replaced by a value of every other JSON type, and the result is
// converted to every format. Each such record must come out converted or as a bad
// record with a place inside its line, never as a crash or another exception.
#include <catch2/catch.hpp>

#include <cctype>
#include <functional>
#include <string>
#include <vector>

#include "formats/format.h"
#include "json.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

const char* const k_records[] = {
    // claude-code
    R"({"parentUuid":"p","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"out"}],"is_error":false}]},"uuid":"u1","timestamp":"2025-01-01T00:00:00Z","sessionId":"s","toolUseResult":{"stdout":"out"}})",
    R"({"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude","content":[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":4,"cache_read_input_tokens":1}},"uuid":"u2","sessionId":"s"})",
    R"({"type":"summary","summary":"title","leafUuid":"u2"})",
    // anthropic
    R"({"role":"assistant","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"redacted_thinking","data":"x"},{"type":"server_tool_use","id":"s1","name":"web_search","input":{"q":"x"}},{"type":"web_search_tool_result","tool_use_id":"s1","content":[]}]})",
    R"({"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"d"},"title":"t"},{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]})",
    R"({"model":"m","system":[{"type":"text","text":"sys"}],"messages":[{"role":"user","content":"hi"}],"max_tokens":10})",
    // openai
    R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}],"name":"bot"})",
    R"({"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"r"}]})",
    R"({"role":"user","content":[{"type":"text","text":"t"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","detail":"low"}},{"type":"input_audio","input_audio":{"data":"AA","format":"wav"}},{"type":"file","file":{"file_id":"f1"}}]})",
    R"({"choices":[{"index":0,"message":{"role":"assistant","content":"x","function_call":{"name":"f","arguments":"{}"}},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}})",
};

const char* const k_replacements[] = {"null", "7", "-1.5e300", "\"s\"", "[]", "{}", "true", "[1,{}]"};

// Calls `visit` with every value of `value` (itself included), children after
// their parent.
void each_value(JsonValue& value, const std::function<void(JsonValue&)>& visit) {
  visit(value);
  if (value.IsObject()) {
    for (auto& member : value.GetObject()) {
      each_value(member.value, visit);
    }
  } else if (value.IsArray()) {
    for (auto& element : value.GetArray()) {
      each_value(element, visit);
    }
  }
}

// Every record made from `record` by replacing one value with one of
// k_replacements (the whole record itself is replaced too).
std::vector<std::string> mutations(const std::string& record) {
  JsonDoc doc;
  REQUIRE_FALSE(parse_json(record, doc));
  std::size_t count = 0;
  each_value(doc, [&](JsonValue&) { ++count; });
  std::vector<std::string> out;
  for (std::size_t target = 0; target < count; ++target) {
    for (const char* replacement : k_replacements) {
      JsonDoc copy;
      copy.CopyFrom(doc, copy.GetAllocator());
      JsonDoc value;
      REQUIRE_FALSE(parse_json(replacement, value));
      std::size_t index = 0;
      each_value(copy, [&](JsonValue& v) {
        if (index++ == target) {
          v.CopyFrom(value, copy.GetAllocator());
        }
      });
      out.push_back(to_json(copy));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a value of the wrong type anywhere is converted or a bad record with its place",
          "[hostile]") {
  std::size_t runs = 0;
  std::size_t bad = 0;
  const std::size_t stride = k_sanitized ? 7 : 1;  // every mutation, or every 7th
  for (const char* record : k_records) {
    std::vector<std::string> mutated_records = mutations(record);
    for (std::size_t m = 0; m < mutated_records.size(); m += stride) {
      const std::string& mutated = mutated_records[m];
      for (const FormatInfo& from : all_formats()) {
        for (const FormatInfo& to : all_formats()) {
          ReadOptions options{from.format, OnError::skip};
          ConvertResult result;
          try {
            result = convert_text(mutated, to.format, options);
          } catch (const Error& error) {
            FAIL(error.message() << "\nfrom " << from.name << " to " << to.name << ": "
                                 << mutated);
          }
          ++runs;
          for (const std::string& warning : result.warnings) {
            if (warning.rfind("in.jsonl:1:", 0) != 0) {
              continue;  // the closing counts
            }
            ++bad;
            INFO(warning << "\nfrom " << from.name << " to " << to.name << ": " << mutated);
            REQUIRE(std::isdigit(static_cast<unsigned char>(warning[11])));  // a column
            std::size_t column = std::stoul(warning.substr(11));
            CHECK(column >= 1);
            CHECK(column <= mutated.size() + 1);
          }
        }
      }
    }
  }
  CHECK(runs > 1000);
  CHECK(bad > 100);  // the sweep does reach the decoders' type checks
}
