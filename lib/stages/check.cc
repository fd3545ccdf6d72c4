#include "stages/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "formats/format.h"
#include "formats/openai.h"
#include "formats/responses_items.h"
#include "io/output.h"
#include "stages/normalize_for_api.h"
#include "utf8.h"

namespace convo {

namespace {

// The API allows this many blocks marked with cache_control in one request.
constexpr std::size_t k_max_cache_breakpoints = 4;

constexpr CheckRule k_rules[] = {
    {"malformed-line", "a line that is not JSON, or not a record of its format"},
    {"duplicate-uuid", "a record reuses the uuid of an earlier one"},
    {"dangling-parent", "a parentUuid names no record of the conversation"},
    {"parent-cycle", "a record that is its own parent or ancestor"},
    {"invalid-utf8", "message text that is not valid UTF-8"},
    {"unknown-role", "a message role the API does not have"},
    {"empty-content", "a message with no content (the final assistant message may have none)"},
    {"empty-text", "a text block with empty text", true, false},
    {"whitespace-text", "a text block with only whitespace", true, false},
    {"block-not-allowed", "a content block of a type the message's role cannot hold"},
    {"unsigned-thinking", "a thinking block without its signature", true, false},
    {"tool-input-not-object", "a tool call whose input is not a JSON object"},
    {"tool-result-missing", "a tool call with no result in the message after it"},
    {"tool-result-orphan", "a tool result that answers no tool call of the message before it"},
    {"tool-result-not-first", "a tool result after other content in its message", true, false},
    {"duplicate-tool-use-id", "two tool calls with one id in one message"},
    {"duplicate-tool-result", "two results for one tool call"},
    {"error-result-not-text", "an error tool result holding more than text", true, false},
    {"final-assistant-whitespace", "the final assistant message ends in whitespace", true, false},
    {"too-many-cache-breakpoints", "more than 4 blocks marked with cache_control", true, false},
    // Budgets and policies (stages/budgets.h): on only when their flag is given.
    {"max-tokens", "a conversation whose recorded usage passes --max-tokens"},
    {"max-cost", "a conversation whose recorded usage costs more than --max-cost"},
    {"forbidden-tool", "a call of a tool --forbid-tools names"},
    {"max-tool-errors", "more failed tool results in a conversation than --max-tool-errors"},
    // check --secrets (lib/secrets.h): on only when asked for.
    {"secret-anthropic-key", "an Anthropic API key"},
    {"secret-openai-key", "an OpenAI API key"},
    {"secret-aws-access-key", "an AWS access key id"},
    {"secret-aws-secret-key", "an AWS secret access key in an assignment"},
    {"secret-github-token", "a GitHub token"},
    {"secret-gitlab-token", "a GitLab personal access token"},
    {"secret-google-api-key", "a Google API key"},
    {"secret-slack-token", "a Slack token"},
    {"secret-stripe-key", "a Stripe live key"},
    {"secret-private-key", "a private key block"},
    {"secret-jwt", "a JSON Web Token"},
    {"secret-generic-assignment", "a high-entropy password, token or secret assignment"},
    {"secret-pattern", "a match of a --secrets-pattern regex"},
    {"secret-known-value", "a value listed in a --secrets-file"},
};

constexpr std::string_view k_whitespace = " \t\n\r\f\v";

bool is_blank(std::string_view text) {
  return text.find_first_not_of(k_whitespace) == std::string_view::npos;
}

// A block's place shown as a line: a record's line, or for a message inside a
// multi-line document (a pretty-printed request body), the line of the block in it.
Location locate(const BlockOrigin& origin) {
  Location where = origin.where;
  where.column = 0;
  if (!origin.container || origin.container->raw.empty()) {
    return where;
  }
  const Container& c = *origin.container;
  std::string pointer;
  const FormatInfo& format = format_traits(c.format);
  bool blocks_addressable = format.blocks_at_content_index;
  // A Gemini instruction of several parts is a system message per part (element 0).
  std::size_t element = c.system_slot ? element_index(c, origin.slot) : origin.slot;
  if (c.system_slot && element == 0) {
    pointer = "/system";
  } else {
    std::size_t index = c.system_slot ? element - 1 : element;
    if (!c.array_key.empty()) {
      pointer = "/" + c.array_key;
    }
    pointer += fmt::format("/{}", index);
    if (!c.wrapper_key.empty()) {
      pointer += "/" + c.wrapper_key;
    }
    if (!format.message_member.empty()) {
      pointer += '/';
      pointer += format.message_member;
    }
    if (origin.index != BlockOrigin::k_whole && blocks_addressable) {
      pointer += "/content";
    }
  }
  if (origin.index != BlockOrigin::k_whole && blocks_addressable) {
    pointer += fmt::format("/{}", origin.index);
  }
  std::optional<std::size_t> offset = locate_json_pointer(c.raw, pointer);
  if (offset) {
    std::string_view before(c.raw.data(), std::min(*offset, c.raw.size()));
    where.line += static_cast<std::uint64_t>(std::count(before.begin(), before.end(), '\n'));
  }
  return where;
}

class Checker {
 public:
  Checker(const CheckOptions& options, std::vector<Problem>& out)
      : m_options(options), m_out(out) {}

