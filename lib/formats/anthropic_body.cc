// Anthropic Messages API bodies (api_body.h): a request
// `{"model","max_tokens","system","messages","tools","tool_choice","thinking",...}`
// and a response message `{"id","type":"message","content","stop_reason","usage"}`.
#include "formats/api_body.h"

#include "formats/json_out.h"

#include <fmt/format.h>

namespace convo {

// Named, not anonymous: the unity build puts the four codecs in one unit.
namespace anthropic_body {

// --- Reading ---

void read_tools(const JsonValue& tools, ApiBody& body) {
  for (const JsonValue& tool : tools.GetArray()) {
    if (!tool.IsObject()) {
      continue;
    }
    ToolSpec spec;
    spec.json = &tool;
    auto type = string_member(tool, "type");
    if (type && *type != "custom") {
      spec.kind = std::string(*type);  // a server tool: web_search_20250305, bash_20250124, ...
    }
    spec.name = std::string(string_member(tool, "name").value_or(""));
    spec.has_description = read_description(tool, spec.description);
    spec.schema = find_member(tool, "input_schema");
    if (const JsonValue* strict = find_member(tool, "strict"); strict != nullptr && strict->IsBool()) {
      spec.strict = strict->GetBool();
    }
    if (const JsonValue* defer = find_member(tool, "defer_loading"); defer != nullptr && defer->IsBool()) {
      spec.defer_loading = defer->GetBool();
    }
    if (const JsonValue* cache = find_member(tool, "cache_control"); cache != nullptr) {
      spec.cache_control = to_json(*cache);
    }
    if (spec.kind == "function") {
      for (const auto& member : tool.GetObject()) {
        std::string_view key = view_of(member.name);
        if (key != "name" && key != "description" && key != "input_schema" && key != "strict" &&
            key != "cache_control" && key != "type" && key != "defer_loading" &&
            !says_nothing(member.value)) {
          body.unmapped.push_back(fmt::format("{} of tools", key));  // input_examples, ...
        }
      }
    }
    body.tools.push_back(std::move(spec));
  }
}

void read_tool_choice(const JsonValue& choice, ApiBody& body) {
  auto type = string_member(choice, "type").value_or("");
  body.tool_choice = type == "auto"   ? ToolChoice::auto_
                     : type == "any"  ? ToolChoice::any
                     : type == "none" ? ToolChoice::none
                     : type == "tool" ? ToolChoice::tool
                                      : ToolChoice::unset;
  if (auto name = string_member(choice, "name")) {
    body.tool_choice_names.emplace_back(*name);
  }
  if (const JsonValue* off = find_member(choice, "disable_parallel_tool_use");
      off != nullptr && off->IsBool()) {
    body.parallel_tool_calls = !off->GetBool();
  }
}

void read_usage(const JsonValue& usage, ApiBody& body) {
  for (const auto& member : usage.GetObject()) {
    std::string_view key = view_of(member.name);
    const JsonValue& value = member.value;
    std::optional<std::int64_t> count;
    if (value.IsInt64()) {
      count = value.GetInt64();
    }
    if (key == "input_tokens") {
      body.usage.input = count;
    } else if (key == "output_tokens") {
      body.usage.output = count;
    } else if (key == "cache_read_input_tokens") {
      body.usage.cache_read = count;
    } else if (key == "cache_creation_input_tokens") {
      body.usage.cache_write = count;
    } else if (says_nothing(value)) {
      continue;
    } else {
      body.unmapped.push_back(fmt::format("{} of usage", key));
    }
  }
}

void read(const JsonValue& root, ApiBody& body) {
  body.model = std::string(string_member(root, "model").value_or(""));
  if (body.response) {
    // The message's other members are counted with the message (response_message_members).
    body.id = std::string(string_member(root, "id").value_or(""));
    body.stop_reason = stop_reason_named(string_member(root, "stop_reason").value_or(""));
    body.stop_sequence = std::string(string_member(root, "stop_sequence").value_or(""));
    if (const JsonValue* usage = find_member(root, "usage"); usage != nullptr && usage->IsObject()) {
      read_usage(*usage, body);
    }
    return;
  }
  for (const auto& member : root.GetObject()) {
    std::string_view key = view_of(member.name);
    const JsonValue& value = member.value;
    if (key == "model" || key == "messages" || key == "system") {
      continue;
    }
    if (key == "max_tokens" && value.IsInt64()) {
      body.max_tokens = value.GetInt64();
    } else if (key == "temperature" && value.IsNumber()) {
      body.temperature = &value;
    } else if (key == "top_p" && value.IsNumber()) {
      body.top_p = &value;
    } else if (key == "top_k" && value.IsNumber()) {
      body.top_k = &value;
    } else if (key == "stop_sequences" && value.IsArray()) {
      for (const JsonValue& stop : value.GetArray()) {
        if (stop.IsString()) {
          body.stop.emplace_back(view_of(stop));
        }
      }
    } else if (key == "stream" && value.IsBool()) {
      body.stream = value.GetBool();
    } else if (key == "tools" && value.IsArray()) {
      read_tools(value, body);
    } else if (key == "tool_choice" && value.IsObject()) {
      read_tool_choice(value, body);
    } else if (key == "thinking" && value.IsObject()) {
      auto type = string_member(value, "type").value_or("");
      body.thinking.state = type == "enabled"    ? ThinkingSetting::State::on
                            : type == "disabled" ? ThinkingSetting::State::off
                            : type == "adaptive" ? ThinkingSetting::State::dynamic
                                                 : ThinkingSetting::State::unset;
      if (const JsonValue* budget = find_member(value, "budget_tokens");
          budget != nullptr && budget->IsInt64()) {
        body.thinking.budget = budget->GetInt64();
      }
      if (body.thinking.state == ThinkingSetting::State::unset || find_member(value, "display")) {
        body.unmapped_member("thinking");
      }
    } else if (key == "metadata" && value.IsObject()) {
      for (const auto& m : value.GetObject()) {
        if (view_of(m.name) == "user_id" && m.value.IsString()) {
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

// Writes `content` (an encoded message's content, JSON text) as a list of blocks.
void write_blocks(JsonWriter& w, const std::string& content) {
  JsonDoc doc;
  if (content.empty() || parse_json(content, doc)) {
    w.StartArray();
    w.EndArray();
  } else if (doc.IsString()) {
    w.StartArray();
    if (doc.GetStringLength() > 0) {
      w.StartObject();
      w.Key("type");
      w.String("text");
      w.Key("text");
      write_string(w, view_of(doc));
      w.EndObject();
    }
    w.EndArray();
  } else {
    doc.Accept(w);
  }
}

void write_response(const ApiBody& body, const std::vector<BodyTurn>& turns, const BodyDrop& drop,
                    JsonWriter& w) {
  const BodyTurn* turn = turns.empty() ? nullptr : &turns.front();
  if (turns.size() > 1) {
    drop("choices beyond the first");
  }
  if (body.indexed) {
    drop("index of response bodies");
  }
  w.StartObject();
  if (!body.id.empty()) {
    w.Key("id");
    write_string(w, body.id);
  }
  w.Key("type");
  w.String("message");
  w.Key("role");
  w.String("assistant");
  w.Key("model");
  write_string(w, body.model);
  w.Key("content");
  std::string content;
  if (turn != nullptr && !turn->values.empty()) {
    content = member_json(turn->values.front(), "content");
  }
  write_blocks(w, content);
  StopReason stop = turn != nullptr && turn->stop != StopReason::none ? turn->stop : body.stop_reason;
  w.Key("stop_reason");
  if (stop == StopReason::none) {
    w.Null();
  } else {
    write_string(w, stop_reason_spelled(Format::anthropic, stop).name);
  }
  w.Key("stop_sequence");
  if (body.stop_sequence.empty()) {
    w.Null();
  } else {
    write_string(w, body.stop_sequence);
  }
  const Usage& usage = body.usage;
  if (!usage.empty()) {
    w.Key("usage");
    w.StartObject();
    w.Key("input_tokens");
    w.Int64(usage.input.value_or(0));
    if (usage.cache_write) {
      w.Key("cache_creation_input_tokens");
      w.Int64(*usage.cache_write);
    }
    if (usage.cache_read) {
      w.Key("cache_read_input_tokens");
      w.Int64(*usage.cache_read);
    }
    w.Key("output_tokens");
    w.Int64(usage.output.value_or(0));
    w.EndObject();
    if (usage.reasoning) {
      drop("reasoning token counts");
    }
    // The API gives no total: one that is not the sum of the others (Gemini's tool-use
    // prompt tokens, ...) is counted.
    std::int64_t sum = usage.input.value_or(0) + usage.cache_read.value_or(0) +
                       usage.cache_write.value_or(0) + usage.output.value_or(0);
    if (usage.total && *usage.total != sum) {
      drop("total token counts");
    }
  }
  if (body.created != 0) {
    drop("timestamps");
  }
  w.EndObject();
}

// The system prompt: the content of the system messages, one content when there is
// one, else their blocks in order.
void write_system(JsonWriter& w, const std::vector<std::string>& contents) {
  if (contents.size() == 1) {
    write_raw(w, contents.front());
    return;
  }
  w.StartArray();
  for (const std::string& content : contents) {
    JsonDoc doc;
    if (parse_json(content, doc)) {
      continue;
    }
    if (doc.IsArray()) {
      for (const JsonValue& block : doc.GetArray()) {
        block.Accept(w);
      }
    } else if (doc.IsString()) {
      w.StartObject();
      w.Key("type");
      w.String("text");
      w.Key("text");
      write_string(w, view_of(doc));
      w.EndObject();
    }
  }
  w.EndArray();
}

void write_tools(JsonWriter& w, const std::vector<ToolSpec>& tools, const BodyDrop& drop) {
  w.StartArray();
  for (const ToolSpec& tool : tools) {
    if (tool.kind != "function") {
      drop(fmt::format("{} tools", tool.kind));
      continue;
    }
    w.StartObject();
    w.Key("name");
    write_string(w, tool.name);
    if (tool.has_description) {
      w.Key("description");
      write_string(w, tool.description);
    }
    w.Key("input_schema");
    if (tool.schema != nullptr && tool.schema->IsObject()) {
      write_json_schema(w, *tool.schema, tool.gemini_schema);
    } else {
      write_raw(w, R"({"type":"object","properties":{}})");
    }
    if (tool.strict == true) {  // false is this API's default (Responses' is true)
      w.Key("strict");
      w.Bool(true);
    }
    if (tool.defer_loading) {
      w.Key("defer_loading");
      w.Bool(*tool.defer_loading);
    }
    if (!tool.cache_control.empty()) {
      w.Key("cache_control");
      write_raw(w, tool.cache_control);
    }
    w.EndObject();
  }
  w.EndArray();
}

// Writes a message of a request. The API takes thinking back only with the
// signature it gave it: thinking from another API (OpenAI's reasoning, Gemini's
// thoughts) has none, and is counted.
void write_message(JsonWriter& w, const std::string& value, const BodyDrop& drop) {
  if (value.find(R"("type":"thinking")") == std::string::npos) {
    write_raw(w, value);
    return;
  }
  JsonDoc doc;
  JsonValue* content = nullptr;
  if (parse_object(value, doc)) {
    auto it = doc.FindMember("content");
    content = it != doc.MemberEnd() && it->value.IsArray() ? &it->value : nullptr;
  }
  if (content == nullptr) {
    write_raw(w, value);
    return;
  }
  for (auto block = content->Begin(); block != content->End();) {
    bool unsigned_thinking = block->IsObject() &&
                             string_member(*block, "type").value_or("") == "thinking" &&
                             !string_member(*block, "signature");
    if (unsigned_thinking) {
      drop("thinking blocks without signatures");
      block = content->Erase(block);
    } else {
      ++block;
    }
  }
  doc.Accept(w);
}

void write_request(const ApiBody& body, const std::vector<BodyTurn>& turns, const BodyDrop& drop,
                   JsonWriter& w) {
  // The Messages API requires max_tokens: LiteLLM's 4096 when the source has none,
  // counted (a round trip brings the limit back).
  std::int64_t max_tokens = body.max_tokens.value_or(4096);
  if (!body.max_tokens) {
    drop("request bodies without a token limit");
  }
  w.StartObject();
  if (!body.model.empty()) {  // a Gemini request names its model in its URL, not its body
    w.Key("model");
    write_string(w, body.model);
  }
  w.Key("max_tokens");
  w.Int64(max_tokens);
  // The system messages before the first turn are the `system` prompt; one after it
  // stays where it was, a `"role": "system"` message, as the API takes it in the
  // middle of a conversation (pydantic-ai's recorded requests send them so).
  std::vector<std::string> system;
  std::size_t first_turn = turns.size();
  for (std::size_t i = 0; i < turns.size(); ++i) {
    Role role = turns[i].message->role;
    if (role != Role::system && role != Role::developer) {
      if (!turns[i].values.empty()) {
        first_turn = i;
        break;
      }
      continue;
    }
    for (const std::string& value : turns[i].values) {
      system.push_back(member_json(value, "content"));
    }
  }
  if (!system.empty()) {
    w.Key("system");
    write_system(w, system);
  }
  w.Key("messages");
  w.StartArray();
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const BodyTurn& turn = turns[i];
    Role role = turn.message->role;
    if ((role == Role::system || role == Role::developer) && i < first_turn) {
      continue;
    }
    for (const std::string& value : turn.values) {
      write_message(w, value, drop);
    }
  }
  w.EndArray();
  // The Messages API has no sampling parameters any more (@anthropic-ai/sdk 1.12.0's
  // MessageCreateParams has none): counted.
  if (body.temperature != nullptr) {
    drop("temperature of request bodies");
  }
  if (body.top_p != nullptr) {
    drop("top_p of request bodies");
  }
  if (body.top_k != nullptr) {
    drop("top_k of request bodies");
  }
  if (!body.stop.empty()) {
    write_string_list(w, "stop_sequences", body.stop);
  }
  if (body.stream) {
    w.Key("stream");
    w.Bool(*body.stream);
  }
  if (!body.tools.empty()) {
    w.Key("tools");
    write_tools(w, body.tools, drop);
  }
  if (body.tool_choice != ToolChoice::unset || body.parallel_tool_calls == false) {
    w.Key("tool_choice");
    w.StartObject();
    w.Key("type");
    switch (body.tool_choice) {
      case ToolChoice::any:
        w.String("any");
        break;
      case ToolChoice::none:
        w.String("none");
        break;
      case ToolChoice::tool:
        if (body.tool_choice_names.size() == 1) {
          w.String("tool");
          w.Key("name");
          write_string(w, body.tool_choice_names.front());
        } else {
          w.String("any");  // several allowed tools (Gemini's allowedFunctionNames)
          drop("allowed_function_names of request bodies");
        }
        break;
      default:
        w.String("auto");
        break;
    }
    if (body.parallel_tool_calls == false) {
      w.Key("disable_parallel_tool_use");
      w.Bool(true);
    }
    w.EndObject();
  }
  const ThinkingSetting& thinking = body.thinking;
  if (thinking.state == ThinkingSetting::State::on) {
    std::int64_t budget = thinking.budget.value_or(budget_of_effort(thinking.effort));
    budget = std::min(budget, max_tokens - 1);  // the API wants it below max_tokens
    if (budget >= 1024) {
      w.Key("thinking");
      write_raw(w, fmt::format(R"({{"type":"enabled","budget_tokens":{}}})", budget));
    } else {
      drop("thinking of request bodies");  // no room: max_tokens is below the least budget
    }
  } else if (thinking.state == ThinkingSetting::State::off) {
    w.Key("thinking");
    write_raw(w, R"({"type":"disabled"})");
  } else if (thinking.state == ThinkingSetting::State::dynamic) {
    w.Key("thinking");
    write_raw(w, R"({"type":"adaptive"})");
  }
  if (!body.modalities.empty()) {
    drop("modalities of request bodies");  // no such setting: a reply is text (and tool calls)
  }
  if (!body.user.empty()) {
    w.Key("metadata");
    w.StartObject();
    w.Key("user_id");
    write_string(w, body.user);
    w.EndObject();
  }
  w.EndObject();
}


}  // namespace anthropic_body

const BodyCodec k_anthropic_body{anthropic_body::read, anthropic_body::write_request, anthropic_body::write_response};

}  // namespace convo
