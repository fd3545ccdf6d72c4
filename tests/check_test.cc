#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "stages/check.h"
#include "stages/normalize_for_api.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;
namespace fs = std::filesystem;

namespace {

// Plain {"role","content"} lines read the same in both formats; they are read as
// the target's.
std::vector<Problem> check(const std::string& text, CheckTarget target = CheckTarget::anthropic,
                           bool detect = false) {
  CheckOptions options;
  options.target = target;
  std::optional<Format> from;
  if (!detect) {
    from = target == CheckTarget::anthropic ? Format::anthropic : Format::openai;
  }
  return check_conversation(read_messages(text, {from, OnError::keep}), options);
}

// "line: rule" for each problem.
std::vector<std::string> summary(const std::vector<Problem>& problems) {
  std::vector<std::string> out;
  for (const Problem& p : problems) {
    out.push_back(std::to_string(p.where.line) + ": " + std::string(p.rule));
  }
  return out;
}

std::vector<std::string> check_summary(const std::string& text,
                                       CheckTarget target = CheckTarget::anthropic,
                                       bool detect = false) {
  return summary(check(text, target, detect));
}

std::set<std::string> rules_of(const std::vector<Problem>& problems) {
  std::set<std::string> out;
  for (const Problem& p : problems) {
    out.emplace(p.rule);
  }
  return out;
}

}  // namespace

TEST_CASE("a valid conversation has no problems", "[check]") {
  std::string text =
      R"({"role":"user","content":"hi"})" "\n"
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"t1","name":"f","input":{}}]})" "\n"
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"text","text":"thanks"}]})" "\n"
      R"({"role":"assistant","content":"done"})" "\n";
  CHECK(check(text).empty());
  std::string chat =
      R"({"role":"system","content":"be brief"})" "\n"
      R"({"role":"user","content":"hi"})" "\n"
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":""}}]})" "\n"
      R"({"role":"tool","tool_call_id":"c1","content":"ok"})" "\n"
      R"({"role":"assistant","content":"done "})" "\n";
  CHECK(check(chat, CheckTarget::openai).empty());
}

TEST_CASE("each API rule names its problem and line", "[check]") {
  CHECK(check_summary("{\"role\":\"user\",\"content\":\"\"}\n{\"role\":\"assistant\",\"content\":[]}\n") ==
        std::vector<std::string>{"1: empty-content"});
  CHECK(check_summary("{\"role\":\"user\",\"content\":[]}\n{\"role\":\"assistant\",\"content\":\"x\"}\n") ==
        std::vector<std::string>{"1: empty-content"});
  CHECK(check_summary(R"({"role":"user","content":[{"type":"text","text":""}]})" "\n") ==
        std::vector<std::string>{"1: empty-text"});
  CHECK(check_summary(R"({"role":"user","content":" \n"})" "\n") ==
        std::vector<std::string>{"1: whitespace-text"});
  CHECK(check_summary(R"({"role":"robot","content":"beep"})" "\n") ==
        std::vector<std::string>{"1: unknown-role"});
  CHECK(check_summary(R"({"role":"user","content":[{"type":"thinking","thinking":"x","signature":"s"}]})" "\n") ==
        std::vector<std::string>{"1: block-not-allowed"});
  CHECK(check_summary(R"({"role":"user","content":"q"})" "\n"
                      R"({"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"}]})" "\n") ==
        std::vector<std::string>{"2: unsigned-thinking"});
  CHECK(check_summary(R"({"role":"user","content":"q"})" "\n"
                      R"({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":"x"}]})" "\n"
                      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r"}]})" "\n") ==
        std::vector<std::string>{"2: tool-input-not-object"});
  CHECK(check_summary(R"({"role":"user","content":"q"})" "\n"
                      R"({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]})" "\n"
                      R"({"role":"user","content":"no result"})" "\n") ==
        std::vector<std::string>{"2: tool-result-missing"});
  CHECK(check_summary(R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"r"}]})" "\n") ==
        std::vector<std::string>{"1: tool-result-orphan"});
  CHECK(check_summary(R"({"role":"user","content":"q"})" "\n"
                      R"({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]})" "\n"
                      R"({"role":"user","content":[{"type":"text","text":"first"},{"type":"tool_result","tool_use_id":"t1","content":"r"}]})" "\n") ==
        std::vector<std::string>{"3: tool-result-not-first"});
  CHECK(check_summary(R"({"role":"user","content":"q"})" "\n"
                      R"({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}},{"type":"tool_use","id":"t1","name":"f","input":{}}]})" "\n"
                      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r"},{"type":"tool_result","tool_use_id":"t1","content":"r"}]})" "\n") ==
        std::vector<std::string>{"2: duplicate-tool-use-id", "3: duplicate-tool-result"});
  CHECK(check_summary(R"({"role":"user","content":"q"})" "\n"
                      R"({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]})" "\n"
                      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"image","source":{"type":"url","url":"u"}}]}]})" "\n") ==
        std::vector<std::string>{"3: error-result-not-text"});
  CHECK(check_summary(R"({"role":"user","content":"q"})" "\n"
                      R"({"role":"assistant","content":"ends in a space "})" "\n") ==
        std::vector<std::string>{"2: final-assistant-whitespace"});
  std::string marked = R"({"type":"text","text":"x","cache_control":{"type":"ephemeral"}})";
  CHECK(check_summary(R"({"role":"user","content":[)" + marked + "," + marked + "," + marked +
                      "," + marked + "," + marked + "]}\n") ==
        std::vector<std::string>{"1: too-many-cache-breakpoints"});
}

