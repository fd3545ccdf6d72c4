#include "formats/codex.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <utility>

#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/object_writer.h"
#include "formats/responses_items.h"
#include "formats/session_ids.h"

namespace convo {

namespace {

// The rollout line types (codex-rs protocol RolloutItem).
constexpr std::string_view k_line_types[] = {"session_meta", "response_item", "event_msg",
                                              "turn_context", "compacted"};

bool is_line_type(std::string_view type) {
  return std::find(std::begin(k_line_types), std::end(k_line_types), type) !=
         std::end(k_line_types);
}

// The Codex CLI version whose rollouts convo writes and was checked against
// (tests/codex_oracle_test.sh): the `cli_version` of the session_meta line it makes.
constexpr std::string_view k_written_version = "0.169.0";

// --- Decoding ---

// A token_count event's usage: the counts of the response it follows.
void decode_token_count(const JsonValue& payload, Message& message) {
  const JsonValue* info = find_member(payload, "info");
  const JsonValue* last = info != nullptr && info->IsObject() ? find_member(*info, "last_token_usage")
                                                              : nullptr;
  if (last == nullptr || !last->IsObject()) {
    return;
  }
  const std::string path = "/payload/info/last_token_usage";
  Usage& u = message.usage.edit();
  u.input = optional_int(*last, "input_tokens", path);
  u.cache_read = optional_int(*last, "cached_input_tokens", path);
  u.output = optional_int(*last, "output_tokens", path);
  u.reasoning = optional_int(*last, "reasoning_output_tokens", path);
  u.total = optional_int(*last, "total_tokens", path);
}

class CodexDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& root = record.source->doc;
    if (!root.IsObject()) {
      wrong_type("", "a rollout line (an object)", root);
    }
    MessageInPlace added(out, Format::codex, record, &root);
    Message& message = added.get();
    auto type = string_member(root, "type");
    const JsonValue* payload = find_member(root, "payload");
    if (type && is_line_type(*type) && payload != nullptr && payload->IsObject()) {
      message.timestamp = std::string(optional_string(root, "timestamp", "").value_or(""));
      decode_line(*type, *payload, message, record.raw.view());
    } else {
      decode_older(root, message, record.raw.view());
    }
    message.meta.edit().session_id = m_session;
    message.raw = std::move(record.raw);
    added.keep();
  }

 private:
  // `raw`: the line's bytes, for decode_responses_item.
  void decode_line(std::string_view type, const JsonValue& payload, Message& message,
                   std::string_view raw) {
    if (type == "response_item") {
      message.json = &payload;
      decode_responses_item(payload, "/payload", message, raw);
      if (message.role == Role::assistant) {
        message.meta.edit().model = m_model;
      }
      return;
    }
    message.record_type = std::string(type);
    message.role = Role::none;
    message.content.form = Content::Form::absent;
    message.kind = Kind::bookkeeping;
    if (type == "session_meta") {
      m_session = std::string(optional_string(payload, "id", "/payload").value_or(""));
    } else if (type == "turn_context") {
      if (auto model = optional_string(payload, "model", "/payload")) {
        m_model = std::string(*model);
      }
    } else if (type == "event_msg") {
      auto event = optional_string(payload, "type", "/payload").value_or("");
      message.meta.edit().subtype = std::string(event);
      if (event == "token_count") {
        decode_token_count(payload, message);
        if (!message.usage->empty() && !m_model.empty()) {
          message.meta.edit().model = m_model;  // the model of the response it counts
        }
      }
    } else if (type == "compacted") {
      message.kind = Kind::event;
      message.meta.edit().subtype = "compacted";
      if (auto summary = optional_string(payload, "message", "/payload")) {
        message.content.form = Content::Form::string;
        message.content.text = std::string(*summary);
      }
    }
  }

  // An older rollout's line: the session's metadata first (`id`, `timestamp`,
  // `instructions`), then bare items and `{"record_type": "state"}` lines.
  void decode_older(const JsonValue& root, Message& message, std::string_view raw) {
    auto record_type = string_member(root, "record_type");
    bool meta = find_member(root, "type") == nullptr && find_member(root, "role") == nullptr &&
                find_member(root, "id") != nullptr && find_member(root, "timestamp") != nullptr;
    if (record_type || meta) {
      message.record_type = record_type ? std::string(*record_type) : "session_meta";
      message.role = Role::none;
      message.content.form = Content::Form::absent;
      message.kind = Kind::bookkeeping;
      if (meta) {
        m_session = std::string(optional_string(root, "id", "").value_or(""));
        message.timestamp = std::string(optional_string(root, "timestamp", "").value_or(""));
      }
      return;
    }
    decode_responses_item(root, "", message, raw);
  }

