#include "formats/gemini_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/object_writer.h"

namespace convo {

namespace {

// A part member under its Gemini API name or its protobuf (Vertex) spelling.
struct PartKey {
  std::string_view camel;
  std::string_view snake;
};
constexpr PartKey k_function_call{"functionCall", "function_call"};
constexpr PartKey k_function_response{"functionResponse", "function_response"};
constexpr PartKey k_inline_data{"inlineData", "inline_data"};
constexpr PartKey k_file_data{"fileData", "file_data"};
constexpr PartKey k_signature{"thoughtSignature", "thought_signature"};
constexpr PartKey k_mime_type{"mimeType", "mime_type"};
constexpr PartKey k_file_uri{"fileUri", "file_uri"};

const JsonValue* member(const JsonValue& object, PartKey key) {
  if (const JsonValue* value = find_member(object, key.camel)) {
    return value;
  }
  return find_member(object, key.snake);
}

// The spelling `object` uses for `key` (the API's when it has neither).
std::string_view spelling(const JsonValue* object, PartKey key) {
  if (object != nullptr && find_member(*object, key.camel) == nullptr &&
      find_member(*object, key.snake) != nullptr) {
    return key.snake;
  }
  return key.camel;
}

std::optional<std::string_view> string_of(const JsonValue& object, PartKey key) {
  const JsonValue* value = member(object, key);
  if (value == nullptr || !value->IsString()) {
    return std::nullopt;
  }
  return view_of(*value);
}

constexpr std::string_view k_made_up_prefix = "gemini-call-";

}  // namespace

// --- Detection ---

int sniff_gemini_part(const JsonValue& part) {
  if (!part.IsObject()) {
    return 0;
  }
  if (find_member(part, "type") != nullptr) {
    return -1;  // Vercel AI SDK UI message parts
  }
  if (member(part, k_function_call) || member(part, k_function_response) ||
      member(part, k_inline_data) || member(part, k_file_data) || member(part, k_signature) ||
      find_member(part, "executableCode") || find_member(part, "codeExecutionResult")) {
    return 3;
  }
  return find_member(part, "text") != nullptr ? 1 : 0;
}

namespace {

// --- Decoding ---

BlockType media_type_of(std::string_view mime) {
  if (mime.starts_with("image/")) {
    return BlockType::image;
  }
  if (mime.starts_with("audio/")) {
    return BlockType::audio;
  }
  if (mime.starts_with("video/")) {
    return BlockType::video;
  }
  if (mime == "application/pdf" || mime.starts_with("text/")) {
    return BlockType::document;
  }
  return BlockType::file;
}

// A media type for a block given by URL without one (`fileData` needs it): from the
// URL's extension, else the kind's wildcard ("image/*"), so that it reads back as
// the same kind of block.
std::string guess_mime_type(const Block& block) {
  if (std::string_view type = media_type_of_url(block.source.data); !type.empty()) {
    return std::string(type);
  }
  switch (block.type) {
    case BlockType::image:
      return "image/*";
    case BlockType::audio:
      return "audio/*";
    case BlockType::video:
      return "video/*";
    case BlockType::document:
      return "application/pdf";
    default:
      return "";
  }
}

// A functionResponse's `response` as tool result content: `{"output": TEXT}` (what
// Gemini CLI and the SDKs send for a string) is TEXT, `{"error": TEXT}` TEXT with
// the error flag, anything else its JSON text. An output that is itself a JSON
// object's text written compactly stays wrapped, so that writing it back cannot
// mistake it: the writer sends such a text as the object, and an object's text
// spelled otherwise (indented) as an output, so that it comes back as it was. An
// error is always its text (the writer sends every error as one).
void decode_response(const JsonValue* response, Block& block) {
  block.result.form = Content::Form::string;
  if (response == nullptr || response->IsNull()) {
    block.result.form = Content::Form::absent;
    return;
  }
  if (response->IsObject() && response->MemberCount() == 1) {
    const auto& only = *response->MemberBegin();
    std::string_view key = view_of(only.name);
    if ((key == "output" || key == "error") && only.value.IsString()) {
      std::string text(view_of(only.value));
      JsonDoc doc;
      if (key == "error" || !parse_object(text, doc) || to_json(doc) != text) {
        block.result.text = std::move(text);
        if (key == "error") {
          block.is_error = true;
        }
        return;
      }
    }
  }
  block.result.text = to_json(*response);
}

// The tool result content a functionResponse's `response` decodes to, as text: to
// tell whether a stage changed it.
std::string response_text(const JsonValue* response) {
  Block block;
  decode_response(response, block);
  return block.result.text.take();
}

}  // namespace

void decode_gemini_part(const JsonValue& part, const std::string& path,
                        const std::shared_ptr<const Source>& owner, Block& block) {
  if (!part.IsObject()) {
    wrong_type(path, "a part (an object)", part);
  }
  block.json = &part;
  block.json_owner = owner;
  if (auto signature = string_of(part, k_signature)) {
    block.signature = std::string(*signature);
  }
  bool thought = optional_bool(part, "thought", path).value_or(false);
  if (const JsonValue* text = find_member(part, "text"); text != nullptr && text->IsString()) {
    block.type = thought ? BlockType::thinking : BlockType::text;
    block.type_name = thought ? "thinking" : "text";
    block.text = std::string(view_of(*text));
    return;
  }
  if (const JsonValue* call = member(part, k_function_call)) {
    std::string call_path = member_path(path, spelling(&part, k_function_call));
    if (!call->IsObject()) {
      wrong_type(call_path, "a function call (an object)", *call);
    }
    block.type = BlockType::tool_use;
    block.type_name = "tool_use";
    block.id = std::string(optional_string(*call, "id", call_path).value_or(""));
    block.name = std::string(optional_string(*call, "name", call_path).value_or(""));
    if (const JsonValue* args = find_member(*call, "args"); args != nullptr && !args->IsNull()) {
      block.input_value = args;
    }
    return;
  }
  if (const JsonValue* response = member(part, k_function_response)) {
    std::string response_path = member_path(path, spelling(&part, k_function_response));
    if (!response->IsObject()) {
      wrong_type(response_path, "a function response (an object)", *response);
    }
    block.type = BlockType::tool_result;
    block.type_name = "tool_result";
    block.id = std::string(optional_string(*response, "id", response_path).value_or(""));
    block.name = std::string(optional_string(*response, "name", response_path).value_or(""));
    decode_response(find_member(*response, "response"), block);
    // A multimodal response's media (`parts`: inlineData, fileData) follow its text;
    // a response of media alone has an empty `response` (as pydantic-ai writes it).
    const JsonValue* media = find_member(*response, "parts");
    if (media != nullptr && media->IsArray() && !media->Empty()) {
      Content result;
      result.form = Content::Form::blocks;
      const JsonValue* said = find_member(*response, "response");
      bool empty = said != nullptr && said->IsObject() && said->MemberCount() == 0;
      if (block.result.form != Content::Form::absent && !empty) {
        result.blocks.push_back(Block::make_text(std::move(block.result.text)));
      }
      std::string parts_path = member_path(response_path, "parts");
      for (rapidjson::SizeType i = 0; i < media->Size(); ++i) {
        Block inner;
        decode_gemini_part((*media)[i], fmt::format("{}/{}", parts_path, i), owner, inner);
        result.blocks.push_back(std::move(inner));
      }
      block.result = std::move(result);
    }
    return;
  }
  const JsonValue* inline_data = member(part, k_inline_data);
  const JsonValue* file_data = member(part, k_file_data);
  if ((inline_data != nullptr && inline_data->IsObject()) ||
      (file_data != nullptr && file_data->IsObject())) {
    const JsonValue& data = inline_data != nullptr ? *inline_data : *file_data;
    block.source.media_type = std::string(string_of(data, k_mime_type).value_or(""));
    block.type = media_type_of(block.source.media_type);
    block.type_name = std::string(block_type_name(block.type));
    if (inline_data != nullptr) {
      block.source.type = MediaSource::Type::base64;
      block.source.data = std::string(string_member(data, "data").value_or(""));
    } else {
      block.source.data = std::string(string_of(data, k_file_uri).value_or(""));
      // A fileUri is a URI (https:, gs:); one with no scheme is the id of a file
      // another API keeps (OpenAI's `file-...`, Anthropic's `file_...`), which is how
      // convo writes such an id there.
      std::string_view uri = block.source.data.view();
      bool id = !uri.empty() && uri.find(':') == std::string_view::npos;
      block.source.type = id ? MediaSource::Type::file_id : MediaSource::Type::url;
    }
    return;
  }
  block.type = thought ? BlockType::thinking : BlockType::unknown;
  block.type_name = thought ? "thinking" : "part";
  for (const auto& m : part.GetObject()) {
    std::string_view key = view_of(m.name);
    if (key != "thought" && key != k_signature.camel && key != k_signature.snake) {
      block.type = BlockType::unknown;
      block.type_name = std::string(key);  // executableCode, codeExecutionResult, ...
      break;
    }
  }
}

void decode_gemini_parts(const JsonValue& parts, const std::string& path,
                         const std::shared_ptr<const Source>& owner, Content& content) {
  if (!parts.IsArray()) {
    wrong_type(path, "an array of parts", parts);
  }
  content.form = Content::Form::blocks;
  for (rapidjson::SizeType i = 0; i < parts.Size(); ++i) {
    Block block;
    decode_gemini_part(parts[i], fmt::format("{}/{}", path, i), owner, block);
    content.blocks.push_back(std::move(block));
  }
}

void CallLinker::link(Content& content) {
  if (!content.is_blocks()) {
    return;
  }
  for (Block& block : content.blocks) {
    if (block.type == BlockType::tool_use && block.id.empty()) {
      block.id = made_up_call_id(++m_next);
      if (m_open.size() == k_open_calls) {
        m_open.erase(m_open.begin());  // a response answers a recent call: bounded work
      }
      m_open.emplace_back(block.name, block.id);
    } else if (block.type == BlockType::tool_result && block.id.empty()) {
      auto open = std::find_if(m_open.begin(), m_open.end(),
                               [&](const auto& call) { return call.first == block.name; });
      if (open != m_open.end()) {
        block.id = open->second;
        m_open.erase(open);
      }
    }
  }
}

bool has_snake_case_spelling(const JsonValue& part) {
  if (!part.IsObject()) {
    return false;
  }
  for (PartKey key : {k_function_call, k_function_response, k_inline_data, k_file_data,
                      k_signature}) {
    if (find_member(part, key.snake) != nullptr) {
      return true;
    }
  }
  // A multimodal function response's media are parts too.
  if (const JsonValue* response = member(part, k_function_response);
      response != nullptr && response->IsObject()) {
    if (const JsonValue* media = find_member(*response, "parts"); media != nullptr && media->IsArray()) {
      for (const JsonValue& inner : media->GetArray()) {
        if (has_snake_case_spelling(inner)) {
          return true;
        }
      }
    }
  }
  // pydantic-ai writes `{"fileData": {"file_uri": ..., "mime_type": ...}}`: the part's
  // member the API's way, the data's the protobuf's.
  for (PartKey data : {k_inline_data, k_file_data}) {
    const JsonValue* value = member(part, data);
    if (value != nullptr && value->IsObject() &&
        (find_member(*value, k_mime_type.snake) != nullptr ||
         find_member(*value, k_file_uri.snake) != nullptr)) {
      return true;
    }
  }
  return false;
}

bool is_made_up_call_id(std::string_view id) { return id.starts_with(k_made_up_prefix); }

std::string made_up_call_id(std::size_t n) { return fmt::format("{}{}", k_made_up_prefix, n); }

// --- Writing parts ---

bool GeminiPartWriter::holds(const Block& block) const {
  if (!block.cache_control.empty()) {
    m_drop("cache_control markers");
  }
  switch (block.type) {
    case BlockType::text:
    case BlockType::thinking:
    case BlockType::tool_use:
    case BlockType::tool_result:
      return true;
    case BlockType::image:
    case BlockType::audio:
    case BlockType::video:
    case BlockType::document:
    case BlockType::file:
      if (m_own && block.json != nullptr) {
        return true;
      }
      if (block.source.type == MediaSource::Type::base64 ||
          block.source.type == MediaSource::Type::url ||
          block.source.type == MediaSource::Type::file_id ||
          block.source.type == MediaSource::Type::text) {
        return true;
      }
      m_drop(fmt::format("{} blocks with no sources", block_type_name(block.type)));
      return false;
    case BlockType::unknown:
      if (m_own && block.json != nullptr) {
        return true;
      }
      [[fallthrough]];
    default:
      m_drop(fmt::format("{} blocks", block.type_name.empty()
                                          ? block_type_name(block.type)
                                          : std::string_view(block.type_name)));
      return false;
  }
}

void GeminiPartWriter::write_response(JsonWriter& w, const Block& result) {
  std::string text;
  bool texts = false;
  if (result.result.is_string()) {
    text = result.result.text;
    texts = true;
  } else if (result.result.is_blocks()) {
    for (const Block& block : result.result.blocks) {
      if (block.type == BlockType::text) {
        text += block.text;
        texts = true;
      }
    }
  }
  if (!texts && has_media(result.result)) {
    w.StartObject();  // media alone: they follow it (Gemini's `parts`, Gemini CLI's result)
    w.EndObject();
    return;
  }
  // An object's text is the response itself when written compactly (the response
  // read back is that text); spelled otherwise, it is an output, kept as it is.
  JsonDoc doc;
  if (!result.is_error.value_or(false) && parse_object(text, doc) && to_json(doc) == text) {
    write_raw(w, text);
    return;
  }
  w.StartObject();
  w.Key(result.is_error.value_or(false) ? "error" : "output");
  write_string(w, text);
  w.EndObject();
}

bool GeminiPartWriter::has_media(const Content& result) {
  return result.is_blocks() &&
         std::any_of(result.blocks.begin(), result.blocks.end(),
                     [](const Block& inner) { return is_media(inner.type); });
}

void GeminiPartWriter::write_response_parts(JsonWriter& w, const Block& result) const {
  w.StartArray();
  for (const Block& inner : result.result.blocks) {
    if (is_media(inner.type) && holds(inner)) {
      write(w, inner, "");
    }
  }
  w.EndArray();
}

void GeminiPartWriter::write(JsonWriter& w, const Block& block, std::string_view tool_name) const {
  const JsonValue* original = m_own ? block.json : nullptr;
  if (original != nullptr && !original->IsObject()) {
    original = nullptr;
  }
  ObjectWriter part(w, original);
  auto signature = [&] {
    std::string_view key = spelling(original, k_signature);
    if (block.signature) {
      std::string value = *block.signature;
      part.set(key, [value](JsonWriter& sw) { write_string(sw, value); });
    } else if (original != nullptr) {
      part.remove(k_signature.camel).remove(k_signature.snake);
    }
  };
  switch (block.type) {
    case BlockType::text:
    case BlockType::thinking: {
      std::string text = block.text.str();
      part.set("text", [text](JsonWriter& tw) { write_string(tw, text); });
      if (block.type == BlockType::thinking) {
        part.set_bool("thought", true);
      } else if (original != nullptr) {
        part.remove("thought");
      }
      signature();
      break;
    }
    case BlockType::tool_use: {
      const JsonValue* call = original != nullptr ? member(*original, k_function_call) : nullptr;
      if (block.id.empty() && call == nullptr) {
        m_drop("tool calls without ids");  // read back with one made up (CallLinker)
      }
      // `call` is named by value: the part is written after this block ends.
      part.set(spelling(original, k_function_call), [&, call](JsonWriter& cw) {
        ObjectWriter object(cw, call != nullptr && call->IsObject() ? call : nullptr);
        if (!block.id.empty() && !is_made_up_call_id(block.id)) {
          object.set_string("id", block.id);
        }
        object.set_string("name", block.name);
        if (!(call != nullptr && block.input.empty())) {
          object.set("args", [&](JsonWriter& aw) {
            if (!write_tool_input(aw, block)) {
              aw.StartObject();
              aw.EndObject();
            }
          });
        }
        object.write();
      });
      signature();
      break;
    }
    case BlockType::tool_result: {
      const JsonValue* response =
          original != nullptr ? member(*original, k_function_response) : nullptr;
      part.set(spelling(original, k_function_response), [&, response](JsonWriter& rw) {
        const bool patch = response != nullptr && response->IsObject();
        ObjectWriter object(rw, patch ? response : nullptr);
        if (!block.id.empty() && !is_made_up_call_id(block.id)) {
          object.set_string("id", block.id);
        }
        object.set_string("name", tool_name);
        const JsonValue* was = patch ? find_member(*response, "response") : nullptr;
        bool same = was != nullptr && block.result.is_string() &&
                    response_text(was) == block.result.text;
        if (!same) {
          object.set("response", [&](JsonWriter& vw) { write_response(vw, block); });
        }
        if (has_media(block.result)) {
          object.set("parts", [this, &block](JsonWriter& pw) { write_response_parts(pw, block); });
        }
        object.write();
      });
      if (original == nullptr && block.result.is_blocks()) {
        // The response holds one text, before the media: several texts are joined,
        // and a text after a media block moves before them.
        std::size_t texts = 0;
        bool media_before_text = false;
        bool media = false;
        for (const Block& inner : block.result.blocks) {
          if (inner.type == BlockType::text) {
            ++texts;
            media_before_text = media_before_text || media;
          } else if (is_media(inner.type)) {
            media = true;
          } else {
            m_drop(fmt::format("{} in tool results", blocks_of(inner)));
          }
        }
        if (texts > 1 || media_before_text) {
          m_drop("text block boundaries in tool results");
        }
      }
      signature();
      break;
    }
    default:
      if (original != nullptr) {
        original->Accept(w);
        return;
      }
      if (block.source.type == MediaSource::Type::base64 ||
          block.source.type == MediaSource::Type::text) {
        // A plain-text document (Anthropic's text source) goes as its bytes.
        const bool text = block.source.type == MediaSource::Type::text;
        part.set("inlineData", [&, text](JsonWriter& dw) {
          dw.StartObject();
          dw.Key("mimeType");
          write_string(dw, text && block.source.media_type.empty() ? "text/plain"
                                                                   : block.source.media_type);
          dw.Key("data");
          write_string(dw, text ? encode_base64(block.source.data) : block.source.data);
          dw.EndObject();
        });
      } else {
        part.set("fileData", [&](JsonWriter& dw) {
          dw.StartObject();
          std::string mime = block.source.media_type.empty() ? guess_mime_type(block)
                                                             : block.source.media_type;
          if (!mime.empty()) {
            dw.Key("mimeType");
            write_string(dw, mime);
          }
          dw.Key("fileUri");
          write_string(dw, block.source.data);
          dw.EndObject();
        });
      }
      signature();
      break;
  }
  part.write();
}
}  // namespace convo