TEST_CASE("the file's own integrity is checked across its conversations", "[check]") {
  std::string text = cc_user("u1", "", R"("a")") + "{not json\n" + cc_user("u1", "u1", R"("b")") +
                     cc_line("user", "u3", "gone",
                             R"("sessionId":"s2","message":{"role":"user","content":"c"})");
  auto problems = check(text, CheckTarget::anthropic, true);
  CHECK(summary(problems) ==
        std::vector<std::string>{"2: malformed-line", "3: duplicate-uuid", "4: dangling-parent"});
  CHECK(problems[0].message.find("expected") != std::string::npos);
  CHECK(problems[1].message == "uuid u1 is used again (first at line 1)");
  CHECK(problems[2].message == "parentUuid gone names no record of this file");
}

TEST_CASE("a Claude Code session is checked as the request it would become", "[check]") {
  // Split pieces and one result per line are what the API would get joined: fine.
  // A whitespace-only piece and an unanswered call are not.
  std::string log =
      cc_user("u1", "", R"("go")") +
      cc_assistant("a1", "u1", "msg_1", R"([{"type":"text","text":"\n\n"}])") +
      cc_assistant("a2", "a1", "msg_1", R"([{"type":"tool_use","id":"t1","name":"A","input":{}}])") +
      cc_user("r1", "a2", R"([{"type":"tool_result","tool_use_id":"t1","content":"1"}])") +
      cc_assistant("a3", "r1", "msg_2", R"([{"type":"tool_use","id":"t2","name":"B","input":{}}])") +
      cc_line("progress", "p1", "a3", R"("data":{})");
  CHECK(check_summary(log, CheckTarget::anthropic, true) ==
        std::vector<std::string>{"2: whitespace-text", "5: tool-result-missing"});
}

TEST_CASE("a problem in a pretty-printed request is reported at its line", "[check]") {
  std::string request = "{\n"
                        "  \"model\": \"claude-x\",\n"
                        "  \"max_tokens\": 10,\n"
                        "  \"messages\": [\n"
                        "    {\"role\": \"user\", \"content\": \"q\"},\n"
                        "    {\"role\": \"assistant\", \"content\": [\n"
                        "      {\"type\": \"text\", \"text\": \"a\"},\n"
                        "      {\"type\": \"text\", \"text\": \"\"}\n"
                        "    ]}\n"
                        "  ]\n"
                        "}\n";
  CHECK(check_summary(request) == std::vector<std::string>{"8: empty-text"});
}

TEST_CASE("OpenAI's rules differ from Anthropic's", "[check]") {
  std::string text =
      R"({"role":"developer","content":"be brief"})" "\n"
      R"({"role":"user","content":""})" "\n"
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]})" "\n"
      R"({"role":"tool","tool_call_id":"c9","content":"?"})" "\n"
      R"({"role":"assistant","content":null})" "\n";
  CHECK(check_summary(text, CheckTarget::openai) ==
        std::vector<std::string>{"3: tool-result-missing", "4: tool-result-orphan",
                                 "5: empty-content"});
  CHECK(check_summary(R"({"role":"user","content":"q"})" "\n"
                      R"({"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"s"},{"type":"text","text":"a "}]})" "\n",
                      CheckTarget::openai, true) == std::vector<std::string>{"2: block-not-allowed"});
}