  void conversation(const ApiConversation& view) {
    m_cache_breakpoints = 0;
    count_tool_breakpoints(view);
    std::unordered_map<std::string, std::size_t> use_lines;  // tool_use id -> line
    // A Claude Code session is sent with the next prompt after its last message, so
    // the rules for a final assistant message do not apply to it.
    bool continued =
        !view.empty() && format_traits(view.front().message.origin).continued_sessions;
    for (std::size_t i = 0; i < view.size(); ++i) {
      const ApiMessage& m = view[i];
      if (!role_allowed(m)) {
        continue;
      }
      bool final_assistant =
          !continued && i + 1 == view.size() && m.message.role == Role::assistant;
      content(m, final_assistant);
      if (m.message.role == Role::assistant) {
        // The API takes an id again in a later response (replays from providers
        // that number their calls per response do so); only one response may not.
        use_lines.clear();
        tool_uses(view, i, use_lines);
      } else if (m.message.role == Role::user || m.message.role == Role::tool) {
        tool_results(view, i);
      }
    }
    if (!view.empty() && !continued && anthropic_content(view.back().message)) {
      final_whitespace(view.back());
    }
  }

 private:
  bool anthropic() const { return m_options.target == CheckTarget::anthropic; }

  // Whether `m`'s content is held to the Messages API's rules: --for anthropic, or
  // by format when its format's messages feed that API (not Gemini's, which takes
  // any part in either turn and empty text parts, nor the AI SDK's).
  bool anthropic_content(const Message& m) const {
    return anthropic() &&
           (!m_options.by_format || format_traits(m.origin).anthropic_content_rules);
  }

  void add(const Location& where, std::string_view rule, std::string message) {
    m_out.push_back(Problem{where, rule, std::move(message)});
  }
  void add(const BlockOrigin& origin, std::string_view rule, std::string message) {
    add(locate(origin), rule, std::move(message));
  }

  static BlockOrigin origin_of(const ApiMessage& m, std::size_t block) {
    return m.block_origin(block);
  }

  // "a user", "an assistant".
  static std::string article(const std::string& word) {
    bool vowel = !word.empty() && std::string_view("aeiou").find(word[0]) != std::string_view::npos;
    return (vowel ? "an " : "a ") + word;
  }

  static std::string role_text(const Message& m) {
    return m.role == Role::custom ? m.custom_role : openai_role_name(m);
  }

  // The view has made tool messages user messages and developer messages system
  // ones; what else is left is foreign (a legacy function message, to Anthropic).
  bool role_allowed(const ApiMessage& api) {
    const Message& m = api.message;
    bool allowed = m.role == Role::user || m.role == Role::assistant || m.role == Role::system ||
                   (!anthropic() && (m.role == Role::function || m.role == Role::tool));
    if (!allowed) {
      add(api.origin, "unknown-role",
          fmt::format("role '{}' is not one the {} API has ({})", role_text(m),
                      anthropic() ? "Messages" : "Chat Completions",
                      anthropic() ? "user, assistant, system"
                                  : "system, developer, user, assistant, tool"));
    }
    return allowed;
  }

