// Request and response bodies of the four model APIs (Anthropic Messages, OpenAI
// Chat Completions, OpenAI Responses, Gemini generateContent), translated whole:
// `convert --to API` on a body of another API writes a body of that API, its
// settings mapped (system prompt, tools and their JSON Schemas, tool_choice, token
// limit, sampling, stop sequences, thinking, stream, metadata) and, for responses,
// its id, model, stop reason and usage. Each API's codec lives in that format's
// files (anthropic_body.cc, ...) and is named by its registry row
// (`FormatInfo::body`); the messages themselves are encoded by the target format's
// encoder, so a body and a message-per-line file of one API hold the same messages.
// What the target has no place for is reported by name (LossReport).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/stream.h"
#include "json.h"
#include "message.h"

namespace convo {

// One tool a request offers the model.
struct ToolSpec {
  // "function" for a tool the client runs (Anthropic's custom tools); otherwise the
  // API's own type for a tool it runs itself ("web_search_20250305", "googleSearch").
  std::string kind = "function";
  std::string name;
  std::string description;
  bool has_description = false;       // it has one, if empty
  const JsonValue* schema = nullptr;  // its parameters' schema; null when it has none
  bool gemini_schema = false;         // `schema` is a Gemini Schema (upper-case types, nullable)
  std::optional<bool> strict;
  // Loaded only when a tool search finds it (Anthropic's and Responses' tool search).
  std::optional<bool> defer_loading;
  std::string cache_control;          // Anthropic's marker (JSON text), or empty
  const JsonValue* json = nullptr;    // the tool as its API wrote it
};

// Which tool the model must call.
enum class ToolChoice : std::uint8_t {
  unset,  // not said: the API's default
  auto_,  // may call a tool (OpenAI "auto", Gemini AUTO)
  any,    // must call some tool (OpenAI "required", Gemini ANY)
  none,   // must not (Gemini NONE)
  tool,   // must call the tool named (Gemini ANY with one allowed name)
};

// Extended thinking / reasoning. The mapping between a budget of tokens (Anthropic,
// Gemini) and an effort (OpenAI) is LiteLLM's: low 1024, medium 2048, high 4096
// tokens; a budget reads as the least effort whose tokens reach it.
struct ThinkingSetting {
  enum class State : std::uint8_t { unset, off, on, dynamic };
  State state = State::unset;
  std::optional<std::int64_t> budget;  // tokens
  std::string effort;                  // "minimal", "low", "medium", "high", ...
  // Gemini's includeThoughts, when the body said it: whether the reply gives thought
  // summaries. Chat and the Messages API have no such switch (thinking that is on
  // comes back), and `include_thoughts_snake` says it was spelled as Vertex AI does.
  std::optional<bool> include_thoughts;
  bool include_thoughts_snake = false;
};

// What a body says besides its messages, in no API's shape.
struct ApiBody {
  bool response = false;
  std::string model;
  // --- Request settings ---
  std::optional<std::int64_t> max_tokens;
  const JsonValue* temperature = nullptr;  // numbers as written
  const JsonValue* top_p = nullptr;
  const JsonValue* top_k = nullptr;
  std::vector<std::string> stop;
  std::optional<bool> stream;
  std::vector<ToolSpec> tools;
  ToolChoice tool_choice = ToolChoice::unset;
  std::vector<std::string> tool_choice_names;  // ToolChoice::tool (Gemini: several)
  std::optional<bool> parallel_tool_calls;
  ThinkingSetting thinking;
  // What the reply may be made of, lower-case: Gemini's responseModalities ("TEXT",
  // "IMAGE", "AUDIO"), OpenAI Chat's `modalities` ("text", "audio").
  std::vector<std::string> modalities;
  // Who the end user is: Anthropic's metadata.user_id (Claude Code's carries the
  // session: "user_<hash>_account_<id>_session_<uuid>"), OpenAI's `user`.
  std::string user;
  // --- Response members ---
  std::string id;
  std::int64_t created = 0;  // seconds; 0 when not known
  StopReason stop_reason = StopReason::none;
  std::string stop_sequence;
  bool indexed = false;  // its choices or candidates carry an `index`
  // Token counts, `input` without the cached prompt tokens (Anthropic's sense).
  Usage usage;
  // What of the source body this model has no place for, as loss names
  // ("top_logprobs of request bodies"): every target loses them.
  std::vector<std::string> unmapped;

