// convo stream: messages written as streams, and streams translated event by event.
#include <catch2/catch.hpp>

#include <string>

#include "formats/stream.h"
#include "io/output.h"
#include "stages/stream.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

struct StreamRun {
  std::string out;
  std::vector<std::string> warnings;
  std::string error;
};

StreamRun run_stream(const std::string& text, Format to, std::size_t chunk_size = 32) {
  StreamCommandOptions options;
  options.inputs = {"in"};
  options.to = to;
  options.chunk_size = chunk_size;
  StringOutput out;
  CollectingDiagnostics diagnostics;
  StreamRun run;
  try {
    write_streams(options, out, diagnostics, memory_files({{"in", text}}));
  } catch (const Error& error) {
    run.error = error.message();
  }
  run.out = out.str();
  run.warnings = diagnostics.lines;
  return run;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("stream names stop reasons in either API's words", "[stream]") {
  CHECK(stop_reason_named("end_turn") == StopReason::end_turn);
  CHECK(stop_reason_named("stop") == StopReason::end_turn);
  CHECK(stop_reason_named("length") == StopReason::max_tokens);
  CHECK(stop_reason_named("tool_calls") == StopReason::tool_use);
  CHECK(stop_reason_named("content_filter") == StopReason::refusal);
  CHECK(stop_reason_named("whatever") == StopReason::none);
}

TEST_CASE("stream writes an Anthropic message as the API's exact events", "[stream]") {
  StreamRun run = run_stream(
      R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":2}})"
      "\n",
      Format::anthropic);
  REQUIRE(run.error.empty());
  CHECK(run.out ==
        "event: message_start\n"
        R"(data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}})"
        "\n\n"
        "event: content_block_start\n"
        R"(data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"
        "\n\n"
        "event: content_block_delta\n"
        R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}})"
        "\n\n"
        "event: content_block_stop\n"
        R"(data: {"type":"content_block_stop","index":0})"
        "\n\n"
        "event: message_delta\n"
        R"(data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2}})"
        "\n\n"
        "event: message_stop\n"
        R"(data: {"type":"message_stop"})"
        "\n\n");
}

TEST_CASE("stream cuts deltas at code points, never inside a UTF-8 sequence", "[stream]") {
  // "ééé" is 6 bytes, 3 code points: chunks of 2 code points are "éé" and "é".
  StreamRun run = run_stream(R"({"role":"assistant","content":"ééé"})"
                       "\n",
                       Format::openai, 2);
  REQUIRE(run.error.empty());
  CHECK(count(run.out, R"("content":"éé")") == 1);
  CHECK(count(run.out, R"("content":"é")") == 1);
  CHECK(count(run.out, "data: [DONE]") == 1);
}

TEST_CASE("stream gives OpenAI's parallel calls, named before their arguments, as blocks one after another",
          "[stream]") {
  auto chunk = [](const std::string& delta, const std::string& finish = "null") {
    return R"(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":)" +
           delta + R"(,"finish_reason":)" + finish + "}]}\n\n";
  };
  std::string sse =
      chunk(R"({"role":"assistant","content":null})") +
      chunk(R"({"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":""}}]})") +
      chunk(R"({"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"g","arguments":""}}]})") +
      chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":"{\"x\":1}"}}]})") +
      chunk(R"({"tool_calls":[{"index":1,"function":{"arguments":"{\"y\":2}"}}]})") +
      chunk("{}", R"("tool_calls")") + "data: [DONE]\n\n";
  StreamRun run = run_stream(sse, Format::anthropic);
  REQUIRE(run.error.empty());
  std::string first_start = R"("index":0,"content_block":{"type":"tool_use","id":"a")";
  std::string first_args = R"("index":0,"delta":{"type":"input_json_delta","partial_json":"{\"x\":1}"})";
  std::string first_stop = R"({"type":"content_block_stop","index":0})";
  std::string second_start = R"("index":1,"content_block":{"type":"tool_use","id":"b")";
  std::string second_args = R"("index":1,"delta":{"type":"input_json_delta","partial_json":"{\"y\":2}"})";
  REQUIRE(run.out.find(first_start) != std::string::npos);
  CHECK(run.out.find(first_start) < run.out.find(first_args));
  CHECK(run.out.find(first_args) < run.out.find(first_stop));
  CHECK(run.out.find(first_stop) < run.out.find(second_start));
  CHECK(run.out.find(second_start) < run.out.find(second_args));
  CHECK(count(run.out, R"("stop_reason":"tool_use")") == 1);
  CHECK(count(run.out, "event: message_stop") == 1);
}

TEST_CASE("stream ends a cut-off stream with the target's error event and an error", "[stream]") {
  std::string sse =
      "event: message_start\n"
      R"(data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"usage":{"input_tokens":1,"output_tokens":1}}})"
      "\n\n"
      "event: content_block_start\n"
      R"(data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"
      "\n\n";
  StreamRun run = run_stream(sse, Format::openai);
  CHECK(run.error == "in:5: stream ends here, before the response ends: it is incomplete");
  CHECK(run.out.substr(run.out.rfind("data: ")) ==
        R"(data: {"error":{"message":"stream ends here, before the response ends: it is incomplete","type":"api_error","param":null,"code":null}})"
        "\n\n");
}
