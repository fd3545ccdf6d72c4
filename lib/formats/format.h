// The transcript formats convo reads and writes, and the interfaces every format
// implements: detect (how much a record looks like the format), decode (JSON ->
// Message) and encode (Message -> JSON). One file per format implements them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/records.h"
#include "io/record_reader.h"
#include "message.h"

namespace convo {

class Output;
struct BodyCodec;
class StreamReader;
class StreamWriter;
struct StreamWriterOptions;

enum class Format : std::uint8_t {
  none = 0,  // no known format: records are kept as they are and written through
  claude_code,
  anthropic,
  openai,
  langchain,
  agentscope,
  opencode,
  synaptic,
  openai_responses,
  codex,
  gemini,
  gemini_cli,
  ai_sdk,
  // Not a format: the number of values above. The registry (format.cc) fails to
  // build unless it has one row for each.
  end_,
};

// A record that is valid JSON but not a valid record of the format. `path` is a
// JSON pointer to the offending value ("/message/content/0/text").
class DecodeError : public std::exception {
 public:
  DecodeError(std::string path, std::string message)
      : m_path(std::move(path)), m_message(std::move(message)) {}
  const std::string& path() const { return m_path; }
  const std::string& message() const { return m_message; }
  const char* what() const noexcept override { return m_message.c_str(); }

 private:
  std::string m_path;
  std::string m_message;
};

// A message that cannot be written validly: a record that must be re-encoded holds
// invalid UTF-8. Unchanged records pass through byte for byte whatever they hold,
// but JSON text that convo writes itself is always valid UTF-8 (RFC 8259; the APIs
// the formats feed reject anything else). The pipeline applies --on-error to it,
// as to a bad input record; `raw` is what `keep` writes through.
//
// A writer holds a reply back until what follows shows it is whole
// (EncoderBase::write_reply), so the reply can fail while the next record is being
// put, or at the end of the input. The error then carries that record (`next`), or
// says the end was cut short (`finish_pending`): whoever applies --on-error puts the
// record again, or ends the input again, once the bad reply is skipped or kept, so
// nothing after it is lost and the output keeps the input's order.
class EncodeError : public Error {
 public:
  EncodeError(Location where, std::string what, std::string raw)
      : Error(std::move(where), std::move(what)), m_raw(std::move(raw)) {}
  const std::string& raw() const { return m_raw; }

  // The record being put when the error came; null when none was.
  const std::shared_ptr<Message>& next() const { return m_next; }
  void set_next(Message&& message) { m_next = std::make_shared<Message>(std::move(message)); }
  bool finish_pending() const { return m_finish_pending; }
  void set_finish_pending() { m_finish_pending = true; }

 private:
  std::string m_raw;
  std::shared_ptr<Message> m_next;  // shared: an exception object is copied
  bool m_finish_pending = false;
};

// A JSON pointer shown the way a user reads it: "/message/content/0/text" ->
// "message.content[0].text".
std::string readable_path(std::string_view pointer);

// The byte offset in `raw` of the value at JSON pointer `pointer` (of its member key
// when the last step is a key), or nullopt when it is not found.
std::optional<std::size_t> locate_json_pointer(const std::string& raw, std::string_view pointer);

// A multi-message document: a request body, a response with choices, a
// `{"loglines": [...]}` file, or a top-level JSON array of records. Its messages
// point here so that a writer of the same format can put them back in place.
struct Container {
  Format format{};
  std::string raw;                        // the document's bytes
  std::shared_ptr<const Source> source;   // the parsed document
  std::string array_key;    // member holding the messages; empty for a top-level array
  std::string wrapper_key;  // each element holds its message under this key ("message")
  std::size_t size = 0;     // messages decoded from it, `system` included
  bool system_slot = false; // Anthropic request: slot 0 is the top-level `system`
  // The index in the message array of each slot, when an element gives several
  // messages (a Gemini CLI message with its tool results); empty when slot = index.
  std::vector<std::size_t> element_of_slot;
};

// The index in its container's message array of the element `slot` came from.
inline std::size_t element_index(const Container& container, std::size_t slot) {
  return slot < container.element_of_slot.size() ? container.element_of_slot[slot] : slot;
}

// What an encoder could not write in its format. Counts are reported once, at the
// end; with `strict`, the first loss is an error.
class LossReport {
 public:
  explicit LossReport(bool strict = false) : m_strict(strict) {}

