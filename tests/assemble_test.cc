// assemble: streams to messages, on made-up streams and on every recorded stream in
// ../shared/corpus, compared with the unstreamed response where one is recorded.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "formats/stream.h"
#include "io/output.h"
#include "sse_reader.h"
#include "stages/assemble.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;
namespace fs = std::filesystem;

namespace {

std::vector<AssembledResponse> assemble_text(const std::string& text,
                                             std::vector<std::string>* warnings = nullptr) {
  StreamEventReader reader(memory_source(text), "s.sse");
  CollectingDiagnostics diagnostics;
  auto out = assemble_stream(reader, diagnostics);
  if (warnings != nullptr) {
    *warnings = diagnostics.lines;
  }
  return out;
}

struct Run {
  std::string out;
  std::vector<std::string> warnings;
  std::string error;
};

Run run_assemble(const std::string& text, AssembleOptions options = {}) {
  options.inputs = {"s.sse"};
  StringOutput out;
  CollectingDiagnostics diagnostics;
  Run run;
  try {
    assemble(options, out, diagnostics, memory_files({{"s.sse", text}}));
  } catch (const Error& error) {
    run.error = error.message();
  }
  run.out = out.str();
  run.warnings = diagnostics.lines;
  return run;
}

const char* k_anthropic_sse =
    "event: message_start\n"
    R"(data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1,"service_tier":"standard"}}   })" "\n\n"
    "event: ping\ndata: {\"type\": \"ping\"}\n\n"
    "event: content_block_start\n"
    R"(data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}})" "\n\n"
    "event: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me "}})" "\n\n"
    "event: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"think."}})" "\n\n"
    "event: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":""}})" "\n\n"
    "event: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}})" "\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0          }\n\n"
    "event: content_block_start\n"
    R"(data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}})" "\n\n"
    "event: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Paris is "}})" "\n\n"
    "event: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"Paris"}}})" "\n\n"
    "event: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"sunny."}})" "\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: content_block_start\n"
    R"(data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}})" "\n\n"
    "event: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}})" "\n\n"
    "event: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Par"}})" "\n\n"
    "event: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"is\"}"}})" "\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\n"
    "event: message_delta\n"
    R"(data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}})" "\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

const char* k_anthropic_message =
    R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":"Let me think.","signature":"c2ln"},{"type":"text","text":"Paris is sunny.","citations":[{"type":"char_location","cited_text":"Paris"}]},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":42,"service_tier":"standard"}})";

const char* k_openai_sse =
    ": OPENROUTER PROCESSING\n\n"
    R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"gpt-x","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null})" "\n\n"
    R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"gpt-x","choices":[{"index":0,"delta":{"content":"Checking"},"finish_reason":null}]})" "\n\n"
    R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"gpt-x","choices":[{"index":0,"delta":{"content":" both.","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]})" "\n\n"
    R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"gpt-x","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":null}]})" "\n\n"
    R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"gpt-x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}]})" "\n\n"
    R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"gpt-x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":"tool_calls"}]})" "\n\n"
    R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"gpt-x","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":5,"total_tokens":14}})" "\n\n"
    "data: [DONE]\n\n";

const char* k_openai_response =
    R"({"id":"chatcmpl-1","object":"chat.completion","created":7,"model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":"Checking both.","tool_calls":[{"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9,"completion_tokens":5,"total_tokens":14}})";

}  // namespace

TEST_CASE("an Anthropic SSE stream assembles to the message the API would return", "[assemble]") {
  std::vector<std::string> warnings;
  auto responses = assemble_text(k_anthropic_sse, &warnings);
  REQUIRE(responses.size() == 1);
  CHECK(responses[0].format == Format::anthropic);
  CHECK(responses[0].problem.empty());
  CHECK(warnings.empty());
  CHECK(responses[0].json == k_anthropic_message);
  CHECK(responses[0].where.str() == "s.sse:2");
  // The same events without the SSE framing, one per line.
  std::string lines;
  std::istringstream in(k_anthropic_sse);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("data: ", 0) == 0) {
      lines += line.substr(6) + "\n";
    }
  }
  auto unframed = assemble_text(lines);
  REQUIRE(unframed.size() == 1);
  CHECK(unframed[0].json == k_anthropic_message);
}

