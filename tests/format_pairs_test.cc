// Every ordered pair of formats A, B on generated conversations: A -> B -> A keeps
// every message, role, text, tool call (id, name, arguments as JSON) and tool
// result wherever both formats can hold them, and what B cannot hold is reported
// (a loss warning; an error under --strict). When B can hold everything A had,
// nothing is reported.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <set>

#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

// What each format can hold, of the things the generator makes.
struct Holds {
  bool system = true;
  bool names = true;
  bool thinking = true;
  bool signatures = true;
  bool is_error = true;
  bool envelope = false;  // Claude Code's record envelope (uuid chain, session, ...)
  bool timestamps = false;
  bool records = false;   // records that are not messages (a rollout's session_meta)
  bool system_role = true;  // false: a system message is written as a developer one
  bool sessions = false;  // a session id for the messages
  // Keeps each tool call with its result (a Gemini CLI tool call record): calls made
  // one per message (OpenAI Responses items) come back each followed by its result.
  bool calls_with_results = false;
};

Holds holds(Format format) {
  Holds h;
  switch (format) {
    case Format::claude_code:
      h.system = false;
      h.names = false;
      h.envelope = true;
      h.timestamps = true;
      h.sessions = true;
      break;
    case Format::anthropic:
      h.names = false;
      break;
    case Format::openai:
      h.thinking = false;
      h.signatures = false;
      h.is_error = false;
      break;
    case Format::langchain:
      break;
    case Format::agentscope:
      h.signatures = false;  // written in the 1.x shape, whose thinking has none
      h.timestamps = true;
      break;
    case Format::opencode:
      h.system = false;
      h.names = false;
      h.timestamps = true;
      h.sessions = true;
      break;
    case Format::synaptic:
      h.signatures = false;
      h.is_error = false;
      break;
    case Format::codex:
      h.timestamps = true;
      h.records = true;
      h.system_role = false;
      [[fallthrough]];
    case Format::openai_responses:
      h.names = false;
      h.signatures = false;  // reasoning keeps encrypted content, not signatures
      h.is_error = false;
      break;
    case Format::gemini:
      h.names = false;
      break;
    case Format::gemini_cli:
      h.calls_with_results = true;
      h.system = false;
      h.names = false;
      h.signatures = false;
      h.sessions = true;
      break;
    case Format::ai_sdk:
      h.names = false;
      break;
    case Format::none:
    case Format::end_:
      break;
  }
  return h;
}

// A generated conversation, deterministic per seed.
std::vector<Message> generate(unsigned seed) {
  std::mt19937 rng(seed);
  auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  const char* words[] = {"alpha", "beta", "gamma", "delta", "naïve", "日本語", "tab\there",
                         "\"quoted\"", "back\\slash", "line\nbreak"};
  auto text = [&](int n) {
    std::string out;
    for (int i = 0; i < n; ++i) {
      out += (i ? " " : "") + std::string(words[rng() % std::size(words)]);
    }
    return out;
  };
  std::vector<Message> out;
  auto message = [&](Role role) {
    Message m;
    m.role = role;
    m.content.form = Content::Form::blocks;
    return m;
  };
  Message system = message(Role::system);
  system.content.form = Content::Form::string;
  system.content.text = "You are helpful. " + text(3);
  out.push_back(std::move(system));
  int call = 0;
  for (int turn = 0; turn < 4; ++turn) {
    Message user = message(Role::user);
    user.content.blocks.push_back(Block::make_text(text(5)));
    if (chance(40)) {
      Block image;
      image.type = BlockType::image;
      image.type_name = "image";
      image.source = MediaSource::from_url(chance(50) ? "data:image/png;base64,iVBORw0KGgo="
                                                      : "https://example.com/cat.png");
      user.content.blocks.push_back(std::move(image));
    }
    if (chance(40)) {
      user.name = "alice";
    }
    out.push_back(std::move(user));
    Message assistant = message(Role::assistant);
    if (chance(60)) {
      Block thinking;
      thinking.type = BlockType::thinking;
      thinking.type_name = "thinking";
      thinking.text = "Let me think. " + text(4);
      thinking.signature = "sig" + std::to_string(turn);
      assistant.content.blocks.push_back(std::move(thinking));
    }
    assistant.content.blocks.push_back(Block::make_text(text(6)));
    int calls = static_cast<int>(rng() % 3);
    std::vector<std::string> ids;
    for (int i = 0; i < calls; ++i) {
      std::string id = fmt::format("call_{}", call++);
      ids.push_back(id);
      std::string args = fmt::format(R"({{"query":"{}","limit":{},"nested":{{"ok":true}}}})",
                                     "q" + std::to_string(rng() % 100), rng() % 10);
      assistant.content.blocks.push_back(
          Block::make_tool_use(id, i % 2 ? "read_file" : "search", args));
    }
    out.push_back(std::move(assistant));
    if (!ids.empty()) {
      Message results = message(chance(50) ? Role::tool : Role::user);
      for (const std::string& id : ids) {
        Content content;
        content.form = Content::Form::string;
        content.text = "result " + text(3);
        bool error = chance(25);
        results.content.blocks.push_back(
            Block::make_tool_result(id, std::move(content), error ? std::optional<bool>(true)
                                                                  : std::nullopt));
      }
      out.push_back(std::move(results));
      Message final_answer = message(Role::assistant);
      final_answer.content.blocks.push_back(Block::make_text("So: " + text(4)));
      out.push_back(std::move(final_answer));
    }
  }
  return out;
}

