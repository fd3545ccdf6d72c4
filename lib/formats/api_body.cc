// What the four APIs' body codecs share: the thinking mapping, stop reasons, and
// JSON Schema to and from Gemini's Schema object.
#include "formats/api_body.h"

#include "formats/json_out.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace convo {

std::string effort_of_budget(std::int64_t tokens) {
  if (tokens <= 1024) {
    return "low";
  }
  return tokens <= 2048 ? "medium" : "high";
}

std::int64_t budget_of_effort(std::string_view effort) {
  if (effort == "minimal" || effort == "low" || effort == "none") {
    return 1024;  // Anthropic's least budget
  }
  return effort == "medium" ? 2048 : 4096;
}

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string ascii_upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

void write_json_schema(JsonWriter& w, const JsonValue& schema, bool from_gemini) {
  if (!from_gemini) {
    schema.Accept(w);
    return;
  }
  if (schema.IsArray()) {
    w.StartArray();
    for (const JsonValue& v : schema.GetArray()) {
      write_json_schema(w, v, true);
    }
    w.EndArray();
    return;
  }
  if (!schema.IsObject()) {
    schema.Accept(w);
    return;
  }
  bool nullable = false;
  if (const JsonValue* n = find_member(schema, "nullable"); n != nullptr && n->IsBool()) {
    nullable = n->GetBool();
  }
  w.StartObject();
  for (const auto& member : schema.GetObject()) {
    std::string_view key = view_of(member.name);
    if (key == "nullable") {
      continue;
    }
    write_string(w, key);
    if (key == "type" && member.value.IsString()) {
      std::string type = ascii_lower(view_of(member.value));
      if (nullable) {
        w.StartArray();
        write_string(w, type);
        w.String("null");
        w.EndArray();
      } else {
        write_string(w, type);
      }
    } else if (key == "properties" && member.value.IsObject()) {
      w.StartObject();
      for (const auto& property : member.value.GetObject()) {
        write_string(w, view_of(property.name));
        write_json_schema(w, property.value, true);
      }
      w.EndObject();
    } else if (key == "items" || key == "anyOf") {
      write_json_schema(w, member.value, true);
    } else {
      member.value.Accept(w);
    }
  }
  w.EndObject();
}

std::string member_json(std::string_view value, std::string_view key) {
  JsonDoc doc;
  if (!parse_object(value, doc)) {
    return "";
  }
  const JsonValue* member = find_member(doc, key);
  return member == nullptr ? "" : to_json(*member);
}

void ApiBody::unmapped_member(std::string_view key) {
  unmapped.push_back(fmt::format("{} of {}", key, response ? "response bodies" : "request bodies"));
}

const JsonValue* either_member(const JsonValue& object, std::string_view key,
                               std::string_view snake) {
  if (!object.IsObject()) {
    return nullptr;
  }
  const JsonValue* value = find_member(object, key);
  return value != nullptr ? value : find_member(object, snake);
}

bool says_nothing(const JsonValue& value) {
  return value.IsNull() || (value.IsString() && value.GetStringLength() == 0) ||
         (value.IsArray() && value.Empty()) || (value.IsObject() && value.MemberCount() == 0);
}

void drop_include_thoughts(const ThinkingSetting& thinking, const BodyDrop& drop) {
  if (!thinking.include_thoughts) {
    return;
  }
  if (thinking.state == ThinkingSetting::State::unset) {
    drop("thinkingConfig of request bodies");
  } else if (thinking.include_thoughts_snake) {
    drop("include_thoughts of request bodies");  // comes back as includeThoughts
  } else if (!*thinking.include_thoughts) {
    drop("includeThoughts of request bodies");
  }
}

void write_string_list(JsonWriter& w, std::string_view key, const std::vector<std::string>& strings) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  w.StartArray();
  for (const std::string& text : strings) {
    write_string(w, text);
  }
  w.EndArray();
}

bool read_description(const JsonValue& tool, std::string& out) {
  auto description = string_member(tool, "description");
  out = std::string(description.value_or(""));
  return description.has_value();
}

std::string write_body(const BodyCodec& codec, const ApiBody& body,
                       const std::vector<BodyTurn>& turns, const BodyDrop& drop) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  (body.response ? codec.write_response : codec.write_request)(body, turns, drop, w);
  return std::string(buffer.GetString(), buffer.GetSize());
}

void write_openai_tool_choice(const ApiBody& body, const BodyDrop& drop, bool chat,
                              JsonWriter& w) {
  switch (body.tool_choice) {
    case ToolChoice::unset:
      break;
    case ToolChoice::auto_:
      w.Key("tool_choice");
      w.String("auto");
      break;
    case ToolChoice::any:
      w.Key("tool_choice");
      w.String("required");
      break;
    case ToolChoice::none:
      w.Key("tool_choice");
      w.String("none");
      break;
    case ToolChoice::tool:
      w.Key("tool_choice");
      if (body.tool_choice_names.size() == 1) {
        std::string name = json_quote(body.tool_choice_names.front());
        write_raw(w, chat ? fmt::format(R"({{"type":"function","function":{{"name":{}}}}})", name)
                          : fmt::format(R"({{"type":"function","name":{}}})", name));
      } else {
        w.String("required");
        drop("allowed_function_names of request bodies");
      }
      break;
  }
  if (body.parallel_tool_calls) {
    w.Key("parallel_tool_calls");
    w.Bool(*body.parallel_tool_calls);
  }
}

void read_openai_usage(const JsonValue& usage, std::string_view input_key,
                       std::string_view output_key, ApiBody& body) {
  auto details_of = [](std::string_view key, std::string_view count) {  // "COUNT_details"
    return key.size() == count.size() + 8 && key.starts_with(count) && key.ends_with("_details");
  };
  std::optional<std::int64_t> input;
  for (const auto& member : usage.GetObject()) {
    std::string_view key = view_of(member.name);
    const JsonValue& value = member.value;
    if (key == input_key && value.IsInt64()) {
      input = value.GetInt64();
    } else if (key == output_key && value.IsInt64()) {
      body.usage.output = value.GetInt64();
    } else if (key == "total_tokens" && value.IsInt64()) {
      body.usage.total = value.GetInt64();
    } else if ((details_of(key, input_key) || details_of(key, output_key)) && value.IsObject()) {
      for (const auto& detail : value.GetObject()) {
        std::string_view name = view_of(detail.name);
        if (name == "cached_tokens" && detail.value.IsInt64()) {
          body.usage.cache_read = detail.value.GetInt64();
        } else if (name == "cache_write_tokens" && detail.value.IsInt64() &&
                   input_key == "prompt_tokens") {
          body.usage.cache_write = detail.value.GetInt64();  // OpenRouter's, in Chat
        } else if (name == "reasoning_tokens" && detail.value.IsInt64()) {
          body.usage.reasoning = detail.value.GetInt64();
        } else if (!says_nothing(detail.value)) {
          body.unmapped.push_back(fmt::format("{} of usage", name));
        }
      }
    } else if (!says_nothing(value)) {
      body.unmapped.push_back(fmt::format("{} of usage", key));
    }
  }
  if (input) {
    body.usage.input = *input - body.usage.cache_read.value_or(0) - body.usage.cache_write.value_or(0);
  }
}

}  // namespace convo
