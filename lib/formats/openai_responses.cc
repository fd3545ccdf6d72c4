#include "formats/openai_responses.h"

#include <fmt/format.h>

#include "formats/fields.h"
#include "formats/responses_items.h"

namespace convo {

namespace {

// --- Detection ---

bool is_response_body(const JsonValue& root) {
  const JsonValue* output = find_member(root, "output");
  if (output == nullptr || !output->IsArray()) {
    return false;
  }
  auto object = string_member(root, "object");
  return (object && *object == "response") || find_member(root, "usage") != nullptr ||
         find_member(root, "status") != nullptr;
}

bool is_request_body(const JsonValue& root) {
  const JsonValue* input = find_member(root, "input");
  return input != nullptr && (input->IsArray() || input->IsString()) &&
         find_member(root, "type") == nullptr && find_member(root, "role") == nullptr &&
         find_member(root, "messages") == nullptr && find_member(root, "payload") == nullptr;
}

int sniff_items(const JsonValue& array) {
  int score = 0;
  rapidjson::SizeType n = std::min<rapidjson::SizeType>(array.Size(), 32);
  for (rapidjson::SizeType i = 0; i < n; ++i) {
    int s = sniff_responses_item(array[i]);
    if (s < 0 && array[i].IsObject() && find_member(array[i], "payload") == nullptr &&
        string_member(array[i], "type")) {
      s = 0;  // an item type not known yet, among items: no evidence either way
    }
    if (s < 0) {
      return -1;
    }
    score += s;
  }
  return score;
}

// --- Decoding ---

class ResponsesDecoder final : public Decoder {
 public:
  void decode(Record&& record, std::vector<Message>& out) override {
    const JsonValue& root = record.source->doc;
    if (root.IsArray()) {
      Location where = record.where;
      auto container = make_container(Format::openai_responses, std::move(record), "");
      decode_items(container, container->source->doc, "", 0, where, out);
      return;
    }
    if (!root.IsObject()) {
      wrong_type("", "a JSON object", root);
    }
    // Most records are items: their members are read once, and a body's tests
    // (member scans) run only for a record that has what they look for first.
    const ItemMembers members = scan_item_members(root);
    const JsonValue* items = members.output != nullptr ? members.output : members.input;
    const bool response_body =
        members.output != nullptr && members.output->IsArray() && is_response_body(root);
    const bool request_body = !response_body && members.input != nullptr &&
                              members.type == nullptr && members.role == nullptr &&
                              is_request_body(root);
    if ((response_body || request_body) && items->IsArray() && items->Empty()) {
      // A body with no items (a background response still queued): a record of its
      // own, kept as it is.
      Message message = begin_message(Format::openai_responses, record, &root);
      message.kind = Kind::bookkeeping;
      message.role = Role::none;
      message.content.form = Content::Form::absent;
      message.record_type = response_body ? "empty response body" : "empty request body";
      message.raw = std::move(record.raw);
      out.push_back(std::move(message));
      return;
    }
    if (response_body) {
      decode_response(std::move(record), out);
      return;
    }
    if (request_body) {
      decode_request(std::move(record), out);
      return;
    }
    MessageInPlace added(out, Format::openai_responses, record, &root);
    Message& message = added.get();
    decode_responses_item(root, members, "", message, record.raw.view());
    message.raw = std::move(record.raw);
    added.keep();
  }

 private:
  static void decode_items(const std::shared_ptr<Container>& container, const JsonValue& array,
                           const std::string& path, std::size_t slot, const Location& where,
                           std::vector<Message>& out) {
    for (rapidjson::SizeType i = 0; i < array.Size(); ++i) {
      Message message = begin_contained(container, where, slot++, &array[i]);
      decode_responses_item(array[i], fmt::format("{}/{}", path, i), message);
      out.push_back(std::move(message));
    }
    container->size = slot;
  }