// JSON text with object keys sorted, so that equal values compare equal.
std::string canonical_json(const JsonValue& value) {
  if (value.IsObject()) {
    std::vector<std::pair<std::string, std::string>> members;
    for (const auto& member : value.GetObject()) {
      members.emplace_back(std::string(view_of(member.name)), canonical_json(member.value));
    }
    std::sort(members.begin(), members.end());
    std::string out = "{";
    for (const auto& [key, text] : members) {
      out += (out.size() > 1 ? "," : "") + json_quote(key) + ":" + text;
    }
    return out + "}";
  }
  if (value.IsArray()) {
    std::string out = "[";
    for (const JsonValue& element : value.GetArray()) {
      out += (out.size() > 1 ? "," : "") + canonical_json(element);
    }
    return out + "]";
  }
  return to_json(value);
}

std::string canonical_input(const Block& block) {
  JsonDoc doc;
  std::string text = block.input_json();
  if (parse_json(text, doc)) {
    return "not JSON: " + text;
  }
  return canonical_json(doc);
}

// What a conversation says, as the lines both formats of a pair must agree on.
std::vector<std::string> facts(const std::vector<Message>& messages, const Holds& both) {
  std::vector<std::string> out;
  for (const Message& m : messages) {
    if (!m.is_turn()) {
      continue;
    }
    std::string role = m.role == Role::developer ? "system" : std::string(role_name(m.role));
    if (m.role == Role::tool) {
      role = "human";  // tool results ride in user messages in some formats
    }
    if ((m.role == Role::system || m.role == Role::developer) && !both.system) {
      continue;
    }
    if (!m.name.empty() && both.names) {
      out.push_back(role + " named " + *m.name);
    }
    if (m.content.is_string()) {
      if (!m.content.text.empty()) {
        out.push_back(role + " text: " + m.content.text);
      }
      continue;
    }
    for (const Block& b : m.content.blocks) {
      switch (b.type) {
        case BlockType::text:
          if (!b.text.empty()) {
            out.push_back(role + " text: " + b.text);
          }
          break;
        case BlockType::thinking:
          if (both.thinking) {
            out.push_back(role + " thinking: " + b.text);
            if (both.signatures) {
              out.push_back(role + " signature: " + b.signature.value_or(""));
            }
          }
          break;
        case BlockType::image:
          out.push_back(role + " image: " + b.source.to_url());
          break;
        case BlockType::tool_use:
          out.push_back(fmt::format("{} calls {} {} with {}", role, b.id, b.name, canonical_input(b)));
          break;
        case BlockType::tool_result:
          out.push_back(fmt::format("result for {}: {}{}", b.id, b.result.joined_text(),
                                    both.is_error && b.is_error.value_or(false) ? " (error)" : ""));
          break;
        default:
          out.push_back(fmt::format("{} block {}", role, block_type_name(b.type)));
          break;
      }
    }
  }
  return out;
}

