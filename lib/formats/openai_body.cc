// OpenAI Chat Completions bodies (api_body.h): a request
// `{"model","messages","tools","tool_choice","max_completion_tokens",...}` and a
// response `{"id","object":"chat.completion","created","model","choices","usage"}`.
#include "formats/api_body.h"

#include "formats/json_out.h"

#include <fmt/format.h>

#include <algorithm>

namespace convo {

// Named, not anonymous: the unity build puts the four codecs in one unit.
namespace openai_body {

// --- Reading ---

void read_tools(const JsonValue& tools, ApiBody& body) {
  for (const JsonValue& tool : tools.GetArray()) {
    if (!tool.IsObject()) {
      continue;
    }
    ToolSpec spec;
    spec.json = &tool;
    auto type = string_member(tool, "type").value_or("function");
    const JsonValue* function = find_member(tool, "function");
    if (type != "function" || function == nullptr || !function->IsObject()) {
      spec.kind = std::string(type);
      body.tools.push_back(std::move(spec));
      continue;
    }
    spec.name = std::string(string_member(*function, "name").value_or(""));
    spec.has_description = read_description(*function, spec.description);
    spec.schema = find_member(*function, "parameters");
    if (const JsonValue* strict = find_member(*function, "strict");
        strict != nullptr && strict->IsBool()) {
      spec.strict = strict->GetBool();
    }
    // OpenRouter's and LiteLLM's Anthropic cache marker on a tool.
    if (const JsonValue* cache = find_member(tool, "cache_control"); cache != nullptr) {
      spec.cache_control = to_json(*cache);
    }
    for (const auto& member : tool.GetObject()) {
      std::string_view key = view_of(member.name);
      if (key != "type" && key != "function" && key != "cache_control" &&
          !says_nothing(member.value)) {
        body.unmapped.push_back(fmt::format("{} of tools", key));
      }
    }
    body.tools.push_back(std::move(spec));
  }
}

void read_tool_choice(const JsonValue& choice, ApiBody& body) {
  if (choice.IsString()) {
    std::string_view mode = view_of(choice);
    body.tool_choice = mode == "auto"       ? ToolChoice::auto_
                       : mode == "required" ? ToolChoice::any
                       : mode == "none"     ? ToolChoice::none
                                            : ToolChoice::unset;
    return;
  }
  const JsonValue* function = find_member(choice, "function");
  if (function != nullptr && function->IsObject()) {
    body.tool_choice = ToolChoice::tool;
    body.tool_choice_names.emplace_back(string_member(*function, "name").value_or(""));
  } else {
    body.unmapped_member("tool_choice");  // allowed_tools, custom tools
  }
}

void read(const JsonValue& root, ApiBody& body) {
  for (const auto& member : root.GetObject()) {
    std::string_view key = view_of(member.name);
    const JsonValue& value = member.value;
    if (key == "messages" || key == "object") {
      continue;
    }
    if (key == "model" && value.IsString()) {
      body.model = std::string(view_of(value));
    } else if (key == "choices" && value.IsArray()) {
      for (const JsonValue& choice : value.GetArray()) {
        for (const auto& m : choice.GetObject()) {
          std::string_view k = view_of(m.name);
          if (k == "index") {
            body.indexed = true;
          } else if (k != "message" && k != "finish_reason" && !says_nothing(m.value)) {
            body.unmapped_member(k);
          }
        }
      }
    } else if (body.response && key == "id" && value.IsString()) {
      body.id = std::string(view_of(value));
    } else if (body.response && key == "created" && value.IsInt64()) {
      body.created = value.GetInt64();
    } else if (body.response && key == "usage" && value.IsObject()) {
      read_openai_usage(value, "prompt_tokens", "completion_tokens", body);
    } else if ((key == "max_completion_tokens" || key == "max_tokens") && value.IsInt64()) {
      body.max_tokens = value.GetInt64();
      if (key == "max_tokens") {
        // The deprecated spelling, which comes back as max_completion_tokens.
        body.unmapped.emplace_back("max_tokens of request bodies");
      }
    } else if (key == "temperature" && value.IsNumber()) {
      body.temperature = &value;
    } else if (key == "top_p" && value.IsNumber()) {
      body.top_p = &value;
    } else if (key == "stop" && value.IsString()) {
      body.stop.emplace_back(view_of(value));
    } else if (key == "stop" && value.IsArray()) {
      for (const JsonValue& stop : value.GetArray()) {
        if (stop.IsString()) {
          body.stop.emplace_back(view_of(stop));
        }
      }
    } else if (key == "stream" && value.IsBool()) {
      body.stream = value.GetBool();
    } else if (key == "tools" && value.IsArray()) {
      read_tools(value, body);
    } else if (key == "tool_choice") {
      read_tool_choice(value, body);
    } else if (key == "parallel_tool_calls" && value.IsBool()) {
      body.parallel_tool_calls = value.GetBool();
    } else if (key == "reasoning_effort" && value.IsString()) {
      body.thinking.effort = std::string(view_of(value));
      body.thinking.state = body.thinking.effort == "none" ? ThinkingSetting::State::off
                                                           : ThinkingSetting::State::on;
    } else if (key == "modalities" && value.IsArray() &&
               std::all_of(value.Begin(), value.End(), [](const JsonValue& v) { return v.IsString(); })) {
      for (const JsonValue& modality : value.GetArray()) {
        body.modalities.emplace_back(view_of(modality));
      }
    } else if (key == "user" && value.IsString()) {
      body.user = std::string(view_of(value));
    } else if (key == "metadata" && value.IsObject()) {
      for (const auto& m : value.GetObject()) {
        if (view_of(m.name) == "user_id" && m.value.IsString() && body.user.empty()) {
          body.user = std::string(view_of(m.value));
        } else if (!says_nothing(m.value)) {
          body.unmapped_member("metadata");
        }
      }
    } else if (!says_nothing(value)) {
      body.unmapped_member(key);
    }
  }
}

// --- Writing ---

void write_usage(JsonWriter& w, const Usage& usage) {
  std::int64_t prompt = usage.input.value_or(0) + usage.cache_read.value_or(0) +
                        usage.cache_write.value_or(0);
  std::int64_t completion = usage.output.value_or(0);
  w.Key("usage");
  w.StartObject();
  w.Key("prompt_tokens");
  w.Int64(prompt);
  w.Key("completion_tokens");
  w.Int64(completion);
  w.Key("total_tokens");
  w.Int64(usage.total.value_or(prompt + completion));
  if (usage.cache_read || usage.cache_write) {
    // Cache writes as OpenRouter reports them (cache_write_tokens), so prompt_tokens,
    // which counts them, gives back the uncached input.
    w.Key("prompt_tokens_details");
    w.StartObject();
    if (usage.cache_read) {
      w.Key("cached_tokens");
      w.Int64(*usage.cache_read);
    }
    if (usage.cache_write) {
      w.Key("cache_write_tokens");
      w.Int64(*usage.cache_write);
    }
    w.EndObject();
  }
  if (usage.reasoning) {
    w.Key("completion_tokens_details");
    w.StartObject();
    w.Key("reasoning_tokens");
    w.Int64(*usage.reasoning);
    w.EndObject();
  }
  w.EndObject();
}

void write_response(const ApiBody& body, const std::vector<BodyTurn>& turns, const BodyDrop& drop,
                    JsonWriter& w) {
  w.StartObject();
  if (!body.id.empty()) {
    w.Key("id");
    write_string(w, body.id);
  }
  w.Key("object");
  w.String("chat.completion");
  if (body.created != 0) {
    w.Key("created");
    w.Int64(body.created);
  }
  w.Key("model");
  write_string(w, body.model);
  w.Key("choices");
  w.StartArray();
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const BodyTurn& turn = turns[i];
    w.StartObject();
    w.Key("index");
    w.Uint64(i);
    w.Key("message");
    if (turn.values.empty()) {
      write_raw(w, R"({"role":"assistant","content":null})");
    } else {
      write_raw(w, turn.values.front());
    }
    w.Key("finish_reason");
    auto reason = stop_reason_spelled(Format::openai, turn.stop != StopReason::none ? turn.stop : body.stop_reason);
    if (!reason.exact) {
      drop("stop reasons");
    }
    if (reason.name.empty()) {
      w.Null();
    } else {
      write_string(w, reason.name);
    }
    w.Key("logprobs");
    w.Null();
    w.EndObject();
  }
  w.EndArray();
  if (!body.usage.empty()) {
    write_usage(w, body.usage);
  }
  w.EndObject();
}

void write_tools(JsonWriter& w, const std::vector<ToolSpec>& tools, const BodyDrop& drop) {
  w.StartArray();
  for (const ToolSpec& tool : tools) {
    if (tool.kind != "function") {
      drop(fmt::format("{} tools", tool.kind));
      continue;
    }
    w.StartObject();
    w.Key("type");
    w.String("function");
    w.Key("function");
    w.StartObject();
    w.Key("name");
    write_string(w, tool.name);
    if (tool.has_description) {
      w.Key("description");
      write_string(w, tool.description);
    }
    if (tool.schema != nullptr && tool.schema->IsObject()) {
      w.Key("parameters");
      write_json_schema(w, *tool.schema, tool.gemini_schema);
    }
    if (tool.strict == true) {  // false is this API's default (Responses' is true)
      w.Key("strict");
      w.Bool(true);
    }
    w.EndObject();
    if (!tool.cache_control.empty()) {
      w.Key("cache_control");  // as OpenRouter takes it, beside `function`
      write_raw(w, tool.cache_control);
    }
    w.EndObject();
    if (tool.defer_loading) {
      drop("defer_loading of tools");  // Chat has no tool search
    }
  }
  w.EndArray();
}

void write_request(const ApiBody& body, const std::vector<BodyTurn>& turns, const BodyDrop& drop,
                   JsonWriter& w) {
  w.StartObject();
  if (!body.model.empty()) {  // a Gemini request names its model in its URL, not its body
    w.Key("model");
    write_string(w, body.model);
  }
  w.Key("messages");
  w.StartArray();
  for (const BodyTurn& turn : turns) {
    for (const std::string& value : turn.values) {
      write_raw(w, value);
    }
  }
  w.EndArray();
  if (body.max_tokens) {
    w.Key("max_completion_tokens");
    w.Int64(*body.max_tokens);
  }
  if (body.temperature != nullptr) {
    w.Key("temperature");
    body.temperature->Accept(w);
  }
  if (body.top_p != nullptr) {
    w.Key("top_p");
    body.top_p->Accept(w);
  }
  if (body.top_k != nullptr) {
    drop("top_k of request bodies");
  }
  if (!body.stop.empty()) {
    write_string_list(w, "stop", body.stop);
  }
  if (body.stream) {
    w.Key("stream");
    w.Bool(*body.stream);
  }
  if (!body.tools.empty()) {
    w.Key("tools");
    write_tools(w, body.tools, drop);
  }
  write_openai_tool_choice(body, drop, /*chat=*/true, w);
  const ThinkingSetting& thinking = body.thinking;
  if (thinking.state == ThinkingSetting::State::on && thinking.effort.empty() && thinking.budget &&
      budget_of_effort(effort_of_budget(*thinking.budget)) != *thinking.budget) {
    drop("thinking budgets");  // an effort says one of three budgets
  }
  if (thinking.state == ThinkingSetting::State::dynamic) {
    drop("dynamic thinking");  // no effort says "as the model sees fit": medium comes back
  }
  drop_include_thoughts(thinking, drop);
  if (thinking.state == ThinkingSetting::State::on) {
    w.Key("reasoning_effort");
    write_string(w, !thinking.effort.empty() ? thinking.effort
                                             : effort_of_budget(thinking.budget.value_or(2048)));
  } else if (thinking.state == ThinkingSetting::State::dynamic) {
    w.Key("reasoning_effort");
    w.String("medium");  // the API's default effort
  } else if (thinking.state == ThinkingSetting::State::off) {
    w.Key("reasoning_effort");
    w.String("none");
  }
  if (!body.modalities.empty()) {
    // Chat replies in text and audio; Gemini's image output has no place here.
    bool held = std::all_of(body.modalities.begin(), body.modalities.end(),
                            [](const std::string& m) { return m == "text" || m == "audio"; });
    if (held) {
      w.Key("modalities");
      w.StartArray();
      for (const std::string& modality : body.modalities) {
        write_string(w, modality);
      }
      w.EndArray();
    } else {
      drop("modalities of request bodies");
    }
  }
  if (!body.user.empty()) {
    w.Key("user");
    write_string(w, body.user);
  }
  w.EndObject();
}


}  // namespace openai_body

const BodyCodec k_openai_body{openai_body::read, openai_body::write_request, openai_body::write_response};

}  // namespace convo