  // `instructions` (a string) is slot 0, a system message; a string `input` one user
  // message.
  static void decode_request(Record&& record, std::vector<Message>& out) {
    Location where = record.where;
    const JsonValue& root = record.source->doc;
    auto instructions = optional_string(root, "instructions", "");
    bool system = instructions.has_value();
    auto container = make_container(Format::openai_responses, std::move(record), "input", "",
                                    system);
    std::size_t slot = 0;
    if (system) {
      Message message = begin_contained(container, where, slot++, nullptr);
      message.role = Role::system;
      message.content.text = std::string(*instructions);
      out.push_back(std::move(message));
    }
    const JsonValue& input = *find_member(root, "input");
    if (input.IsString()) {
      Message message = begin_contained(container, where, slot++, nullptr);
      message.role = Role::user;
      message.content.text = std::string(view_of(input));
      out.push_back(std::move(message));
      container->size = slot;
      return;
    }
    decode_items(container, input, "/input", slot, where, out);
  }

  static void decode_response(Record&& record, std::vector<Message>& out) {
    Location where = record.where;
    const JsonValue& root = record.source->doc;
    auto container = make_container(Format::openai_responses, std::move(record), "output");
    std::size_t first = out.size();
    decode_items(container, *find_member(root, "output"), "/output", 0, where, out);
    Usage usage;
    if (const JsonValue* u = optional_object(root, "usage", "")) {
      usage.input = optional_int(*u, "input_tokens", "/usage");
      usage.output = optional_int(*u, "output_tokens", "/usage");
      usage.total = optional_int(*u, "total_tokens", "/usage");
      if (const JsonValue* details = optional_object(*u, "input_tokens_details", "/usage")) {
        usage.cache_read =
            optional_int(*details, "cached_tokens", "/usage/input_tokens_details");
      }
      if (const JsonValue* details = optional_object(*u, "output_tokens_details", "/usage")) {
        usage.reasoning =
            optional_int(*details, "reasoning_tokens", "/usage/output_tokens_details");
      }
    }
    std::string model(string_member(root, "model").value_or(""));
    std::string id(string_member(root, "id").value_or(""));
    for (std::size_t i = first; i < out.size(); ++i) {
      out[i].meta.edit().model = model;
      out[i].meta.edit().message_id = id;
    }
    // One response, one usage: on its last item, so that a sum over messages counts
    // it once.
    if (out.size() > first) {
      out.back().usage = usage;
    }
  }
};

// --- Encoding ---

class ResponsesEncoder final : public EncoderBase {
 public:
  explicit ResponsesEncoder(LossReport& loss) : EncoderBase(Format::openai_responses, loss) {}

 protected:
  void encode(const Message& message, Records& values) override {
    encode_responses_items(message, format(), [&](std::string_view what) { drop(what, message); },
                           values);
  }
};

}  // namespace

int sniff_openai_responses(const JsonValue& record) {
  if (record.IsArray()) {
    return sniff_items(record);
  }
  if (!record.IsObject()) {
    return 0;
  }
  if (is_response_body(record)) {
    int s = sniff_items(*find_member(record, "output"));
    return s < 0 ? -1 : 10 + s;
  }
  if (is_request_body(record)) {
    const JsonValue& input = *find_member(record, "input");
    int s = input.IsArray() ? sniff_items(input) : 0;
    return s < 0 ? -1 : 8 + s;
  }
  // An older Codex rollout's first line: the session's metadata, no item.
  if (find_member(record, "type") == nullptr && find_member(record, "role") == nullptr &&
      (find_member(record, "record_type") != nullptr ||
       (find_member(record, "id") != nullptr && find_member(record, "timestamp") != nullptr))) {
    return -1;
  }
  return sniff_responses_item(record);
}

void openai_responses_unmodelled(const Message& message,
                                 const std::function<void(std::string_view)>& unheld) {
  responses_item_unmodelled(message, unheld);
}

std::optional<std::uint64_t> openai_responses_unmodelled_key(const Message& message) {
  return responses_item_unmodelled_key(message);
}

std::unique_ptr<Decoder> make_openai_responses_decoder() {
  return std::make_unique<ResponsesDecoder>();
}

std::unique_ptr<Encoder> make_openai_responses_encoder(LossReport& loss) {
  return std::make_unique<ResponsesEncoder>(loss);
}

}  // namespace convo
