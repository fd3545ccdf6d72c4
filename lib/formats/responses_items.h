// OpenAI Responses API items, shared by the openai-responses format (items one per
// line, request and response bodies) and the codex format (whose response_item
// lines carry one item each). An item is one message: a `message` item is a turn
// of its role; `function_call` and `custom_tool_call` are assistant turns holding
// one tool_use block (linked by `call_id`); their `_output` items are tool turns
// holding one tool_result block; `reasoning` is an assistant turn holding one
// thinking block (the summary's text; `encrypted_content` stays in the item); any
// other item (web_search_call, local_shell_call, mcp_call, ...) is a turn holding
// one opaque block named by the item's type, which only this family writes back.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/format.h"

namespace convo {

// True for the formats whose messages are Responses items (openai-responses,
// codex): a message of one is written by the other from its item JSON.
bool holds_responses_items(Format format);

// The members of a Responses item (an object) that decoding and the loss count
// read, found in one pass over it, each the first of its name as find_member finds
// it: an item is read once, not once a member (a scan each, and two more for the
// loss count, were 3% of a conversion of Responses items to openai). `unheld` lists
// the members that other formats have no place for and that hold a value, in their
// order, for responses_item_unmodelled.
struct ItemMembers {
  const JsonValue* type = nullptr;
  const JsonValue* role = nullptr;
  const JsonValue* content = nullptr;
  const JsonValue* id = nullptr;
  const JsonValue* call_id = nullptr;
  const JsonValue* name = nullptr;
  const JsonValue* arguments = nullptr;
  const JsonValue* input = nullptr;
  const JsonValue* output = nullptr;
  const JsonValue* summary = nullptr;
  std::uint64_t unheld = 0;  // 3 bits a member (responses_items.cc)
  unsigned unheld_count = 0;
  // One of them is counted by its own name ("X of items"), or there are more than
  // `unheld` holds: the count reads the item's members again.
  bool unheld_named = false;
};
ItemMembers scan_item_members(const JsonValue& item);

// Decodes the Responses item `item` (at JSON pointer `path`) into `message`: role,
// content, id. A DecodeError when it is no item. `raw`, when given, is the record's
// bytes that `message.source` was parsed from: text that goes on as it was read
// (a custom call's input) is taken from there rather than escaped again. What the
// loss count needs of the item is noted in `message.source` (Source::note).
void decode_responses_item(const JsonValue& item, const std::string& path, Message& message,
                           std::string_view raw = {});
// The same, for an item whose members `members` (scan_item_members) the caller has.
void decode_responses_item(const JsonValue& item, const ItemMembers& members,
                           const std::string& path, Message& message, std::string_view raw = {});

// Shared by the decoder and the encoder (responses_items_encode.cc):
// True when a file's name, or the path of its URL, ends in ".pdf": an input_file has
// no place for a media type, and the API tells a PDF by its name.
bool responses_names_pdf(std::string_view name);
// Decodes the reasoning item `item` into `message`: a thinking block whose text is
// its summary parts', else its reasoning_text content's (open-weight models),
// joined by blank lines; an opaque block when it holds only an id or encrypted
// content.
void decode_responses_reasoning(const JsonValue& item, const std::string& path,
                                Message& message);

// How many of `record`'s signs say it is a Responses item: positive when it is one,
// 0 when it could be, negative when it cannot be.
int sniff_responses_item(const JsonValue& record);

// Calls `unheld` with what the item of `message` carries that formats of other
// families have no place for ("encrypted reasoning", "item ids", "status of items").
void responses_item_unmodelled(const Message& message,
                               const std::function<void(std::string_view)>& unheld);

// A key for the names responses_item_unmodelled gives `message` (FormatInfo::
// unmodelled_key): what decoding noted of its item, when that alone says them;
// nullopt when they are read from the item (its parts, its members by name).
std::optional<std::uint64_t> responses_item_unmodelled_key(const Message& message);
// A bit that key leaves clear, for a format that adds names of its own (Codex: a
// line's time).
inline constexpr std::uint64_t k_responses_key_spare = std::uint64_t{1} << 12;

// The bytes `encode_responses_items` writes for `message`, as its one item, when
// that is the line it was read from unchanged (an item of an openai-responses file
// that a file of `target` keeps as it is); empty otherwise. A Codex rollout wraps
// them in its line without a copy of its own.
std::string_view responses_item_bytes(const Message& message, Format target);

// Writes `message` as Responses items for a file of `target`, appending each item's
// compact JSON to `values`; `drop` is called with a plural noun phrase for what
// cannot be written (records that are not messages, unless of `target` itself). A
// message decoded from an item of this family keeps the item's members.
void encode_responses_items(const Message& message, Format target,
                            const std::function<void(std::string_view)>& drop,
                            Records& values);

}  // namespace convo
