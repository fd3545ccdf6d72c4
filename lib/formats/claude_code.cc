#include "formats/claude_code.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "formats/anthropic_blocks.h"
#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/mapping.h"
#include "formats/object_writer.h"
#include "formats/session_ids.h"

namespace convo {

namespace {

bool is_bookkeeping(std::string_view type) {
  return std::find(std::begin(k_claude_code_bookkeeping_types),
                   std::end(k_claude_code_bookkeeping_types),
                   type) != std::end(k_claude_code_bookkeeping_types);
}

bool is_claude_code_type(std::string_view type) {
  return type == "user" || type == "assistant" || type == "system" || type == "progress" ||
         type == "attachment" || type == "summary" || is_bookkeeping(type);
}

std::string string_or_empty(const JsonValue& object, std::string_view key, std::string_view path) {
  return std::string(optional_string(object, key, path).value_or(""));
}

void decode_envelope(const JsonValue& object, const std::string& path, Message& message) {
  RecordMeta& e = message.meta.edit();
  e.uuid = string_or_empty(object, "uuid", path);
  e.parent_uuid = string_or_empty(object, "parentUuid", path);
  e.logical_parent_uuid = string_or_empty(object, "logicalParentUuid", path);
  e.session_id = string_or_empty(object, "sessionId", path);
  e.request_id = string_or_empty(object, "requestId", path);
  // Read for `convo sessions` only: a value of another type is left to pass through.
  for (auto [key, field] : {std::pair{"cwd", &e.cwd}, std::pair{"gitBranch", &e.git_branch}}) {
    const JsonValue* value = find_member(object, key);
    if (value != nullptr && value->IsString()) {
      *field = std::string(value->GetString(), value->GetStringLength());
    }
  }
  e.is_sidechain = optional_bool(object, "isSidechain", path).value_or(false);
  e.is_meta = optional_bool(object, "isMeta", path).value_or(false);
  e.is_compact_summary = optional_bool(object, "isCompactSummary", path).value_or(false);
  e.is_virtual = optional_bool(object, "isVirtual", path).value_or(false);
  e.is_api_error = optional_bool(object, "isApiErrorMessage", path).value_or(false);
  message.timestamp = string_or_empty(object, "timestamp", path);
  message.id = e.uuid;
}

void decode_record(const JsonValue& object, const std::string& path, Message& message) {
  auto type = optional_string(object, "type", path);
  message.record_type = std::string(type.value_or(""));
  message.role = Role::none;
  message.content.form = Content::Form::absent;
  decode_envelope(object, path, message);
  std::string_view t = type.value_or("");
  if (t == "user" || t == "assistant") {
    message.kind = Kind::turn;
    message.role = t == "user" ? Role::user : Role::assistant;
    const JsonValue* inner = optional_object(object, "message", path);
    if (inner == nullptr) {
      throw DecodeError(path, fmt::format("{} record has no \"message\"", t));
    }
    std::string inner_path = member_path(path, "message");
    decode_anthropic_content(find_member(*inner, "content"), member_path(inner_path, "content"),
                             message.source, message.content);
    decode_anthropic_response_fields(*inner, inner_path, message);
    message.meta.edit().is_api_error |= message.meta->model == "<synthetic>";
  } else if (t == "system") {
    message.kind = Kind::event;
    message.meta.edit().subtype = string_or_empty(object, "subtype", path);
    message.meta.edit().tool_use_id = string_or_empty(object, "toolUseID", path);
    if (auto content = optional_string(object, "content", path)) {
      message.content.form = Content::Form::string;
      message.content.text.share(*content, message.source);
    }
  } else if (t == "progress") {
    message.kind = Kind::progress;
    if (const JsonValue* data = optional_object(object, "data", path)) {
      message.meta.edit().subtype = string_or_empty(*data, "type", member_path(path, "data"));
    }
    message.meta.edit().tool_use_id = string_or_empty(object, "parentToolUseID", path);
  } else if (t == "attachment") {
    message.kind = Kind::attachment;
    if (const JsonValue* attachment = optional_object(object, "attachment", path)) {
      message.meta.edit().subtype =
          string_or_empty(*attachment, "type", member_path(path, "attachment"));
    }
  } else if (t == "summary") {
    message.kind = Kind::summary;
    if (auto summary = optional_string(object, "summary", path)) {
      message.content.form = Content::Form::string;
      message.content.text = std::string(*summary);
    }
    message.meta.edit().leaf_uuid = string_or_empty(object, "leafUuid", path);
  } else if (is_bookkeeping(t)) {
    message.kind = Kind::bookkeeping;
  } else {
    message.kind = Kind::unknown;
    if (!type && find_member(object, "agentType") != nullptr &&
        find_member(object, "role") == nullptr) {
      // A subagent's agent-<id>.meta.json ({"agentType", "description"?,
      // "worktreePath"?}): kept as it is, and named by what it is when dropped.
      message.meta.edit().subtype = std::string(k_subagent_meta);
    }
  }
}

// The session a request body names: Claude Code sends `metadata.user_id` as
// "user_<hash>_account_<id>_session_<uuid>"; "" when the body has none.
std::string session_of_request(const Message& m) {
  if (!m.container || m.container->array_key != "messages") {
    return "";
  }
  const JsonValue& root = m.container->source->doc;
  const JsonValue* metadata = root.IsObject() ? find_member(root, "metadata") : nullptr;
  if (metadata == nullptr || !metadata->IsObject()) {
    return "";
  }
  auto user = string_member(*metadata, "user_id");
  constexpr std::string_view k_marker = "_session_";
  std::size_t at = user ? user->rfind(k_marker) : std::string_view::npos;
  return at == std::string_view::npos ? "" : std::string(user->substr(at + k_marker.size()));
}

class ClaudeCodeDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& root = record.source->doc;
    if (!root.IsObject()) {
      wrong_type("", "a JSON object", root);
    }
    const JsonValue* loglines = find_member(root, "loglines");
    if (loglines != nullptr && loglines->IsArray() && find_member(root, "type") == nullptr) {
      Location where = record.where;
      auto container = make_container(Format::claude_code, std::move(record), "loglines");
      const JsonValue& lines = *find_member(container->source->doc, "loglines");
      for (rapidjson::SizeType i = 0; i < lines.Size(); ++i) {
        std::string path = fmt::format("/loglines/{}", i);
        if (!lines[i].IsObject()) {
          wrong_type(path, "a record (an object)", lines[i]);
        }
        Message message = begin_contained(container, where, i, &lines[i]);
        decode_record(lines[i], path, message);
        out.push_back(std::move(message));
      }
      container->size = lines.Size();
      return;
    }
    Message message = begin_message(Format::claude_code, record, &root);
    decode_record(root, "", message);
    message.raw = std::move(record.raw);
    out.push_back(std::move(message));
  }
};