TEST_CASE("an OpenAI chunk stream assembles tool calls by index and takes the last usage",
          "[assemble]") {
  auto responses = assemble_text(k_openai_sse);
  REQUIRE(responses.size() == 1);
  CHECK(responses[0].format == Format::openai);
  CHECK(responses[0].problem.empty());
  CHECK(responses[0].json == k_openai_response);

  // Usage repeated as a running total on every chunk (Perplexity): the last stands.
  std::string repeated =
      R"({"id":"p","object":"chat.completion.chunk","created":1,"model":"sonar","choices":[{"index":0,"delta":{"role":"assistant","content":"a"},"finish_reason":null}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}})" "\n"
      R"({"id":"p","object":"chat.completion.chunk","created":1,"model":"sonar","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}})" "\n";
  auto perplexity = assemble_text(repeated);
  REQUIRE(perplexity.size() == 1);
  CHECK(perplexity[0].problem.empty());
  CHECK(perplexity[0].json ==
        R"({"id":"p","object":"chat.completion","created":1,"model":"sonar","choices":[{"index":0,"message":{"role":"assistant","content":"ab"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}})");
}

TEST_CASE("a stream cut off mid-way gives what arrived and an error naming the place",
          "[assemble]") {
  std::string text = k_anthropic_sse;
  text.resize(text.find("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}"));
  Run run = run_assemble(text);
  CHECK(run.error == "s.sse:50: stream ends here, before message_stop: message msg_1 is incomplete");
  // What arrived: the blocks so far, the tool input as far as it came, no stop reason.
  CHECK(run.out ==
        R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":"Let me think.","signature":"c2ln"},{"type":"text","text":"Paris is sunny.","citations":[{"type":"char_location","cited_text":"Paris"}]},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1,"service_tier":"standard"}})" "\n");
  // With --on-error skip it is a warning, and the run goes on.
  AssembleOptions skip;
  skip.on_error = OnError::skip;
  Run skipped = run_assemble(text, skip);
  CHECK(skipped.error.empty());
  CHECK(skipped.out == run.out);
  REQUIRE(skipped.warnings.size() == 2);
  CHECK(skipped.warnings[0] == "s.sse:50: stream ends here, before message_stop: message msg_1 is incomplete");
  CHECK(skipped.warnings[1] == "1 incomplete response");

  std::string openai = k_openai_sse;
  openai.resize(openai.find(R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"gpt-x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris)"));
  Run cut = run_assemble(openai);
  CHECK(cut.error == "s.sse:11: stream ends here, before [DONE] or a finish_reason: response chatcmpl-1 is incomplete");
  CHECK(cut.out.find(R"("arguments":"{\"city\":")") != std::string::npos);
}

TEST_CASE("an error event ends the response where it stands", "[assemble]") {
  std::string text = k_anthropic_sse;
  text.insert(text.find("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1"),
              "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n");
  Run run = run_assemble(text);
  CHECK(run.error == "s.sse:26: stream error: overloaded_error: Overloaded");
  CHECK(run.out.find(R"("content":[{"type":"thinking","thinking":"Let me think.","signature":"c2ln"}])") !=
        std::string::npos);

  std::string groq =
      R"(data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning":"We need"},"finish_reason":null}]})" "\n\n"
      "event: error\n"
      R"(data: {"error":{"message":"Tool call validation failed","type":"invalid_request_error","code":"tool_use_failed"}})" "\n\n";
  Run failed = run_assemble(groq);
  CHECK(failed.error == "s.sse:4: stream error: invalid_request_error: Tool call validation failed");
  CHECK(failed.out ==
        R"({"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"reasoning":"We need"},"finish_reason":null}]})" "\n");
}