TEST_CASE("every rule is documented by name", "[check]") {
  std::string page = read_file(fs::path(CONVO_SOURCE_DIR) / "man" / "convo-check.1");
  for (const CheckRule& rule : check_rules()) {
    std::string name(rule.name);
    std::string troff;
    for (char c : name) {
      troff += c == '-' ? std::string("\\-") : std::string(1, c);
    }
    INFO(name);
    CHECK(page.find(".B " + troff) != std::string::npos);
  }
}

// --- Against real traffic ---

namespace {

std::string compact(const JsonValue& value) { return to_json(value) + "\n"; }

JsonValue* find_block(JsonValue& messages, std::string_view role, std::string_view type) {
  for (JsonValue& m : messages.GetArray()) {
    JsonValue* content = const_cast<JsonValue*>(find_member(m, "content"));
    if (string_member(m, "role") != role || content == nullptr || !content->IsArray()) {
      continue;
    }
    for (JsonValue& b : content->GetArray()) {
      if (string_member(b, "type") == type) {
        return &b;
      }
    }
  }
  return nullptr;
}

// A way to break a request, and the rule that must then report it.
struct Breakage {
  const char* rule;
  // Breaks the request in `doc`; false when it has nothing to break that way.
  std::function<bool(JsonDoc& doc)> apply;
};

}  // namespace

TEST_CASE("every request the API accepted passes, and broken copies fail with the right rule",
          "[check][corpus]") {
  fs::path root = CONVO_CORPUS_DIR;
  if (!fs::is_directory(root / "anthropic-api")) {
    WARN("skipped: no corpus at " << root.string());
    return;
  }
  auto messages_of = [](JsonDoc& doc) -> JsonValue& {
    return *const_cast<JsonValue*>(find_member(doc, "messages"));
  };
  std::vector<Breakage> breakages = {
      {"tool-result-missing",
       [&](JsonDoc& doc) {
         for (JsonValue& m : messages_of(doc).GetArray()) {
           JsonValue* content = const_cast<JsonValue*>(find_member(m, "content"));
           if (string_member(m, "role") != "user" || !content->IsArray()) {
             continue;
           }
           for (auto b = content->Begin(); b != content->End(); ++b) {
             if (string_member(*b, "type") == "tool_result") {
               content->Erase(b);
               return true;
             }
           }
         }
         return false;
       }},
      {"tool-result-orphan",
       [&](JsonDoc& doc) {
         JsonValue* use = find_block(messages_of(doc), "assistant", "tool_use");
         if (use == nullptr || find_block(messages_of(doc), "user", "tool_result") == nullptr) {
           return false;
         }
         set_member(*use, "id", make_string("toolu_renamed", doc.GetAllocator()),
                    doc.GetAllocator());
         return true;
       }},
      {"empty-text",
       [&](JsonDoc& doc) {
         JsonValue* text = find_block(messages_of(doc), "user", "text");
         if (text == nullptr) {
           return false;
         }
         set_member(*text, "text", make_string("", doc.GetAllocator()), doc.GetAllocator());
         return true;
       }},
      {"whitespace-text",
       [&](JsonDoc& doc) {
         JsonValue* text = find_block(messages_of(doc), "user", "text");
         if (text == nullptr) {
           return false;
         }
         set_member(*text, "text", make_string(" \n ", doc.GetAllocator()), doc.GetAllocator());
         return true;
       }},
      {"tool-input-not-object",
       [&](JsonDoc& doc) {
         JsonValue* use = find_block(messages_of(doc), "assistant", "tool_use");
         if (use == nullptr) {
           return false;
         }
         set_member(*use, "input", make_string("{}", doc.GetAllocator()), doc.GetAllocator());
         return true;
       }},
      {"unsigned-thinking",
       [&](JsonDoc& doc) {
         JsonValue* thinking = find_block(messages_of(doc), "assistant", "thinking");
         if (thinking == nullptr) {
           return false;
         }
         erase_member(*thinking, "signature");
         return true;
       }},
      {"block-not-allowed",
       [&](JsonDoc& doc) {
         JsonValue* text = find_block(messages_of(doc), "user", "text");
         if (text == nullptr) {
           return false;
         }
         set_member(*text, "type", make_string("thinking", doc.GetAllocator()), doc.GetAllocator());
         set_member(*text, "thinking", make_string("t", doc.GetAllocator()), doc.GetAllocator());
         set_member(*text, "signature", make_string("s", doc.GetAllocator()), doc.GetAllocator());
         return true;
       }},
      {"unknown-role",
       [&](JsonDoc& doc) {
         JsonValue& first = messages_of(doc)[0];
         set_member(first, "role", make_string("human", doc.GetAllocator()), doc.GetAllocator());
         return true;
       }},
      {"final-assistant-whitespace",
       [&](JsonDoc& doc) {
         JsonValue last(rapidjson::kObjectType);
         last.AddMember("role", "assistant", doc.GetAllocator());
         last.AddMember("content", "Sure, ", doc.GetAllocator());
         messages_of(doc).PushBack(last, doc.GetAllocator());
         return true;
       }},
      {"tool-result-not-first",
       [&](JsonDoc& doc) {
         for (JsonValue& m : messages_of(doc).GetArray()) {
           JsonValue* content = const_cast<JsonValue*>(find_member(m, "content"));
           if (string_member(m, "role") != "user" || !content->IsArray() || content->Empty() ||
               string_member((*content)[0], "type") != "tool_result") {
             continue;
           }
           JsonValue text(rapidjson::kObjectType);
           text.AddMember("type", "text", doc.GetAllocator());
           text.AddMember("text", "before", doc.GetAllocator());
           content->PushBack(text, doc.GetAllocator());
           // Move it to the front.
           for (rapidjson::SizeType i = content->Size() - 1; i > 0; --i) {
             (*content)[i].Swap((*content)[i - 1]);
           }
           return true;
         }
         return false;
       }},
  };
  std::map<std::string, std::size_t> broken;
  std::size_t requests = 0;
  for (const std::string& path : accepted_requests(root / "anthropic-api")) {
    ++requests;
    std::string text = read_file(path);
    INFO(path);
    auto problems = check(text, CheckTarget::anthropic, true);
    CHECK(summary(problems).empty());
    for (const Breakage& breakage : breakages) {
      JsonDoc doc;
      REQUIRE_FALSE(parse_json(text, doc));
      if (!breakage.apply(doc)) {
        continue;
      }
      ++broken[breakage.rule];
      INFO("broken by: " << breakage.rule);
      CHECK(rules_of(check(compact(doc), CheckTarget::anthropic, true)).count(breakage.rule) == 1);
    }
  }
  CHECK(requests > 100);
  for (const Breakage& breakage : breakages) {
    INFO(breakage.rule);
    CHECK(broken[breakage.rule] > 0);
  }
}