// Writes over the original response the fields a stage changed: merge-runs takes
// stop_reason and usage from the last piece of a response. Unchanged fields keep
// their original form.
void patch_response_fields(ObjectWriter& message, const JsonValue& original, const Message& m) {
  const std::string& stop_reason = m.meta->stop_reason;
  if (!stop_reason.empty() && string_member(original, "stop_reason") != stop_reason) {
    message.set_string("stop_reason", stop_reason);
  }
  const JsonValue* usage = find_member(original, "usage");
  const Usage& u = m.usage;
  std::pair<std::string_view, std::optional<std::int64_t>> counts[] = {
      {"input_tokens", u.input},
      {"output_tokens", u.output},
      {"cache_read_input_tokens", u.cache_read},
      {"cache_creation_input_tokens", u.cache_write},
  };
  bool changed = false;
  for (const auto& [key, value] : counts) {
    const JsonValue* was = usage != nullptr && usage->IsObject() ? find_member(*usage, key) : nullptr;
    changed |= value && (was == nullptr || !was->IsNumber() || was->GetDouble() != double(*value));
  }
  if (!changed) {
    return;
  }
  std::vector<std::pair<std::string_view, std::int64_t>> values;
  for (const auto& [key, value] : counts) {
    if (value) {
      values.emplace_back(key, *value);
    }
  }
  message.set("usage", [usage, values](JsonWriter& w) {
    ObjectWriter object(w, usage);
    for (const auto& [key, value] : values) {
      object.set_int(key, value);
    }
    object.write();
  });
}


