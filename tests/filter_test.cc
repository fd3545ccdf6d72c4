#include <catch2/catch.hpp>

#include "stages/filter.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

std::string filter(const std::string& text, const FilterOptions& options,
                   ReadOptions read = {}) {
  return run_stage_on(
             text, [&] { return std::make_unique<Filter>(options); }, {}, read)
      .out;
}

// The lines of `text` at the given 1-based positions, each with its newline.
std::string lines(const std::string& text, std::initializer_list<int> wanted) {
  std::vector<std::string> all;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    all.push_back(text.substr(pos, end - pos + 1));
    pos = end + 1;
  }
  std::string out;
  for (int n : wanted) {
    out += all.at(static_cast<std::size_t>(n - 1));
  }
  return out;
}

const std::string k_chat =
    R"({"role":"system","content":"s","id":"s0"})" "\n"
    R"({"role":"user","content":"hi",  "name":"alice","id":"u1"})" "\n"
    R"({"role":"assistant","content":"Let me check.","id":"a1","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}},{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]})" "\n"
    R"({"role":"tool","content":"18C","tool_call_id":"call_1","id":"t1"})" "\n"
    R"({"role":"tool","content":"noon","tool_call_id":"call_2","id":"t2"})" "\n"
    R"({"role":"assistant","content":null,"id":"a2","tool_calls":[{"id":"call_3","type":"function","function":{"name":"get_weather","arguments":"{}"}}]})" "\n"
    R"({"role":"tool","content":"20C","tool_call_id":"call_3","id":"t3"})" "\n"
    R"({"role":"user","content":"thanks","name":"bob","id":"u2"})" "\n";

}  // namespace

TEST_CASE("filter keeps the records of the included types, byte for byte", "[filter]") {
  FilterOptions options;
  options.include_types = TypeSet::parse("human,system");
  // The odd spacing of line 2 shows the record is written as it was read.
  CHECK(filter(k_chat, options) == lines(k_chat, {1, 2, 8}));
}

TEST_CASE("filter: exclusions win over inclusions, include lists combine with or",
          "[filter]") {
  FilterOptions options;
  options.include_types = TypeSet::parse("human");
  options.include_ids = {"t1"};
  options.exclude_names = {"bob"};
  CHECK(filter(k_chat, options) == lines(k_chat, {2, 4}));
}

TEST_CASE("filter: with no include list, everything not excluded is kept", "[filter]") {
  FilterOptions options;
  options.exclude_types = TypeSet::parse("tool");
  options.exclude_ids = {"a2"};
  CHECK(filter(k_chat, options) == lines(k_chat, {1, 2, 3, 8}));
}

TEST_CASE("filter: a message without a name or id matches no name or id", "[filter]") {
  FilterOptions options;
  options.include_names = {"alice"};
  options.include_ids = {"u1"};
  std::string text = R"({"role":"user","content":"anonymous"})" "\n";
  CHECK(filter(text, options).empty());
}

TEST_CASE("filter --exclude-tool-calls removes every call with its results", "[filter]") {
  FilterOptions options;
  options.all_tool_calls = true;
  CHECK(filter(k_chat, options) ==
        lines(k_chat, {1, 2}) +
            R"({"role":"assistant","content":"Let me check.","id":"a1"})" "\n" +
            lines(k_chat, {8}));
}

TEST_CASE("filter --exclude-tool-calls=ID removes that call and its result", "[filter]") {
  FilterOptions options;
  options.tool_calls = {"call_1", "call_3"};
  CHECK(filter(k_chat, options) ==
        lines(k_chat, {1, 2}) +
            R"({"role":"assistant","content":"Let me check.","id":"a1","tool_calls":[{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]})" "\n" +
            lines(k_chat, {5, 8}));
}

TEST_CASE("filter --exclude-tool-calls=NAME finds the results of the calls by their ids",
          "[filter]") {
  FilterOptions options;
  options.tool_calls = {"get_weather"};
  CHECK(filter(k_chat, options) ==
        lines(k_chat, {1, 2}) +
            R"({"role":"assistant","content":"Let me check.","id":"a1","tool_calls":[{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]})" "\n" +
            lines(k_chat, {5, 8}));
}

TEST_CASE("filter: the results of a call excluded by name go even when its message is "
          "dropped by another rule",
          "[filter]") {
  FilterOptions options;
  options.tool_calls = {"get_weather"};
  options.exclude_ids = {"a1"};
  CHECK(filter(k_chat, options) == lines(k_chat, {1, 2, 5, 8}));
}