  // `target` cannot hold `what` (a plural noun phrase: "thinking blocks"), found in
  // the message at `where`. Throws convo::Error under --strict. Returns the entry
  // that counts it, which a caller counting the same again may pass as `entry`: it
  // is looked at first (and only used when it is that entry).
  std::size_t drop(Format target, std::string_view what, const Location& where,
                   std::size_t entry = SIZE_MAX);

  bool empty() const { return m_entries.empty(); }
  bool strict() const { return m_strict; }
  // Adds `other`'s counts, as if its drops had been reported here after ours: the
  // pipeline gives each input a report of its own (inputs may run in parallel) and
  // merges them in input order.
  void merge(const LossReport& other);
  // "openai cannot hold thinking blocks (3), progress records (12); anthropic ..."
  std::string summary() const;

 private:
  struct Entry {
    Format target;
    std::string what;
    std::uint64_t count;
  };
  bool m_strict;
  std::vector<Entry> m_entries;
};

// Turns records of one format into messages.
class Decoder {
 public:
  virtual ~Decoder() = default;
  // Decodes `record` (valid JSON) into zero or more messages appended to `out`.
  // Throws DecodeError when the record does not fit the format.
  virtual void decode(Record&& record, std::vector<Message>& out) = 0;
};

// A message of `format` decoded from `record`, whose JSON object is `json`:
// provenance filled in, content and fields still to be decoded.
Message begin_message(Format format, const Record& record, const JsonValue* json);

// The same, added to `out` and decoded there (a Message is 200 bytes: moved in, and
// the moved-from one destroyed, for each of millions of small records), for as long
// as this lives: dropped from `out` again unless `keep` is called (the decoder
// threw). The record's place and parsed JSON are moved into the message, not
// copied (each copy of a shared_ptr is an atomic add, and its end another: 4 a
// record), and given back to `record` when the message is dropped, for the error.
class MessageInPlace {
 public:
  MessageInPlace(std::vector<Message>& out, Format format, Record& record, const JsonValue* json);
  ~MessageInPlace() {
    if (!m_kept) {
      Message& message = m_out.back();
      m_record.where = std::move(message.where);
      m_record.source = std::const_pointer_cast<Source>(std::move(message.source));
      m_out.pop_back();
    }
  }
  MessageInPlace(const MessageInPlace&) = delete;
  MessageInPlace& operator=(const MessageInPlace&) = delete;

  Message& get() { return m_out.back(); }
  void keep() { m_kept = true; }

 private:
  std::vector<Message>& m_out;
  Record& m_record;
  bool m_kept = false;
};

// Takes over `record` as a container of `format`. The caller decodes its messages
// with `begin_contained`, then sets `size`.
std::shared_ptr<Container> make_container(Format format, Record&& record, std::string array_key,
                                          std::string wrapper_key = "", bool system_slot = false);

// A message at `slot` of `container`, whose JSON object is `json`.
Message begin_contained(const std::shared_ptr<Container>& container, const Location& where,
                        std::size_t slot, const JsonValue* json);

// A record's messages that are not conversation turns cannot go into a format that
// has only turns: "progress records", "summary records"; a record of no type by the
// subtype its reader gave it ("subagent meta records"), else "unknown records".
std::string record_noun(const Message& message);

// The shape the ai-sdk writer gives messages (`convert --ai-sdk-shape`).
enum class AiSdkShape : std::uint8_t {
  as_read,  // a message read as a UIMessage stays one, every other is a ModelMessage
  ui,       // UIMessages, from messages of any format
  model,    // ModelMessages, also for messages read as UIMessages
};

// Choices a writer takes beside its format; each says which format it is for, and
// the others' writers ignore it.
struct EncodeOptions {
  AiSdkShape ai_sdk_shape = AiSdkShape::as_read;
  // Every format: --on-error keep, under which a record that cannot be re-encoded
  // (EncodeError) is written as it was read, so its bytes are held until it is
  // written. Without it a long record going to another format lets them go first
  // (`EncoderBase::write`): its line, its strings and its encoding are then not all
  // held at once.
  bool keeps_bad_records = true;
};

// Turns messages into JSON values of one format. `EncoderBase` below does the parts
// every format shares; a format implements `encode`.
class Encoder {
 public:
  virtual ~Encoder() = default;
  // Takes the options of the run, before the first `write`. The default ignores them.
  virtual void configure(const EncodeOptions& options) { (void)options; }
  // Writes `message`: its original bytes when it is unchanged and of this format,
  // otherwise its encoding.
  virtual void write(Message&& message, Output& out) = 0;
  // Writes anything held back (an open container). Called at the end of each input.
  virtual void finish(Output& out) = 0;
};

class EncoderBase : public Encoder {
 public:
  EncoderBase(Format format, LossReport& loss) : m_format(format), m_loss(loss) {}