TEST_CASE("a data line that is not JSON is an error at its column", "[assemble]") {
  Run run = run_assemble("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\" \"m\"}}\n\n");
  CHECK(run.error == "s.sse:2:47: event data is not JSON: expected ':'");
}

TEST_CASE("assembled messages are written in another format with --to", "[assemble]") {
  AssembleOptions options;
  options.to = Format::openai;
  Run run = run_assemble(k_anthropic_sse, options);
  CHECK(run.error.empty());
  // The assembled response is a response body: written as OpenAI's (api_body.h).
  CHECK(run.out ==
        R"({"id":"msg_1","object":"chat.completion","model":"claude-x","choices":[{"index":0,"message":{"role":"assistant","content":"Paris is sunny.","tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls","logprobs":null}],"usage":{"prompt_tokens":12,"completion_tokens":42,"total_tokens":54}})" "\n");
  REQUIRE(run.warnings.size() == 1);
  INFO(run.warnings[0]);
  CHECK(run.warnings[0].find("openai cannot hold service_tier of usage (1), citations of text blocks (1), "
                             "thinking blocks (1)") !=
        std::string::npos);
  options.strict = true;
  CHECK(run_assemble(k_anthropic_sse, options).error.find(
            "openai cannot hold service_tier of usage (--strict)") != std::string::npos);
}

TEST_CASE("a repeated message_start is ignored, and a new message ends the open one", "[assemble]") {
  std::string start = R"({"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","content":[],"model":"x","usage":{"input_tokens":1,"output_tokens":1}}})" "\n";
  std::string text = start + start +
                     R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})" "\n"
                     R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}})" "\n"
                     R"({"type":"message_start","message":{"id":"m2","type":"message","role":"assistant","content":[],"model":"x"}})" "\n"
                     R"({"type":"message_stop"})" "\n";
  std::vector<std::string> warnings;
  auto responses = assemble_text(text, &warnings);
  REQUIRE(responses.size() == 2);
  CHECK(responses[0].json.find(R"("text":"hi")") != std::string::npos);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "s.sse:5: message m1 ends without message_stop: message m2 starts here");
}

// --- The recorded streams ---

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool is_stream(const fs::path& path) {
  std::string name = path.filename().string();
  return path.extension() == ".sse" ||
         (name.size() > 11 && name.substr(name.size() - 11) == ".chunks.txt");
}

// The unstreamed response recorded beside a stream: X.json for X.sse or X.chunks.txt.
fs::path recorded_response(const fs::path& stream) {
  std::string name = stream.filename().string();
  std::string stem = stream.extension() == ".sse" ? stream.stem().string()
                                                  : name.substr(0, name.size() - 11);
  return stream.parent_path() / (stem + ".json");
}

// What can be compared between two runs of one request: the kinds of blocks (or
// of message members), the tools called, and why the response stopped.
struct Shape {
  std::set<std::string> kinds;
  std::set<std::string> tools;
  std::string stop;
  bool operator==(const Shape&) const = default;
};

Shape shape_of(const JsonValue& response) {
  Shape shape;
  if (const JsonValue* choices = find_member(response, "choices")) {
    const JsonValue& choice = (*choices)[0];
    const JsonValue& message = choice["message"];
    for (const char* key : {"content", "reasoning", "reasoning_content", "refusal"}) {
      const JsonValue* value = find_member(message, key);
      if (value != nullptr && ((value->IsString() && value->GetStringLength() > 0) ||
                               (value->IsArray() && !value->Empty()))) {
        shape.kinds.insert(key);
      }
    }
    if (const JsonValue* calls = find_member(message, "tool_calls"); calls != nullptr && calls->IsArray()) {
      for (const JsonValue& call : calls->GetArray()) {
        shape.tools.insert(std::string(view_of(call["function"]["name"])));
      }
    }
    shape.stop = std::string(string_member(choice, "finish_reason").value_or(""));
    return shape;
  }
  for (const JsonValue& block : response["content"].GetArray()) {
    shape.kinds.insert(std::string(view_of(block["type"])));
    if (auto name = string_member(block, "name")) {
      shape.tools.insert(std::string(*name));
    }
  }
  shape.stop = std::string(string_member(response, "stop_reason").value_or(""));
  return shape;
}

