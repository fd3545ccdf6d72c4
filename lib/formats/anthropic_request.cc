// The anthropic format's request body (anthropic_request.h).
#include "formats/anthropic_request.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/anthropic_blocks.h"
#include "io/output.h"

namespace convo {

namespace {

constexpr std::int64_t k_default_max_tokens = 4096;
constexpr const char* k_declared_tool =
    "Declared by convo normalize-for-api: the conversation used this tool, and its "
    "definition was not recorded.";

// The request body the conversation was read from, when it was one.
const JsonValue* input_request(const std::vector<Message>& conversation) {
  for (const Message& m : conversation) {
    if (m.origin == Format::anthropic && m.source) {
      const JsonValue& doc = m.source->doc;
      const JsonValue* messages = find_member(doc, "messages");
      if (messages != nullptr && messages->IsArray()) {
        return &doc;
      }
    }
  }
  return nullptr;
}

}  // namespace

std::string anthropic_request_body(std::vector<Message> conversation,
                                   const RequestOptions& options, LossReport& loss) {
  std::vector<Message>& m_held = conversation;
  const RequestOptions* m_options = &options;
  LossReport& m_loss = loss;
  auto warn = [&](const std::string& what) {
    if (options.diagnostics != nullptr) {
      options.diagnostics->warning(conversation.front().where, what);
    }
  };
  const JsonValue* input = input_request(m_held);
  std::string model = m_options->model;
  if (model.empty() && input != nullptr) {
    model = std::string(string_member(*input, "model").value_or(""));
  }
  if (model.empty()) {
    model = last_recorded_model(m_held);
  }
  if (model.empty()) {
    throw Error(m_held.front().where,
                "the conversation records no model to put in the request; name one with "
                "--model",
                ExitCode::usage);
  }
  // What the API accepts whatever the model: a request that ends on a user message
  // (newer models take no prefill), and thinking blocks only beside a `thinking`
  // parameter (whose form depends on the model).
  if (!m_options->prefill) {
    std::size_t left_out = 0;
    while (m_held.size() > 1 && m_held.back().role == Role::assistant) {
      m_held.pop_back();
      ++left_out;
    }
    if (left_out > 0) {
      warn(
          fmt::format("left out the final assistant message{}: a request ends on a user "
                      "message (--prefill keeps {})",
                      left_out == 1 ? "" : "s", left_out == 1 ? "it" : "them"));
    }
  }
  bool thinking_parameter = input != nullptr && find_member(*input, "thinking") != nullptr;
  if (!thinking_parameter && !m_options->thinking_without_parameter) {
    std::size_t left_out = 0;
    for (Message& m : m_held) {
      if (m.role == Role::assistant && m.content.is_blocks()) {
        left_out += std::erase_if(m.content.blocks, [](const Block& b) {
          return b.type == BlockType::thinking || b.type == BlockType::redacted_thinking;
        });
      }
    }
    if (left_out > 0) {
      warn(
          fmt::format("left out {} thinking block{}: the request sets no thinking parameter "
                      "(--keep-thinking keeps them)",
                      left_out, left_out == 1 ? "" : "s"));
    }
  }
  std::int64_t max_tokens = k_default_max_tokens;
  const JsonValue* recorded = input != nullptr ? find_member(*input, "max_tokens") : nullptr;
  if (m_options->max_tokens) {
    max_tokens = *m_options->max_tokens;
  } else if (recorded != nullptr && recorded->IsInt64()) {
    max_tokens = recorded->GetInt64();
  }
  // Leading system messages are the request's system prompt (step 5 made them one).
  std::size_t first = 0;
  const Message* system = nullptr;
  if (m_held.front().role == Role::system) {
    system = &m_held.front();
    first = 1;
  }
  // Tool calls in the history need their tools defined. A session log does not
  // record the definitions: each tool it used is declared with any input.
  std::vector<std::string> tools_used;
  for (const Message& m : m_held) {
    for (const Block* use : m.tool_uses()) {
      if (std::find(tools_used.begin(), tools_used.end(), use->name) == tools_used.end()) {
        tools_used.push_back(use->name);
      }
    }
  }

  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("model");
  w.String(model.data(), static_cast<rapidjson::SizeType>(model.size()));
  w.Key("max_tokens");
  w.Int64(max_tokens);
  DropFn drop = [&](std::string_view what) {
    m_loss.drop(Format::anthropic, what, m_held.front().where);
  };
  if (m_options->system) {
    if (!m_options->system->empty()) {
      w.Key("system");
      w.String(m_options->system->data(),
               static_cast<rapidjson::SizeType>(m_options->system->size()));
    }
  } else if (system != nullptr) {
    w.Key("system");
    write_anthropic_content(w, system->content, uses_anthropic_blocks(system->origin), drop);
  }
  // The rest of a request body read as input comes along: tools, thinking, ...
  bool has_tools = false;
  if (input != nullptr) {
    for (const auto& member : input->GetObject()) {
      std::string_view key = view_of(member.name);
      if (key == "model" || key == "max_tokens" || key == "system" || key == "messages") {
        continue;
      }
      has_tools = has_tools || key == "tools";
      w.Key(member.name.GetString(), member.name.GetStringLength());
      member.value.Accept(w);
    }
  }
  if (!has_tools && !tools_used.empty()) {
    w.Key("tools");
    w.StartArray();
    for (const std::string& name : tools_used) {
      w.StartObject();
      w.Key("name");
      w.String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
      w.Key("description");
      w.String(k_declared_tool);
      w.Key("input_schema");
      w.StartObject();
      w.Key("type");
      w.String("object");
      w.EndObject();
      w.EndObject();
    }
    w.EndArray();
  }
  w.Key("messages");
  w.StartArray();
  {
    StringOutput lines;
    auto encoder = format_info(Format::anthropic).make_encoder(m_loss);
    for (std::size_t i = first; i < m_held.size(); ++i) {
      encoder->write(std::move(m_held[i]), lines);
    }
    encoder->finish(lines);
    std::string_view text = lines.str();
    while (!text.empty()) {
      std::size_t end = text.find('\n');
      std::string_view line = text.substr(0, end);
      w.RawValue(line.data(), line.size(), rapidjson::kObjectType);
      text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    }
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}


}  // namespace convo
