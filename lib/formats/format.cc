#include "formats/format.h"

#include <fmt/format.h>

#include <rapidjson/reader.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "formats/agentscope.h"
#include "formats/ai_sdk.h"
#include "formats/ai_sdk_stream.h"
#include "formats/api_body.h"
#include "formats/anthropic.h"
#include "formats/anthropic_blocks.h"
#include "formats/anthropic_stream.h"
#include "formats/claude_code.h"
#include "formats/codex.h"
#include "formats/foreign.h"
#include "formats/gemini.h"
#include "formats/gemini_cli.h"
#include "formats/gemini_stream.h"
#include "formats/langchain.h"
#include "formats/langchain_stream.h"
#include "formats/synaptic.h"
#include "formats/openai.h"
#include "formats/openai_responses.h"
#include "formats/openai_responses_stream.h"
#include "formats/openai_stream.h"
#include "formats/opencode.h"
#include "formats/responses_items.h"
#include "io/output.h"
#include "utf8.h"

namespace convo {

// --- Paths ---

std::string readable_path(std::string_view pointer) {
  std::string out;
  std::size_t pos = 0;
  while (pos < pointer.size()) {
    // Each step is "/name"; names of digits only are array indexes.
    std::size_t next = pointer.find('/', pos + 1);
    std::string_view step = pointer.substr(pos + 1, next == std::string_view::npos
                                                         ? std::string_view::npos
                                                         : next - pos - 1);
    bool index = !step.empty() && std::all_of(step.begin(), step.end(),
                                              [](char c) { return c >= '0' && c <= '9'; });
    if (index) {
      out += fmt::format("[{}]", step);
    } else {
      if (!out.empty()) {
        out += '.';
      }
      out += step;
    }
    if (next == std::string_view::npos) {
      break;
    }
    pos = next;
  }
  return out;
}

namespace {

// Follows SAX events, keeping the JSON pointer of the current position, and stops
// when it reaches `target`.
class PointerFinder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, PointerFinder> {
 public:
  PointerFinder(std::string_view target, const rapidjson::StringStream& stream)
      : m_target(target), m_stream(stream) {}

  bool Default() { return value_done(false); }
  bool String(const char*, rapidjson::SizeType, bool) { return value_done(false); }
  bool StartObject() {
    if (!value_start(true)) {
      return false;
    }
    m_frames.push_back({true, 0, m_path.size()});
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    Frame& frame = m_frames.back();
    m_path.resize(frame.base);
    m_path += '/';
    m_path.append(s, n);
    if (m_path == m_target) {
      // RapidJSON parses strings on a copy of the stream and moves the original on
      // afterwards, so here the stream still stands on the key's opening quote.
      m_found = m_stream.Tell();
      return false;
    }
    return true;
  }
  bool EndObject(rapidjson::SizeType) { return end_container(); }
  bool StartArray() {
    if (!value_start(true)) {
      return false;
    }
    m_frames.push_back({false, 0, m_path.size()});
    enter_element();
    return true;
  }
  bool EndArray(rapidjson::SizeType) { return end_container(); }

  std::optional<std::size_t> found() const { return m_found; }

 private:
  struct Frame {
    bool object;
    std::size_t index;
    std::size_t base;  // m_path length of the container itself
  };

  void enter_element() {
    Frame& frame = m_frames.back();
    m_path.resize(frame.base);
    m_path += fmt::format("/{}", frame.index);
  }
  bool value_start(bool container) {
    if (container && m_path == m_target) {
      m_found = m_stream.Tell() == 0 ? 0 : m_stream.Tell() - 1;
      return false;
    }
    return true;
  }
  bool value_done(bool) {
    if (m_path == m_target) {
      m_found = m_stream.Tell();
      return false;
    }
    advance();
    return true;
  }
  bool end_container() {
    m_path.resize(m_frames.back().base);
    m_frames.pop_back();
    advance();
    return true;
  }
  void advance() {
    if (!m_frames.empty() && !m_frames.back().object) {
      ++m_frames.back().index;
      enter_element();
    }
  }