std::string canonical(std::string_view json) {
  JsonDoc doc;
  if (parse_json(std::string(json), doc)) {
    return std::string(json);
  }
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  doc.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// What is comparable between a streamed and an unstreamed response: the content
// (text, thinking, tool calls with their inputs as JSON, other blocks whole), the
// stop reason and the token counts.
std::string describe(const Message& m) {
  std::string out = fmt::format("stop {}; tokens in {} out {}\n", m.meta->stop_reason,
                                m.usage->input.value_or(-1), m.usage->output.value_or(-1));
  if (m.content.is_string()) {
    return out + "text: " + m.content.text + "\n";
  }
  for (const Block& b : m.content.blocks) {
    switch (b.type) {
      case BlockType::text:
        if (!b.text.empty()) {
          out += "text: " + b.text + "\n";
        }
        break;
      case BlockType::thinking:
        out += "thinking: " + b.text + " / " + b.signature.value_or("") + "\n";
        break;
      case BlockType::tool_use:
        out += fmt::format("call {} {} {}\n", b.id, b.name, canonical(b.input_json()));
        break;
      default:
        out += fmt::format("{} {}\n", b.type_name, b.json != nullptr ? to_json(*b.json) : "");
        break;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("every recorded stream assembles to well-formed messages, like its unstreamed twin",
          "[assemble][corpus]") {
  fs::path root = CONVO_CORPUS_DIR;
  if (!fs::is_directory(root)) {
    WARN("skipped: no corpus at " << root.string());
    return;
  }
  std::size_t streams = 0;
  std::size_t twins = 0;
  std::size_t same_response = 0;
  for (const char* folder : {"anthropic-api", "openai-chat"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (!entry.is_regular_file() || !is_stream(entry.path())) {
        continue;
      }
      ++streams;
      INFO(entry.path().string());
      StreamEventReader reader(open_input(entry.path().string()), entry.path().string());
      CollectingDiagnostics diagnostics;
      std::vector<AssembledResponse> responses = assemble_stream(reader, diagnostics);
      REQUIRE_FALSE(responses.empty());
      std::vector<JsonDoc> docs(responses.size());
      for (std::size_t i = 0; i < responses.size(); ++i) {
        const AssembledResponse& response = responses[i];
        INFO("response " << i << ": " << response.json);
        // Only streams that recorded an error event end early; none is cut off.
        if (!response.problem.empty()) {
          CHECK(response.problem.rfind("stream error: ", 0) == 0);
        }
        REQUIRE_FALSE(response.json.empty());
        REQUIRE_FALSE(parse_json(response.json, docs[i]));
        // Well-formed: it reads as a message of its format, and writes in every format.
        std::vector<Message> messages = read_messages(response.json, {response.format});
        REQUIRE(messages.size() == 1);
        CHECK(messages[0].role == Role::assistant);
        if (response.whole) {
          for (const Block* use : messages[0].tool_uses()) {
            JsonDoc input;
            CHECK_FALSE(parse_json(use->input_json(), input));
            CHECK(input.IsObject());
          }
        }
        for (const FormatInfo& format : all_formats()) {
          CHECK_NOTHROW(convert_text(response.json, format.format, {response.format}));
        }
      }
      fs::path twin = recorded_response(entry.path());
      if (!fs::exists(twin)) {
        continue;
      }
      ++twins;
      JsonDoc recorded;
      REQUIRE_FALSE(parse_json(read_file(twin), recorded));
      // Most twins are another run of the same request (or the first call of a
      // recorded exchange): what the model chose to do must agree. Over all the
      // stream's messages: the same kinds of blocks, the same tools, and the twin's
      // stop reason among theirs.
      Shape streamed;
      std::set<std::string> stops;
      for (const JsonDoc& doc : docs) {
        Shape one = shape_of(doc);
        streamed.kinds.insert(one.kinds.begin(), one.kinds.end());
        streamed.tools.insert(one.tools.begin(), one.tools.end());
        stops.insert(one.stop);
      }
      Shape unstreamed = shape_of(recorded);
      CHECK(streamed.kinds == unstreamed.kinds);
      CHECK(streamed.tools == unstreamed.tools);
      CHECK(stops.count(unstreamed.stop) == 1);
      // Where both recorded the very same response (one id, one output token count:
      // some fixtures reuse an id for a different answer), it is the same message.
      std::vector<Message> ours = read_messages(responses[0].json, {responses[0].format});
      std::vector<Message> theirs = read_messages(read_file(twin), {responses[0].format});
      REQUIRE(theirs.size() == 1);
      if (ours[0].meta->message_id == theirs[0].meta->message_id &&
          ours[0].usage->output == theirs[0].usage->output) {
        ++same_response;
        CHECK(describe(ours[0]) == describe(theirs[0]));
      }
    }
  }
  CHECK(streams >= 90);
  CHECK(twins >= 40);
  CHECK(same_response >= 3);
}

TEST_CASE("LangChain AIMessageChunk records join as LangChain's concat joins them", "[assemble]") {
  // Two chunks as LangChain.js 1.4 toDict() writes them; the expected message is
  // what `a.concat(b).toDict()` gave there (content, calls, usage summed, metadata),
  // in Python's stored shape.
  std::string text =
      R"({"type":"ai","data":{"content":"Hel","id":"run-1","tool_call_chunks":[{"name":"get_weather","args":"{\"ci","id":"call_1","index":0,"type":"tool_call_chunk"}],"usage_metadata":{"input_tokens":10,"output_tokens":1,"total_tokens":11},"additional_kwargs":{},"response_metadata":{},"tool_calls":[{"name":"get_weather","args":{},"id":"call_1","type":"tool_call"}],"invalid_tool_calls":[]}})" "\n"
      R"({"type":"ai","data":{"content":"lo","id":"run-1","tool_call_chunks":[{"args":"ty\": \"Paris\"}","index":0,"type":"tool_call_chunk"}],"usage_metadata":{"input_tokens":0,"output_tokens":4,"total_tokens":4},"response_metadata":{"finish_reason":"tool_calls"},"additional_kwargs":{},"tool_calls":[],"invalid_tool_calls":[{"name":"","args":"ty\": \"Paris\"}","error":"Malformed args.","type":"invalid_tool_call"}]}})" "\n";
  auto responses = assemble_text(text);
  REQUIRE(responses.size() == 1);
  CHECK(responses[0].format == Format::langchain);
  CHECK(responses[0].json ==
        R"({"type":"ai","data":{"content":"Hello","additional_kwargs":{},"response_metadata":{"finish_reason":"tool_calls"},"type":"ai","name":null,"id":"run-1","tool_calls":[{"name":"get_weather","args":{"city":"Paris"},"id":"call_1","type":"tool_call"}],"invalid_tool_calls":[],"usage_metadata":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}})");
  // Args that never became JSON make an invalid tool call.
  std::string broken =
      R"({"type":"AIMessageChunk","data":{"content":"","id":"m","tool_call_chunks":[{"name":"f","args":"{\"x\":","id":"c","index":0}]}})" "\n";
  auto cut = assemble_text(broken);
  REQUIRE(cut.size() == 1);
  CHECK(cut[0].json.find(R"("invalid_tool_calls":[{"name":"f","args":"{\"x\":","id":"c","error":"Malformed args.","type":"invalid_tool_call"}])") !=
        std::string::npos);
}