  // Notes member `key` of the body as unmapped ("KEY of request bodies").
  void unmapped_member(std::string_view key);
};

// One message of a request, or one choice of a response, encoded by the target
// format's encoder (usually one value; several when the format splits a message).
struct BodyTurn {
  const Message* message = nullptr;
  std::vector<std::string> values;
  StopReason stop = StopReason::none;  // a response choice's own stop reason
};

using BodyDrop = std::function<void(std::string_view what)>;

// An API's bodies: how to read their settings and write them.
struct BodyCodec {
  // Reads the members of `root`, a body of this API, other than its messages, into
  // `body` (whose `response` is set).
  void (*read)(const JsonValue& root, ApiBody& body);
  // A request or response body of this API: `body`'s settings and `turns` (messages
  // of a request, choices of a response) in its shape. Reports to `drop` what it has
  // no place for. `write_body` picks the one `body.response` asks for.
  using Writer = void (*)(const ApiBody& body, const std::vector<BodyTurn>& turns,
                          const BodyDrop& drop, JsonWriter& w);
  Writer write_request;
  Writer write_response;
};

// `body` and `turns` as a body of `codec`'s API (a response body when `body.response`).
std::string write_body(const BodyCodec& codec, const ApiBody& body,
                       const std::vector<BodyTurn>& turns, const BodyDrop& drop);

// Writes `tool_choice` and `parallel_tool_calls` as OpenAI's APIs take them: a named
// function as Chat's {"type":"function","function":{"name":...}} (`chat`) or the
// Responses API's {"type":"function","name":...}; several names are "required",
// their list counted.
void write_openai_tool_choice(const ApiBody& body, const BodyDrop& drop, bool chat,
                              JsonWriter& w);

// Reads an OpenAI-style usage object (Chat's prompt_tokens/completion_tokens or the
// Responses API's input_tokens/output_tokens, named by `input_key`/`output_key`, each
// with its `*_details`), whose input counts the cached tokens (and in Chat the cache
// writes, OpenRouter's cache_write_tokens), into Anthropic's sense.
// Members it has no place for are `unmapped` as "NAME of usage".
void read_openai_usage(const JsonValue& usage, std::string_view input_key,
                       std::string_view output_key, ApiBody& body);

extern const BodyCodec k_anthropic_body;
extern const BodyCodec k_openai_body;
extern const BodyCodec k_openai_responses_body;
extern const BodyCodec k_gemini_body;

// --- Helpers the codecs share (api_body.cc) ---

// The effort a budget of `tokens` reads as, and the budget an effort asks for.
std::string effort_of_budget(std::int64_t tokens);
std::int64_t budget_of_effort(std::string_view effort);

// `text` with its ASCII letters lower-cased, upper-cased (Gemini's enum spellings).
std::string ascii_lower(std::string_view text);
std::string ascii_upper(std::string_view text);

// Writes a JSON Schema from `schema`: a Gemini Schema's upper-case types lower-cased
// and `nullable` turned into a "null" type when `from_gemini`; else as it is.
void write_json_schema(JsonWriter& w, const JsonValue& schema, bool from_gemini);

// The first text of an encoded message value's `key` member ("content"), as JSON
// text; empty when it has none.
std::string member_json(std::string_view value, std::string_view key);

// `key` of `object`, or its snake_case spelling `snake` (Vertex AI's, the Python
// SDK's); null when neither is there.
const JsonValue* either_member(const JsonValue& object, std::string_view key,
                               std::string_view snake);

// True when `value` says nothing: null, "", [] or {}.
bool says_nothing(const JsonValue& value);

// Reads `description` of `tool` into `out`; false when it has none.
bool read_description(const JsonValue& tool, std::string& out);

// Counts what of Gemini's includeThoughts an API without the switch loses: its
// `false` (thinking that is on comes back as shown), its Vertex spelling, and the
// whole thinkingConfig when it said nothing else.
void drop_include_thoughts(const ThinkingSetting& thinking, const BodyDrop& drop);

// Writes `key` and `strings` as an array of strings (a request's stop sequences).
void write_string_list(JsonWriter& w, std::string_view key, const std::vector<std::string>& strings);


}  // namespace convo