// --- Writing a session for messages of another format -----------------------------
//
// Claude Code loads a session only when its records form a chain: each user and
// assistant record has a `uuid`, `parentUuid` naming the record before it, the
// session's `sessionId` (a UUID), a `timestamp`, and assistant records hold an API
// response. Records of another format have none of it; it is derived from the input
// so that the same input always gives the same session (man/convo-convert.1).

// The Claude Code version whose session format convo writes and was checked against
// (scripts/cc-recapture): the `version` of every record convo makes.
constexpr std::string_view k_written_version = "2.1.330";

// "msg_" and 24 hex digits made from the record's uuid: an API response id.
std::string derived_message_id(std::string_view uuid) {
  return derived_hex_id("msg_", {"message:", uuid});
}

// Member `key` of the Anthropic response a message of another format is (a line
// of Messages API responses), or null.
const JsonValue* response_member(const Message& m, std::string_view key) {
  if (!uses_anthropic_blocks(m.origin) || m.json == nullptr || !m.json->IsObject() ||
      !format_traits(m.origin).message_member.empty()) {
    return nullptr;
  }
  const JsonValue* value = find_member(*m.json, key);
  return value != nullptr && value->IsObject() ? value : nullptr;
}

// "req_" and 24 hex digits made from a response's message id: the request id its
// records share.
std::string derived_request_id(std::string_view message_id) {
  return derived_hex_id("req_", {"request:", message_id});
}

// Claude Code's stop_reason for another format's: OpenAI's finish_reason, OpenCode's
// finish, LangChain's; an Anthropic one stays. Empty when there is none to give.
std::string_view anthropic_stop_reason(std::string_view reason) {
  if (reason == "stop" || reason == "end_turn" || reason == "STOP") {
    return "end_turn";
  }
  if (reason == "tool_calls" || reason == "tool-calls" || reason == "function_call" ||
      reason == "tool_use") {
    return "tool_use";
  }
  if (reason == "length" || reason == "max_tokens" || reason == "MAX_TOKENS") {
    return "max_tokens";
  }
  if (reason == "stop_sequence" || reason == "pause_turn" || reason == "refusal") {
    return reason;
  }
  return "";
}

class ClaudeCodeEncoder final : public EncoderBase {
 public:
  explicit ClaudeCodeEncoder(LossReport& loss) : EncoderBase(Format::claude_code, loss) {}