namespace {

const std::string k_session =
    R"({"type":"assistant","uuid":"a1","parentUuid":"u0","sessionId":"S","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"Read","input":{"file_path":"a"}}]}})" "\n"
    R"({"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"S","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_B","name":"Bash","input":{"command":"ls"}}]}})" "\n"
    R"({"type":"progress","uuid":"p1","parentUuid":"a2","sessionId":"S","data":{"type":"bash_progress"},"toolUseID":"bash-progress-0","parentToolUseID":"toolu_B"})" "\n"
    R"({"type":"progress","uuid":"p2","parentUuid":"a2","sessionId":"S","data":{"type":"hook_progress"},"toolUseID":"toolu_A","parentToolUseID":"toolu_A"})" "\n"
    R"({"type":"user","uuid":"r1","parentUuid":"p1","sessionId":"S","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":"text of a"},{"type":"tool_result","tool_use_id":"toolu_B","content":"a b c"}]},"toolUseResult":{"stdout":"a b c"}})" "\n"
    R"({"type":"user","uuid":"u2","parentUuid":"r1","sessionId":"S","message":{"role":"user","content":"thanks"}})" "\n";

}  // namespace

TEST_CASE("filter: a Claude Code record loses only the excluded results", "[filter]") {
  FilterOptions options;
  options.tool_calls = {"Bash"};
  std::string out = filter(k_session, options);
  CHECK(out ==
        lines(k_session, {1, 4}) +
            R"({"type":"user","uuid":"r1","parentUuid":"p1","sessionId":"S","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":"text of a"}]},"toolUseResult":{"stdout":"a b c"}})" "\n" +
            lines(k_session, {6}));
}

TEST_CASE("filter: Claude Code progress records go with their excluded call", "[filter]") {
  FilterOptions options;
  options.all_tool_calls = true;
  CHECK(filter(k_session, options) == lines(k_session, {6}));
  options.all_tool_calls = false;
  options.tool_calls = {"toolu_A"};
  CHECK(filter(k_session, options) ==
        lines(k_session, {2, 3}) +
            R"({"type":"user","uuid":"r1","parentUuid":"p1","sessionId":"S","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_B","content":"a b c"}]},"toolUseResult":{"stdout":"a b c"}})" "\n" +
            lines(k_session, {6}));
}

TEST_CASE("filter: Claude Code records by kind, and by API response id", "[filter]") {
  FilterOptions options;
  options.include_types = TypeSet::parse("human,ai");
  CHECK(filter(k_session, options) == lines(k_session, {1, 2, 6}));
  FilterOptions by_response;
  by_response.include_ids = {"msg_1", "u2"};
  CHECK(filter(k_session, by_response) == lines(k_session, {1, 2, 6}));
}

TEST_CASE("filter passes bad lines kept by --on-error keep", "[filter]") {
  FilterOptions options;
  options.include_types = TypeSet::parse("ai");
  std::string text = R"({"role":"user","content":"a"})" "\nnot json\n"
                     R"({"role":"assistant","content":"b"})" "\n";
  CHECK(filter(text, options, {std::nullopt, OnError::keep}) ==
        "not json\n" R"({"role":"assistant","content":"b"})" "\n");
}

TEST_CASE("filter: a message left with only blank text is dropped", "[filter]") {
  FilterOptions options;
  options.all_tool_calls = true;
  std::string text =
      R"({"role":"assistant","content":[{"type":"text","text":"\n\n"},{"type":"tool_use","id":"t","name":"x","input":{}}]})" "\n"
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"tool_use","id":"u","name":"x","input":{}}]})" "\n";
  CHECK(filter(text, options) ==
        R"({"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"}]})" "\n");
}

TEST_CASE("filter: hook records that follow a removed call's result go too", "[filter]") {
  std::string text =
      R"({"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"Bash","input":{}}]}})" "\n"
      R"({"type":"user","uuid":"r1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":"ok"}]}})" "\n"
      R"({"type":"system","uuid":"s1","subtype":"","content":"Running PostToolUse:Bash...","toolUseID":"toolu_A"})" "\n"
      R"({"type":"progress","uuid":"p1","data":{"type":"hook_progress"},"toolUseID":"0f2b","parentToolUseID":"0f2b"})" "\n";
  FilterOptions options;
  options.all_tool_calls = true;
  CHECK(filter(text, options) ==
        R"({"type":"progress","uuid":"p1","data":{"type":"hook_progress"},"toolUseID":"0f2b","parentToolUseID":"0f2b"})" "\n");
  options.all_tool_calls = false;
  options.tool_calls = {"Bash"};
  CHECK(filter(text, options) ==
        R"({"type":"progress","uuid":"p1","data":{"type":"hook_progress"},"toolUseID":"0f2b","parentToolUseID":"0f2b"})" "\n");
}

TEST_CASE("filter on every corpus transcript: no rule keeps every byte, and removed "
          "tool calls leave no call or result behind",
          "[filter][corpus]") {
  auto files = corpus_files();
  if (files.empty()) {
    WARN("skipped: no corpus");
    return;
  }
  for (const CorpusFile& file : files) {
    INFO(file.path);
    ReadOptions read{file.format, OnError::keep};
    CHECK(filter(file.text, FilterOptions{}, read) ==
          convert_text(file.text, file.format, read).out);
    FilterOptions options;
    options.all_tool_calls = true;
    std::string out = filter(file.text, options, read);
    for (const Message& message : read_messages(out, read)) {
      CHECK_FALSE(message.has_tool_uses());
      CHECK_FALSE(message.has_tool_results());
    }
  }
}