  // Why a message of its role cannot hold block `b` under the target's rules
  // ("only assistant messages may hold one"), or "" when it can.
  std::string_view not_allowed(const Message& m, const Block& b) const {
    if (anthropic()) {
      if (!anthropic_content(m) && b.type != BlockType::tool_use &&
          b.type != BlockType::tool_result && b.type != BlockType::thinking) {
        return "";  // media and the API's own parts in either turn
      }
      switch (anthropic_block_holder(b.type)) {
        case BlockHolder::assistant:
          return m.role == Role::assistant ? "" : "only assistant messages may hold one";
        case BlockHolder::user:
          return m.role == Role::user ? "" : "only user messages may hold one";
        case BlockHolder::none:
          return "the Messages API has no such block";
        case BlockHolder::any:
          return "";
      }
      return "";
    }
    switch (b.type) {
      case BlockType::text:
        return "";
      case BlockType::unknown:
        // Responses items (built-in tool calls) are items of their own.
        return follows_openai_api(m.origin) ? "" : "OpenAI has no such content part";
      case BlockType::thinking:
        // A provider's reasoning member, read as thinking: it rides along the
        // message as the provider sent it, outside the content; a Responses
        // reasoning item is an item of its own.
        return is_openai_reasoning(b) || holds_responses_items(m.origin)
                   ? ""
                   : "OpenAI has no such content part";
      case BlockType::tool_use:
        return m.role == Role::assistant ? "" : "only assistant messages may call tools";
      case BlockType::tool_result:
        return m.role == Role::user || m.role == Role::tool ? ""
                                                            : "only tool messages may hold one";
      case BlockType::image:
      case BlockType::audio:
      case BlockType::file:
      case BlockType::document:
        return m.role == Role::assistant ? "only user and system messages may hold one" : "";
      default:
        return "OpenAI has no such content part";
    }
  }

  void content(const ApiMessage& api, bool final_assistant) {
    const Message& m = api.message;
    const Content& c = m.content;
    std::string role = role_text(m);
    bool empty = c.is_string() ? c.text.empty() : !c.is_blocks() || c.blocks.empty();
    if (empty) {
      bool allowed =
          anthropic() ? final_assistant : (m.role != Role::assistant || m.has_tool_uses());
      if (!allowed) {
        add(api.origin, "empty-content", fmt::format("{} message has no content", role));
      }
      return;
    }
    if (c.is_string()) {
      if (anthropic_content(m) && is_blank(c.text)) {
        add(api.origin, "whitespace-text",
            fmt::format("{} message content is only whitespace", role));
      }
      return;
    }
    bool other_seen = false;
    bool not_first_reported = false;
    for (std::size_t k = 0; k < c.blocks.size(); ++k) {
      const Block& b = c.blocks[k];
      const BlockOrigin& where = origin_of(api, k);
      if (std::string_view why = not_allowed(m, b); !why.empty()) {
        std::string_view type =
            b.type_name.empty() ? block_type_name(b.type) : std::string_view(b.type_name);
        add(where, "block-not-allowed",
            fmt::format("{} block in {} message: {}", type, article(role), why));
      }
      if (!b.cache_control.empty()) {
        cache_breakpoint(where);
      }
      switch (b.type) {
        case BlockType::text:
          text_block(m, b.text, where, "");
          break;
        case BlockType::thinking:
          // Checked by its own format's rules, a format whose thinking has no
          // signature to send back (Gemini's thoughts, the AI SDK's reasoning) is not
          // wrong to have none; --for anthropic asks the API's question.
          if (anthropic() && (!b.signature || b.signature->empty()) &&
              (!m_options.by_format || format_traits(m.origin).thinking_signed)) {
            add(where, "unsigned-thinking", "thinking block has no signature");
          }
          break;
        case BlockType::tool_use:
          tool_input(b, where);
          break;
        case BlockType::tool_result:
          result_content(m, b, where);
          if (anthropic_content(m) && other_seen && !not_first_reported) {
            add(where, "tool-result-not-first",
                fmt::format("tool_result for {} follows other content: tool results must come "
                            "first in a user message",
                            b.id));
            not_first_reported = true;
          }
          break;
        default:
          break;
      }
      if (b.type != BlockType::tool_result) {
        other_seen = true;
      }
    }
  }