  std::string m_session;
  std::string m_model;
};

// --- Encoding ---

class CodexEncoder final : public EncoderBase {
 public:
  explicit CodexEncoder(LossReport& loss) : EncoderBase(Format::codex, loss) {}

 protected:
  void encode(const Message& message, Records& values) override {
    if (same_format(message)) {
      encode_own(message, values);
      return;
    }
    if (message.kind != Kind::turn) {
      drop(record_noun(message), message);
      return;
    }
    m_items.clear();
    // An unchanged Responses item goes into its line from the bytes it was read as.
    std::string_view as_is = responses_item_bytes(message, format());
    if (as_is.empty()) {
      encode_responses_items(message, format(),
                             [&](std::string_view what) { drop(what, message); }, m_items);
      if (m_items.empty()) {
        return;
      }
    }
    std::string time = next_time(message);
    if (!m_pending_meta.empty()) {
      values.add(std::exchange(m_pending_meta, std::string()));
    }
    if (!as_is.empty()) {
      add_line(values, time, "response_item", as_is);
    }
    for (std::string_view item : m_items) {
      add_line(values, time, "response_item", item);
    }
    if (message.role == Role::assistant && !message.usage->empty()) {
      add_line(values, time, "event_msg", token_count(message.usage));
    }
  }

 private:
  // A changed line of a rollout: the line's members kept, its item re-encoded (the
  // first item in its place; any more the message now makes follow as lines of their
  // own).
  void encode_own(const Message& m, Records& values) {
    const JsonValue& root = m.source->doc;
    if (m.kind != Kind::turn || m.json == nullptr) {
      values.add(to_json(root));
      return;
    }
    m_items.clear();
    encode_responses_items(m, format(), [&](std::string_view what) { drop(what, m); }, m_items);
    if (m.json == &root) {  // an older rollout's bare item
      for (std::string_view item : m_items) {
        values.add(item);
      }
      return;
    }
    std::string time = m.timestamp;
    for (std::size_t i = 0; i < m_items.size(); ++i) {
      if (i > 0) {
        add_line(values, time, "response_item", m_items[i]);
        continue;
      }
      PooledBuffer pooled;
      rapidjson::StringBuffer& buffer = pooled.get();
      JsonWriter w(buffer);
      ObjectWriter object(w, &root);
      object.set_string("timestamp", time);
      object.set_raw("payload", m_items[i]);
      object.write();
      values.add({buffer.GetString(), buffer.GetSize()});
    }
  }

  // The time of a message of another format, starting a session first when it is
  // the first of its input: the source's time when it is a UTC ISO 8601 time, else 1
  // ms after the line before, else its position in ms after the Unix epoch.
  std::string next_time(const Message& m) {
    std::string file = m.where.file ? *m.where.file : std::string("-");
    bool start = file != m_file || m_position == 0;
    if (start) {
      m_file = file;
      m_position = 0;
      m_last_ms.reset();
      std::fill(std::begin(m_totals), std::end(m_totals), 0);
    }
    std::optional<std::int64_t> ms;
    if (!m.timestamp.empty()) {
      ms = utc_ms(m.timestamp);
      if (!ms) {
        drop("timestamps that are not UTC ISO 8601 times", m);
      }
    }
    if (!ms) {
      ms = m_last_ms ? *m_last_ms + 1 : std::int64_t(m_position);
    }
    ++m_position;
    m_last_ms = ms;
    std::string time = iso_utc(*ms);
    if (start) {
      m_pending_meta = session_meta(m, file, time);
    }
    return time;
  }

  // The session_meta line Codex needs to resume a rollout: the source's session when
  // it is a UUID, else one derived from it or from the input's name.
  std::string session_meta(const Message& m, const std::string& file, const std::string& time) {
    const std::string& source = m.meta->session_id;
    std::string id = source.empty()   ? derived_uuid("codex-session:" + file)
                     : is_uuid(source) ? source
                                       : derived_uuid("codex-session:" + source);
    PooledBuffer pooled;
    rapidjson::StringBuffer& buffer = pooled.get();
    JsonWriter w(buffer);
    w.StartObject();
    w.Key("id");
    write_string(w, id);
    w.Key("timestamp");
    write_string(w, time);
    w.Key("cwd");
    w.String("/");
    w.Key("originator");
    w.String("convo");
    w.Key("cli_version");
    write_string(w, k_written_version);
    w.Key("instructions");
    w.Null();
    w.Key("source");
    w.String("cli");
    w.EndObject();
    return line(time, "session_meta", std::string_view(buffer.GetString(), buffer.GetSize()));
  }