// The features of `messages` that `target` cannot hold.
std::vector<std::string> unholdable(const std::vector<Message>& messages, const Holds& target) {
  std::set<std::string> out;
  for (const Message& m : messages) {
    if ((m.role == Role::system || m.role == Role::developer) && !target.system) {
      out.insert("system messages");
    }
    if (m.role == Role::system && target.system && !target.system_role) {
      out.insert("system roles");
    }
    if (!m.name.empty() && !target.names) {
      out.insert("names");
    }
    if (m.origin == Format::claude_code && !target.envelope) {
      out.insert("Claude Code record envelopes");
    }
    if (m.origin == Format::codex && !m.timestamp.empty() && !target.timestamps) {
      out.insert("timestamps");
    }
    if (m.origin == Format::codex && !m.is_turn() && !target.records) {
      out.insert("records");
    }
    if (m.origin == Format::gemini_cli && !m.meta->session_id.empty() && !target.sessions) {
      out.insert("session ids");  // a Gemini CLI session always has one
    }
    for (const Block& b : m.content.blocks) {
      if (b.type == BlockType::thinking && !target.thinking) {
        out.insert("thinking");
      }
      if (b.type == BlockType::thinking && b.signature && !b.signature->empty() &&
          target.thinking && !target.signatures) {
        out.insert("signatures");
      }
      if (b.type == BlockType::tool_result && b.is_error.value_or(false) && !target.is_error) {
        out.insert("error flags");
      }
    }
  }
  return {out.begin(), out.end()};
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) {
    out += line + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("every pair of formats round-trips what both can hold and reports the rest",
          "[formats]") {
  for (unsigned seed = 1; seed <= 6; ++seed) {
    for (const FormatInfo& a : all_formats()) {
      std::vector<Message> generated = generate(seed);
      std::string a_text = encode_all(generated, a.format);
      std::vector<Message> in_a = read_messages(a_text, {a.format, OnError::fail});
      for (const FormatInfo& b : all_formats()) {
        if (a.format == b.format) {
          continue;
        }
        INFO("seed " << seed << ": " << a.name << " -> " << b.name << " -> " << a.name);
        INFO("in " << a.name << ":\n" << a_text);
        ConvertResult there = convert_text(a_text, b.format, {a.format, OnError::fail});
        INFO("in " << b.name << ":\n" << there.out);
        ConvertResult back = convert_text(there.out, a.format, {b.format, OnError::fail});
        INFO("back in " << a.name << ":\n" << back.out);
        std::vector<Message> in_a_again = read_messages(back.out, {a.format, OnError::fail});

        Holds both = holds(a.format);
        Holds hb = holds(b.format);
        both.system &= hb.system;
        both.names &= hb.names;
        both.thinking &= hb.thinking;
        both.signatures &= hb.signatures;
        both.is_error &= hb.is_error;
        std::vector<std::string> expected = facts(in_a, both);
        std::vector<std::string> got = facts(in_a_again, both);
        if (hb.calls_with_results || holds(a.format).calls_with_results) {  // reordered
          std::sort(expected.begin(), expected.end());
          std::sort(got.begin(), got.end());
        }
        CHECK(join_lines(got) == join_lines(expected));

        // What B cannot hold is reported on the way there, and is an error under
        // --strict; when B holds everything, nothing is reported.
        std::vector<std::string> lost = unholdable(in_a, hb);
        INFO("B cannot hold: " << join_lines(lost));
        INFO("warnings: " << join_lines(there.warnings));
        if (lost.empty()) {
          CHECK(there.warnings.empty());
          CHECK_NOTHROW(convert_text(a_text, b.format, {a.format, OnError::fail}, true));
        } else {
          CHECK_FALSE(there.warnings.empty());
          CHECK_THROWS_AS(convert_text(a_text, b.format, {a.format, OnError::fail}, true), Error);
        }
      }
    }
  }
}
