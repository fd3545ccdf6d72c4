// Gemini generateContent bodies (api_body.h): a request
// `{"contents","systemInstruction","tools","toolConfig","generationConfig",...}` (the
// model is in the URL, not the body) and a response
// `{"candidates","usageMetadata","modelVersion","responseId"}`. Members are read in
// the REST API's camelCase and in the snake_case of Vertex AI and the Python SDK.
#include "formats/api_body.h"

#include "formats/gemini.h"
#include "formats/json_out.h"

#include <fmt/format.h>

#include <algorithm>

namespace convo {

// Named, not anonymous: the unity build puts the four codecs in one unit.
namespace gemini_body {

// --- Reading ---

void read_tools(const JsonValue& tools, ApiBody& body) {
  for (const JsonValue& tool : tools.GetArray()) {
    if (!tool.IsObject()) {
      continue;
    }
    for (const auto& member : tool.GetObject()) {
      std::string_view key = view_of(member.name);
      if (key != "functionDeclarations" && key != "function_declarations") {
        ToolSpec spec;
        spec.kind = std::string(key);  // googleSearch, codeExecution, urlContext, ...
        spec.json = &member.value;
        body.tools.push_back(std::move(spec));
        continue;
      }
      if (!member.value.IsArray()) {
        continue;
      }
      if (key == "function_declarations") {
        body.unmapped.emplace_back("Vertex tool spellings");  // written back as the API spells them
      }
      for (const JsonValue& declaration : member.value.GetArray()) {
        if (find_member(declaration, "parameters_json_schema") != nullptr) {
          body.unmapped.emplace_back("Vertex tool spellings");
        }
        ToolSpec spec;
        spec.json = &declaration;
        spec.name = std::string(string_member(declaration, "name").value_or(""));
        spec.has_description = read_description(declaration, spec.description);
        spec.schema = either_member(declaration, "parametersJsonSchema", "parameters_json_schema");
        if (spec.schema == nullptr) {
          spec.schema = find_member(declaration, "parameters");
          spec.gemini_schema = spec.schema != nullptr;
          if (spec.gemini_schema) {
            // Other APIs take JSON Schema: it comes back as parametersJsonSchema.
            body.unmapped.emplace_back("Gemini Schemas of tools");
          }
        }
        body.tools.push_back(std::move(spec));
      }
    }
  }
}

void read_tool_config(const JsonValue& config, ApiBody& body) {
  const JsonValue* calling = either_member(config, "functionCallingConfig", "function_calling_config");
  if (calling == nullptr || !calling->IsObject()) {
    body.unmapped_member("toolConfig");
    return;
  }
  for (const auto& member : config.GetObject()) {
    std::string_view key = view_of(member.name);
    if (key != "functionCallingConfig" && key != "function_calling_config" &&
        !says_nothing(member.value)) {
      body.unmapped_member(key);  // includeServerSideToolInvocations, retrievalConfig, ...
    }
  }
  auto mode = string_member(*calling, "mode").value_or("");
  const JsonValue* names = either_member(*calling, "allowedFunctionNames", "allowed_function_names");
  if (names != nullptr && names->IsArray()) {
    for (const JsonValue& name : names->GetArray()) {
      if (name.IsString()) {
        body.tool_choice_names.emplace_back(view_of(name));
      }
    }
  }
  if (mode == "AUTO" || mode == "VALIDATED") {
    body.tool_choice = ToolChoice::auto_;
    if (mode == "VALIDATED") {
      body.unmapped_member("VALIDATED function calling");
    }
  } else if (mode == "ANY") {
    body.tool_choice = body.tool_choice_names.empty() ? ToolChoice::any : ToolChoice::tool;
  } else if (mode == "NONE") {
    body.tool_choice = ToolChoice::none;
  }
}

void read_generation_config(const JsonValue& config, ApiBody& body) {
  for (const auto& member : config.GetObject()) {
    std::string_view key = view_of(member.name);
    const JsonValue& value = member.value;
    if ((key == "maxOutputTokens" || key == "max_output_tokens") && value.IsInt64()) {
      body.max_tokens = value.GetInt64();
    } else if (key == "temperature" && value.IsNumber()) {
      body.temperature = &value;
    } else if ((key == "topP" || key == "top_p") && value.IsNumber()) {
      body.top_p = &value;
    } else if ((key == "topK" || key == "top_k") && value.IsNumber()) {
      body.top_k = &value;
    } else if ((key == "stopSequences" || key == "stop_sequences") && value.IsArray()) {
      for (const JsonValue& stop : value.GetArray()) {
        if (stop.IsString()) {
          body.stop.emplace_back(view_of(stop));
        }
      }
    } else if ((key == "responseModalities" || key == "response_modalities") && value.IsArray()) {
      for (const JsonValue& modality : value.GetArray()) {
        if (modality.IsString()) {
          body.modalities.push_back(ascii_lower(view_of(modality)));
        }
      }
    } else if ((key == "thinkingConfig" || key == "thinking_config") && value.IsObject()) {
      const JsonValue* budget = either_member(value, "thinkingBudget", "thinking_budget");
      auto level = either_member(value, "thinkingLevel", "thinking_level");
      if (budget != nullptr && budget->IsInt64()) {
        std::int64_t tokens = budget->GetInt64();
        body.thinking.state = tokens == 0   ? ThinkingSetting::State::off
                              : tokens < 0  ? ThinkingSetting::State::dynamic
                                            : ThinkingSetting::State::on;
        if (tokens > 0) {
          body.thinking.budget = tokens;
        }
      } else if (level != nullptr && level->IsString()) {
        body.thinking.state = ThinkingSetting::State::on;
        body.thinking.effort = ascii_lower(view_of(*level));
      }
      const JsonValue* include = either_member(value, "includeThoughts", "include_thoughts");
      if (include != nullptr && include->IsBool()) {
        body.thinking.include_thoughts = include->GetBool();
        body.thinking.include_thoughts_snake = find_member(value, "includeThoughts") == nullptr;
        if (include->GetBool() && body.thinking.state == ThinkingSetting::State::unset) {
          body.thinking.state = ThinkingSetting::State::dynamic;  // thinks as it sees fit
        }
      }
    } else if (!says_nothing(value)) {
      body.unmapped_member(key);
    }
  }
}

void read_usage(const JsonValue& usage, ApiBody& body) {
  std::optional<std::int64_t> prompt;
  std::optional<std::int64_t> candidates;
  for (const auto& member : usage.GetObject()) {
    std::string_view key = view_of(member.name);
    const JsonValue& value = member.value;
    std::optional<std::int64_t> count;
    if (value.IsInt64()) {
      count = value.GetInt64();
    }
    if (key == "promptTokenCount" || key == "prompt_token_count") {
      prompt = count;
    } else if (key == "candidatesTokenCount" || key == "candidates_token_count") {
      candidates = count;
    } else if (key == "thoughtsTokenCount" || key == "thoughts_token_count") {
      body.usage.reasoning = count;
    } else if (key == "cachedContentTokenCount" || key == "cached_content_token_count") {
      body.usage.cache_read = count;
    } else if (key == "totalTokenCount" || key == "total_token_count") {
      body.usage.total = count;
    } else if (!says_nothing(value)) {
      body.unmapped.push_back(fmt::format("{} of usage", key));
    }
  }
  if (prompt) {
    body.usage.input = *prompt - body.usage.cache_read.value_or(0);
  }
  // Gemini counts thoughts apart from the candidates; the others count them as output.
  if (candidates || body.usage.reasoning) {
    body.usage.output = candidates.value_or(0) + body.usage.reasoning.value_or(0);
  }
}

void read(const JsonValue& root, ApiBody& body) {
  for (const auto& member : root.GetObject()) {
    std::string_view key = view_of(member.name);
    const JsonValue& value = member.value;
    if (key == "contents" || key == "systemInstruction" || key == "system_instruction") {
      continue;
    }
    if (key == "candidates" && value.IsArray()) {
      for (const JsonValue& candidate : value.GetArray()) {
        for (const auto& m : candidate.GetObject()) {
          std::string_view k = view_of(m.name);
          if (k == "index") {
            body.indexed = true;
          } else if ((k == "finishReason" || k == "finish_reason") && m.value.IsString()) {
            // UNEXPECTED_TOOL_CALL, RECITATION, ...: read as the stop reason they are
            // a case of, which the other APIs give back as its own word.
            std::string_view reason = view_of(m.value);
            if (stop_reason_spelled(Format::gemini, stop_reason_named(reason)).name != reason) {
              body.unmapped.emplace_back("stop reasons");
            }
          } else if (k != "content" && k != "finishReason" && k != "finish_reason" &&
                     !says_nothing(m.value)) {
            body.unmapped_member(k);
          }
        }
      }
    } else if ((key == "modelVersion" || key == "model_version" || key == "model") &&
               value.IsString()) {
      body.model = std::string(view_of(value));
    } else if ((key == "responseId" || key == "response_id") && value.IsString()) {
      body.id = std::string(view_of(value));
    } else if ((key == "usageMetadata" || key == "usage_metadata") && value.IsObject()) {
      read_usage(value, body);
    } else if (key == "tools" && value.IsArray()) {
      read_tools(value, body);
    } else if ((key == "toolConfig" || key == "tool_config") && value.IsObject()) {
      read_tool_config(value, body);
    } else if ((key == "generationConfig" || key == "generation_config") && value.IsObject()) {
      read_generation_config(value, body);
    } else if (!says_nothing(value)) {
      body.unmapped_member(key);
    }
  }
}

// --- Writing ---

// True when `content` has nothing to say: no parts, or empty texts alone.
bool empty_reply(const Content& content) {
  if (!content.is_blocks()) {
    return content.text.empty();
  }
  return std::all_of(content.blocks.begin(), content.blocks.end(), [](const Block& block) {
    return block.type == BlockType::text && block.text.empty() && !block.signature;
  });
}

void write_response(const ApiBody& body, const std::vector<BodyTurn>& turns, const BodyDrop& drop,
                    JsonWriter& w) {
  w.StartObject();
  w.Key("candidates");
  w.StartArray();
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const BodyTurn& turn = turns[i];
    w.StartObject();
    w.Key("content");
    if (turn.values.empty() || (turn.message != nullptr && empty_reply(turn.message->content))) {
      write_raw(w, "{}");  // as Gemini gives a candidate it blocked (finishReason SAFETY)
    } else {
      write_raw(w, turn.values.front());
    }
    auto reason = stop_reason_spelled(Format::gemini, turn.stop != StopReason::none ? turn.stop : body.stop_reason);
    bool calls = turn.message != nullptr && turn.message->has_tool_uses();
    if (!reason.exact || (turn.stop == StopReason::end_turn && calls)) {
      drop("stop reasons");  // STOP after calls reads back as tool_use
    }
    if (!reason.name.empty()) {
      w.Key("finishReason");
      write_string(w, reason.name);
    }
    if (body.indexed || turns.size() > 1) {
      w.Key("index");
      w.Uint64(i);
    }
    w.EndObject();
  }
  w.EndArray();
  const Usage& usage = body.usage;
  if (!usage.empty()) {
    std::int64_t prompt = usage.input.value_or(0) + usage.cache_read.value_or(0) +
                          usage.cache_write.value_or(0);
    std::int64_t thoughts = usage.reasoning.value_or(0);
    std::int64_t candidates = usage.output.value_or(0) - thoughts;
    w.Key("usageMetadata");
    w.StartObject();
    w.Key("promptTokenCount");
    w.Int64(prompt);
    if (candidates != 0) {  // Gemini leaves a zero count out (proto3 JSON)
      w.Key("candidatesTokenCount");
      w.Int64(candidates);
    }
    if (usage.cache_read) {
      w.Key("cachedContentTokenCount");
      w.Int64(*usage.cache_read);
    }
    if (usage.reasoning) {
      w.Key("thoughtsTokenCount");
      w.Int64(thoughts);
    }
    w.Key("totalTokenCount");
    w.Int64(usage.total.value_or(prompt + usage.output.value_or(0)));
    w.EndObject();
    if (usage.cache_write) {
      drop("cache write token counts");
    }
  }
  if (!body.model.empty()) {
    w.Key("modelVersion");
    write_string(w, body.model);
  }
  if (!body.id.empty()) {
    w.Key("responseId");
    write_string(w, body.id);
  }
  if (body.created != 0) {
    drop("timestamps");
  }
  w.EndObject();
}

void write_tools(JsonWriter& w, const std::vector<ToolSpec>& tools, const BodyDrop& drop) {
  w.StartArray();
  bool any = false;
  for (const ToolSpec& tool : tools) {
    if (tool.kind != "function") {
      drop(fmt::format("{} tools", tool.kind));
      continue;
    }
    if (!any) {
      w.StartObject();
      w.Key("functionDeclarations");
      w.StartArray();
      any = true;
    }
    w.StartObject();
    w.Key("name");
    write_string(w, tool.name);
    if (tool.has_description) {
      w.Key("description");
      write_string(w, tool.description);
    }
    // A Gemini Schema goes as `parameters`; a JSON Schema as `parametersJsonSchema`,
    // which takes it as it is, so that it comes back from Gemini byte for byte (and a
    // Gemini body's own parametersJsonSchema comes back as it went).
    if (tool.schema != nullptr && tool.schema->IsObject()) {
      w.Key(tool.gemini_schema ? "parameters" : "parametersJsonSchema");
      tool.schema->Accept(w);
    }
    w.EndObject();
    if (tool.strict) {
      drop("strict of tools");
    }
    if (tool.defer_loading) {
      drop("defer_loading of tools");  // Gemini has no tool search
    }
    if (!tool.cache_control.empty()) {
      drop("cache_control markers");
    }
  }
  if (any) {
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

// True when `message` holds tool results alone (a Chat `tool` message).
bool tool_results_only(const Message* message) {
  if (message == nullptr || !message->content.is_blocks() || message->content.blocks.empty() ||
      (message->role != Role::tool && message->role != Role::user)) {
    return false;
  }
  return std::all_of(message->content.blocks.begin(), message->content.blocks.end(),
                     [](const Block& b) { return b.type == BlockType::tool_result; });
}

void write_request(const ApiBody& body, const std::vector<BodyTurn>& turns, const BodyDrop& drop,
                   JsonWriter& w) {
  w.StartObject();
  w.Key("contents");
  w.StartArray();
  // The system messages before the first turn are one systemInstruction, each its
  // parts in order (as pydantic-ai's Google model writes its system prompts; read
  // back, each part is a system message again). One after a turn has no place: the
  // API has no system message but the instruction before the contents.
  // The responses to one turn's calls are one Content (the API wants them together),
  // from APIs with a message per tool result.
  JsonDoc system;
  bool turned = false;
  std::string results;
  auto write_results = [&] {
    if (!results.empty()) {
      write_raw(w, fmt::format(R"({{"role":"user","parts":[{}]}})", results));
      results.clear();
    }
  };
  for (const BodyTurn& turn : turns) {
    for (const std::string& value : turn.values) {
      std::string instruction = member_json(value, "systemInstruction");
      std::string parts = instruction.empty() && tool_results_only(turn.message)
                              ? member_json(value, "parts")
                              : std::string();
      if (parts.size() > 2) {
        results += results.empty() ? "" : ",";
        results += std::string_view(parts).substr(1, parts.size() - 2);
        turned = true;
        continue;
      }
      write_results();
      if (instruction.empty()) {
        write_raw(w, value);
        turned = true;
      } else if (turned) {
        drop("mid-conversation system messages");
      } else {
        append_system_instruction(instruction, system);
      }
    }
  }
  write_results();
  w.EndArray();
  if (system.IsObject()) {
    w.Key("systemInstruction");
    system.Accept(w);
  }
  bool functions = std::any_of(body.tools.begin(), body.tools.end(),
                               [](const ToolSpec& t) { return t.kind == "function"; });
  if (!body.tools.empty()) {
    w.Key("tools");
    write_tools(w, body.tools, drop);
  }
  if (body.tool_choice != ToolChoice::unset && !functions) {
    drop("tool_choice of request bodies");  // Gemini's toolConfig is for function tools
  }
  if (body.tool_choice != ToolChoice::unset && functions) {
    w.Key("toolConfig");
    w.StartObject();
    w.Key("functionCallingConfig");
    w.StartObject();
    w.Key("mode");
    w.String(body.tool_choice == ToolChoice::auto_  ? "AUTO"
             : body.tool_choice == ToolChoice::none ? "NONE"
                                                    : "ANY");
    if (body.tool_choice == ToolChoice::tool) {
      w.Key("allowedFunctionNames");
      w.StartArray();
      for (const std::string& name : body.tool_choice_names) {
        write_string(w, name);
      }
      w.EndArray();
    }
    w.EndObject();
    w.EndObject();
  }
  if (body.parallel_tool_calls == false) {
    drop("parallel_tool_calls of request bodies");
  }
  rapidjson::StringBuffer config_buffer;
  JsonWriter c(config_buffer);
  c.StartObject();
  if (body.max_tokens) {
    c.Key("maxOutputTokens");
    c.Int64(*body.max_tokens);
  }
  if (body.temperature != nullptr) {
    c.Key("temperature");
    body.temperature->Accept(c);
  }
  if (body.top_p != nullptr) {
    c.Key("topP");
    body.top_p->Accept(c);
  }
  if (body.top_k != nullptr) {
    c.Key("topK");
    body.top_k->Accept(c);
  }
  if (!body.stop.empty()) {
    write_string_list(c, "stopSequences", body.stop);
  }
  if (!body.modalities.empty()) {
    c.Key("responseModalities");
    c.StartArray();
    for (const std::string& modality : body.modalities) {
      write_string(c, ascii_upper(modality));
    }
    c.EndArray();
  }
  const ThinkingSetting& thinking = body.thinking;
  if (thinking.state != ThinkingSetting::State::unset) {
    std::int64_t budget = thinking.state == ThinkingSetting::State::off       ? 0
                          : thinking.state == ThinkingSetting::State::dynamic ? -1
                          : thinking.budget.value_or(budget_of_effort(thinking.effort));
    c.Key("thinkingConfig");
    c.StartObject();
    // Dynamic thinking is the models' default: includeThoughts alone says it, as it
    // reads (thinkingBudget -1 says it too).
    bool include = thinking.include_thoughts.value_or(budget != 0);
    if (budget != -1 || !include) {
      c.Key("thinkingBudget");
      c.Int64(budget);
    }
    if (include) {
      c.Key("includeThoughts");
      c.Bool(true);
    }
    c.EndObject();
  }
  c.EndObject();
  if (config_buffer.GetSize() > 2) {
    w.Key("generationConfig");
    write_raw(w, std::string_view(config_buffer.GetString(), config_buffer.GetSize()));
  }
  if (!body.model.empty()) {
    drop("model names");  // a Gemini request names its model in the URL
  }
  if (body.stream) {
    drop("stream of request bodies");  // streamGenerateContent is another URL
  }
  if (!body.user.empty()) {
    drop("metadata of request bodies");
  }
  w.EndObject();
}


}  // namespace gemini_body

const BodyCodec k_gemini_body{gemini_body::read, gemini_body::write_request, gemini_body::write_response};

}  // namespace convo