TEST_CASE("every chat request the OpenAI API accepted passes check --for openai",
          "[check][corpus]") {
  fs::path root = CONVO_CORPUS_DIR;
  if (!fs::is_directory(root / "openai-chat")) {
    WARN("skipped: no corpus at " << root.string());
    return;
  }
  std::size_t requests = 0;
  for (const std::string& path : accepted_requests(root / "openai-chat")) {
    std::string text = read_file(path);
    JsonDoc doc;
    if (parse_json(text, doc) || find_member(doc, "messages") == nullptr) {
      continue;  // an embeddings or responses request
    }
    ++requests;
    INFO(path);
    CHECK(summary(check(text, CheckTarget::openai)).empty());
  }
  CHECK(requests > 200);
}

TEST_CASE("normalize-for-api makes every real Claude Code session pass check", "[check][corpus]") {
  fs::path root = CONVO_CORPUS_DIR;
  if (!fs::is_directory(root / "claude-code")) {
    WARN("skipped: no corpus at " << root.string());
    return;
  }
  std::size_t files = 0;
  std::size_t messages = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root / "claude-code")) {
    fs::path path = entry.path();
    if (!entry.is_regular_file() || path.extension() != ".jsonl") {
      continue;
    }
    ++files;
    INFO(path.string());
    NormalizeOptions options;
    options.sidechains = true;
    for (int mode = 0; mode < 3; ++mode) {
      options.thinking = static_cast<NormalizeOptions::Thinking>(mode);
      auto conversations =
          normalize_for_api(read_messages(read_file(path), {std::nullopt, OnError::skip}), options);
      for (std::vector<Message>& conversation : conversations) {
        messages += conversation.size();
        std::string out = encode_all(conversation, Format::anthropic);
        CHECK(summary(check(out)).empty());
      }
    }
  }
  CHECK(files > 150);
  CHECK(messages > 1000);
}