  void text_block(const Message& m, std::string_view text, const BlockOrigin& where,
                  std::string_view in) {
    if (!anthropic_content(m)) {
      return;
    }
    if (text.empty()) {
      add(where, "empty-text", fmt::format("empty text block{}", in));
    } else if (is_blank(text)) {
      add(where, "whitespace-text", fmt::format("text block{} holds only whitespace", in));
    }
  }

  void result_content(const Message& m, const Block& b, const BlockOrigin& where) {
    if (!b.result.is_blocks()) {
      return;
    }
    std::string in = fmt::format(" in the result for {}", b.id);
    bool error = b.is_error.value_or(false);
    for (const Block& inner : b.result.blocks) {
      if (inner.type == BlockType::text) {
        text_block(m, inner.text, where, in);
      } else if (error && anthropic_content(m)) {
        add(where, "error-result-not-text",
            fmt::format("error tool_result for {} holds a {} block; an error result may hold "
                        "only text",
                        b.id,
                        inner.type_name.empty() ? block_type_name(inner.type)
                                                : std::string_view(inner.type_name)));
      }
      if (!inner.cache_control.empty()) {
        cache_breakpoint(where);
      }
    }
  }

  void tool_input(const Block& b, const BlockOrigin& where) {
    const char* actual = nullptr;
    if (!b.input.empty()) {
      JsonDoc parsed;
      if (parse_json(b.input, parsed)) {
        actual = "not JSON";
      } else if (!parsed.IsObject()) {
        actual = json_type_name(parsed);
      }
    } else if (b.input_value != nullptr && !b.input_value->IsObject()) {
      actual = json_type_name(*b.input_value);
    } else if (b.input_value == nullptr && b.input.empty() && anthropic() && b.json != nullptr &&
               find_member(*b.json, "input") == nullptr) {
      actual = "missing";
    }
    if (actual != nullptr) {
      add(where, "tool-input-not-object",
          fmt::format("tool_use {}: input is {}, not an object", b.id, actual));
    }
  }

  void cache_breakpoint(const BlockOrigin& where) {
    if (anthropic() && ++m_cache_breakpoints == k_max_cache_breakpoints + 1) {
      add(where, "too-many-cache-breakpoints",
          fmt::format("more than {} blocks marked with cache_control", k_max_cache_breakpoints));
    }
  }

  // A request body's tools count too.
  void count_tool_breakpoints(const ApiConversation& view) {
    if (!anthropic()) {
      return;
    }
    for (const ApiMessage& m : view) {
      const auto& container = m.origin.container;
      if (!container || container->array_key != "messages") {
        continue;
      }
      const JsonValue* tools = find_member(container->source->doc, "tools");
      if (tools != nullptr && tools->IsArray()) {
        for (const JsonValue& tool : tools->GetArray()) {
          const JsonValue* marker = find_member(tool, "cache_control");
          if (marker != nullptr && !marker->IsNull()) {
            cache_breakpoint(m.origin);
          }
        }
      }
      return;
    }
  }

