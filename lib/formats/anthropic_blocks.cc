#include "formats/anthropic_blocks.h"

#include <fmt/format.h>

#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/object_writer.h"
#include "utf8.h"

#include <algorithm>

namespace convo {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

void decode_anthropic_source(const JsonValue& block, const std::string& path, MediaSource& out) {
  const JsonValue* source = optional_object(block, "source", path);
  if (source == nullptr) {
    return;
  }
  std::string source_path = member_path(path, "source");
  std::string_view type = optional_string(*source, "type", source_path).value_or("");
  if (auto media_type = optional_string(*source, "media_type", source_path)) {
    out.media_type = std::string(*media_type);
  }
  if (type == "base64") {
    out.type = MediaSource::Type::base64;
    out.data = std::string(optional_string(*source, "data", source_path).value_or(""));
  } else if (type == "url") {
    out.type = MediaSource::Type::url;
    out.data = std::string(optional_string(*source, "url", source_path).value_or(""));
  } else if (type == "file") {
    out.type = MediaSource::Type::file_id;
    out.data = std::string(optional_string(*source, "file_id", source_path).value_or(""));
  } else if (type == "text") {
    out.type = MediaSource::Type::text;
    out.data = std::string(optional_string(*source, "data", source_path).value_or(""));
  }
}

namespace {

void decode_block(const JsonValue& value, const std::string& path,
                  const std::shared_ptr<const Source>& owner, Block& block) {
  auto type = begin_block(value, path, owner, block, "a content block (an object)");
  if (!type) {
    return;
  }
  if (auto cache_control = find_member(value, "cache_control");
      cache_control != nullptr && !cache_control->IsNull()) {
    block.cache_control = to_json(*cache_control);
  }
  if (*type == "text") {
    block.type = BlockType::text;
    block.text.share(required_string(value, "text", path, "text block"), owner);
  } else if (*type == "thinking") {
    block.type = BlockType::thinking;
    block.text.share(required_string(value, "thinking", path, "thinking block"), owner);
    if (auto signature = optional_string(value, "signature", path)) {
      block.signature = std::string(*signature);
    }
  } else if (*type == "redacted_thinking") {
    block.type = BlockType::redacted_thinking;
    block.text = std::string(required_string(value, "data", path, "redacted_thinking block"));
  } else if (*type == "tool_use" || *type == "server_tool_use" || *type == "mcp_tool_use") {
    block.type = *type == "tool_use" ? BlockType::tool_use : BlockType::server_tool_use;
    block.id = std::string(optional_string(value, "id", path).value_or(""));
    block.name = std::string(optional_string(value, "name", path).value_or(""));
    block.input_value = find_member(value, "input");
  } else if (*type == "tool_result") {
    block.type = BlockType::tool_result;
    block.id = std::string(required_string(value, "tool_use_id", path, "tool_result block"));
    block.is_error = optional_bool(value, "is_error", path);
    decode_anthropic_content(find_member(value, "content"), member_path(path, "content"), owner,
                             block.result);
  } else if (ends_with(*type, "_tool_result")) {
    block.type = BlockType::server_tool_result;
    block.id = std::string(optional_string(value, "tool_use_id", path).value_or(""));
  } else if (*type == "image" || *type == "document") {
    block.type = *type == "image" ? BlockType::image : BlockType::document;
    decode_anthropic_source(value, path, block.source);
    if (block.type == BlockType::document) {  // a document's title is its file's name elsewhere
      block.name = std::string(optional_string(value, "title", path).value_or(""));
      if (block.source.type == MediaSource::Type::url && block.source.media_type.empty()) {
        block.source.media_type = "application/pdf";  // the API's URL source is URLPDFSource
      }
    }
  } else {
    block.type = BlockType::unknown;
  }
}

// Writes a tool input: the parsed value when there is one, else the JSON text.
// Text that is not JSON (a broken OpenAI `arguments` string) is written as a string.
void write_input(JsonWriter& w, const Block& block, const DropFn& drop) {
  if (block.input.empty() && block.input_value != nullptr) {
    block.input_value->Accept(w);
    return;
  }
  // The text itself, not input_json()'s copy: tool calls are much of a conversion.
  std::string_view text = block.input.empty() ? std::string_view("{}") : std::string_view(block.input);
  if (!block.input_as_written && json_text_type(text) != rapidjson::kObjectType) {
    drop("tool inputs that are not JSON objects (written as strings)");
    w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
    return;
  }
  w.RawValue(text.data(), text.size(), rapidjson::kObjectType);
}

void write_block(JsonWriter& w, const Block& block, bool keep_members, const DropFn& drop);

void write_content_value(JsonWriter& w, const Content& content, bool keep_members,
                         const DropFn& drop) {
  switch (content.form) {
    case Content::Form::absent:
    case Content::Form::null:
      w.Null();
      return;
    case Content::Form::string:
      w.String(content.text.data(), static_cast<rapidjson::SizeType>(content.text.size()));
      return;
    case Content::Form::blocks:
      write_anthropic_blocks(w, content.blocks, keep_members, drop);
      return;
  }
}

// A block of the kinds most transcripts are made of, with no original object to keep
// members of (a block of another format, or a fresh one), written member by member,
// in the order write_block's ObjectWriter gives them: its copies and lookups were
// most of writing one. False, having written nothing, for the other kinds.
bool write_fresh_block(JsonWriter& w, const Block& block, bool keep_members, const DropFn& drop) {
  auto text_member = [&](PlainKey key) {  // the block's text, copied when plain
    if (block.text.empty()) {
      write_string_member(w, key, "");
      return;
    }
    write_key(w, key);
    write_string(w, block.text);
  };
  switch (block.type) {
    case BlockType::text:
      w.StartObject();
      write_string_member(w, "type", "text");
      text_member("text");
      break;
    case BlockType::thinking:
      w.StartObject();
      write_string_member(w, "type", "thinking");
      text_member("thinking");
      if (block.signature) {
        write_string_member(w, "signature", *block.signature);
      }
      break;
    case BlockType::redacted_thinking:
      w.StartObject();
      write_string_member(w, "type", "redacted_thinking");
      text_member("data");
      break;
    case BlockType::tool_use:
    case BlockType::server_tool_use: {
      std::string_view type = block.type == BlockType::tool_use ? "tool_use" : "server_tool_use";
      if (!block.type_name.empty()) {
        type = block.type_name;
      }
      w.StartObject();
      write_string_member(w, "type", type);
      write_string_member(w, "id", block.id);
      write_string_member(w, "name", block.name);
      write_key(w, "input");
      write_input(w, block, drop);
      break;
    }
    case BlockType::tool_result:
      w.StartObject();
      write_string_member(w, "type", "tool_result");
      write_string_member(w, "tool_use_id", block.id);
      if (block.result.form != Content::Form::absent) {
        write_key(w, "content");
        write_content_value(w, block.result, keep_members, drop);
      }
      if (block.is_error) {
        write_key(w, "is_error");
        w.Bool(*block.is_error);
      }
      break;
    default:
      return false;
  }
  if (!block.cache_control.empty()) {
    write_key(w, "cache_control");
    w.RawValue(block.cache_control.data(), block.cache_control.size(), rapidjson::kObjectType);
  }
  w.EndObject();
  return true;
}

void write_block(JsonWriter& w, const Block& block, bool keep_members, const DropFn& drop) {
  const JsonValue* original = keep_members ? block.json : nullptr;
  if (original != nullptr && original->IsString() && block.type == BlockType::text) {
    w.String(block.text.data(), static_cast<rapidjson::SizeType>(block.text.size()));
    return;
  }
  if (original == nullptr && write_fresh_block(w, block, keep_members, drop)) {
    return;
  }
  ObjectWriter object(w, original);
  auto type = [&](std::string_view fallback) {
    object.set_string("type", block.type_name.empty() ? fallback : std::string_view(block.type_name));
  };
  auto cache_control = [&] {
    if (!block.cache_control.empty()) {
      object.set_raw("cache_control", block.cache_control);
    } else {
      object.remove("cache_control");
    }
  };
  switch (block.type) {
    case BlockType::text:
      object.set_string("type", "text").set_string("text", block.text);
      cache_control();
      break;
    case BlockType::thinking:
      object.set_string("type", "thinking").set_string("thinking", block.text);
      if (block.signature) {
        object.set_string("signature", *block.signature);
      } else {
        object.remove("signature");
      }
      cache_control();
      break;
    case BlockType::redacted_thinking:
      object.set_string("type", "redacted_thinking").set_string("data", block.text);
      cache_control();
      break;
    case BlockType::tool_use:
    case BlockType::server_tool_use:
      type(block.type == BlockType::tool_use ? "tool_use" : "server_tool_use");
      object.set_string("id", block.id).set_string("name", block.name);
      object.set("input", [&](JsonWriter& writer) { write_input(writer, block, drop); });
      cache_control();
      break;
    case BlockType::tool_result:
      object.set_string("type", "tool_result").set_string("tool_use_id", block.id);
      if (block.result.form == Content::Form::absent) {
        object.remove("content");
      } else {
        object.set("content", [&](JsonWriter& writer) {
          write_content_value(writer, block.result, keep_members, drop);
        });
      }
      if (block.is_error) {
        object.set_bool("is_error", *block.is_error);
      } else {
        object.remove("is_error");
      }
      cache_control();
      break;
    case BlockType::image:
    case BlockType::document:
    case BlockType::file: {
      const MediaSource& media = block.source;
      object.set_string("type", block.type == BlockType::image ? "image" : "document");
      if (original == nullptr) {
        if (!anthropic_can_hold(block, false)) {
          drop(fmt::format("{} blocks", block_type_name(block.type)));
          return;
        }
        object.set("source", [&](JsonWriter& writer) { write_anthropic_source(writer, media); });
        if (auto loss = url_media_type_loss(block); !loss.empty()) {
          drop(loss);  // a URL source is the URL alone
        }
        if (!block.name.empty() && block.type == BlockType::image) {
          drop("file names");  // an image block has no title
        } else if (!block.name.empty()) {
          object.set_string("title", block.name);
        }
      }
      cache_control();
      break;
    }
    case BlockType::audio:
    case BlockType::video:
    case BlockType::server_tool_result:
    case BlockType::unknown:
      if (original == nullptr) {
        drop(fmt::format("{} blocks", block.type_name.empty() ? block_type_name(block.type)
                                                               : std::string_view(block.type_name)));
        return;
      }
      original->Accept(w);
      return;
  }
  object.write();
}

// `data` decoded from base64, or nullopt when it is not base64 or not UTF-8 text.
std::optional<std::string> base64_text(std::string_view data) {
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (char c : data) {
    int value = c >= 'A' && c <= 'Z'   ? c - 'A'
                : c >= 'a' && c <= 'z' ? c - 'a' + 26
                : c >= '0' && c <= '9' ? c - '0' + 52
                : c == '+' || c == '-' ? 62
                : c == '/' || c == '_' ? 63
                                       : -1;
    if (c == '=' || c == '\n' || c == '\r') {
      continue;
    }
    if (value < 0) {
      return std::nullopt;
    }
    bits = (bits << 6) | static_cast<unsigned>(value);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  if (find_invalid_utf8(out)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace

void write_anthropic_source(JsonWriter& w, const MediaSource& source, bool url_media_type) {
  // The API takes a plain-text document as text, not base64 (base64 is for PDFs).
  if (source.type == MediaSource::Type::base64 && source.media_type == "text/plain") {
    if (std::optional<std::string> text = base64_text(source.data)) {
      MediaSource plain = source;
      plain.type = MediaSource::Type::text;
      plain.data = std::move(*text);
      write_anthropic_source(w, plain, url_media_type);
      return;
    }
  }
  w.StartObject();
  switch (source.type) {
    case MediaSource::Type::base64:
      w.Key("type");
      w.String("base64");
      w.Key("media_type");
      w.String(source.media_type.data(), static_cast<rapidjson::SizeType>(source.media_type.size()));
      w.Key("data");
      write_string(w, source.data);
      break;
    case MediaSource::Type::url:
      w.Key("type");
      w.String("url");
      w.Key("url");
      write_string(w, source.data);
      if (url_media_type) {
        w.Key("media_type");
        w.String(source.media_type.data(),
                 static_cast<rapidjson::SizeType>(source.media_type.size()));
      }
      break;
    case MediaSource::Type::file_id:
      w.Key("type");
      w.String("file");
      w.Key("file_id");
      write_string(w, source.data);
      break;
    case MediaSource::Type::text:
      w.Key("type");
      w.String("text");
      w.Key("media_type");
      w.String(source.media_type.empty() ? "text/plain" : source.media_type.c_str());
      w.Key("data");
      write_string(w, source.data);
      break;
    case MediaSource::Type::none:
      break;
  }
  w.EndObject();
}

bool uses_anthropic_blocks(Format format) {
  return format == Format::anthropic || format == Format::claude_code;
}

bool calls_claude_code_tools(Format format) { return format == Format::claude_code; }

bool anthropic_can_hold(const Block& block, bool keep_members) {
  bool original = keep_members && block.json != nullptr;
  switch (block.type) {
    case BlockType::image:
    case BlockType::document:
    case BlockType::file: {
      if (original) {
        return true;
      }
      // From another format: Anthropic holds images, PDFs and plain-text documents
      // given inline or by URL. File ids of other providers mean nothing here.
      const MediaSource& media = block.source;
      bool document = media.media_type == "application/pdf" || media.media_type == "text/plain" ||
                      media.type == MediaSource::Type::text;
      return media.type != MediaSource::Type::none && media.type != MediaSource::Type::file_id &&
             (block.type == BlockType::image || document);
    }
    case BlockType::audio:
    case BlockType::video:
    case BlockType::server_tool_result:
    case BlockType::unknown:
      return original;
    default:
      return true;
  }
}

void decode_anthropic_content(const JsonValue* value, const std::string& path,
                              const std::shared_ptr<const Source>& source, Content& out) {
  decode_content_list(value, path, source, out, decode_block,
                      "a string or an array of content blocks");
}

void decode_anthropic_response_fields(const JsonValue& object, const std::string& path,
                                      Message& message) {
  if (auto id = optional_string(object, "id", path)) {
    message.meta.edit().message_id = std::string(*id);
  }
  if (auto model = optional_string(object, "model", path)) {
    message.meta.edit().model = std::string(*model);
  }
  if (auto stop_reason = optional_string(object, "stop_reason", path)) {
    message.meta.edit().stop_reason = std::string(*stop_reason);
  }
  if (const JsonValue* usage = optional_object(object, "usage", path)) {
    std::string usage_path = member_path(path, "usage");
    message.usage.edit().input = optional_int(*usage, "input_tokens", usage_path);
    message.usage.edit().output = optional_int(*usage, "output_tokens", usage_path);
    message.usage.edit().cache_read = optional_int(*usage, "cache_read_input_tokens", usage_path);
    message.usage.edit().cache_write = optional_int(*usage, "cache_creation_input_tokens", usage_path);
  }
}

void decode_anthropic_role(std::string_view role, Message& message) {
  if (role == "user") {
    message.role = Role::user;
  } else if (role == "assistant") {
    message.role = Role::assistant;
  } else if (role == "system") {
    message.role = Role::system;
  } else {
    message.role = Role::custom;
    message.custom_role = std::string(role);
  }
}

void write_anthropic_content(JsonWriter& writer, const Content& content, bool keep_members,
                             const DropFn& drop) {
  write_content_value(writer, content, keep_members, drop);
}

void write_anthropic_blocks(JsonWriter& writer, std::span<const Block> blocks, bool keep_members,
                            const DropFn& drop) {
  writer.StartArray();
  for (const Block& block : blocks) {
    write_block(writer, block, keep_members, drop);
  }
  writer.EndArray();
}

void anthropic_block_members(const Content& content, const DropFn& unheld) {
  if (!content.is_blocks()) {
    return;
  }
  auto modelled = [](BlockType type, std::string_view key) {
    switch (type) {
      case BlockType::text:
        return key == "type" || key == "text" || key == "cache_control";
      case BlockType::thinking:
        return key == "type" || key == "thinking" || key == "signature";
      case BlockType::tool_use:
        return key == "type" || key == "id" || key == "name" || key == "input" ||
               key == "cache_control";
      case BlockType::tool_result:
        return key == "type" || key == "tool_use_id" || key == "content" || key == "is_error" ||
               key == "cache_control";
      default:
        return true;  // media keep their source; other blocks are counted whole
    }
  };
  for (const Block& block : content.blocks) {
    if (block.json == nullptr || !block.json->IsObject()) {
      continue;
    }
    for (const auto& member : block.json->GetObject()) {
      std::string_view key = view_of(member.name);
      if (!member.value.IsNull() && !modelled(block.type, key)) {
        unheld(fmt::format("{} of {} blocks", key, block_type_name(block.type)));
      }
    }
  }
}

bool anthropic_drops_all(const Content& content, bool keep_members, const DropFn& drop) {
  if (!content.is_blocks() || content.blocks.empty() ||
      std::any_of(content.blocks.begin(), content.blocks.end(),
                  [&](const Block& b) { return anthropic_can_hold(b, keep_members); })) {
    return false;
  }
  rapidjson::StringBuffer scratch;  // written only to count what is dropped, by name
  JsonWriter writer(scratch);
  write_content_value(writer, content, keep_members, drop);
  return true;
}

}  // namespace convo
