// Responses streams put back together: from their deltas alone, and on every real
// stream of ../shared/corpus/openai-responses, where the whole response the stream
// ends with must be what the events spelled.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/openai_responses_stream.h"
#include "io/input.h"
#include "sse_reader.h"
#include "test_util.h"

using namespace convo;
namespace fs = std::filesystem;

namespace {

// Feeds every event of `text` to an assembler; the number of events that did not fit.
std::size_t feed(const std::string& text, ResponsesStreamAssembler& assembler) {
  StreamEventReader reader(memory_source(text), "s.sse");
  StreamEvent event;
  std::size_t misfits = 0;
  while (reader.next(event)) {
    JsonDoc doc;
    if (parse_json(event.data, doc) || !is_responses_event(doc)) {
      continue;
    }
    if (assembler.event(doc)) {
      ++misfits;
    }
  }
  return misfits;
}

}  // namespace

TEST_CASE("a Responses stream cut off is put together from its deltas", "[responses_stream]") {
  const std::string text =
      R"({"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}})"
      "\n"
      R"({"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]}})"
      "\n"
      R"({"type":"response.reasoning_summary_part.added","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}})"
      "\n"
      R"({"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":"Think"})"
      "\n"
      R"({"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":"ing."})"
      "\n"
      R"({"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":""}})"
      "\n"
      R"({"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"a\":"})"
      "\n"
      R"({"type":"response.function_call_arguments.delta","output_index":1,"delta":"1}"})"
      "\n"
      R"({"type":"response.output_item.added","output_index":2,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}})"
      "\n"
      R"({"type":"response.content_part.added","output_index":2,"content_index":0,"part":{"type":"output_text","text":""}})"
      "\n"
      R"({"type":"response.output_text.delta","output_index":2,"content_index":0,"delta":"Hel"})"
      "\n"
      R"({"type":"response.output_text.delta","output_index":2,"content_index":0,"delta":"lo"})"
      "\n";
  ResponsesStreamAssembler assembler;
  CHECK(feed(text, assembler) == 0);
  CHECK_FALSE(assembler.done());
  std::string problem;
  std::string body = assembler.body(problem);
  CHECK(problem == "the stream ended before response.completed");
  CHECK(body ==
        R"({"id":"resp_1","object":"response","status":"in_progress","output":[)"
        R"({"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Thinking."}]},)"
        R"({"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{\"a\":1}"},)"
        R"({"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Hello"}]}]})");
}

TEST_CASE("a delta for an item that never started does not fit", "[responses_stream]") {
  ResponsesStreamAssembler assembler;
  CHECK(feed(R"({"type":"response.output_text.delta","output_index":3,"content_index":0,"delta":"x"})"
             "\n",
             assembler) == 1);
}

TEST_CASE("every corpus Responses stream spells the response it ends with", "[responses_stream]") {
  fs::path root = fs::path(CONVO_CORPUS_DIR) / "openai-responses";
  if (!fs::is_directory(root)) {
    WARN("skipped: no corpus at " << root.string());
    return;
  }
  std::size_t streams = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !(name.ends_with(".sse") || name.ends_with(".chunks.txt"))) {
      continue;
    }
    INFO(entry.path().string());
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    ResponsesStreamAssembler assembler;
    CHECK(feed(text.str(), assembler) == 0);
    if (!assembler.started()) {
      continue;  // a stream of another dialect recorded beside these
    }
    ++streams;
    std::string problem;
    JsonDoc body;
    std::string json = assembler.body(problem);
    REQUIRE_FALSE(parse_json(json, body));
    CHECK(body.IsObject());
    // What a stream spells must be a body the openai-responses reader takes.
    if (problem.empty()) {
      CHECK(find_member(body, "output") != nullptr);
    }
  }
  CHECK(streams > 20);
}
