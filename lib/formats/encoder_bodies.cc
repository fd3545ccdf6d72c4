// EncoderBase's containers and API bodies written whole (format.h, api_body.h): a
// container put back as its own bytes when every message came back unchanged and
// in place, rebuilt around its message array otherwise, and a body of one API
// written as a body of another.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "formats/encoder_parts.h"
#include "formats/format.h"

#include "formats/anthropic_blocks.h"
#include "formats/api_body.h"
#include "formats/api_error.h"
#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/responses_items.h"
#include "io/output.h"

namespace convo {

// Writes the open container: its original bytes when every message came back
// unchanged and in place, else the document rebuilt by `write_changed_container`.
void EncoderBase::close_container(Output& out) {
  // Closed even when writing it throws (EncodeError under --on-error skip|keep),
  // so that it is not written again.
  struct Closer {
    EncoderBase& encoder;
    ~Closer() {
      encoder.m_held.clear();
      encoder.m_container.reset();
    }
  } closer{*this};
  const Container& container = *m_container;
  if (container.format != m_format) {
    write_translated_body(container.source->doc, container.format,
                          container_noun(container) == "response bodies", m_held, out);
    return;
  }
  bool intact = m_held.size() == container.size;
  for (std::size_t i = 0; intact && i < m_held.size(); ++i) {
    intact = !m_held[i].modified && m_held[i].slot == i;
  }
  if (intact) {
    out.write_line(container.raw);
  } else {
    write_changed_container(container, m_held, out);
  }
  m_held.clear();
  m_container.reset();
}

// --- Bodies translated whole (api_body.h) ---

bool EncoderBase::translates_body(const Message& message) const {
  if (message.origin == m_format || format_info(m_format).body == nullptr ||
      message.kind == Kind::invalid || !format_traits(message.origin).body) {
    return false;
  }
  if (message.container) {
    // A Gemini line of its own holding only a systemInstruction is a message of a
    // contents file, not a body.
    const Container& container = *message.container;
    return container.format == message.origin && !container_noun(container).empty() &&
           find_member(container.source->doc, container.array_key) != nullptr;
  }
  // An Anthropic response message is a response body.
  return message.json != nullptr && message.source && message.json == &message.source->doc &&
         is_response(message) && message.role == Role::assistant;
}

void EncoderBase::write_translated_body(const JsonValue& root, Format from, bool response,
                                        std::vector<Message>& held, Output& out) {
  ApiBody body;
  body.response = response;
  format_info(from).body->read(root, body);
  const Location where = held.empty() ? Location{} : held.front().where;
  std::string_view raw = held.empty() ? std::string_view() : held.front().raw.view();
  for (const std::string& what : body.unmapped) {
    m_loss.drop(m_format, what, where);
  }
  for (const Message& message : held) {
    drop_unheld(message, true);
  }
  std::vector<BodyTurn> turns;
  Records values;
  // A Responses response's items are the parts of one reply; the other APIs give
  // one message per choice.
  std::vector<Message> merged;
  if (response && (root.IsObject() && find_member(root, "output") != nullptr)) {
    Message reply;
    bool first = true;
    for (Message& message : held) {
      if (!message.is_turn()) {
        merged.push_back(std::move(message));
        continue;
      }
      if (first) {
        reply = message;
        reply.content.blocks.clear();
        reply.content.form = Content::Form::blocks;
        first = false;
      }
      content_to_blocks(message.content);
      for (Block& block : message.content.blocks) {
        reply.content.blocks.push_back(std::move(block));
      }
      reply.usage = message.usage->empty() ? reply.usage : message.usage;
    }
    if (!first) {
      reply.touch();
      merged.insert(merged.begin(), std::move(reply));
    }
    held = std::move(merged);
  } else if (!response && holds_responses_items(from) && !holds_responses_items(m_format)) {
    // A request's input holds each reply as its items (reasoning, message, function
    // calls): one assistant turn in the other APIs, joined as a file of items is. The
    // outputs of its calls that follow one another are the one turn of results that
    // answers it (Anthropic's user turn, Gemini's user content).
    auto joins = [&](const Message& last, const Message& next) {
      return opaque_item_type(last).empty() && opaque_item_type(next).empty() && last.is_turn() &&
             item_joins_reply(last, next);
    };
    for (Message& message : held) {
      if (!merged.empty() && joins(merged.back(), message)) {
        append_reply_item(merged.back(), std::move(message));
      } else {
        merged.push_back(std::move(message));
      }
    }
    held = std::move(merged);
  }
  for (const Message& message : held) {
    values.clear();
    encode(message, values);
    if (!values.empty()) {
      note_items_turn(message);
    }
    if (response && !message.is_turn()) {
      continue;  // counted by the encoder when it has no place for it
    }
    BodyTurn turn;
    turn.message = &message;
    for (std::string_view value : values) {
      turn.values.emplace_back(value);
    }
    if (response) {
      StopReason stop = stop_reason_named(message.meta->stop_reason);
      if (stop == StopReason::none) {
        stop = body.stop_reason;
      }
      // Anthropic's end_turn (Chat's stop) after tool calls is its own word, as the API
      // has another for a reply that calls a tool (the calls were made by Anthropic's
      // code execution): kept.
      bool said_end_turn = stop == StopReason::end_turn && (uses_anthropic_blocks(message.origin) ||
                                                            message.origin == Format::openai);
      if ((stop == StopReason::end_turn || stop == StopReason::none) && !said_end_turn &&
          message.has_tool_uses()) {
        stop = StopReason::tool_use;  // Gemini's STOP, Responses' "completed" after a call
      }
      turn.stop = stop;
    }
    turns.push_back(std::move(turn));
  }
  std::string json = write_body(*format_info(m_format).body, body, turns,
                                [&](std::string_view what) { m_loss.drop(m_format, what, where); });
  check_utf8(json, where, raw);
  out.write_line(json);
}

// The document rebuilt around the messages as they are now (members other than the
// messages are copied from the original).
void EncoderBase::write_changed_container(const Container& container, std::vector<Message>& held,
                                          Output& out) {
  const JsonValue& root = container.source->doc;
  const JsonValue* array = container.array_key.empty() ? &root : find_member(root, container.array_key);
  Records values;

  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  auto write_messages = [&] {
    writer.StartArray();
    for (const Message& message : held) {
      if (container.system_slot && message.slot == 0) {
        continue;
      }
      values_of(message, values);
      const JsonValue* element = nullptr;
      std::size_t index = container.system_slot ? message.slot - 1 : message.slot;
      if (!container.wrapper_key.empty() && array != nullptr && array->IsArray() &&
          index < array->Size()) {
        element = &(*array)[static_cast<rapidjson::SizeType>(index)];
      }
      for (std::string_view value : values) {
        if (element == nullptr || !element->IsObject()) {
          writer.RawValue(value.data(), value.size(), rapidjson::kObjectType);
          continue;
        }
        writer.StartObject();
        for (const auto& member : element->GetObject()) {
          writer.Key(member.name.GetString(), member.name.GetStringLength());
          if (view_of(member.name) == container.wrapper_key) {
            writer.RawValue(value.data(), value.size(), rapidjson::kObjectType);
          } else {
            member.value.Accept(writer);
          }
        }
        writer.EndObject();
      }
    }
    writer.EndArray();
  };

  if (container.array_key.empty()) {
    write_messages();
  } else {
    writer.StartObject();
    for (const auto& member : root.GetObject()) {
      std::string_view key = view_of(member.name);
      if (key == container.array_key) {
        writer.Key(member.name.GetString(), member.name.GetStringLength());
        write_messages();
      } else if (container.system_slot && key == "system") {
        // The system prompt is slot 0; it is left out when a stage dropped it.
        auto system = std::find_if(held.begin(), held.end(),
                                   [](const Message& m) { return m.slot == 0; });
        if (system == held.end()) {
          continue;
        }
        writer.Key(member.name.GetString(), member.name.GetStringLength());
        if (!system->modified) {
          member.value.Accept(writer);
        } else {
          values_of(*system, values);
          JsonDoc encoded;
          const JsonValue* content = nullptr;
          if (!values.empty() && !parse_json(values.front(), encoded)) {
            content = find_member(encoded, "content");
          }
          if (content != nullptr) {
            content->Accept(writer);
          } else {
            writer.String("");
          }
        }
      } else {
        writer.Key(member.name.GetString(), member.name.GetStringLength());
        member.value.Accept(writer);
      }
    }
    writer.EndObject();
  }
  std::string_view rebuilt(buffer.GetString(), buffer.GetSize());
  check_utf8(rebuilt, held.empty() ? Location{} : held.front().where, container.raw);
  out.write_line(rebuilt);
}

}  // namespace convo
