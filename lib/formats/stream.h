// Stream dialects: how a format's recorded streaming responses (SSE or JSONL
// events) are put back together into the response the unstreamed API returns.
//
// A format that streams gives a `StreamReader` through its registry row
// (`FormatInfo::make_stream_reader`). The assemble stage offers each parsed event
// to the readers in registry order; the first that `claims` it `take`s it. At most
// one reader has a response open at a time: an event another reader claims ends it
// (`complete` says whether that loses anything), and so does the end of the input.
// Readers do no I/O: they see events one by one and hand out `AssembledResponse`s
// of their `format()`, which the stage decodes with that format's decoder. A
// stream writer (messages -> one dialect's events) would sit beside it in the row.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "formats/format.h"

namespace convo {

struct StreamEvent;

// One response put together from a stream.
struct AssembledResponse {
  Format format = Format::none;  // the dialect's format; none: a problem outside any response
  std::string json;              // the response body, as the unstreamed API returns it
  Location where;                // where its stream began
  // Why the response is incomplete (the stream was cut off, or reported an error),
  // and where; empty when it is whole.
  std::string problem;
  Location problem_at;
  // False when the response is not whole: it has a problem, or (warned about, not an
  // error) the stream started the next message before this one stopped.
  bool whole = true;

  // False for a problem that belongs to no response (an event after a garbled one).
  bool in_response() const { return format != Format::none; }
};

// Reads one stream dialect. A fresh reader is made for each stream.
class StreamReader {
 public:
  virtual ~StreamReader() = default;

  // The format the responses it puts together are in.
  virtual Format format() const = 0;
  // Its name in messages ("OpenAI"), and how one of its events arriving in the
  // middle of another dialect's response is told ("an OpenAI stream starts").
  virtual std::string_view name() const = 0;
  virtual std::string_view arrival() const = 0;

  // True when `event`, whose data is the JSON object `doc`, is one of its events.
  virtual bool claims(const StreamEvent& event, const JsonValue& doc) const = 0;
  // True when `doc`, which has an `error` member but no `type`, is one of its
  // events rather than an error report (an OpenAI chunk may carry `error`).
  virtual bool owns_error_member(const JsonValue& doc) const {
    (void)doc;
    return false;
  }
  // When `data` (not JSON) is its end-of-stream marker ("[DONE]"): ends any open
  // response, whole, into `out`, and returns true.
  virtual bool end_marker(std::string_view data, std::vector<AssembledResponse>& out) {
    (void)data;
    (void)out;
    return false;
  }

  // Takes an event it claims; responses it finishes go to `out`, warnings to
  // `diagnostics`. Returns why the event cannot be applied, or "": the stage then
  // ends the open response (of any reader) with that problem.
  virtual std::string take(const StreamEvent& event, const JsonValue& doc,
                           std::vector<AssembledResponse>& out, Diagnostics& diagnostics) = 0;

  // True while a response is begun and not handed out.
  virtual bool open() const = 0;
  // True when the open response would be whole if it ended here.
  virtual bool complete() const = 0;
  // Why the open response is incomplete when the input ends after it.
  virtual std::string cut_off() const = 0;
  // Hands out the open response, ended by `problem` at `where` (empty: whole).
  virtual AssembledResponse end(std::string problem, Location where) = 0;
};

}  // namespace convo