  void tool_uses(const ApiConversation& view, std::size_t i,
                 std::unordered_map<std::string, std::size_t>& use_lines) {
    const ApiMessage& m = view[i];
    std::unordered_set<std::string_view> answered;
    if (i + 1 < view.size() &&
        (view[i + 1].message.role == Role::user || view[i + 1].message.role == Role::tool)) {
      for (const Block* result : view[i + 1].message.tool_results()) {
        answered.insert(result->id);
      }
    }
    const auto& blocks = m.message.content.blocks;
    if (!m.message.content.is_blocks()) {
      return;
    }
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      const Block& b = blocks[k];
      if (b.type != BlockType::tool_use) {
        continue;
      }
      Location where = locate(origin_of(m, k));
      auto [it, added] = use_lines.emplace(b.id, where.line);
      if (!added) {
        add(where, "duplicate-tool-use-id",
            fmt::format("tool_use id {} is already used (at line {})", b.id, it->second));
        continue;
      }
      // A response body ends in the calls its request is to answer: nothing to miss.
      bool response_end = i + 1 == view.size() && is_response(m.message);
      if (answered.count(b.id) == 0 && !response_end) {
        add(where, "tool-result-missing",
            anthropic() ? fmt::format("tool_use {} ({}) has no tool_result in the next message",
                                      b.id, b.name)
                        : fmt::format("tool call {} ({}) has no tool message right after it", b.id,
                                      b.name));
      }
    }
  }

  void tool_results(const ApiConversation& view, std::size_t i) {
    const ApiMessage& m = view[i];
    if (!m.message.content.is_blocks()) {
      return;
    }
    std::unordered_set<std::string_view> calls;
    if (i > 0 && view[i - 1].message.role == Role::assistant) {
      for (const Block* use : view[i - 1].message.tool_uses()) {
        calls.insert(use->id);
      }
    }
    std::unordered_set<std::string_view> seen;
    const auto& blocks = m.message.content.blocks;
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      const Block& b = blocks[k];
      if (b.type != BlockType::tool_result) {
        continue;
      }
      if (calls.count(b.id) == 0) {
        add(origin_of(m, k), "tool-result-orphan",
            anthropic()
                ? fmt::format("tool_result for {} answers no tool_use in the message before it",
                              b.id)
                : fmt::format("tool message for {} answers no tool call of the assistant "
                              "message before it",
                              b.id));
      } else if (!seen.insert(b.id).second) {
        add(origin_of(m, k), "duplicate-tool-result", fmt::format("second result for {}", b.id));
      }
    }
  }

  void final_whitespace(const ApiMessage& last) {
    const Message& m = last.message;
    if (m.role != Role::assistant) {
      return;
    }
    const Text* text = nullptr;
    BlockOrigin where = last.origin;
    if (m.content.is_string()) {
      text = &m.content.text;
    } else if (m.content.is_blocks() && !m.content.blocks.empty() &&
               m.content.blocks.back().type == BlockType::text) {
      text = &m.content.blocks.back().text;
      where = origin_of(last, m.content.blocks.size() - 1);
    }
    if (text != nullptr && !text->empty() && !is_blank(*text) &&
        k_whitespace.find(text->back()) != std::string_view::npos) {
      add(where, "final-assistant-whitespace",
          "the final assistant message ends in whitespace, which the API rejects");
    }
  }

  const CheckOptions& m_options;
  std::vector<Problem>& m_out;
  std::size_t m_cache_breakpoints = 0;
};

}  // namespace

std::span<const CheckRule> check_rules() {
  return k_rules;
}

void InputCheck::conversation(std::vector<Message> records, std::span<const RecordLink> held) {
  // The file's integrity, across conversations: a resumed session's first record
  // points into the session before it, in the same file. The links of records held
  // without a Message come in line order among the records'.
  auto link = held.begin();
  auto note_held_before = [&](std::uint64_t line) {
    for (; link != held.end() && link->where.line < line; ++link) {
      note_link(link->uuid, link->parent, link->where);
    }
  };
  for (const Message& record : records) {
    note_held_before(record.where.line);
    if (record.kind == Kind::invalid) {
      m_problems.push_back(Problem{
          record.where, "malformed-line",
          record.content.text.empty() ? std::string("not a valid record") : record.content.text.str()});
      continue;
    }
    note_link(record.meta->uuid, record.meta->parent_uuid, record.where);
    invalid_utf8(record);
  }
  note_held_before(UINT64_MAX);
  CheckOptions options = m_options;
  if (options.by_format) {
    auto first = std::find_if(records.begin(), records.end(),
                              [](const Message& m) { return m.kind != Kind::invalid; });
    if (first != records.end()) {
      options.target = follows_openai_api(first->origin) ? CheckTarget::openai
                                                         : CheckTarget::anthropic;
    }
  }
  Checker checker(options, m_problems);
  NormalizeOptions view_options;
  view_options.sidechains = true;  // a subagent's requests go to the API too
  bool tool_messages = options.target == CheckTarget::openai;
  for (const ApiConversation& view : api_view(std::move(records), view_options, tool_messages)) {
    checker.conversation(view);
  }
}