 protected:
  void encode(const Message& message, Records& values) override {
    if (!same_format(message)) {
      if (message.kind != Kind::turn) {
        drop(record_noun(message), message);
        return;
      }
      switch (message.role) {
        case Role::user:
        case Role::tool:  // tool results ride in user records
        case Role::assistant:
          break;
        case Role::system:
        case Role::developer:
          drop("system messages", message);
          return;
        default:
          drop(fmt::format("{} messages", role_name(message.role)), message);
          return;
      }
      if (!message.name.empty()) {
        drop("message names", message);
      }
      if (anthropic_drops_all(message.content, uses_anthropic_blocks(message.origin),
                              [&](std::string_view what) { drop(what, message); })) {
        return;
      }
    }
    if (same_format(message)) {
      JsonWriter writer(values.open());
      write_record(writer, message);
      values.close();
      return;
    }
    // Claude Code writes a response one record per content block, sharing the
    // response's message.id (and requestId), and each tool result in a user record
    // of its own: a turn of another format is written the same way.
    const std::vector<Piece> pieces = record_pieces(message);
    Cut cut;
    cut.message_id = message.meta->message_id;
    cut.request_id = message.meta->request_id;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      // Written where it goes: the output's buffer, when the encoder writes there.
      JsonWriter writer(values.open());
      cut.piece = pieces[i];
      cut.first = i == 0;
      cut.split = pieces.size() > 1;
      write_new_record(writer, message, cut);
      values.close();
    }
  }

 private:
  // The session being written for the messages of one input file of another format.
  struct Chain {
    std::string file;           // the input's name
    std::size_t position = 0;   // records written for it so far
    std::string previous_uuid;  // the last record's uuid: the next one's parentUuid
    std::string session_id;     // the session id given to the last record
    std::string source_session;           // the source's session id session_id was made from
    std::optional<std::int64_t> last_ms;  // the last record's time
    std::set<std::string, std::less<>> source_uuids;  // message ids given as uuids
  };

  // Blocks [first, second) of a turn's content.
  using Piece = std::pair<std::size_t, std::size_t>;

  // The records a turn of another format becomes, as pieces of its content: one per
  // block of an assistant turn (a run of texts in one: formats of one text per turn
  // would join them); for a user turn, one per tool result and one per run of other
  // blocks; the whole turn when its content is not blocks or has one. EncoderBase's
  // record_cut_kept knows this cut.
  static std::vector<Piece> record_pieces(const Message& m) {
    const std::size_t n = m.content.is_blocks() ? m.content.blocks.size() : 0;
    if (n < 2) {
      return {{0, n}};
    }
    std::vector<Piece> pieces;
    const bool assistant = m.role == Role::assistant;
    auto result = [&](std::size_t i) { return m.content.blocks[i].type == BlockType::tool_result; };
    auto text = [&](std::size_t i) { return m.content.blocks[i].type == BlockType::text; };
    for (std::size_t i = 0; i < n; ++i) {
      if (assistant && i > 0 && text(i) && text(i - 1)) {
        pieces.back().second = i + 1;  // a run of texts
      } else if (!assistant && i > 0 && !result(i) && !result(i - 1)) {
        pieces.back().second = i + 1;  // a run of blocks that are not tool results
      } else {
        pieces.emplace_back(i, i + 1);
      }
    }
    return pieces;
  }

  // One record of a turn written over several: which blocks, and the ids its records
  // share (derived from the first record's uuid when the turn has none).
  struct Cut {
    Piece piece;
    bool first = true;   // losses are counted on the first record
    bool split = false;  // the turn is written over more than one record
    std::string message_id;
    std::string request_id;
  };

  // Writes a piece of a turn of another format as a Claude Code record that Claude
  // Code loads: the chain fields derived from the input (the Chain), the message as
  // Claude Code writes it (an API response for assistant records).
  void write_new_record(JsonWriter& w, const Message& m, Cut& cut) {
    // The piece's blocks are written from where they are, not from a copy (a tool
    // result's copy took its whole output).
    const bool part = m.content.is_blocks() &&
                      (cut.piece.first != 0 || cut.piece.second != m.content.blocks.size());
    const std::span<const Block> piece_blocks =
        part ? std::span<const Block>(m.content.blocks)
                   .subspan(cut.piece.first, cut.piece.second - cut.piece.first)
             : std::span<const Block>();
    const bool first = cut.first;
    auto drop = [&](std::string_view what, const Message& message) {
      if (first) {
        EncoderBase::drop(what, message);
      }
    };
    const RecordMeta& e = *m.meta;
    const std::string_view file = m.where.file ? std::string_view(*m.where.file) : "-";
    if (file != m_chain.file || m_chain.position == 0) {
      m_chain = Chain{};
      m_chain.file = std::string(file);
    }
    const std::size_t position = m_chain.position++;
    const bool assistant = m.role == Role::assistant;
    std::string_view type = assistant ? "assistant" : "user";
    DropFn drop_block = [&](std::string_view what) { EncoderBase::drop(what, m); };
    const bool keep = uses_anthropic_blocks(m.origin);
    // The content's JSON, written once: its bytes derive the record's uuid and are
    // the message's content. What writing it dropped is counted where the message's
    // content is written, in the record below (where the loss report has always
    // found it), from this list.
    //
    // The uuid is hashed from "record:FILE:N:TYPE:" and the content: they are written
    // one after the other, so that one pass of the hash reads them (in pieces, its
    // streaming form cost twice as much).
    std::vector<std::string> content_drops;
    PooledBuffer pooled;
    rapidjson::StringBuffer& hashed = pooled.get();
    const fmt::format_int number(position);
    for (std::string_view piece : {std::string_view("record:"), file, std::string_view(":"),
                                   std::string_view(number.data(), number.size()),
                                   std::string_view(":"), type, std::string_view(":")}) {
      std::memcpy(hashed.Push(piece.size()), piece.data(), piece.size());
    }
    const std::size_t content_at = hashed.GetSize();
    if (part || m.content.form != Content::Form::absent) {
      JsonWriter cw(hashed);
      const DropFn content_drop = [&](std::string_view what) { content_drops.emplace_back(what); };
      if (part) {
        write_anthropic_blocks(cw, piece_blocks, keep, content_drop);
      } else {
        write_anthropic_content(cw, m.content, keep, content_drop);
      }
    }
    const std::string_view record_text(hashed.GetString(), hashed.GetSize());
    const std::string_view content = record_text.substr(content_at);

    // The session: the source's when it has a UUID one, a UUID derived from its id
    // when it has another (Claude Code resumes only UUID sessions), else the one given
    // so far to this input, else one derived from the input's name.
    std::string requested;
    std::string_view source_session = e.session_id;
    if (source_session.empty()) {
      requested = session_of_request(m);
      source_session = requested;
    }
    if (!source_session.empty()) {
      if (source_session != m_chain.source_session) {  // a new one: most records repeat it
        m_chain.source_session = source_session;
        m_chain.session_id = is_uuid(source_session) ? std::string(source_session)
                                                     : derived_uuid({"session:", source_session});
      }
    } else if (m_chain.session_id.empty()) {
      m_chain.session_id = derived_uuid({"session:", file});
    }
    // The uuid: the source message's id when it is a UUID not given yet (a Gemini CLI
    // message's), on its first record, so that it comes back as the message's id;
    // else one derived from the record.
    const bool uuid_id = first && is_uuid(m.id);
    const bool own_uuid = uuid_id && m_chain.source_uuids.insert(m.id).second;
    if (uuid_id && !own_uuid) {
      drop("message ids", m);  // a UUID given already: encoder_base counts no other UUID id
    }
    const std::string uuid = own_uuid ? m.id : derived_uuid(record_text);
    // The time: the source's (UTC ISO 8601); else 1 ms after the record before;
    // else `position` ms after the Unix epoch.
    std::optional<std::int64_t> ms;
    if (!m.timestamp.empty()) {
      ms = utc_ms(m.timestamp);
      if (!ms) {
        drop("timestamps that are not UTC ISO 8601 times", m);
      }
    }
    if (!ms) {
      ms = m_chain.last_ms ? *m_chain.last_ms + 1 : std::int64_t(position);
    }
    m_chain.last_ms = ms;

    // A fresh object, so written member by member: an ObjectWriter, which keeps an
    // original's members, had nothing to keep, and its copies and lookups were a
    // tenth of converting a Codex rollout.
    w.StartObject();
    write_key(w, "parentUuid");
    if (m_chain.previous_uuid.empty()) {
      w.Null();
    } else {
      write_string(w, m_chain.previous_uuid);
    }
    write_key(w, "isSidechain");
    w.Bool(e.is_sidechain);
    write_string_member(w, "userType", "external");
    write_string_member(w, "cwd", "/");
    write_string_member(w, "sessionId", m_chain.session_id);
    write_string_member(w, "version", k_written_version);
    write_string_member(w, "type", type);
    write_key(w, "message");
    w.StartObject();
    if (assistant) {
      if (!e.model.empty()) {
        write_string_member(w, "model", e.model);
      }
      if (cut.message_id.empty()) {
        cut.message_id = derived_message_id(uuid);
      }
      write_string_member(w, "id", cut.message_id);
      write_string_member(w, "type", "message");
    }
    write_string_member(w, "role", type);
    if (!content.empty()) {
      write_key(w, "content");
      write_raw(w, content);
      for (const std::string& what : content_drops) {
        drop_block(what);
      }
    }
    if (assistant) {
      std::string_view stop = anthropic_stop_reason(e.stop_reason);
      if (!e.stop_reason.empty() && stop.empty()) {
        drop("stop reasons Claude Code does not know", m);
      }
      write_key(w, "stop_reason");
      if (stop.empty()) {
        w.Null();
      } else {
        write_string(w, stop);
      }
      write_key(w, "stop_sequence");
      w.Null();
      const Usage& u = m.usage;
      if (u.input || u.output || u.cache_read || u.cache_write) {
        const std::pair<PlainKey, std::optional<std::int64_t>> counts[] = {
            {PlainKey("input_tokens"), u.input},
            {PlainKey("cache_creation_input_tokens"), u.cache_write},
            {PlainKey("cache_read_input_tokens"), u.cache_read},
            {PlainKey("output_tokens"), u.output},
        };
        write_key(w, "usage");
        w.StartObject();
        for (const auto& [key, value] : counts) {
          if (value) {
            write_key(w, key);
            w.Int64(*value);
          }
        }
        w.EndObject();
      }
      // Members of an Anthropic response that Claude Code keeps in the message as
      // the API sent it: the code execution container the response ran in, and what
      // a refusal says of itself (stop_details: its category and explanation).
      for (const PlainKey key : {PlainKey("container"), PlainKey("stop_details")}) {
        if (const JsonValue* value = response_member(m, key.view())) {
          write_key(w, key);
          write_raw(w, to_json(*value));
        }
      }
    }
    w.EndObject();
    if (assistant && cut.split) {
      // The records of one response share its request: usage counters (convo usage,
      // ccusage) count a response once by message.id and requestId.
      if (cut.request_id.empty()) {
        cut.request_id = derived_request_id(cut.message_id);
      }
      write_string_member(w, "requestId", cut.request_id);
    }
    if (e.is_meta) {
      write_key(w, "isMeta");
      w.Bool(true);
    }
    write_string_member(w, "uuid", uuid);
    IsoTime time;
    write_string_member(w, "timestamp", iso_utc(*ms, time));
    w.EndObject();
    m_chain.previous_uuid = uuid;
  }

  Chain m_chain;

  // Writes the record: the original with the modelled members replaced when the
  // message is a Claude Code record, otherwise a new record with what it has.
  void write_record(JsonWriter& w, const Message& m) {
    const bool same = same_format(m);
    const RecordMeta& e = *m.meta;
    ObjectWriter record(w, same ? m.json : nullptr);
    const bool turn = m.kind == Kind::turn;
    std::string_view type = m.role == Role::assistant ? "assistant" : "user";
    if (turn) {
      record.set_string("type", type);
    }
    auto set_if = [&](std::string_view key, const std::string& value) {
      if (!value.empty()) {
        record.set_string(key, value);
      }
    };
    auto set_flag = [&](std::string_view key, bool value) {
      if (value || record.original_has(key)) {
        record.set_bool(key, value);
      }
    };
    set_if("parentUuid", e.parent_uuid);
    if (e.parent_uuid.empty() && same) {
      // Made a root (trim dropped its parent).
      const JsonValue* parent = find_member(*m.json, "parentUuid");
      if (parent != nullptr && !parent->IsNull()) {
        record.set_null("parentUuid");
      }
    }
    set_flag("isSidechain", e.is_sidechain);
    set_if("sessionId", e.session_id.empty() ? session_of_request(m) : e.session_id);
    set_if("timestamp", m.timestamp);
    set_flag("isMeta", e.is_meta);
    set_if("uuid", e.uuid);
    set_if("shortId", e.short_id);
    DropFn drop_block = [&](std::string_view what) { drop(what, m); };
    if (turn) {
      const JsonValue* inner = same ? find_member(*m.json, "message") : nullptr;
      record.set("message", [&, inner, type](JsonWriter& writer) {
        ObjectWriter message(writer, inner);
        message.set_string("role", type);
        if (m.content.form == Content::Form::absent) {
          message.remove("content");
        } else {
          bool keep = uses_anthropic_blocks(m.origin);
          message.set("content", [&, keep](JsonWriter& cw) {
            write_anthropic_content(cw, m.content, keep, drop_block);
          });
        }
        if (inner != nullptr && m.role == Role::assistant) {
          patch_response_fields(message, *inner, m);
        }
        if (inner == nullptr && m.role == Role::assistant) {
          if (!e.message_id.empty()) {
            message.set_string("id", e.message_id);
          }
          if (!e.model.empty()) {
            message.set_string("model", e.model);
          }
          if (!e.stop_reason.empty()) {
            message.set_string("stop_reason", e.stop_reason);
          }
        }
        message.write();
      });
    } else if (m.kind == Kind::summary && m.content.is_string()) {
      record.set_string("summary", m.content.text);
    } else if (m.kind == Kind::event && m.content.is_string()) {
      record.set_string("content", m.content.text);
    }
    record.write();
  }
};

}  // namespace