  // Formats with options of their own call this from their override.
  void configure(const EncodeOptions& options) override {
    m_keeps_bad_records = options.keeps_bad_records;
  }
  void write(Message&& message, Output& out) final;
  void finish(Output& out) final;

 protected:
  // True when `message`, unchanged and of this format, is still written anew rather
  // than as its own bytes or JSON: the options ask for another shape than the one it
  // was read in (ai-sdk's UIMessage or ModelMessage). `write` then treats it as
  // modified.
  virtual bool reshapes(const Message& message) const {
    (void)message;
    return false;
  }
  // Appends to `values` the compact JSON of each record `message` becomes in this
  // format: usually one, none when the format cannot hold it (after reporting the
  // loss), several when the format splits it (OpenAI tool results).
  virtual void encode(const Message& message, Records& values) = 0;

  // Reports what `message`, from another format, carries that this one has no
  // place for beyond its content: cost, and members convo does not model. In a body
  // translated whole (`in_body`), the body's members are the body writer's to count.
  void drop_unheld(const Message& message, bool in_body = false);

  // The item type ("reasoning", "web_search_call") when `message`, from the Responses
  // family and written outside it, is one item kept whole as an opaque block (encrypted
  // reasoning, a built-in tool's call or output), which no other format holds; else "".
  std::string_view opaque_item_type(const Message& message) const;

  // Reports each member of a response body's choices but `message` ("finish_reason
  // of response bodies"), once per body.
  void counted_choice_members(const JsonValue& choices, std::string_view kind,
                              const Message& message);

  // Reports a Gemini CLI session's member `key` (with `value`) that this format has
  // no place for.
  void drop_session_member(std::string_view key, const JsonValue& value, const Message& message);

  // Reports that this format cannot hold `what` from `message`; returns the report's
  // entry for it (LossReport::drop).
  std::size_t drop(std::string_view what, const Message& message) {
    m_thinking_dropped |= what == "thinking blocks";
    return m_loss.drop(m_format, what, message.where);
  }
  Format format() const { return m_format; }
  // True when `message` was decoded from this format and its JSON can be patched.
  bool same_format(const Message& message) const {
    return message.origin == m_format && message.json != nullptr;
  }

  // Writes a container of this format whose messages did not all come back
  // unchanged and in place (`held`, in order). The default rebuilds the document
  // around its message array (`Container::array_key`); formats whose containers are
  // shaped otherwise (one OpenCode message split into several turns) override it.
  virtual void write_changed_container(const Container& container, std::vector<Message>& held,
                                       Output& out);

  // Appends to `values` what the format holds back between messages (an OpenCode
  // assistant message waiting for its tool results). Called before a record that
  // does not go through `encode` is written, and at the end of each input.
  virtual void drain(Records& values) { (void)values; }

  // The messages `encode` would write for `message`, or its original JSON when it
  // is unchanged and of this format: what a rebuilt container holds in its place.
  void values_of(const Message& message, Records& values);

