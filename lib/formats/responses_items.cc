#include "formats/responses_items.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "formats/api_body.h"
#include "formats/fields.h"
#include "formats/json_out.h"

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

// The loss count's name for each ItemMember with a name of its own, by its code in
// ItemMembers::unheld (3 bits: 1-4; 0 is none).
constexpr std::string_view k_unheld_names[] = {"", "encrypted reasoning", "item ids",
                                               "status of items", "phase of items"};
constexpr unsigned k_unheld_bits = 3;
constexpr unsigned k_max_unheld = 12;

// A member's code is its ItemMember value, in the names' order above.
static_assert(static_cast<unsigned>(ItemMember::encrypted_content) == 1 &&
              static_cast<unsigned>(ItemMember::phase) == 4);

// `value`, the item's member `key` (null when it has none), as optional_string reads
// it: nullopt when absent or null, a DecodeError when it is no string.
std::optional<std::string_view> string_at(const JsonValue* value, const std::string& path,
                                          std::string_view key) {
  if (value == nullptr || value->IsNull()) {
    return std::nullopt;
  }
  if (!value->IsString()) {
    wrong_type(member_path(path, key), "a string", *value);
  }
  return view_of(*value);
}

// --- Decoding ---

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
        (responses_names_pdf(block.name) ||
         (by_url && responses_names_pdf(block.source.data.str())))) {
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

void decode_call(const JsonValue& item, const ItemMembers& members, const std::string& path,
                 std::string_view type, Message& message, std::string_view raw) {
  Block& block = message.content.blocks.emplace_back();
  block.type = BlockType::tool_use;
  block.type_name = "tool_use";  // a custom call is told by its item's type
  block.json = &item;
  block.json_owner = message.source;
  block.id = std::string(string_at(members.call_id, path, "call_id").value_or(""));
  block.name = std::string(string_at(members.name, path, "name").value_or(""));
  if (type == "custom_tool_call") {
    // Free-text input: other formats get it as the object {"input": TEXT}, TEXT as
    // it was read when it is escaped as the writer escapes (a patch is mostly escapes).
    std::string_view text = string_at(members.input, path, "input").value_or("");
    const JsonValue* input = members.input;
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
  } else if (const JsonValue* arguments = members.arguments) {
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

void decode_output(const JsonValue& item, const ItemMembers& members, const std::string& path,
                   Message& message) {
  // Built in place, as decode_opaque's: a Block is large.
  Block& block = message.content.blocks.emplace_back();
  block.type = BlockType::tool_result;
  block.type_name = "tool_result";  // a custom call's output is told by its item's type
  block.id = std::string(string_at(members.call_id, path, "call_id").value_or(""));
  block.json = &item;
  block.json_owner = message.source;
  message.role = Role::tool;
  message.content.form = Content::Form::blocks;
  const JsonValue* output = members.output;
  if (output != nullptr && (output->IsString() || output->IsArray() || output->IsNull())) {
    decode_parts(output, member_path(path, "output"), message.source, block.result);
  } else {
    block.result.form = Content::Form::absent;  // another shape: kept in the item
  }
}

}  // namespace

bool responses_names_pdf(std::string_view name) {
  name = name.substr(0, name.find_first_of("?#"));
  return name.ends_with(".pdf");
}

void decode_responses_reasoning(const JsonValue& item, const std::string& path,
                                Message& message) {
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

bool holds_responses_items(Format format) {
  return format == Format::openai_responses || format == Format::codex;
}

ItemMembers scan_item_members(const JsonValue& item) {
  ItemMembers members;
  for (const auto& member : item.GetObject()) {
    const std::string_view key = view_of(member.name);
    const ItemMember kind = item_member(key);
    const JsonValue** slot = nullptr;
    if (kind == ItemMember::modelled) {
      slot = is(key, "type")        ? &members.type
             : is(key, "role")      ? &members.role
             : is(key, "content")   ? &members.content
             : is(key, "call_id")   ? &members.call_id
             : is(key, "name")      ? &members.name
             : is(key, "arguments") ? &members.arguments
             : is(key, "input")     ? &members.input
             : is(key, "output")    ? &members.output
                                    : &members.summary;
    } else if (kind == ItemMember::id) {
      slot = &members.id;
    }
    if (slot != nullptr && *slot == nullptr) {
      *slot = &member.value;
    }
    if (kind == ItemMember::modelled || member.value.IsNull()) {
      continue;
    }
    if (kind == ItemMember::other || members.unheld_count == k_max_unheld) {
      members.unheld_named = true;
    } else {
      members.unheld |= std::uint64_t{static_cast<unsigned>(kind)}
                        << (k_unheld_bits * members.unheld_count++);
    }
  }
  return members;
}

namespace {

// --- The loss count's note (Source::note) ---
//
// What of an item other formats cannot hold, found while it is decoded: bits 0-5
// how many of ItemMembers::unheld's codes there are, which are bits 16-51; then:
constexpr std::uint64_t k_note_count = 0x3F;
constexpr std::uint64_t k_note_named = std::uint64_t{1} << 6;    // the names: read the item
constexpr std::uint64_t k_note_opaque = std::uint64_t{1} << 7;   // a built-in tool's item
constexpr std::uint64_t k_note_custom = std::uint64_t{1} << 8;   // a custom tool call or output
constexpr std::uint64_t k_note_parts = std::uint64_t{1} << 9;    // a part loses: read the parts
constexpr std::uint64_t k_note_reasoning_text = std::uint64_t{1} << 10;
// A call output's `output` neither text, parts nor null (an older Codex's object):
// kept in the item, and no other format has a place for it.
constexpr std::uint64_t k_note_other_output = std::uint64_t{1} << 13;
constexpr unsigned k_note_codes_at = 16;
// Not a note's: responses_item_unmodelled_key's bit for a message of one opaque block.
constexpr std::uint64_t k_key_one_opaque = std::uint64_t{1} << 11;
static_assert(k_key_one_opaque > k_note_reasoning_text &&
              k_responses_key_spare > k_key_one_opaque &&
              k_note_other_output > k_responses_key_spare &&
              k_note_other_output < (std::uint64_t{1} << k_note_codes_at));

std::string_view item_type(const ItemMembers& members) {
  return members.type != nullptr && members.type->IsString() ? view_of(*members.type) : "message";
}

// The parts whose members the count looks at: a message's content, a function call
// output's output.
const JsonValue* counted_parts(const ItemMembers& members) {
  const std::string_view type = item_type(members);
  const JsonValue* parts = is(type, "message")                ? members.content
                           : is(type, "function_call_output") ? members.output
                                                              : nullptr;
  return parts != nullptr && parts->IsArray() ? parts : nullptr;
}

// Calls `unheld` for what content part `part` holds that other formats cannot: a
// text part's members beyond its text (annotations, prompt_cache_breakpoint), and an
// image part's detail but the API's default (written back as "auto"). Returns
// whether it did.
bool part_losses(const JsonValue& part, const std::function<void(std::string_view)>* unheld) {
  auto part_type = part.IsObject() ? type_of(part) : std::nullopt;
  if (part_type && is(*part_type, "input_image")) {
    auto detail = string_member(part, "detail");
    if (detail && *detail != "auto") {
      if (unheld != nullptr) {
        (*unheld)("detail of image blocks");
      }
      return true;
    }
    return false;
  }
  if (!part_type || (!is(*part_type, "input_text") && !is(*part_type, "output_text"))) {
    return false;
  }
  bool lost = false;
  for (const auto& member : part.GetObject()) {
    std::string_view key = view_of(member.name);
    if (!is(key, "type") && !is(key, "text") && !says_nothing(member.value)) {
      if (unheld == nullptr) {
        return true;
      }
      (*unheld)(fmt::format("{} of text blocks", key));
      lost = true;
    }
  }
  return lost;
}

std::uint64_t item_note(const ItemMembers& members) {
  std::uint64_t note = members.unheld_count | (members.unheld << k_note_codes_at) |
                       (members.unheld_named ? k_note_named : 0);
  const std::string_view type = item_type(members);
  const bool custom = is(type, "custom_tool_call") || is(type, "custom_tool_call_output");
  if (!is(type, "message") && !custom && !is(type, "function_call") &&
      !is(type, "function_call_output") && !is(type, "reasoning")) {
    return note | k_note_opaque;  // the whole item is a block the target counts
  }
  if (custom) {
    note |= k_note_custom;
  }
  if (is(type, "function_call_output") || is(type, "custom_tool_call_output")) {
    // decode_output's other shape: the output is left in the item.
    const JsonValue* output = members.output;
    if (output != nullptr && !output->IsString() && !output->IsArray() && !output->IsNull()) {
      note |= k_note_other_output;
    }
  }
  if (const JsonValue* parts = counted_parts(members)) {
    for (const JsonValue& part : parts->GetArray()) {
      if (part_losses(part, nullptr)) {
        note |= k_note_parts;
        break;
      }
    }
  }
  // Reasoning read from `content` (an open-weight model's reasoning_text parts, no
  // summary): elsewhere it is thinking, which comes back as a summary.
  if (is(type, "reasoning")) {
    bool summarised = false;
    if (members.summary != nullptr && members.summary->IsArray()) {
      for (const JsonValue& part : members.summary->GetArray()) {
        summarised = summarised || (part.IsObject() && string_member(part, "text"));
      }
    }
    const JsonValue* content = members.content;
    if (!summarised && content != nullptr && content->IsArray() && !content->Empty()) {
      note |= k_note_reasoning_text;
    }
  }
  return note;
}

void decode_item(const JsonValue& item, const ItemMembers& members, const std::string& path,
                 Message& message, std::string_view raw) {
  message.kind = Kind::turn;
  if (members.id != nullptr && members.id->IsString()) {
    message.id = std::string(view_of(*members.id));
  }
  auto type = string_at(members.type, path, "type");
  if (!type || *type == "message") {
    auto role = string_at(members.role, path, "role");
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
    decode_parts(members.content, member_path(path, "content"), message.source, message.content);
    return;
  }
  if (*type == "function_call" || *type == "custom_tool_call") {
    decode_call(item, members, path, *type, message, raw);
  } else if (*type == "function_call_output" || *type == "custom_tool_call_output") {
    decode_output(item, members, path, message);
  } else if (*type == "reasoning") {
    decode_responses_reasoning(item, path, message);
  } else {
    decode_opaque(item, *type, message);
  }
}

}  // namespace

void decode_responses_item(const JsonValue& item, const std::string& path, Message& message,
                           std::string_view raw) {
  if (!item.IsObject()) {
    wrong_type(path, "a Responses item (an object)", item);
  }
  decode_responses_item(item, scan_item_members(item), path, message, raw);
}

void decode_responses_item(const JsonValue& item, const ItemMembers& members,
                           const std::string& path, Message& message, std::string_view raw) {
  decode_item(item, members, path, message, raw);
  if (message.source != nullptr) {
    message.source->noted = &item;
    message.source->note = item_note(members);
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

bool one_opaque_block(const Message& message) {
  return message.content.is_blocks() && message.content.blocks.size() == 1 &&
         message.content.blocks.front().type == BlockType::unknown;
}

}  // namespace

// responses_item_unmodelled below reads the note alone unless it says to read the
// item (named members, parts that lose); besides, a lone opaque block says there is
// nothing. So the note, and that, are the key.
std::optional<std::uint64_t> responses_item_unmodelled_key(const Message& message) {
  if (message.json == nullptr || !message.json->IsObject() || message.kind != Kind::turn) {
    return std::nullopt;
  }
  const Source* source = message.source.get();
  if (source == nullptr || source->noted != message.json ||
      (source->note & (k_note_named | k_note_parts)) != 0) {
    return std::nullopt;
  }
  return source->note | (one_opaque_block(message) ? k_key_one_opaque : 0);
}

// The note decoding left (Source::note), or the item read now (an item of a body, or
// one whose record another format decoded); the names are then given in the order
// the target's report has always listed them.
void responses_item_unmodelled(const Message& message,
                               const std::function<void(std::string_view)>& unheld) {
  if (message.json == nullptr || !message.json->IsObject() || message.kind != Kind::turn) {
    return;
  }
  const Source* source = message.source.get();
  std::optional<ItemMembers> members;
  if (source == nullptr || source->noted != message.json) {
    members = scan_item_members(*message.json);
  }
  const std::uint64_t note = members ? item_note(*members) : source->note;
  if ((note & k_note_opaque) != 0 || one_opaque_block(message)) {
    return;  // the whole item is a block the target counts
  }
  if ((note & k_note_custom) != 0) {
    // Free-text input (Codex's apply_patch) goes elsewhere as a function call with
    // the input {"input": TEXT}, and comes back as one: that it was custom is lost.
    unheld("custom tool calls");
  }
  if ((note & k_note_parts) != 0) {
    if (!members) {
      members = scan_item_members(*message.json);
    }
    for (const JsonValue& part : counted_parts(*members)->GetArray()) {
      part_losses(part, &unheld);
    }
  }
  if ((note & k_note_reasoning_text) != 0) {
    unheld("reasoning_text parts");
  }
  if ((note & k_note_other_output) != 0) {
    unheld("tool outputs that are not text");
  }
  if ((note & k_note_named) == 0) {
    for (std::uint64_t i = 0; i < (note & k_note_count); ++i) {
      unheld(k_unheld_names[(note >> (k_note_codes_at + k_unheld_bits * i)) & 7]);
    }
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

}  // namespace convo
