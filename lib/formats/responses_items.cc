#include "formats/responses_items.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "formats/api_body.h"
#include "formats/api_error.h"
#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/object_writer.h"

namespace convo {

namespace {

// Item types other than `message` (openai-node src/resources/responses/responses.ts).
constexpr std::string_view k_item_types[] = {
    "function_call",         "function_call_output",   "reasoning",
    "web_search_call",       "file_search_call",       "computer_call",
    "computer_call_output",  "image_generation_call",  "code_interpreter_call",
    "local_shell_call",      "local_shell_call_output", "mcp_call",
    "mcp_list_tools",        "mcp_approval_request",   "mcp_approval_response",
    "custom_tool_call",      "custom_tool_call_output", "item_reference",
    "tool_search_call",      "tool_search_output",     "shell_call",
    "shell_call_output",     "apply_patch_call",       "apply_patch_call_output",
    "compaction",            "ghost_snapshot"};

// Content part types only the Responses API uses.
constexpr std::string_view k_part_types[] = {"input_text", "output_text", "input_image",
                                             "input_file", "input_audio", "refusal"};

// Inline compares, the size and first byte before the rest (no name in a set is
// empty): it is asked of every member of every item, where std::find's out-of-line
// string_view compares took a fortieth of a conversion's instructions.
template <std::size_t N>
bool one_of(std::string_view value, const std::string_view (&set)[N]) {
  return std::any_of(std::begin(set), std::end(set), [value](std::string_view name) {
    return name.size() == value.size() && name.front() == value.front() &&
           std::memcmp(name.data(), value.data(), name.size()) == 0;
  });
}

// --- Decoding ---

// True when a file's name, or the path of its URL, ends in ".pdf": an input_file has
// no place for a media type, and the API tells a PDF by its name.
bool names_pdf(std::string_view name) {
  name = name.substr(0, name.find_first_of("?#"));
  return name.ends_with(".pdf");
}

void decode_part(const JsonValue& part, const std::string& path,
                 const std::shared_ptr<const Source>& owner, Block& block) {
  auto type = begin_block(part, path, owner, block, "a content part (an object)");
  if (!type) {
    return;
  }
  if (*type == "input_text" || *type == "output_text" || *type == "text") {
    block.type = BlockType::text;
    block.text = std::string(required_string(part, "text", path, "text part"));
  } else if (*type == "refusal") {
    block.type = BlockType::text;
    block.text = std::string(required_string(part, "refusal", path, "refusal part"));
  } else if (*type == "input_image") {
    block.type = BlockType::image;
    if (optional_string(part, "image_url", path)) {
      block.source = MediaSource::from_url(*find_member(part, "image_url"), owner);
    } else if (auto id = optional_string(part, "file_id", path)) {
      block.source.type = MediaSource::Type::file_id;
      block.source.data = std::string(*id);
    }
  } else if (*type == "input_file") {
    block.type = BlockType::file;
    if (optional_string(part, "file_data", path)) {
      block.source = MediaSource::from_url(*find_member(part, "file_data"), owner);
    } else if (auto id = optional_string(part, "file_id", path)) {
      block.source.type = MediaSource::Type::file_id;
      block.source.data = std::string(*id);
    } else if (optional_string(part, "file_url", path)) {
      block.source = MediaSource::from_url(*find_member(part, "file_url"), owner);
    }
    block.name = std::string(optional_string(part, "filename", path).value_or(""));
    bool by_url = block.source.type == MediaSource::Type::url;
    if (block.source.media_type.empty() &&
        (names_pdf(block.name) || (by_url && names_pdf(block.source.data.str())))) {
      block.source.media_type = "application/pdf";
    }
  } else {
    block.type = BlockType::unknown;
  }
}

void decode_parts(const JsonValue* value, const std::string& path,
                  const std::shared_ptr<const Source>& owner, Content& out) {
  decode_content_list(value, path, owner, out, decode_part,
                      "a string or an array of content parts");
}

Role role_of(std::string_view role, Message& message) {
  static constexpr std::pair<std::string_view, Role> k_roles[] = {
      {"system", Role::system}, {"developer", Role::developer}, {"user", Role::user},
      {"assistant", Role::assistant}, {"tool", Role::tool}};
  for (const auto& [name, value] : k_roles) {
    if (name == role) {
      return value;
    }
  }
  message.custom_role = std::string(role);
  return Role::custom;
}

// One block holding the whole item: a built-in tool's call or result, kept as it is.
void decode_opaque(const JsonValue& item, std::string_view type, Message& message) {
  // Built in place: a Block is large, and moving one in costs as much as filling it.
  Block& block = message.content.blocks.emplace_back();
  block.type = BlockType::unknown;
  block.type_name = std::string(type);
  block.json = &item;
  block.json_owner = message.source;
  if (auto role = string_member(item, "role")) {
    message.role = role_of(*role, message);  // additional_tools: a developer's
  } else {
    message.role = type.ends_with("_output") || type.ends_with("_response") ? Role::user
                                                                            : Role::assistant;
  }
  message.content.form = Content::Form::blocks;
}

void decode_call(const JsonValue& item, const std::string& path, std::string_view type,
                 Message& message, std::string_view raw) {
  Block& block = message.content.blocks.emplace_back();
  block.type = BlockType::tool_use;
  block.type_name = "tool_use";  // a custom call is told by its item's type
  block.json = &item;
  block.json_owner = message.source;
  block.id = std::string(optional_string(item, "call_id", path).value_or(""));
  block.name = std::string(optional_string(item, "name", path).value_or(""));
  if (type == "custom_tool_call") {
    // Free-text input: other formats get it as the object {"input": TEXT}, TEXT as
    // it was read when it is escaped as the writer escapes (a patch is mostly escapes).
    std::string_view text = optional_string(item, "input", path).value_or("");
    const JsonValue* input = find_member(item, "input");
    std::string_view as_read = input != nullptr && input->IsString() && message.source != nullptr
                                   ? json_as_read(*input, message.source->parsed_text(), raw)
                                   : std::string_view();
    if (!as_read.empty()) {
      constexpr std::string_view k_open = "{\"input\":";
      block.input.reserve(k_open.size() + as_read.size() + 1);
      block.input.append(k_open).append(as_read).push_back('}');
      block.input_as_written = true;
    } else {
      PooledBuffer pooled;
      rapidjson::StringBuffer& buffer = pooled.get();
      JsonWriter w(buffer);
      w.StartObject();
      w.Key("input");
      write_string(w, text);
      w.EndObject();
      block.input.assign(buffer.GetString(), buffer.GetSize());
      block.input_as_written = true;
    }
  } else if (const JsonValue* arguments = find_member(item, "arguments")) {
    if (arguments->IsString()) {
      block.input = std::string(view_of(*arguments));
    } else if (arguments->IsObject()) {
      block.input_value = arguments;
    } else if (!arguments->IsNull()) {
      wrong_type(member_path(path, "arguments"), "a JSON string", *arguments);
    }
  }
  message.role = Role::assistant;
  message.content.form = Content::Form::blocks;
}

void decode_output(const JsonValue& item, const std::string& path, Message& message) {
  Content result;
  const JsonValue* output = find_member(item, "output");
  if (output != nullptr && (output->IsString() || output->IsArray() || output->IsNull())) {
    decode_parts(output, member_path(path, "output"), message.source, result);
  } else {
    result.form = Content::Form::absent;  // another shape: kept in the item
  }
  Block block = Block::make_tool_result(
      std::string(optional_string(item, "call_id", path).value_or("")), std::move(result));
  block.type_name = "tool_result";  // a custom call's output is told by its item's type
  block.json = &item;
  block.json_owner = message.source;
  message.role = Role::tool;
  message.content.form = Content::Form::blocks;
  message.content.blocks.push_back(std::move(block));
}

// The text of a reasoning item: its summary parts, else its reasoning_text content
// (open-weight models), joined by blank lines.
void decode_reasoning(const JsonValue& item, const std::string& path, Message& message) {
  std::string text;
  auto add = [&](const JsonValue* list, std::string_view key, std::string_view list_key) {
    for_each_object(list, member_path(path, list_key), "an array of parts", "a part (an object)",
                    [&](const JsonValue& part, const std::string&) {
                      if (auto t = string_member(part, key)) {
                        text += text.empty() ? "" : "\n\n";
                        text += *t;
                      }
                    });
  };
  add(find_member(item, "summary"), "text", "summary");
  if (text.empty()) {
    add(find_member(item, "content"), "text", "content");
  }
  const JsonValue* id = find_member(item, "id");
  const JsonValue* encrypted = find_member(item, "encrypted_content");
  bool unread = (id != nullptr && !id->IsNull()) || (encrypted != nullptr && !encrypted->IsNull());
  if (text.empty() && unread) {
    // Nothing readable (an id or encrypted content only): an opaque block, which only
    // this family writes back; an empty thinking block would be noise elsewhere. An
    // item with neither is empty thinking (another API's, as convo writes it).
    decode_opaque(item, "reasoning", message);
    return;
  }
  Block& block = message.content.blocks.emplace_back();
  block.type = BlockType::thinking;
  block.type_name = "thinking";  // not "reasoning": OpenAI chat's member of that name
  block.text = std::move(text);
  block.json = &item;
  block.json_owner = message.source;
  message.role = Role::assistant;
  message.content.form = Content::Form::blocks;
}

}  // namespace

bool holds_responses_items(Format format) {
  return format == Format::openai_responses || format == Format::codex;
}

void decode_responses_item(const JsonValue& item, const std::string& path, Message& message,
                           std::string_view raw) {
  if (!item.IsObject()) {
    wrong_type(path, "a Responses item (an object)", item);
  }
  message.kind = Kind::turn;
  if (auto id = string_member(item, "id")) {
    message.id = std::string(*id);
  }
  auto type = optional_string(item, "type", path);
  if (!type || *type == "message") {
    auto role = optional_string(item, "role", path);
    if (!role) {
      if (!type) {
        message.kind = Kind::unknown;
        message.role = Role::none;
        if (const JsonValue* error = find_member(item, "error"); error && error->IsObject()) {
          message.record_type = "error";  // the API's error in place of a response body
        }
        return;
      }
      throw DecodeError(path, "message item has no \"role\"");
    }
    message.role = role_of(*role, message);
    decode_parts(find_member(item, "content"), member_path(path, "content"), message.source,
                 message.content);
    return;
  }
  if (*type == "function_call" || *type == "custom_tool_call") {
    decode_call(item, path, *type, message, raw);
  } else if (*type == "function_call_output" || *type == "custom_tool_call_output") {
    decode_output(item, path, message);
  } else if (*type == "reasoning") {
    decode_reasoning(item, path, message);
  } else {
    decode_opaque(item, *type, message);
  }
}

int sniff_responses_item(const JsonValue& record) {
  if (!record.IsObject()) {
    return 0;
  }
  auto type = string_member(record, "type");
  auto role = string_member(record, "role");
  if (type && one_of(*type, k_item_types)) {
    return find_member(record, "payload") != nullptr ? -1 : 5;
  }
  if (!role || (type && *type != "message")) {
    return type ? -1 : 0;
  }
  if (find_member(record, "stop_reason") != nullptr || find_member(record, "model") != nullptr) {
    return -1;  // an Anthropic response message
  }
  const JsonValue* content = find_member(record, "content");
  if (content == nullptr || !content->IsArray()) {
    return 0;
  }
  int score = 0;
  for (const JsonValue& part : content->GetArray()) {
    auto part_type = part.IsObject() ? string_member(part, "type") : std::nullopt;
    if (!part_type) {
      continue;
    }
    if (!one_of(*part_type, k_part_types)) {
      return -1;
    }
    score = 5;
  }
  return type ? std::max(score, 3) : score;  // "type": "message" marks an item
}

namespace {

// Whether `key` is the literal `name`: a compare of a length known when compiled,
// inlined (std::string_view's == was an out-of-line call and a memcmp each).
template <std::size_t N>
bool is(std::string_view key, const char (&name)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), name, N - 1) == 0;
}

