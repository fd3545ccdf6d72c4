// Stream dialects: how a format's recorded streaming responses (SSE or JSONL
// events) are put back together into the response the unstreamed API returns.
//
// A format that streams gives a `StreamReader` through its registry row
// (`FormatInfo::make_stream_reader`). The assemble stage offers each parsed event
// to the readers in registry order; the first that `claims` it `take`s it. At most
// one reader has a response open at a time: an event another reader claims ends it
// (`complete` says whether that loses anything), and so does the end of the input.
// Readers do no I/O: they see events one by one and hand out `AssembledResponse`s
// of their `format()`, which the stage decodes with that format's decoder.
//
// Live translation (`convo stream`) uses the same readers another way: `read_parts`
// turns each event, as it arrives, into `StreamPart`s, a response's steps in no
// protocol's shape, holding only what the open block needs; and a `StreamWriter`
// (`FormatInfo::make_stream_writer`) turns parts into its protocol's events.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "formats/format.h"
#include "message.h"

namespace convo {

struct StreamEvent;

// Why a response stopped, in no protocol's words (Anthropic's stop_reason values;
// OpenAI's finish_reason maps onto them).
enum class StopReason : std::uint8_t {
  none,           // not said
  end_turn,       // OpenAI "stop"
  max_tokens,     // OpenAI "length"
  tool_use,       // OpenAI "tool_calls" (and "function_call")
  stop_sequence,  // OpenAI "stop" too
  refusal,        // OpenAI "content_filter"
  pause_turn,     // OpenAI "stop"
};

// The stop reason a `stop_reason` or `finish_reason` string names, in either API's words.
StopReason stop_reason_named(std::string_view name);

// How API `api` (anthropic, openai or gemini) says `stop`: the inverse of
// stop_reason_named, "" for none. `exact` is false when the API has no word of its
// own for it (Chat's "stop" and Gemini's "STOP" also stand for a stop sequence and a
// paused turn): a writer counts "stop reasons" lost then. Gemini says STOP after
// function calls too, which is how it reads back, so that is exact.
struct StopReasonSpelling {
  std::string_view name;
  bool exact = true;
};
StopReasonSpelling stop_reason_spelled(Format api, StopReason stop);

// One step of a streamed response, in no protocol's shape. Blocks are numbered by
// `index` in the order they begin; at most one is open at a time, and its deltas
// come between its `block_begin` and `block_end`.
struct StreamPart {
  enum class Kind : std::uint8_t {
    begin,        // a response starts: `id`, `model`, `created`, `usage` (the prompt's tokens)
    block_begin,  // block `index` of type `block` starts: tool_use has `id` and `name`;
                  // redacted_thinking its data in `text`; another type its JSON in `raw`
    delta,        // `text` extends block `index`: text, thinking, or a tool input's JSON text;
                  // `raw`, when set, is the delta as its protocol gave it (a server
                  // tool's input, citations), for a writer of that protocol
    signature,    // `text` extends block `index`'s signature: a thinking block's, or
                  // (Gemini's thoughtSignature) a text block's or a tool call's
    block_end,    // block `index` is complete
    finish,       // the response stops: `stop`, `stop_sequence`, `usage` (the final counts)
    end,          // the response is whole (message_stop, [DONE])
    error,        // the stream reported an error (`error_type`, `text`) or broke off
  };
  Kind kind = Kind::begin;
  std::size_t index = 0;
  BlockType block = BlockType::text;
  std::string id;
  std::string name;
  std::string model;
  std::int64_t created = 0;  // OpenAI's `created` (seconds); 0 when not known
  std::string text;
  std::string raw;
  // begin, block_begin and finish read from a stream: the protocol they were read
  // from, and the event (for block_begin, the block) as it came (`raw_event`), which
  // a writer of that protocol writes as it is, so that members parts do not model
  // (usage details, context management, citations) pass.
  Format from = Format::none;
  std::string raw_event;
  // block_begin and block_end of a block that is (part of) an OpenAI Responses item,
  // read from a stream or from messages of that family: the item's id, and its JSON
  // as it came (`item`), whose other members (encrypted_content, status) a
  // Responses writer keeps.
  std::string item_id;
  std::string item;
  // What the part carries that only a writer of `from` can write (a plural noun
  // phrase: "encrypted reasoning"); the driver counts it lost for another target.
  std::string unheld;
  StopReason stop = StopReason::none;
  std::string stop_sequence;
  std::string error_type;
  // Token counts. `input` counts only the prompt tokens neither read from nor written
  // to the cache (Anthropic's input_tokens); `cache_read`, `cache_write` those.
  Usage usage;
};

// How a writer writes.
struct StreamWriterOptions {
  // OpenAI Chat: a last chunk with the usage and no choices, as the API sends it
  // when the request has `stream_options.include_usage`.
  bool include_usage = false;
};

// Writes one protocol's event stream from `StreamPart`s. A fresh writer is made for
// each response; it holds only the numbering of blocks.
class StreamWriter {
 public:
  virtual ~StreamWriter() = default;

  // Appends the bytes of the events `part` makes (none, one or a few) to `out`.
  // What the protocol cannot say is reported to `loss` (at `where`).
  virtual void write(const StreamPart& part, std::string& out, LossReport& loss,
                     const Location& where) = 0;

 protected:
  // Whether delta `part` has text for a writer of `to`, another protocol than the
  // one it came from: a delta with only its protocol's own form (`raw`: citations
  // and the like of Anthropic blocks) is counted lost, an empty one is nothing.
  static bool delta_has_text(const StreamPart& part, Format to, LossReport& loss, const Location& where);
  // What a block of a kind the writer does not write is called in the loss count: its
  // own type's name (a Responses item's, web_search_call) when the part gives it.
  static std::string_view dropped_block_name(const StreamPart& part);
};

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

  // --- Live reading: events to parts as they arrive (not used with `take`) ---

  // True when it can read its events as parts.
  virtual bool reads_parts() const { return false; }
  // True when `doc`, the first JSON line of an input, is one of its events rather
  // than a whole response body (which `claims` may also take).
  virtual bool is_event(const JsonValue& doc) const;
  // Appends the parts the event it claims brings to `out`. Returns why the event
  // cannot be read, or "". Holds no more than the open block needs.
  virtual std::string read_parts(const StreamEvent& event, const JsonValue& doc,
                                 std::vector<StreamPart>& out) {
    (void)event;
    (void)doc;
    (void)out;
    return "its events cannot be translated";
  }
  // When `data` (not JSON) is its end-of-stream marker: appends the parts it brings
  // and returns true.
  virtual bool parts_end_marker(std::string_view data, std::vector<StreamPart>& out) {
    (void)data;
    (void)out;
    return false;
  }
  // The input ended: appends the parts that end the open response when it is whole
  // as it stands (an OpenAI stream with its finish_reason and no [DONE]) and returns
  // true; false when it is cut off.
  virtual bool parts_at_input_end(std::vector<StreamPart>& out) {
    (void)out;
    return false;
  }
};

}  // namespace convo