 private:
  void close_container(Output& out);
  void write_drained(Output& out);
  // A run of assistant items of the Responses family (reasoning, a message, tool
  // calls) is one reply, and a run of call outputs one turn of results: written
  // outside the family as one turn, held in `m_reply` until something else comes
  // (encoder_base.cc). Likewise a Claude Code response split over records (sharing
  // message.id), and the user records of its parallel tool results; and a run of
  // Chat-style tool messages, one user message of results in Anthropic's.
  bool starts_reply(const Message& message) const;
  bool starts_tool_results(const Message& message) const;
  bool splits_record(const Message& message) const;
  bool record_cut_kept(const Message& message) const;
  void note_calls(const Message& message);
  std::size_t results_moved(const Message& message) const;
  // Whether `what`, named by the format `message` came from as a member it does not
  // model, is lost in this one (drop_unheld).
  bool counts_unheld(std::string_view what, const Message& message, bool in_body) const;
  bool joins_reply(const Message& message) const;
  bool reply_has_tool_uses() const;
  void join_reply(Message&& message);
  void write_reply(Output& out);
  void encode_and_write(const Message& message, Output& out,
                        std::span<const JoinedRecord> joined = {});
  void release_bytes(Message& message) const;
  void take_merged(Message& message);
  void note_items_turn(const Message& message);
  // True when `message` belongs to a body of another API that this format writes
  // as a body of its own API (FormatInfo::body on both sides).
  bool translates_body(const Message& message) const;
  // Writes the body `root` of format `from` (a response when `response`), whose
  // messages are `held`, as a body of this format's API (encoder_base.cc).
  void write_translated_body(const JsonValue& root, Format from, bool response,
                             std::vector<Message>& held, Output& out);

  Format m_format;
  LossReport& m_loss;
  std::shared_ptr<const Container> m_container;  // the open container of this format
  std::vector<Message> m_held;                    // its messages seen so far
  const Container* m_counted_container = nullptr; // whose settings drop_unheld counted
  const JsonValue* m_counted_json = nullptr;       // whose unmodelled members it counted
  // The unmodelled names counted for a message of each key (FormatInfo::unmodelled_key)
  // and what else they depended on, with the report's entries that counted them: an
  // item of a rollout is one of a few kinds, each counted for as many items as it has.
  struct UnheldNames {
    std::uint64_t key = 0;
    Format origin{};
    Role role{};
    bool in_body = false;
    bool uuid_id = false;  // counts_unheld looks at the id for "message ids"
    std::vector<std::pair<std::string, std::size_t>> names;  // each with its entry
  };
  std::vector<UnheldNames> m_unheld_names;         // a few: see drop_unheld
  std::optional<Message> m_reply;                  // Responses items joined so far
  // The line of each record joined to `m_reply` after its first (of the reply's
  // file), and its bytes: a reply that cannot be written is reported at its bad
  // record and kept whole. Cleared, not freed, when the reply is written.
  std::vector<JoinedRecord> m_reply_records;
  bool m_reply_cut_kept = true;                    // its records' cut comes back
  // How many of its blocks reply_has_tool_uses has looked at, and whether one of
  // them was a tool call.
  mutable std::size_t m_reply_blocks_seen = 0;
  mutable bool m_reply_has_calls = false;
  int m_reply_thinking_records = 0;                // its records of thinking alone
  bool m_thinking_dropped = false;                 // drop() counted thinking blocks
  bool m_keeps_bad_records = true;                 // EncodeOptions::keeps_bad_records
  std::vector<std::string> m_call_ids;             // the last reply's tool calls
  // The input of the last turn written as Responses items when it was an assistant's
  // (note_items_turn), and whether it ended in text.
  std::optional<std::shared_ptr<const std::string>> m_items_reply_file;
  bool m_items_reply_ends_in_text = false;
};

// True when `message` is an API response body (the model's reply: an Anthropic
// `{"type":"message",...,"stop_reason"}`, an OpenAI `{"choices":[...]}`), not a
// message of a request: a response may end in tool calls that nothing answers yet.
bool is_response(const Message& message);

// The one rule for "written as its own bytes". A writer of `target` (of the
// message's own format when nullopt) writes `message` as the bytes it was read from,
// rather than encoding it, when this holds and no stage has changed it
// (`Message::modified`). Messages of a container (a request body) are written with
// their container instead; a record of no known format always passes as it is.
bool keeps_own_bytes(const Message& message, std::optional<Format> target = std::nullopt);

// The block-level rule: whether a writer of `target` may copy `block` of `message`
// as the JSON it was read from (its members convo does not model included), rather
// than build it from its fields.
bool keeps_own_json(const Message& message, const Block& block, Format target);

// Which API's rules `check` applies to a format's messages.
enum class ApiRules : std::uint8_t {
  anthropic,    // the Messages API's (content blocks, tool results in user turns)
  openai_chat,  // OpenAI Chat Completions' (tool results as messages of their own)
};

// Everything convo knows about one format: one row per format in the registry
// (lib/formats/format.cc), the only place that lists formats. Stages ask these
// traits rather than compare `Format` values; a field added here has a default, so
// that a new format states only where it differs.
struct FormatInfo {
  Format format;
  std::string_view name;         // as on the command line: "claude-code"
  std::string_view description;  // one line for --help
  // When two formats' sniff scores for a file tie, the lower rank wins: a file of
  // plain {"role","content"} lines is read as OpenAI chat, the most common such
  // file. Ranks are distinct (a test checks).
  int detect_rank;
  // How much `record` looks like this format: negative = it cannot be, 0 = no
  // evidence either way, positive = evidence for.
  int (*sniff)(const JsonValue& record);
  std::unique_ptr<Decoder> (*make_decoder)();
  std::unique_ptr<Encoder> (*make_encoder)(LossReport& loss);