  // A token_count event for a response's usage, as Codex writes one after each
  // response: its counts and the session's running totals.
  std::string token_count(const Usage& u) {
    const std::optional<std::int64_t> last[] = {u.input, u.cache_read, u.output, u.reasoning,
                                                u.total ? u.total
                                                        : std::optional<std::int64_t>(
                                                              u.input.value_or(0) +
                                                              u.output.value_or(0))};
    static constexpr std::string_view k_keys[] = {"input_tokens", "cached_input_tokens",
                                                  "output_tokens", "reasoning_output_tokens",
                                                  "total_tokens"};
    PooledBuffer pooled;
    rapidjson::StringBuffer& buffer = pooled.get();
    JsonWriter w(buffer);
    auto counts = [&](bool totals) {
      w.StartObject();
      for (std::size_t i = 0; i < std::size(k_keys); ++i) {
        if (totals) {
          m_totals[i] += last[i].value_or(0);
        }
        w.Key(k_keys[i].data(), static_cast<rapidjson::SizeType>(k_keys[i].size()));
        w.Int64(totals ? m_totals[i] : last[i].value_or(0));
      }
      w.EndObject();
    };
    w.StartObject();
    w.Key("type");
    w.String("token_count");
    w.Key("info");
    w.StartObject();
    w.Key("total_token_usage");
    counts(true);
    w.Key("last_token_usage");
    counts(false);
    w.Key("model_context_window");
    w.Null();
    w.EndObject();
    w.Key("rate_limits");
    w.Null();
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
  }

  // Adds the line of `type` holding `payload` (JSON text) to `values`.
  static void add_line(Records& values, std::string_view time, std::string_view type,
                       std::string_view payload) {
    // The bytes a JSON writer gives for {"timestamp": time, "type": type, "payload":
    // payload}, appended as they are: a writer's keys and strings cost more than
    // the rest of the line but its payload, which is copied once.
    rapidjson::StringBuffer& buffer = values.open();
    auto append = [&buffer](std::string_view bytes) {
      std::memcpy(buffer.Push(bytes.size()), bytes.data(), bytes.size());
    };
    append("{\"timestamp\":\"");
    append_json_escaped(buffer, time);
    append("\",\"type\":\"");
    append_json_escaped(buffer, type);
    append("\",\"payload\":");
    append(payload);
    buffer.Put('}');
    values.close();
  }

  static std::string line(std::string_view time, std::string_view type, std::string_view payload) {
    Records one;
    add_line(one, time, type, payload);
    return std::string(one.front());
  }

  Records m_items;
  std::int64_t m_totals[5] = {};  // the input's token counts so far, for token_count events
  std::string m_file;
  std::size_t m_position = 0;
  std::optional<std::int64_t> m_last_ms;
  std::string m_pending_meta;
};

}  // namespace

int sniff_codex(const JsonValue& record) {
  if (!record.IsObject()) {
    return 0;
  }
  auto type = string_member(record, "type");
  const JsonValue* payload = find_member(record, "payload");
  if (type && is_line_type(*type) && payload != nullptr) {
    return payload->IsObject() && find_member(record, "timestamp") != nullptr ? 10 : -1;
  }
  // An older rollout: a first line of session metadata, state lines, bare items.
  if (!type && find_member(record, "role") == nullptr) {
    if (find_member(record, "record_type") != nullptr) {
      return 5;
    }
    if (find_member(record, "id") != nullptr && find_member(record, "timestamp") != nullptr) {
      return 5;
    }
  }
  int item = sniff_responses_item(record);
  return item > 0 ? item : item < 0 ? -1 : 0;
}

std::optional<std::uint64_t> codex_unmodelled_key(const Message& message) {
  if (message.kind != Kind::turn) {
    return std::nullopt;
  }
  std::optional<std::uint64_t> key = responses_item_unmodelled_key(message);
  if (key && !message.timestamp.empty()) {
    *key |= k_responses_key_spare;
  }
  return key;
}

void codex_unmodelled(const Message& message,
                      const std::function<void(std::string_view)>& unheld) {
  if (message.kind != Kind::turn) {
    return;
  }
  if (!message.timestamp.empty()) {
    unheld("timestamps");
  }
  responses_item_unmodelled(message, unheld);
}

std::unique_ptr<Decoder> make_codex_decoder() { return std::make_unique<CodexDecoder>(); }

std::unique_ptr<Encoder> make_codex_encoder(LossReport& loss) {
  return std::make_unique<CodexEncoder>(loss);
}

}  // namespace convo
