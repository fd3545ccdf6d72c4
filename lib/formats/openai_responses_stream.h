// OpenAI Responses streams (`response.*` server-sent events) put back together into
// the response body the unstreamed API returns: the body of `response.completed`
// (or `.incomplete`, `.failed`) when the stream has one, its output filled from the
// items streamed when it came without them; else, for a stream cut off, the body of
// `response.created` with the items as far as they came (text, function call
// arguments and reasoning summaries from their deltas).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/stream.h"
#include "json.h"

namespace convo {

// True when `event` (a `data:` payload) is a Responses stream event.
bool is_responses_event(const JsonValue& event);

class ResponsesStreamAssembler {
 public:
  ResponsesStreamAssembler();

  // Takes the next event. Returns an error message for an event that does not fit
  // (a delta for an item that never started), nullopt otherwise.
  std::optional<std::string> event(const JsonValue& event);

  // True once the stream's final event (completed, incomplete, failed) came.
  bool done() const { return m_done; }
  // True once any event came.
  bool started() const { return m_started; }

  // The response body as JSON text; `problem` is set when it is not whole (the
  // stream was cut off, or said it failed).
  std::string body(std::string& problem) const;

 private:
  JsonValue* item_at(const JsonValue& event);
  JsonValue* part_at(JsonValue& item, std::string_view list, const JsonValue& event,
                     std::string_view index_key);

  JsonDoc m_doc;                  // owns every value below
  JsonValue m_response;           // the latest whole response the stream gave
  std::vector<JsonValue> m_items; // by output_index
  bool m_started = false;
  bool m_done = false;
  std::string m_error;            // the `error` event's message, or a failed status
};

// A reader of Responses streams, for the openai-responses registry row: each
// response goes from response.created to response.completed (.incomplete, .failed).
std::unique_ptr<StreamReader> make_openai_responses_stream_reader();

// A writer of Responses streams, for the same row (openai_responses_stream_writer.cc).
std::unique_ptr<StreamWriter> make_openai_responses_stream_writer(const StreamWriterOptions& options);

}  // namespace convo