TEST_CASE("every stream dialect is reached through the registry, and claims its own first event",
          "[assemble]") {
  // A first event of each dialect, as SSE names and data carry it.
  struct FirstEvent {
    Format format;
    std::string name;
    std::string data;
  };
  const std::vector<FirstEvent> firsts = {
      {Format::anthropic, "message_start",
       R"({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[]}})"},
      {Format::openai, "",
       R"({"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]})"},
      {Format::langchain, "",
       R"({"type":"AIMessageChunk","data":{"content":"Hi","id":"run-1"}})"},
      {Format::openai_responses, "response.created",
       R"({"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}})"},
      {Format::ai_sdk, "", R"({"type":"start","messageId":"msg_1"})"},
      {Format::gemini, "",
       R"({"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],"responseId":"r1"})"},
  };
  std::set<Format> streaming;
  for (const FormatInfo& info : all_formats()) {
    if (info.make_stream_reader == nullptr) {
      continue;
    }
    std::unique_ptr<StreamReader> reader = info.make_stream_reader();
    REQUIRE(reader != nullptr);
    CHECK(reader->format() == info.format);
    CHECK_FALSE(reader->name().empty());
    CHECK_FALSE(reader->open());
    streaming.insert(info.format);
    for (const FirstEvent& first : firsts) {
      JsonDoc doc;
      REQUIRE_FALSE(parse_json(first.data, doc));
      StreamEvent event;
      event.name = first.name;
      event.data = first.data;
      INFO(format_name(info.format) << " offered a first " << format_name(first.format) << " event");
      CHECK(reader->claims(event, doc) == (first.format == info.format));
    }
  }
  CHECK(streaming == std::set<Format>{Format::anthropic, Format::openai, Format::langchain,
                                      Format::openai_responses, Format::ai_sdk, Format::gemini});
  // The stage picks the dialect from the first event, framed as SSE or not.
  for (const FirstEvent& first : firsts) {
    INFO(format_name(first.format));
    std::string framed = (first.name.empty() ? "" : "event: " + first.name + "\n") + "data: " + first.data + "\n\n";
    for (const std::string& text : {framed, first.data + "\n"}) {
      auto responses = assemble_text(text);
      REQUIRE_FALSE(responses.empty());
      CHECK(responses[0].format == first.format);
    }
  }
}