void InputCheck::note_link(std::string_view uuid_text, std::string_view parent_uuid,
                           const Location& where) {
  std::uint32_t uuid = k_no_uuid;
  if (!uuid_text.empty()) {
    uuid = intern(uuid_text);
    Uuid& entry = m_uuids[uuid];
    if (!entry.is_record) {
      entry.is_record = true;
      entry.line = where.line;
      ++m_record_uuids;
    } else {
      m_problems.push_back(
          Problem{where, "duplicate-uuid",
                  fmt::format("uuid {} is used again (first at line {})", uuid_text, entry.line)});
    }
  }
  if (!parent_uuid.empty() || !uuid_text.empty()) {
    // Roots too: with a uuid used twice, the first record's parent is the one.
    std::uint32_t parent = parent_uuid.empty() ? k_no_uuid : intern(parent_uuid);
    if (uuid != k_no_uuid && m_uuids[uuid].first_link == k_no_uuid) {
      m_uuids[uuid].first_link = static_cast<std::uint32_t>(m_links.size());
    }
    m_links.push_back(Link{uuid, parent, where});
  }
}

void InputCheck::invalid_utf8(const Message& record) {
  auto report = [&](std::string_view text, std::string_view what) {
    if (auto bad = find_invalid_utf8(text)) {
      m_problems.push_back(Problem{
          record.where, "invalid-utf8",
          fmt::format("{} is not valid UTF-8 (byte 0x{:02x} at offset {}), which the API rejects",
                      what, static_cast<unsigned>(static_cast<unsigned char>(text[*bad])), *bad)});
      return true;
    }
    return false;
  };
  if (record.content.is_string()) {
    report(record.content.text, "the message text");
  } else if (record.content.is_blocks()) {
    for (const Block& block : record.content.blocks) {
      if (report(block.text, fmt::format("the text of a {} block", block.type_name.empty()
                                                                       ? std::string("text")
                                                                       : block.type_name))) {
        return;
      }
    }
  }
}

std::uint32_t InputCheck::intern(std::string_view uuid) {
  std::size_t hash = std::hash<std::string_view>{}(uuid);
  if ((m_uuids.size() + 1) * 2 > m_uuid_slots.size()) {
    // At most half full: double, and place every id again.
    std::vector<std::uint32_t> slots(std::max<std::size_t>(1024, m_uuid_slots.size() * 2), 0);
    std::size_t mask = slots.size() - 1;
    for (std::uint32_t id = 0; id < m_uuids.size(); ++id) {
      std::size_t at = m_uuids[id].hash & mask;
      while (slots[at] != 0) {
        at = (at + 1) & mask;
      }
      slots[at] = id + 1;
    }
    m_uuid_slots.swap(slots);
  }
  std::size_t mask = m_uuid_slots.size() - 1;
  std::size_t at = hash & mask;
  for (; m_uuid_slots[at] != 0; at = (at + 1) & mask) {
    std::uint32_t id = m_uuid_slots[at] - 1;
    if (m_uuids[id].hash == hash && uuid_text(id) == uuid) {
      return id;
    }
  }
  auto id = static_cast<std::uint32_t>(m_uuids.size());
  m_uuid_slots[at] = id + 1;
  Uuid entry;
  entry.offset = m_uuid_bytes.size();
  entry.size = static_cast<std::uint32_t>(uuid.size());
  entry.hash = hash;
  m_uuids.push_back(entry);
  m_uuid_bytes += uuid;
  return id;
}