  std::string_view m_target;
  const rapidjson::StringStream& m_stream;
  std::string m_path;
  std::vector<Frame> m_frames;
  std::optional<std::size_t> m_found;
};

}  // namespace

std::optional<std::size_t> locate_json_pointer(const std::string& raw, std::string_view pointer) {
  if (pointer.empty()) {
    return 0;
  }
  rapidjson::StringStream stream(raw.c_str());
  PointerFinder finder(pointer, stream);
  rapidjson::Reader reader;
  // Iterative: the finder runs on raw text that has already passed the depth check,
  // but it must not recurse on it either way.
  reader.Parse<rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseIterativeFlag>(stream, finder);
  return finder.found();
}

// --- Decoding helpers ---

Message begin_message(Format format, const Record& record, const JsonValue* json) {
  Message message;
  message.origin = format;
  message.where = record.where;
  message.source = record.source;
  message.json = json;
  return message;
}

MessageInPlace::MessageInPlace(std::vector<Message>& out, Format format, Record& record,
                               const JsonValue* json)
    : m_out(out), m_record(record) {
  Message& message = out.emplace_back();
  message.origin = format;
  message.where = std::move(record.where);
  message.source = std::move(record.source);
  message.json = json;
}

std::shared_ptr<Container> make_container(Format format, Record&& record, std::string array_key,
                                          std::string wrapper_key, bool system_slot) {
  auto container = std::make_shared<Container>();
  container->format = format;
  // A copy, not a move: a decoder may still throw DecodeError for an element, and
  // the pipeline then needs the record's bytes to point at it. Containers are few.
  container->raw = record.raw;
  container->source = record.source;
  container->array_key = std::move(array_key);
  container->wrapper_key = std::move(wrapper_key);
  container->system_slot = system_slot;
  return container;
}

Message begin_contained(const std::shared_ptr<Container>& container, const Location& where,
                        std::size_t slot, const JsonValue* json) {
  Message message;
  message.origin = container->format;
  message.where = where;
  message.source = container->source;
  message.json = json;
  message.container = container;
  message.slot = slot;
  return message;
}

bool follows_openai_api(Format format) {
  return format_traits(format).api_rules == ApiRules::openai_chat;
}

bool keeps_calls_apart(Format format) { return format_traits(format).calls_apart; }

bool keeps_own_bytes(const Message& message, std::optional<Format> target) {
  return !message.raw.empty() && !message.container &&
         (message.origin == Format::none || !target || *target == message.origin);
}

bool keeps_own_json(const Message& message, const Block& block, Format target) {
  return message.origin == target && block.json != nullptr;
}

bool is_response(const Message& message) {
  if (message.container) {
    return message.container->array_key == "choices" ||
           message.container->array_key == "candidates" ||
           (message.container->format == Format::openai_responses &&
            message.container->array_key == "output");
  }
  if (message.origin != Format::anthropic || message.json == nullptr ||
      !message.json->IsObject()) {
    return false;
  }
  auto type = string_member(*message.json, "type");
  return type && *type == "message" && find_member(*message.json, "stop_reason") != nullptr;
}

std::string record_noun(const Message& message) {
  std::string_view type = kind_name(message.kind);
  if (!message.record_type.empty()) {
    type = message.record_type;
  } else if (message.kind == Kind::unknown && !message.meta->subtype.empty()) {
    type = message.meta->subtype;  // "subagent meta records"
  }
  // Joined by hand: a Codex rollout drops a bookkeeping record at every other line.
  std::string noun;
  noun.reserve(type.size() + 8);
  noun.append(type).append(" records");
  return noun;
}

// --- Registry ---

// An Anthropic message's members beyond its turn, by kind: a response's id ("message
// ids"), model, stop_reason and stop_sequence, usage, and any other by its key
// ("container of response messages"). A Claude Code record's
// message is one; Claude Code itself holds them all.
void response_message_members(const JsonValue& object,
                              const std::function<void(std::string_view)>& unheld) {
  if (!object.IsObject()) {
    return;
  }
  for (const auto& member : object.GetObject()) {
    std::string_view key = view_of(member.name);
    if (key == "role" || key == "content" || key == "type" || member.value.IsNull()) {
      continue;  // the turn itself; "type": "message" says only that it is one
    }
    if (key == "id") {
      unheld("message ids");
    } else if (key == "model") {
      unheld("model names");
    } else if (key == "stop_reason" || key == "stop_sequence") {
      unheld("stop reasons");
    } else if (key == "usage") {
      unheld("usage");
    } else {
      unheld(fmt::format("{} of response messages", key));
    }
  }
}

namespace {

void anthropic_unmodelled(const Message& message,
                          const std::function<void(std::string_view)>& unheld) {
  if (message.json != nullptr && !message.container) {
    response_message_members(*message.json, unheld);
  }
  anthropic_block_members(message.content, unheld);
}

constexpr FormatInfo k_formats[] = {
    {.format = Format::claude_code,
     .name = "claude-code",
     .description =
         "Claude Code session logs (~/.claude/projects/*/*.jsonl), also {\"loglines\": [...]}",
     .detect_rank = 2,
     .sniff = sniff_claude_code,
     .make_decoder = make_claude_code_decoder,
     .make_encoder = make_claude_code_encoder,
     .other_records = true,
     .holds_timestamps = true,
     .holds_session_ids = true,
     .holds_file_names = true,
     .writes_cache_control = true,
     .blocks_at_content_index = true,
     .message_member = "message",
     .continued_sessions = true,
     .splits_replies = true,
     .records_decode_alone = true,
     .holds_response_members = true,
     .unmodelled = claude_code_unmodelled},
    {.format = Format::anthropic,
     .name = "anthropic",
     .description = "Anthropic Messages API messages, one per line; request bodies as input",
     .detect_rank = 1,
     .sniff = sniff_anthropic,
     .make_decoder = make_anthropic_decoder,
     .make_encoder = make_anthropic_encoder,
     .holds_file_names = true,
     .writes_cache_control = true,
     .blocks_at_content_index = true,
     .unmodelled = anthropic_unmodelled,
     .make_stream_reader = make_anthropic_stream_reader,
     .make_stream_writer = make_anthropic_stream_writer,
     .body = &k_anthropic_body},
    {.format = Format::openai,
     .name = "openai",
     .description =
         "OpenAI Chat Completions messages, one per line; request and response bodies as input",
     .detect_rank = 0,
     .sniff = sniff_openai,
     .make_decoder = make_openai_decoder,
     .make_encoder = make_openai_encoder,
     .holds_file_names = true,
     .writes_cache_control = true,
     .holds_argument_text = true,
     .calls_apart = true,
     .api_rules = ApiRules::openai_chat,
     .ids_name_alternatives = true,
     .unmodelled = openai_unmodelled,
     .make_stream_reader = make_openai_stream_reader,
     .make_stream_writer = make_openai_stream_writer,
     .usage_input_includes_cache = true,
     .body = &k_openai_body},
    {.format = Format::langchain,
     .name = "langchain",
     .description = "LangChain messages: messages_to_dict records, lc constructor form, plain dicts",
     .detect_rank = 3,
     .sniff = sniff_langchain,
     .make_decoder = make_langchain_decoder,
     .make_encoder = make_langchain_encoder,
     .holds_message_ids = true,
     .calls_apart = true,
     .make_stream_reader = make_langchain_stream_reader,
     .usage_input_includes_cache = true},
    {.format = Format::agentscope,
     .name = "agentscope",
     .description = "AgentScope Msg.to_dict() records, one per line (1.x and 2.x)",
     .detect_rank = 4,
     .sniff = sniff_agentscope,
     .make_decoder = make_agentscope_decoder,
     .make_encoder = make_agentscope_encoder,
     .holds_timestamps = true,
     .holds_message_ids = true,
     .unmodelled = agentscope_unmodelled},
    {.format = Format::opencode,
     .name = "opencode",
     .description =
         "OpenCode messages with their parts, one per line, and `opencode export` documents",
     .detect_rank = 5,
     .sniff = sniff_opencode,
     .make_decoder = make_opencode_decoder,
     .make_encoder = make_opencode_encoder,
     .other_records = true,
     .holds_cost = true,
     .holds_timestamps = true,
     .holds_session_ids = true,
     .holds_message_ids = true,
     .holds_file_names = true,
     .results_with_calls = true,
     .unmodelled = opencode_unmodelled},
    {.format = Format::synaptic,
     .name = "synaptic",
     .description =
         "Synaptic (Rust) messages, one per line: role-tagged, content_blocks, tool_calls",
     .detect_rank = 6,
     .sniff = sniff_synaptic,
     .make_decoder = make_synaptic_decoder,
     .make_encoder = make_synaptic_encoder,
     .holds_message_ids = true,
     .calls_apart = true},
    {.format = Format::openai_responses,
     .name = "openai-responses",
     .description =
         "OpenAI Responses API items, one per line; request and response bodies as input",
     .detect_rank = 7,
     .sniff = sniff_openai_responses,
     .make_decoder = make_openai_responses_decoder,
     .make_encoder = make_openai_responses_encoder,
     .holds_file_names = true,
     .writes_cache_control = true,
     .holds_argument_text = true,
     .api_rules = ApiRules::openai_chat,
     .unmodelled = openai_responses_unmodelled,
     .unmodelled_key = openai_responses_unmodelled_key,
     .make_stream_reader = make_openai_responses_stream_reader,
     .make_stream_writer = make_openai_responses_stream_writer,
     .usage_input_includes_cache = true,  // input_tokens counts cached_tokens
     .body = &k_openai_responses_body},
    {.format = Format::codex,
     .name = "codex",
     .description = "Codex CLI session rollouts (~/.codex/sessions/**/rollout-*.jsonl)",
     .detect_rank = 8,
     .sniff = sniff_codex,
     .make_decoder = make_codex_decoder,
     .make_encoder = make_codex_encoder,
     .other_records = true,
     .holds_timestamps = true,
     .holds_file_names = true,
     .writes_cache_control = true,
     .holds_argument_text = true,
     .api_rules = ApiRules::openai_chat,
     .unmodelled = codex_unmodelled,
     .unmodelled_key = codex_unmodelled_key,
     .usage_input_includes_cache = true},  // input_tokens counts cached_input_tokens
    {.format = Format::gemini,
     .name = "gemini",
     .description =
         "Google Gemini API contents, one per line; request and response bodies as input",
     .detect_rank = 9,
     .sniff = sniff_gemini,
     .make_decoder = make_gemini_decoder,
     .make_encoder = make_gemini_encoder,
     .writes_cache_control = true,
     .unmodelled = gemini_unmodelled,
     .make_stream_reader = make_gemini_stream_reader,
     .make_stream_writer = make_gemini_stream_writer,
     .usage_input_includes_cache = true,  // promptTokenCount counts cachedContentTokenCount
     .thinking_signed = false,
     .anthropic_content_rules = false,
     .body = &k_gemini_body},
    {.format = Format::gemini_cli,
     .name = "gemini-cli",
     .description =
         "Gemini CLI saved chats (~/.gemini/tmp/*/chats/session-*.json or .jsonl), one session per file",
     .detect_rank = 10,
     .sniff = sniff_gemini_cli,
     .make_decoder = make_gemini_cli_decoder,
     .make_encoder = make_gemini_cli_encoder,
     .other_records = true,
     .holds_timestamps = true,
     .holds_session_ids = true,
     .holds_message_ids = true,
     .results_with_calls = true,
     .unmodelled = gemini_cli_unmodelled,
     .thinking_signed = false,
     .anthropic_content_rules = false},
    {.format = Format::ai_sdk,
     .name = "ai-sdk",
     .description = "Vercel AI SDK ModelMessages and UIMessages, one per line",
     .detect_rank = 11,
     .sniff = sniff_ai_sdk,
     .make_decoder = make_ai_sdk_decoder,
     .make_encoder = make_ai_sdk_encoder,
     .holds_message_ids = true,  // a UIMessage's (ModelMessages' are counted by its encoder)
     .holds_file_names = true,
     .writes_cache_control = true,
     .unmodelled = ai_sdk_unmodelled,
     .make_stream_reader = make_ai_sdk_stream_reader,
     .thinking_signed = false,
     .anthropic_content_rules = false},
};

// The registry covers the enum: one row per format, in enum order (format_info
// indexes by it). A new enum value without its row fails to build here.
constexpr bool rows_in_enum_order() {
  std::size_t i = 0;
  for (const FormatInfo& info : k_formats) {
    if (static_cast<std::size_t>(info.format) != i + 1) {
      return false;
    }
    ++i;
  }
  return true;
}
static_assert(rows_in_enum_order(), "k_formats: one row per Format, in enum order");
static_assert(std::size(k_formats) == static_cast<std::size_t>(Format::end_) - 1,
              "k_formats: a Format has no row");

// The formats in detection order (lowest rank first): ties go to the earlier.
std::vector<const FormatInfo*> by_detect_rank() {
  std::vector<const FormatInfo*> order;
  for (const FormatInfo& info : k_formats) {
    order.push_back(&info);
  }
  std::sort(order.begin(), order.end(),
            [](const FormatInfo* a, const FormatInfo* b) { return a->detect_rank < b->detect_rank; });
  return order;
}

}  // namespace

std::span<const FormatInfo> all_formats() { return k_formats; }

const FormatInfo& format_info(Format format) {
  auto index = static_cast<std::size_t>(format);
  if (index == 0 || index > std::size(k_formats)) {
    throw std::logic_error("internal error: unknown format");
  }
  return k_formats[index - 1];
}

const FormatInfo& format_traits(Format format) {
  static const FormatInfo unknown{.format = Format::none,
                                  .name = "unknown",
                                  .description = "",
                                  .detect_rank = INT_MAX,
                                  .sniff = nullptr,
                                  .make_decoder = nullptr,
                                  .make_encoder = nullptr};
  return format == Format::none ? unknown : format_info(format);
}

std::string_view format_name(Format format) {
  if (format == Format::none) {
    return "unknown";
  }
  return format_info(format).name;
}

std::optional<Format> parse_format(std::string_view name) {
  for (const FormatInfo& info : k_formats) {
    if (info.name == name) {
      return info.format;
    }
  }
  return std::nullopt;
}

std::string format_names() {
  std::string out;
  for (const FormatInfo& info : k_formats) {
    if (!out.empty()) {
      out += ", ";
    }
    out += info.name;
  }
  return out;
}

std::optional<Format> detect_format(std::span<const JsonValue* const> records) {
  // Evidence adds up; a record that contradicts a format counts heavily against it
  // but does not rule it out, since logs hold the odd broken record.
  constexpr int k_contradiction = 10;
  std::optional<Format> best;
  int best_score = INT_MIN;
  static const std::vector<const FormatInfo*> order = by_detect_rank();
  for (const FormatInfo* candidate : order) {
    const FormatInfo& info = *candidate;
    Format format = info.format;
    int score = 0;
    for (const JsonValue* record : records) {
      int s = info.sniff(*record);
      score += s < 0 ? -k_contradiction : s;
    }
    if (score > best_score) {
      best = format;
      best_score = score;
    }
  }
  if (best_score < 0) {
    return std::nullopt;
  }
  if (best_score == 0) {
    return Format::none;
  }
  return best;
}

std::string not_a_transcript(std::string_view what) {
  return fmt::format("not a transcript convo reads: {}; convo reads {}; --from forces a format",
                     what, format_names());
}

Detection detect_input_format(std::span<const JsonValue* const> records) {
  Detection result;
  // Records of a format convo does not read are set aside: they must not count for
  // the format they resemble by accident (a Responses message has a role).
  std::vector<const JsonValue*> ours;
  std::optional<std::size_t> first_foreign;
  std::optional<std::string_view> foreign_what;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (auto what = looks_foreign(*records[i])) {
      if (!first_foreign) {
        first_foreign = i;
        foreign_what = what;
      }
    } else {
      ours.push_back(records[i]);
    }
  }
  std::size_t foreign = records.size() - ours.size();
  std::optional<Format> format = ours.empty() ? Format::none : detect_format(ours);
  if (format && *format != Format::none) {
    // A format claims the file when more of its first records speak for it than
    // look foreign.
    const FormatInfo& info = format_info(*format);
    std::size_t claimed = static_cast<std::size_t>(
        std::count_if(ours.begin(), ours.end(), [&](const JsonValue* r) { return info.sniff(*r) > 0; }));
    if (claimed > foreign) {
      result.format = format;
      return result;
    }
  }
  if (first_foreign) {
    result.record = *first_foreign;
    result.why = not_a_transcript(fmt::format("looks like {}", *foreign_what));
    return result;
  }
  if (!format) {
    result.why = fmt::format("cannot tell the transcript format; name it with --from ({})",
                             format_names());
    result.record = SIZE_MAX;  // the file, not a record
    return result;
  }
  result.why = not_a_transcript(describe_unclaimed(*records.front()));
  return result;
}

std::optional<std::string> refuse_unknown_record(Format format, const JsonValue& record,
                                                 bool forced) {
  if (!forced) {
    if (auto what = looks_foreign(record)) {
      return not_a_transcript(fmt::format("looks like {}", *what));
    }
  }
  if (format == Format::none || format_info(format).other_records || forced) {
    return std::nullopt;
  }
  return fmt::format("not a message of {}: {}; --from {} keeps it as it is",
                     format_name(format), describe_unclaimed(record), format_name(format));
}

}  // namespace convo
