#include "message_types.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/claude_code.h"
#include "text_match.h"

namespace convo {

namespace {

constexpr std::string_view k_types[] = {
    "human",      "user",    "ai",          "assistant", "system",    "developer",
    "tool",       "function", "chat",       "generic",   "remove",    "turn",
    "event",      "progress", "attachment", "summary",   "bookkeeping", "unknown",
    "meta",       "sidechain", "compact-summary", "api-error",
};

bool is_turn_with_role(const Message& message, Role role) {
  return message.kind == Kind::turn && message.role == role;
}

}  // namespace

bool is_tool_result_turn(const Message& message) {
  if (message.kind != Kind::turn || !message.content.is_blocks() ||
      message.content.blocks.empty()) {
    return false;
  }
  return std::all_of(message.content.blocks.begin(), message.content.blocks.end(),
                     [](const Block& b) { return b.type == BlockType::tool_result; });
}

bool has_type(const Message& message, std::string_view type) {
  const RecordMeta& e = *message.meta;
  if (type == "human" || type == "user") {
    return is_turn_with_role(message, Role::user) && !is_tool_result_turn(message);
  }
  if (type == "ai" || type == "assistant") {
    return is_turn_with_role(message, Role::assistant);
  }
  if (type == "system") {
    return is_turn_with_role(message, Role::system) || is_turn_with_role(message, Role::developer);
  }
  if (type == "developer") {
    return is_turn_with_role(message, Role::developer);
  }
  if (type == "tool") {
    return is_turn_with_role(message, Role::tool) ||
           (is_turn_with_role(message, Role::user) && is_tool_result_turn(message));
  }
  if (type == "function") {
    return is_turn_with_role(message, Role::function);
  }
  if (type == "chat" || type == "generic") {
    return is_turn_with_role(message, Role::custom);
  }
  if (type == "turn") {
    return message.kind == Kind::turn;
  }
  if (type == "remove") {
    return message.kind == Kind::remove;
  }
  if (type == "event") {
    return message.kind == Kind::event;
  }
  if (type == "progress") {
    return message.kind == Kind::progress;
  }
  if (type == "attachment") {
    return message.kind == Kind::attachment;
  }
  if (type == "summary") {
    return message.kind == Kind::summary;
  }
  if (type == "bookkeeping") {
    return message.kind == Kind::bookkeeping;
  }
  if (type == "unknown") {
    return message.kind == Kind::unknown;
  }
  if (type == "meta") {
    return e.is_meta;
  }
  if (type == "sidechain") {
    return e.is_sidechain;
  }
  if (type == "compact-summary") {
    return e.is_compact_summary;
  }
  if (type == "api-error") {
    return e.is_api_error;
  }
  return !message.record_type.empty() && message.record_type == type;
}

const std::vector<std::string>& type_vocabulary() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out(std::begin(k_types), std::end(k_types));
    out.insert(out.end(), std::begin(k_claude_code_bookkeeping_types),
               std::end(k_claude_code_bookkeeping_types));
    return out;
  }();
  return names;
}

TypeSet TypeSet::parse(std::string_view list) {
  TypeSet set;
  const auto& vocabulary = type_vocabulary();
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t comma = list.find(',', pos);
    std::string name(list.substr(pos, comma == std::string_view::npos ? std::string_view::npos
                                                                      : comma - pos));
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (!name.empty()) {
      if (std::find(vocabulary.begin(), vocabulary.end(), name) == vocabulary.end()) {
        std::string hint = closest_match(name, vocabulary);
        throw Error(hint.empty() ? fmt::format("unknown message type '{}' (see convo(1), TYPES)", name)
                                 : fmt::format("unknown message type '{}' (did you mean '{}'?)",
                                               name, hint),
                    ExitCode::usage);
      }
      set.m_names.push_back(std::move(name));
    }
    if (comma == std::string_view::npos) {
      break;
    }
    pos = comma + 1;
  }
  return set;
}

bool TypeSet::matches(const Message& message) const {
  return std::any_of(m_names.begin(), m_names.end(),
                     [&](const std::string& type) { return has_type(message, type); });
}

}  // namespace convo