TEST_CASE("an event of another dialect ends the open response, cut off unless it was whole",
          "[assemble]") {
  const std::string anthropic =
      R"({"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","content":[]}})" "\n";
  const std::string openai_open =
      R"({"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]})" "\n";
  const std::string openai_whole =
      R"({"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]})" "\n";
  const std::string langchain = R"({"type":"AIMessageChunk","data":{"content":"Hi","id":"run-1"}})" "\n";
  struct Case {
    std::string text;
    std::string problem;  // of the first response; empty: it is whole
  };
  const std::vector<Case> cases = {
      {anthropic + openai_open, "an OpenAI stream starts before the Anthropic one ends"},
      {anthropic + langchain, "a LangChain chunk comes before the Anthropic stream ends"},
      {openai_open + anthropic, "an Anthropic stream starts before the OpenAI one ends"},
      {openai_open + langchain, "a LangChain chunk comes before the OpenAI stream ends"},
      {openai_whole + anthropic, ""},
      {langchain + anthropic, ""},
      {langchain + openai_whole, ""},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    auto responses = assemble_text(c.text);
    REQUIRE(responses.size() == 2);
    CHECK(responses[0].problem == c.problem);
    CHECK(responses[0].whole == c.problem.empty());
    if (!c.problem.empty()) {
      CHECK(responses[0].problem_at.str() == "s.sse:2");
    }
  }
}