int sniff_claude_code(const JsonValue& record) {
  if (!record.IsObject()) {
    return 0;
  }
  if (const JsonValue* loglines = find_member(record, "loglines");
      loglines != nullptr && loglines->IsArray()) {
    return 10;
  }
  auto type = string_member(record, "type");
  if (find_member(record, "role") == nullptr &&
      (find_member(record, "agentType") != nullptr ||
       (find_member(record, "agentId") != nullptr && find_member(record, "key") != nullptr))) {
    return 3;  // a subagent's .meta.json, a workflow's journal.jsonl
  }
  if (!type) {
    if (const JsonValue* message = find_member(record, "message");
        message != nullptr && message->IsObject() && string_member(record, "sessionId")) {
      return 3;  // a session record stripped of its type (ccusage's fixtures)
    }
    return find_member(record, "role") != nullptr ? -1 : 0;
  }
  if (*type == "user" || *type == "assistant") {
    const JsonValue* message = find_member(record, "message");
    return message != nullptr && message->IsObject() ? 10 : -1;
  }
  if (is_claude_code_type(*type)) {
    return find_member(record, "role") != nullptr ? -1 : 5;
  }
  return find_member(record, "role") != nullptr ? -1 : 0;
}

void claude_code_unmodelled(const Message& message,
                            const std::function<void(std::string_view)>& unheld) {
  // A `{"loglines": [...]}` file's records are the container's elements: their
  // envelopes and times are theirs as a JSONL line's are.
  if (message.kind != Kind::turn || message.json == nullptr || !message.json->IsObject()) {
    return;
  }
  bool envelope = false;
  for (const auto& member : message.json->GetObject()) {
    std::string_view key = view_of(member.name);
    if (key == "timestamp") {
      unheld("timestamps");
    } else if (key == "toolUseResult") {
      unheld("tool use results");  // the tool's structured result, beside the message
    } else if (key != "type" && key != "message" && key != "content") {
      envelope = true;
    }
  }
  if (envelope) {
    unheld("Claude Code record envelopes");
  }
  if (const JsonValue* inner = find_member(*message.json, "message")) {
    response_message_members(*inner, unheld);  // the API response's id, model, usage
  }
  anthropic_block_members(message.content, unheld);
}

std::unique_ptr<Decoder> make_claude_code_decoder() { return make_decoder<ClaudeCodeDecoder>(); }

std::unique_ptr<Encoder> make_claude_code_encoder(LossReport& loss) {
  return make_encoder<ClaudeCodeEncoder>(loss);
}

}  // namespace convo