  // --- Traits stages ask about ---
  // Its files hold records that are not messages and that convo keeps as they are
  // (Claude Code's record types, OpenCode's session and part files), so a record of
  // no known kind is not an error.
  bool other_records = false;
  // Where its messages have a place for a message's cost and its timestamp.
  bool holds_cost = false;
  bool holds_timestamps = false;
  // Its messages have a place for the session they belong to (Claude Code's and
  // Gemini CLI's sessionId, OpenCode's sessionID); elsewhere a session id is counted.
  bool holds_session_ids = false;
  // Its messages have a place for any message's id that gives it back (LangChain's,
  // AgentScope's, OpenCode's, Synaptic's and Gemini CLI's `id`, a UIMessage's); between
  // two such formats a message id is not counted as lost.
  bool holds_message_ids = false;
  // Its file and document parts have a place for a file's name (OpenAI's and the
  // AI SDK's `filename`, Anthropic's document `title`); elsewhere a name read from
  // another format is counted as lost.
  bool holds_file_names = false;
  // Its encoder writes Anthropic cache_control markers where it has a place for them
  // (Anthropic blocks, OpenRouter's parts, the AI SDK's providerOptions) and counts
  // the others itself; for the other formats EncoderBase counts every marker.
  bool writes_cache_control = false;
  // Its tool calls hold their arguments as JSON text (OpenAI's `arguments` string), so
  // the text read from another such format comes back as it was; elsewhere arguments
  // are a JSON object, and a text spelled otherwise than compactly (`{"a": 1}`) is
  // counted as "tool call argument text".
  bool holds_argument_text = false;
  // Its messages keep tool calls in a member of their own beside string content
  // (OpenAI's, LangChain's and Synaptic's `tool_calls`), so that a message with calls
  // may still have text content; a call read without JSON of its own came from it.
  bool calls_apart = false;
  // Which API's rules `check` applies (and which API `trim` counts tokens for).
  ApiRules api_rules = ApiRules::anthropic;
  // Its content blocks sit at `content/N` of the message object, N being the block's
  // index, so that a report can point at a block's line in a pretty-printed file.
  bool blocks_at_content_index = false;
  // The member of each record that holds the message ("message" in a Claude Code
  // record), or empty when the record is the message.
  std::string_view message_member = {};
  // Its logs are sessions that go on: the next prompt is sent after the last message,
  // so the rules for a final assistant message do not apply to them.
  bool continued_sessions = false;
  // Assistant messages that share an id are alternatives (OpenAI's choices), not the
  // parts of one response split over several records (Claude Code's).
  bool ids_name_alternatives = false;
  // Its files split a reply over records of one content block each (Claude Code's),
  // so the items of a Responses reply stay records of their own, not one turn.
  bool splits_replies = false;
  // Each of its records decodes to one message by itself, whatever records came
  // before (no container, no state), so a stage may hold a message as its record's
  // bytes and decode it again when it needs it (conversation.h, `decode_again`).
  bool records_decode_alone = false;
  // Its tool results are held in the calls they answer (a Gemini CLI tool call's
  // `result`, an OpenCode tool part's state), so they come back in the calls' order.
  bool results_with_calls = false;
  // Its response messages carry the Anthropic response members (id, model,
  // stop_reason, usage), so a message from an Anthropic response loses none of them.
  bool holds_response_members = false;
  // Calls `unheld` with what a message of this format carries that convo does not
  // model ("metadata"), for the loss report of a conversion to another format; null
  // when there is nothing such.
  void (*unmodelled)(const Message& message, const std::function<void(std::string_view)>& unheld) =
      nullptr;
  // A key for the names `unmodelled` gives `message`: two messages with the same key
  // get the same names in the same order, so a writer counts them again without
  // reading the message (EncoderBase::drop_unheld). nullopt for a message whose names
  // depend on more; null when the format has no such key.
  std::optional<std::uint64_t> (*unmodelled_key)(const Message& message) = nullptr;
  // A reader of its recorded streaming responses (lib/formats/stream.h); null when
  // it has no stream dialect.
  std::unique_ptr<StreamReader> (*make_stream_reader)() = nullptr;
  // A writer of its streams (lib/formats/stream.h, `convo stream --to`); null when
  // convo does not write them.
  std::unique_ptr<StreamWriter> (*make_stream_writer)(const StreamWriterOptions& options) = nullptr;
  // Its recorded usage counts cached input inside `Usage::input` (OpenAI's
  // `prompt_tokens`, LangChain's `input_tokens`), not beside it as Anthropic's
  // `input_tokens` does: `convo usage` subtracts `cache_read` before pricing.
  bool usage_input_includes_cache = false;
  // Its thinking carries a signature the API needs back (Anthropic's), so `check`
  // by format reports thinking without one; false where thoughts have none to give.
  bool thinking_signed = true;
  // Its messages feed the Messages API, so `check` by format applies that API's rules
  // for content (media by role, empty and whitespace text, tool results first, error
  // results of text, the final message's whitespace); false where the API they go
  // to takes more (Gemini's any part in either turn and empty text parts, the AI
  // SDK's files in assistant messages). --for anthropic still applies them.
  bool anthropic_content_rules = true;
  // Its request and response bodies (lib/formats/api_body.h), for a model API: a
  // body of one API converts to a body of another whole, settings and all; null
  // for formats that are not an API (their bodies become messages).
  const BodyCodec* body = nullptr;
};

// True when messages of `format` keep tool calls apart (FormatInfo::calls_apart).
bool keeps_calls_apart(Format format);

// True when messages of `format` are checked by OpenAI Chat Completions' rules.
bool follows_openai_api(Format format);

// Every format, in the order --help lists them.
std::span<const FormatInfo> all_formats();
const FormatInfo& format_info(Format format);
// The row stages ask traits of: `format_info`, or for Format::none (records of no
// known format) a row with every trait at its default and no decoder or encoder.
const FormatInfo& format_traits(Format format);
std::string_view format_name(Format format);
// The format called `name`, or nullopt.
std::optional<Format> parse_format(std::string_view name);
// "claude-code, anthropic, openai"
std::string format_names();

// Picks the format of a file from its first records: the format whose sniff scores
// add up highest. Format::none when nothing speaks for any format; nullopt when
// every format is contradicted more than supported.
std::optional<Format> detect_format(std::span<const JsonValue* const> records);

// What detection decided about a file, from its first records.
struct Detection {
  // The format that claims the file; nullopt when none does (the file is refused).
  std::optional<Format> format;
  // When refused: the record that shows why (an index into the records given), and
  // why: "not a transcript convo reads: looks like Gemini contents (role/parts); convo
  // reads claude-code, ...; --from forces a format".
  std::size_t record = 0;
  std::string why;
};

// Decides a file's format from evidence. A record that looks like a format convo
// does not read (lib/formats/foreign.h) speaks against every format; a file whose
// records it outnumbers, or that no format claims, is refused.
Detection detect_input_format(std::span<const JsonValue* const> records);

// The message refusing a record that is not one convo reads: `what` says what it
// looks like ("looks like Gemini contents (role/parts)").
std::string not_a_transcript(std::string_view what);

// The message refusing a record that a file of `format` holds but that is no record
// of that format, or nullopt when `format` keeps such records as they are (Claude
// Code logs hold record types convo does not know). `forced`: the user named the
// format with --from, so only what the format cannot hold is refused.
std::optional<std::string> refuse_unknown_record(Format format, const JsonValue& record,
                                                 bool forced);

// Calls `unheld` with an Anthropic message's members beyond its turn, by kind: a
// response's id ("message ids"), model ("model names"), stop_reason and stop_sequence
// ("stop reasons"), usage, and any other by its key ("KEY of response messages").
void response_message_members(const JsonValue& object,
                              const std::function<void(std::string_view)>& unheld);

}  // namespace convo