// An item's member by what the loss count makes of it.
enum class ItemMember : std::uint8_t { modelled, encrypted_content, id, status, phase, other };

// Every format holds type, role, content, call_id, name, arguments, input, output
// and summary; the others are named when a target cannot hold them.
ItemMember item_member(std::string_view key) {
  switch (key.size()) {
    case 2:
      return is(key, "id") ? ItemMember::id : ItemMember::other;
    case 4:
      return is(key, "type") || is(key, "role") || is(key, "name") ? ItemMember::modelled
                                                                    : ItemMember::other;
    case 5:
      return is(key, "input") ? ItemMember::modelled
             : is(key, "phase") ? ItemMember::phase
                                : ItemMember::other;
    case 6:
      return is(key, "output") ? ItemMember::modelled
             : is(key, "status") ? ItemMember::status
                                 : ItemMember::other;
    case 7:
      return is(key, "content") || is(key, "call_id") || is(key, "summary") ? ItemMember::modelled
                                                                             : ItemMember::other;
    case 9:
      return is(key, "arguments") ? ItemMember::modelled : ItemMember::other;
    case 17:
      return is(key, "encrypted_content") ? ItemMember::encrypted_content : ItemMember::other;
    default:
      return ItemMember::other;
  }
}

// The value of a string member `type` of `value`, an object, or nullopt.
std::optional<std::string_view> type_of(const JsonValue& value) {
  for (const auto& member : value.GetObject()) {
    if (is(view_of(member.name), "type")) {
      return member.value.IsString() ? std::optional(view_of(member.value)) : std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

// One pass over the item's members finds its type and parts; the names are then
// given in the order the target's report has always listed them.
void responses_item_unmodelled(const Message& message,
                               const std::function<void(std::string_view)>& unheld) {
  if (message.json == nullptr || !message.json->IsObject() || message.kind != Kind::turn) {
    return;
  }
  // Each the first of its name, as find_member finds them.
  const JsonValue* type_value = nullptr;
  const JsonValue* content = nullptr;
  const JsonValue* output = nullptr;
  const JsonValue* summary = nullptr;
  bool unmodelled = false;  // a member past those every format holds
  for (const auto& member : message.json->GetObject()) {
    std::string_view key = view_of(member.name);
    switch (item_member(key)) {
      case ItemMember::modelled: {
        const JsonValue** slot = is(key, "type")      ? &type_value
                                 : is(key, "content") ? &content
                                 : is(key, "output")  ? &output
                                 : is(key, "summary") ? &summary
                                                      : nullptr;
        if (slot != nullptr && *slot == nullptr) {
          *slot = &member.value;
        }
        break;
      }
      default:
        unmodelled = unmodelled || !member.value.IsNull();
        break;
    }
  }
  const std::string_view type =
      type_value != nullptr && type_value->IsString() ? view_of(*type_value) : "message";
  const bool message_item = is(type, "message");
  const bool custom = is(type, "custom_tool_call") || is(type, "custom_tool_call_output");
  const bool opaque = !message_item && !custom && !is(type, "function_call") &&
                      !is(type, "function_call_output") && !is(type, "reasoning");
  const bool one_opaque_block = message.content.is_blocks() && message.content.blocks.size() == 1 &&
                                message.content.blocks.front().type == BlockType::unknown;
  if (opaque || one_opaque_block) {
    return;  // the whole item is a block the target counts
  }
  if (custom) {
    // Free-text input (Codex's apply_patch) goes elsewhere as a function call with
    // the input {"input": TEXT}, and comes back as one: that it was custom is lost.
    unheld("custom tool calls");
  }
  // A text part's members beyond its text (annotations, prompt_cache_breakpoint), and
  // an image part's detail but the API's default (written back as "auto").
  const JsonValue* parts = message_item ? content : is(type, "function_call_output") ? output : nullptr;
  if (parts != nullptr && parts->IsArray()) {
    for (const JsonValue& part : parts->GetArray()) {
      auto part_type = part.IsObject() ? type_of(part) : std::nullopt;
      if (part_type && is(*part_type, "input_image")) {
        if (auto detail = string_member(part, "detail"); detail && *detail != "auto") {
          unheld("detail of image blocks");
        }
        continue;
      }
      if (!part_type || (!is(*part_type, "input_text") && !is(*part_type, "output_text"))) {
        continue;
      }
      for (const auto& member : part.GetObject()) {
        std::string_view key = view_of(member.name);
        if (!is(key, "type") && !is(key, "text") && !says_nothing(member.value)) {
          unheld(fmt::format("{} of text blocks", key));
        }
      }
    }
  }
  // Reasoning read from `content` (an open-weight model's reasoning_text parts, no
  // summary): elsewhere it is thinking, which comes back as a summary.
  if (is(type, "reasoning")) {
    bool summarised = false;
    if (summary != nullptr && summary->IsArray()) {
      for (const JsonValue& part : summary->GetArray()) {
        summarised = summarised || (part.IsObject() && string_member(part, "text"));
      }
    }
    if (!summarised && content != nullptr && content->IsArray() && !content->Empty()) {
      unheld("reasoning_text parts");
    }
  }
  if (!unmodelled) {
    return;
  }
  for (const auto& member : message.json->GetObject()) {
    if (member.value.IsNull()) {
      continue;
    }
    std::string_view key = view_of(member.name);
    switch (item_member(key)) {
      case ItemMember::modelled:
        break;
      case ItemMember::encrypted_content:
        unheld("encrypted reasoning");
        break;
      case ItemMember::id:
        unheld("item ids");
        break;
      case ItemMember::status:
        unheld("status of items");  // the common ones without a format call each
        break;
      case ItemMember::phase:
        unheld("phase of items");
        break;
      case ItemMember::other:
        unheld(fmt::format("{} of items", key));
        break;
    }
  }
}

// --- Encoding ---

namespace {

using DropFn = std::function<void(std::string_view)>;

class ItemWriter {
 public:
  ItemWriter(const Message& m, Format target, const DropFn& drop, Records& values)
      : m_m(m), m_target(target), m_drop(drop), m_values(values),
        m_same(holds_responses_items(m.origin) && m.json != nullptr && m.json->IsObject()) {}

  void run() {
    if (std::string_view bytes = responses_item_bytes(m_m, m_target); !bytes.empty()) {
      m_values.add(bytes);
      return;
    }
    if (m_m.kind != Kind::turn) {
      if (m_same && m_m.origin == m_target) {
        add_item_as_it_was();
      } else if (auto error = m_target == Format::openai_responses
                                  ? error_body_of(m_m, ErrorShape::openai, m_drop)
                                  : std::nullopt) {
        m_values.add(std::move(*error));  // the Responses API's is OpenAI's shape
      } else {
        m_drop(record_noun(m_m));
      }
      return;
    }
    // An item of this family, unchanged, is written as it is (Codex's system role
    // aside): its own bytes when it was a line of its own.
    bool system_to_codex = m_target == Format::codex && m_m.origin != Format::codex &&
                           m_m.role == Role::system;
    // Codex reads only typed items whose content is a list of parts.
    bool easy_to_codex = m_target == Format::codex && m_same &&
                         (!string_member(*m_m.json, "type") ||
                          (find_member(*m_m.json, "content") != nullptr &&
                           find_member(*m_m.json, "content")->IsString()));
    if (m_same && !m_m.modified && !system_to_codex && !easy_to_codex) {
      if (m_m.origin == Format::openai_responses && !m_m.container && !m_m.raw.empty()) {
        m_values.add(m_m.raw.view());
      } else {
        add_item_as_it_was();
      }
      return;
    }
    if (m_m.role == Role::none || m_m.role == Role::custom || m_m.role == Role::function) {
      m_drop(fmt::format("{} messages", m_m.role == Role::custom
                                             ? std::string_view(m_m.custom_role)
                                             : role_name(m_m.role)));
      return;
    }
    if (!m_m.name.empty() && !m_same) {
      m_drop("message names");
    }
    if (!m_m.content.is_blocks()) {
      if (m_m.role == Role::tool) {
        m_drop("tool messages without a call id");
        return;
      }
      write_message({});
      return;
    }
    std::vector<const Block*> parts;
    auto flush = [&] {
      if (!parts.empty()) {
        write_message(parts);
        parts.clear();
      }
    };
    for (const Block& block : m_m.content.blocks) {
      switch (block.type) {
        case BlockType::text:
        case BlockType::image:
        case BlockType::file:
        case BlockType::document:
        case BlockType::audio:
        case BlockType::video:
          if (m_m.role == Role::tool) {
            m_drop(fmt::format("{} in tool messages", blocks_of(block)));
          } else if ((block.type == BlockType::audio || block.type == BlockType::video) &&
                     !file_part_holds(block)) {
            m_drop(fmt::format("{} blocks", block.type_name.empty()
                                                 ? block_type_name(block.type)
                                                 : std::string_view(block.type_name)));
          } else if (part_holdable(block)) {
            if (starts_message_item(block, parts)) {
              flush();
            }
            parts.push_back(&block);
          }
          break;
        case BlockType::tool_use:
          flush();
          write_call(block);
          break;
        case BlockType::tool_result:
          flush();
          write_output(block);
          break;
        case BlockType::thinking:
          flush();
          write_reasoning(block);
          break;
        case BlockType::unknown:
          if (same_block(block) && block.json == m_m.json) {
            flush();
            add_item_as_it_was();
          } else if (same_block(block) && m_m.role != Role::tool) {
            parts.push_back(&block);  // a content part of this family: kept
          } else {
            m_drop(fmt::format("{} blocks", block.type_name.empty()
                                                 ? std::string_view("unknown")
                                                 : std::string_view(block.type_name)));
          }
          break;
        default:
          m_drop(fmt::format("{} blocks", block.type_name.empty()
                                               ? block_type_name(block.type)
                                               : std::string_view(block.type_name)));
          break;
      }
      if (!block.cache_control.empty()) {
        m_drop("cache_control markers");
      }
    }
    flush();
    // An assistant turn of another format with no block (its only block, thinking
    // without a signature, left out by the format it went through) says nothing: an
    // empty message item would stand where the dropped item was. Counted. (A response's
    // message stays: it holds the response's id, model and usage.)
    if (m_m.content.blocks.empty() && m_m.role == Role::assistant &&
        !holds_responses_items(m_m.origin) && !is_response(m_m)) {
      m_drop("empty assistant messages");
    } else if (m_m.content.blocks.empty() && m_m.role != Role::tool) {
      write_message({});
    }
  }

 private:
  bool same_block(const Block& block) const {
    return holds_responses_items(m_m.origin) && block.json != nullptr;
  }

  // The type of the item `block` was decoded from; "" for a block of another family.
  std::string_view item_type(const Block& block) const {
    if (!same_block(block) || !block.json->IsObject()) {
      return "";
    }
    return string_member(*block.json, "type").value_or("");
  }

  // The item's original JSON when this item is the one the message was decoded
  // from (of type `type`), so that its other members stay.
  const JsonValue* original(std::string_view type) const {
    if (!m_same || m_used_original) {
      return nullptr;
    }
    auto was = string_member(*m_m.json, "type").value_or("message");
    return was == type ? m_m.json : nullptr;
  }

  // True when `block` begins a message item of its own, not a part of the one in
  // `parts`: a response body's text after text. The API writes one output_text per
  // message item (its commentary, then its final answer), and a response's message
  // items are read back as the texts of one reply. (A Codex rollout's are turns of
  // their own.)
  bool starts_message_item(const Block& block, const std::vector<const Block*>& parts) const {
    return m_m.role == Role::assistant && is_response(m_m) &&
           m_target == Format::openai_responses && block.type == BlockType::text &&
           !same_block(block) && !parts.empty() && parts.back()->type == BlockType::text;
  }

  // True for audio or video given by URL or file id: an input_file part holds it
  // (file_url, file_id), read back as the file block the reader reads any input_file
  // as. Not inline audio in a message: it would come back a file, not the audio Chat's
  // input_audio holds. (A tool result's, which Chat has no place for, is a file_data
  // input_file of its data URL.)
  static bool file_part_holds(const Block& block) {
    return (block.type == BlockType::audio || block.type == BlockType::video) &&
           (block.source.type == MediaSource::Type::url ||
            block.source.type == MediaSource::Type::file_id);
  }

  bool part_holdable(const Block& block) {
    if (block.type == BlockType::text || same_block(block)) {
      return true;
    }
    if (m_m.role == Role::assistant) {
      m_drop(fmt::format("{} in assistant messages", blocks_of(block)));
      return false;
    }
    const MediaSource& s = block.source;
    bool ok = s.type == MediaSource::Type::base64 || s.type == MediaSource::Type::url ||
              s.type == MediaSource::Type::file_id;
    if (!ok) {
      m_drop(fmt::format("{} blocks", block_type_name(block.type)));
    }
    return ok;
  }

  std::string_view text_type() const {
    return m_m.role == Role::assistant ? "output_text" : "input_text";
  }

  void write_part(JsonWriter& w, const Block& block) {
    if (same_block(block) && block.type == BlockType::unknown) {
      block.json->Accept(w);
      return;
    }
    const JsonValue* was = same_block(block) && block.json->IsObject() ? block.json : nullptr;
    ObjectWriter part(w, was);
    if (block.type == BlockType::text) {
      bool refusal = block.type_name == "refusal" && was != nullptr;
      if (!refusal && !(was != nullptr && find_member(*was, "type") != nullptr)) {
        part.set_string("type", text_type());
      }
      part.set_string(refusal ? "refusal" : "text", block.text);
    } else if (block.type == BlockType::image) {
      part.set_string("type", "input_image");
      if (was == nullptr || !find_member(*was, "file_id")) {
        if (block.source.type == MediaSource::Type::file_id) {
          part.set_string("file_id", block.source.data);
        } else {
          // Written from where the data is, not joined into a URL first.
          part.set("image_url", [source = &block.source](JsonWriter& uw) {
            write_media_url(uw, *source);
          });
          if (auto loss = url_media_type_loss(block); !loss.empty()) {
            m_drop(loss);  // image_url is the URL alone
          }
        }
      }
      // ResponseInputImage requires detail; the API's default is auto.
      if (was == nullptr && m_target == Format::openai_responses) {
        part.set_string("detail", "auto");
      }
    } else {
      part.set_string("type", "input_file");
      if (was == nullptr) {
        if (block.source.type == MediaSource::Type::file_id) {
          part.set_string("file_id", block.source.data);
        } else if (block.source.type == MediaSource::Type::url) {
          part.set_string("file_url", block.source.data);
        } else {
          part.set("file_data", [source = &block.source](JsonWriter& fw) {
            write_media_url(fw, *source);
          });
        }
        if (!block.name.empty()) {
          part.set_string("filename", block.name);
        }
        // A file by URL or id has no place for its media type (a PDF's is read back
        // from its name); a data URL holds it.
        bool by_url = block.source.type == MediaSource::Type::url;
        bool told = block.source.type == MediaSource::Type::base64 ||
                    (block.source.media_type == "application/pdf" &&
                     (names_pdf(block.name) || (by_url && names_pdf(block.source.data.str()))));
        if (!block.source.media_type.empty() && !told) {
          m_drop("mime types of file blocks");
        }
      }
    }
    part.write();
  }

  void write_message(const std::vector<const Block*>& parts) {
    JsonWriter w(m_values.open());
    const JsonValue* was = original("message");
    m_used_original = m_used_original || was != nullptr;
    ObjectWriter item(w, was);
    if (was == nullptr || find_member(*was, "type") != nullptr || m_target == Format::codex) {
      item.set_string("type", "message");
    }
    // Codex resumes a rollout without its system messages (checked with Codex CLI
    // 0.169.0): there the system prompt is a developer message, as Codex's own are.
    std::string role = m_m.role == Role::tool ? std::string("user") : openai_role_name(m_m);
    if (role == "system" && m_target == Format::codex && m_m.origin != Format::codex) {
      role = "developer";
      m_drop("system message roles");  // what is lost: that it was a system message
    }
    item.set_string("role", role);
    // A string content stays a string, but in Codex, which takes only parts.
    const JsonValue* content =
        was != nullptr && m_target != Format::codex ? find_member(*was, "content") : nullptr;
    item.set("content", [&](JsonWriter& cw) {
      if (!m_m.content.is_blocks()) {
        if (content != nullptr && content->IsString()) {
          write_string(cw, m_m.content.text);
          return;
        }
        cw.StartArray();
        if (!m_m.content.text.empty() || m_m.content.form == Content::Form::string) {
          Block text = Block::make_text(m_m.content.text);
          write_part(cw, text);
        }
        cw.EndArray();
        return;
      }
      if (content != nullptr && content->IsString() && parts.size() == 1 &&
          parts[0]->type == BlockType::text) {
        write_string(cw, parts[0]->text);
        return;
      }
      cw.StartArray();
      for (const Block* block : parts) {
        write_part(cw, *block);
      }
      cw.EndArray();
    });
    item.write();
    m_values.close();
  }

  void write_call(const Block& call) {
    bool custom = item_type(call) == "custom_tool_call";
    std::string_view type = custom ? "custom_tool_call" : "function_call";
    const JsonValue* was = same_block(call) && call.json->IsObject() ? call.json : nullptr;
    if (was != nullptr && was == m_m.json) {
      m_used_original = true;
    }
    JsonWriter w(m_values.open());
    ObjectWriter item(w, was);
    item.set_string("type", type);
    item.set_string("name", call.name);
    if (custom) {
      JsonDoc input;
      std::string text;
      if (parse_object(call.input_json(), input)) {
        text = std::string(string_member(input, "input").value_or(""));
      }
      item.set_string("input", text);
    } else if (!(was != nullptr && call.input.empty() && call.input_value != nullptr)) {
      item.set_string("arguments", call.input_json());
    }
    item.set_string("call_id", call.id);
    item.write();
    m_values.close();
  }

  void write_output(const Block& result) {
    bool custom = item_type(result) == "custom_tool_call_output";
    std::string_view type = custom ? "custom_tool_call_output" : "function_call_output";
    const JsonValue* was = same_block(result) && result.json->IsObject() ? result.json : nullptr;
    if (was != nullptr && was == m_m.json) {
      m_used_original = true;
    }
    if (result.is_error.value_or(false)) {
      m_drop("tool error flags");
    }
    JsonWriter w(m_values.open());
    ObjectWriter item(w, was);
    item.set_string("type", type);
    item.set_string("call_id", result.id);
    const Content& c = result.result;
    if (c.form != Content::Form::absent || was == nullptr) {
      item.set("output", [&](JsonWriter& ow) {
        if (!c.is_blocks()) {
          write_string(ow, c.text);
          return;
        }
        bool all_text = std::all_of(c.blocks.begin(), c.blocks.end(), [](const Block& b) {
          return b.type == BlockType::text;
        });
        // Text in one piece is a string; texts in several pieces stay parts (joined,
        // where one ended and the next began would be lost).
        const JsonValue* output = was != nullptr ? find_member(*was, "output") : nullptr;
        if (all_text && (output == nullptr || !output->IsArray()) && c.blocks.size() <= 1) {
          write_string(ow, c.joined_text());
          return;
        }
        ow.StartArray();
        for (const Block& block : c.blocks) {
          if (block.type == BlockType::text || block.type == BlockType::image ||
              block.type == BlockType::file || block.type == BlockType::document ||
              block.type == BlockType::audio || block.type == BlockType::video ||
              (block.type == BlockType::unknown && same_block(block))) {
            write_part(ow, block);
          } else {
            m_drop(fmt::format("{} in tool results", blocks_of(block)));
          }
        }
        ow.EndArray();
      });
    }
    item.write();
    m_values.close();
  }

  void write_reasoning(const Block& thinking) {
    const JsonValue* was = item_type(thinking) == "reasoning" ? thinking.json : nullptr;
    if (was != nullptr && was == m_m.json) {
      m_used_original = true;
    }
    if (thinking.signature) {
      m_drop("thinking signatures");
    }
    JsonWriter w(m_values.open());
    ObjectWriter item(w, was);
    item.set_string("type", "reasoning");
    // The summary as it was while its text is unchanged (its parts, or reasoning text
    // read from `content`); else the text as one summary part.
    std::string before;
    if (was != nullptr) {
      Message probe;
      probe.source = thinking.json_owner;
      decode_reasoning(*was, "", probe);
      before = probe.content.blocks.front().text;
    }
    if (was == nullptr || before != thinking.text) {
      item.set("summary", [&](JsonWriter& sw) {
        sw.StartArray();
        if (!thinking.text.empty()) {
          sw.StartObject();
          sw.Key("type");
          sw.String("summary_text");
          sw.Key("text");
          write_string(sw, thinking.text);
          sw.EndObject();
        }
        sw.EndArray();
      });
    }
    item.write();
    m_values.close();
  }

  // Adds the message's item, unchanged: the bytes it was read from when they are as
  // written (a Codex line's payload mostly is), else written from its parse.
  void add_item_as_it_was() {
    if (m_m.source != nullptr) {
      if (std::string_view bytes = json_as_read(*m_m.json, m_m.source->parsed_text(), m_m.raw.view());
          !bytes.empty()) {
        m_values.add(bytes);
        return;
      }
    }
    m_values.add(to_json(*m_m.json));
  }

  const Message& m_m;
  Format m_target;
  const DropFn& m_drop;
  Records& m_values;
  bool m_same;
  bool m_used_original = false;
};

}  // namespace

std::string_view responses_item_bytes(const Message& message, Format target) {
  // What ItemWriter::run writes as it is: an unchanged turn of this family (but a
  // system message or an untyped or string-content item going to Codex, which it
  // re-encodes), from a line of its own.
  if (message.kind != Kind::turn || message.modified ||
      message.origin != Format::openai_responses || message.container || message.raw.empty() ||
      message.json == nullptr || !message.json->IsObject()) {
    return {};
  }
  if (target == Format::codex) {
    const JsonValue* content = find_member(*message.json, "content");
    if (message.role == Role::system || !string_member(*message.json, "type") ||
        (content != nullptr && content->IsString())) {
      return {};
    }
  }
  return message.raw;
}

void encode_responses_items(const Message& message, Format target, const DropFn& drop,
                            Records& values) {
  ItemWriter(message, target, drop, values).run();
}

}  // namespace convo
