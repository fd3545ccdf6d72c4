// OpenAI Responses API bodies (api_body.h): a request
// `{"model","instructions","input","tools","tool_choice","max_output_tokens","reasoning",...}`
// and a response `{"id","object":"response","created_at","status","model","output","usage"}`.
#include "formats/api_body.h"

#include "formats/json_out.h"

#include <fmt/format.h>

#include <algorithm>

namespace convo {

// Named, not anonymous: the unity build puts the four codecs in one unit.
namespace responses_body {

// --- Reading ---

void read_tools(const JsonValue& tools, ApiBody& body) {
  for (const JsonValue& tool : tools.GetArray()) {
    if (!tool.IsObject()) {
      continue;
    }
    ToolSpec spec;
    spec.json = &tool;
    auto type = string_member(tool, "type").value_or("function");
    if (type != "function") {
      spec.kind = std::string(type);  // web_search, file_search, custom, ...
      body.tools.push_back(std::move(spec));
      continue;
    }
    spec.name = std::string(string_member(tool, "name").value_or(""));
    spec.has_description = read_description(tool, spec.description);
    spec.schema = find_member(tool, "parameters");
    // Responses' function tools are strict unless they say not (Chat's are not).
    const JsonValue* strict = find_member(tool, "strict");
    spec.strict = strict == nullptr || !strict->IsBool() || strict->GetBool();
    if (const JsonValue* defer = find_member(tool, "defer_loading"); defer != nullptr && defer->IsBool()) {
      spec.defer_loading = defer->GetBool();
    }
    for (const auto& member : tool.GetObject()) {
      std::string_view key = view_of(member.name);
      if (key != "type" && key != "name" && key != "description" && key != "parameters" &&
          key != "strict" && key != "defer_loading" && !says_nothing(member.value)) {
        body.unmapped.push_back(fmt::format("{} of tools", key));  // cache_control, ...
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
  auto type = string_member(choice, "type");
  auto name = string_member(choice, "name");
  if (type && *type == "function" && name) {
    body.tool_choice = ToolChoice::tool;
    body.tool_choice_names.emplace_back(*name);
  } else {
    body.unmapped_member("tool_choice");  // allowed_tools, hosted tools
  }
}

void read(const JsonValue& root, ApiBody& body) {
  std::string_view status;
  std::string_view incomplete;
  for (const auto& member : root.GetObject()) {
    std::string_view key = view_of(member.name);
    const JsonValue& value = member.value;
    if (key == "input" || key == "output" || key == "object" ||
        (key == "instructions" && !body.response)) {
      continue;  // a request's instructions: its system message
    }
    if (key == "model" && value.IsString()) {
      body.model = std::string(view_of(value));
    } else if (body.response && key == "id" && value.IsString()) {
      body.id = std::string(view_of(value));
    } else if (body.response && key == "created_at" && value.IsInt64()) {
      body.created = value.GetInt64();
    } else if (body.response && key == "status" && value.IsString()) {
      status = view_of(value);
    } else if (body.response && key == "incomplete_details") {
      if (value.IsObject()) {
        incomplete = string_member(value, "reason").value_or("");
      }
    } else if (body.response && key == "usage" && value.IsObject()) {
      read_openai_usage(value, "input_tokens", "output_tokens", body);
    } else if (!body.response && key == "max_output_tokens" && value.IsInt64()) {
      body.max_tokens = value.GetInt64();
    } else if (!body.response && key == "temperature" && value.IsNumber()) {
      body.temperature = &value;
    } else if (!body.response && key == "top_p" && value.IsNumber()) {
      body.top_p = &value;
    } else if (!body.response && key == "stream" && value.IsBool()) {
      body.stream = value.GetBool();
    } else if (!body.response && key == "tools" && value.IsArray()) {
      read_tools(value, body);
    } else if (!body.response && key == "tool_choice") {
      read_tool_choice(value, body);
    } else if (!body.response && key == "parallel_tool_calls" && value.IsBool()) {
      body.parallel_tool_calls = value.GetBool();
    } else if (!body.response && key == "reasoning" && value.IsObject()) {
      std::vector<std::string> unmapped;
      bool auto_summary = false;
      for (const auto& m : value.GetObject()) {
        std::string_view k = view_of(m.name);
        if (k == "effort" && m.value.IsString()) {
          body.thinking.effort = std::string(view_of(m.value));
          body.thinking.state = body.thinking.effort == "none" ? ThinkingSetting::State::off
                                                               : ThinkingSetting::State::on;
        } else if (k == "summary" && m.value.IsString() && view_of(m.value) == "auto") {
          auto_summary = true;
        } else if (!says_nothing(m.value)) {
          unmapped.push_back(fmt::format("{} of reasoning settings", k));
        }
      }
      if (auto_summary && body.thinking.state == ThinkingSetting::State::unset) {
        // No effort, the reasoning shown: reasons as the model sees fit (what
        // write_request makes of adaptive thinking and Gemini's dynamic budget).
        body.thinking.state = ThinkingSetting::State::dynamic;
      } else if (auto_summary) {
        unmapped.emplace_back("summary of reasoning settings");
      }
      if (body.thinking.state == ThinkingSetting::State::unset && !unmapped.empty()) {
        body.unmapped_member("reasoning");  // without an effort, none of it is written
      } else {
        body.unmapped.insert(body.unmapped.end(), unmapped.begin(), unmapped.end());
      }
    } else if (!body.response && key == "user" && value.IsString()) {
      body.user = std::string(view_of(value));
    } else if (!body.response && key == "metadata" && value.IsObject()) {
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
  if (status == "incomplete") {
    body.stop_reason = incomplete == "content_filter" ? StopReason::refusal : StopReason::max_tokens;
  } else if (status == "completed") {
    body.stop_reason = StopReason::end_turn;  // tool_use when it calls (see the driver)
  }
}

// --- Writing ---

void write_response(const ApiBody& body, const std::vector<BodyTurn>& turns, const BodyDrop& drop,
                    JsonWriter& w) {
  if (turns.size() > 1) {
    drop("choices beyond the first");
  }
  if (body.indexed) {
    drop("index of response bodies");
  }
  StopReason stop = !turns.empty() && turns.front().stop != StopReason::none ? turns.front().stop
                                                                              : body.stop_reason;
  w.StartObject();
  if (!body.id.empty()) {
    w.Key("id");
    write_string(w, body.id);
  }
  w.Key("object");
  w.String("response");
  if (body.created != 0) {
    w.Key("created_at");
    w.Int64(body.created);
  }
  w.Key("status");
  bool incomplete = stop == StopReason::max_tokens || stop == StopReason::refusal;
  w.String(incomplete ? "incomplete" : "completed");
  if (incomplete) {
    w.Key("incomplete_details");
    write_raw(w, stop == StopReason::max_tokens ? R"({"reason":"max_output_tokens"})"
                                                : R"({"reason":"content_filter"})");
  }
  // "completed" after calls reads back as tool_use: Anthropic's end_turn after calls its
  // code execution made is lost.
  bool calls =
      !turns.empty() && turns.front().message != nullptr && turns.front().message->has_tool_uses();
  if (stop == StopReason::stop_sequence || stop == StopReason::pause_turn ||
      (stop == StopReason::end_turn && calls)) {
    drop("stop reasons");
  }
  w.Key("model");
  write_string(w, body.model);
  w.Key("output");
  w.StartArray();
  if (!turns.empty()) {
    for (const std::string& value : turns.front().values) {
      write_raw(w, value);
    }
  }
  w.EndArray();
  const Usage& usage = body.usage;
  if (!usage.empty()) {
    std::int64_t input = usage.input.value_or(0) + usage.cache_read.value_or(0) +
                         usage.cache_write.value_or(0);
    std::int64_t output = usage.output.value_or(0);
    w.Key("usage");
    w.StartObject();
    w.Key("input_tokens");
    w.Int64(input);
    if (usage.cache_read) {
      w.Key("input_tokens_details");
      write_raw(w, fmt::format(R"({{"cached_tokens":{}}})", *usage.cache_read));
    }
    w.Key("output_tokens");
    w.Int64(output);
    if (usage.reasoning) {
      w.Key("output_tokens_details");
      write_raw(w, fmt::format(R"({{"reasoning_tokens":{}}})", *usage.reasoning));
    }
    w.Key("total_tokens");
    w.Int64(usage.total.value_or(input + output));
    w.EndObject();
    if (usage.cache_write) {
      drop("cache write token counts");
    }
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
    w.Key("name");
    write_string(w, tool.name);
    if (tool.has_description) {
      w.Key("description");
      write_string(w, tool.description);
    }
    w.Key("parameters");
    if (tool.schema != nullptr && tool.schema->IsObject()) {
      write_json_schema(w, *tool.schema, tool.gemini_schema);
    } else {
      w.Null();
    }
    // Required by the SDK's type; strict is the API's default, and not the others'.
    w.Key("strict");
    w.Bool(tool.strict.value_or(false));
    if (tool.defer_loading) {
      w.Key("defer_loading");
      w.Bool(*tool.defer_loading);
    }
    w.EndObject();
    if (!tool.cache_control.empty()) {
      drop("cache_control markers");
    }
  }
  w.EndArray();
}

// Writes an item of a request's input as the API takes it (the SDK's
// ResponseInputItem): a reasoning item without an id, thinking from another API, is
// counted (the API takes back only its own reasoning, by id); an assistant message of
// output_text parts without annotations is an EasyInputMessage of their text, as
// paragraphs (an output message needs the id and status only the API gives; the
// boundaries of several parts are counted); an input_image
// without `detail` has the API's default, "auto".
void write_input_item(JsonWriter& w, const std::string& item, const BodyDrop& drop) {
  JsonDoc doc;
  if (!parse_object(item, doc)) {
    write_raw(w, item);
    return;
  }
  auto type = string_member(doc, "type").value_or("message");
  if (type == "reasoning" && find_member(doc, "id") == nullptr) {
    drop("thinking blocks");
    return;
  }
  auto content = doc.FindMember("content");
  if (type == "message" && content != doc.MemberEnd() && content->value.IsArray()) {
    JsonValue& parts = content->value;
    bool assistant = string_member(doc, "role").value_or("") == "assistant";
    bool plain = assistant && find_member(doc, "id") == nullptr && !parts.Empty();
    std::string text;
    for (const JsonValue& part : parts.GetArray()) {
      const JsonValue* annotations = part.IsObject() ? find_member(part, "annotations") : nullptr;
      auto part_text = part.IsObject() ? string_member(part, "text") : std::nullopt;
      plain = plain && part_text && string_member(part, "type").value_or("") == "output_text" &&
              (annotations == nullptr || says_nothing(*annotations));
      if (plain) {
        text += text.empty() ? "" : "\n\n";  // text blocks, as paragraphs
        text += *part_text;
      }
    }
    if (plain) {
      if (parts.Size() > 1) {
        drop("text block boundaries in assistant messages");  // one text comes back
      }
      content->value.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()),
                               doc.GetAllocator());
    }
    if (parts.IsArray()) {
      for (JsonValue& part : parts.GetArray()) {
        if (part.IsObject() && string_member(part, "type").value_or("") == "input_image" &&
            find_member(part, "detail") == nullptr) {
          part.AddMember("detail", "auto", doc.GetAllocator());
        }
      }
    }
  }
  doc.Accept(w);
}

// The system prompt as `instructions`: the first message when it is a system
// message of text only (its cache_control markers are counted by the encoder).
bool is_instructions(const BodyTurn& turn) {
  const Message& m = *turn.message;
  if (m.role != Role::system && m.role != Role::developer) {
    return false;
  }
  if (m.content.is_string()) {
    return true;
  }
  return m.content.is_blocks() &&
         std::all_of(m.content.blocks.begin(), m.content.blocks.end(),
                     [](const Block& b) { return b.type == BlockType::text; });
}

void write_request(const ApiBody& body, const std::vector<BodyTurn>& turns, const BodyDrop& drop,
                   JsonWriter& w) {
  w.StartObject();
  if (!body.model.empty()) {  // a Gemini request names its model in its URL, not its body
    w.Key("model");
    write_string(w, body.model);
  }
  std::size_t first = 0;
  if (!turns.empty() && is_instructions(turns.front())) {
    w.Key("instructions");
    write_string(w, turns.front().message->content.joined_text());
    first = 1;
  }
  w.Key("input");
  w.StartArray();
  for (std::size_t i = first; i < turns.size(); ++i) {
    for (const std::string& value : turns[i].values) {
      write_input_item(w, value, drop);
    }
  }
  w.EndArray();
  if (body.max_tokens) {
    w.Key("max_output_tokens");
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
    drop("stop_sequences of request bodies");
  }
  if (body.stream) {
    w.Key("stream");
    w.Bool(*body.stream);
  }
  if (!body.tools.empty()) {
    w.Key("tools");
    write_tools(w, body.tools, drop);
  }
  write_openai_tool_choice(body, drop, /*chat=*/false, w);
  const ThinkingSetting& thinking = body.thinking;
  if (thinking.state == ThinkingSetting::State::on && thinking.effort.empty() && thinking.budget &&
      budget_of_effort(effort_of_budget(*thinking.budget)) != *thinking.budget) {
    drop("thinking budgets");  // an effort says one of three budgets
  }
  drop_include_thoughts(thinking, drop);
  std::string effort;
  if (thinking.state == ThinkingSetting::State::on) {
    effort = !thinking.effort.empty() ? thinking.effort
                                      : effort_of_budget(thinking.budget.value_or(2048));
  } else if (thinking.state == ThinkingSetting::State::off) {
    effort = "none";
  }
  if (!effort.empty()) {
    w.Key("reasoning");
    w.StartObject();
    w.Key("effort");
    write_string(w, effort);
    w.EndObject();
  } else if (thinking.state == ThinkingSetting::State::dynamic) {
    // Adaptive thinking, Gemini's dynamic budget: the model's own effort (no `effort`
    // is the API's default), its reasoning shown as those APIs show it.
    w.Key("reasoning");
    write_raw(w, R"({"summary":"auto"})");
  }
  if (!body.modalities.empty()) {
    drop("modalities of request bodies");  // no such setting: a reply is text (and tool calls)
  }
  if (!body.user.empty()) {
    w.Key("user");
    write_string(w, body.user);
  }
  w.EndObject();
}


}  // namespace responses_body

const BodyCodec k_openai_responses_body{responses_body::read, responses_body::write_request, responses_body::write_response};

}  // namespace convo