void InputCheck::cycles() {
  // A record's ancestors are followed (from the first record with each uuid) until
  // a root, a uuid already cleared, or one seen on this walk (a cycle).
  std::vector<std::uint8_t> state(m_uuids.size(), 0);  // 1: on the current walk, 2: cleared
  std::vector<std::uint32_t> walk;
  for (std::size_t i = 0; i < m_links.size(); ++i) {
    const Link& start = m_links[i];
    if (start.uuid == k_no_uuid || state[start.uuid] == 2) {
      continue;
    }
    if (start.uuid == start.parent && m_uuids[start.uuid].first_link == i) {
      m_problems.push_back(Problem{
          start.where, "parent-cycle",
          fmt::format("record {} names itself as its parent", uuid_text(start.uuid))});
      state[start.uuid] = 2;
      continue;
    }
    walk.clear();
    std::uint32_t at = start.uuid;
    for (;;) {
      std::uint8_t& s = state[at];
      if (s == 2) {
        break;
      }
      if (s == 1) {
        // `at` is on this walk: the walk from there on is a cycle.
        auto first = std::find(walk.begin(), walk.end(), at);
        std::size_t length = static_cast<std::size_t>(walk.end() - first);
        if (length > 1) {
          const Link& link = m_links[m_uuids[at].first_link];
          m_problems.push_back(Problem{link.where, "parent-cycle",
                                       fmt::format("record {} is its own ancestor ({} records "
                                                   "in the cycle)",
                                                   uuid_text(at), length)});
        }
        break;
      }
      s = 1;
      walk.push_back(at);
      std::uint32_t next = m_uuids[at].first_link;
      if (next == k_no_uuid || m_links[next].parent == k_no_uuid) {
        break;
      }
      at = m_links[next].parent;
    }
    for (std::uint32_t id : walk) {
      state[id] = 2;
    }
  }
}

std::vector<Problem> InputCheck::finish(InputLinks* links) {
  // Parent links mean something only where records have uuids (Claude Code).
  if (m_record_uuids == 0) {
    m_links.clear();
  }
  cycles();
  for (const Link& link : m_links) {
    if (link.parent != k_no_uuid && !m_uuids[link.parent].is_record) {
      std::string_view parent = uuid_text(link.parent);
      Problem problem{link.where, "dangling-parent",
                      fmt::format("parentUuid {} names no record of this file", parent)};
      if (links != nullptr) {
        links->dangling.push_back(InputLinks::Dangling{std::string(parent), std::move(problem)});
      } else {
        m_problems.push_back(std::move(problem));
      }
    }
  }
  if (links != nullptr) {
    links->uuids.reserve(links->uuids.size() + m_record_uuids);
    for (const Uuid& uuid : m_uuids) {
      if (uuid.is_record) {
        links->uuids.push_back(uuid.hash);
      }
    }
  }
  m_links.clear();
  m_uuids.clear();
  m_uuid_slots.clear();
  m_uuid_bytes.clear();
  m_record_uuids = 0;
  std::vector<Problem> problems;
  problems.swap(m_problems);
  std::stable_sort(problems.begin(), problems.end(),
                   [](const Problem& a, const Problem& b) { return a.where.line < b.where.line; });
  return problems;
}

std::vector<Problem> check_conversation(std::vector<Message> records, const CheckOptions& options) {
  InputCheck check(options);
  check.conversation(std::move(records));
  return check.finish();
}

std::unique_ptr<StreamStage> make_check_stage(GroupBy group_by, bool as_bytes) {
  // The sink does the checking: it needs each conversation whole, as it was read,
  // but not the records' bytes (a check writes no record; a document's lines are
  // found in its container's).
  return make_api_view_stage(
      [](std::vector<Message> conversation) {
        std::vector<std::vector<Message>> out;
        out.push_back(std::move(conversation));
        return out;
      },
      group_by, /*keep_bytes=*/false, as_bytes);
}

}  // namespace convo
