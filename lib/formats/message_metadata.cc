#include "formats/message_metadata.h"

#include "formats/fields.h"
#include "formats/json_out.h"
#include "formats/object_writer.h"

namespace convo {

void decode_usage_metadata(const JsonValue& object, const std::string& path, const UsageKeys& keys,
                           Usage& usage) {
  const JsonValue* u = optional_object(object, "usage_metadata", path);
  if (u == nullptr) {
    return;
  }
  std::string usage_path = member_path(path, "usage_metadata");
  usage.input = optional_int(*u, "input_tokens", usage_path);
  usage.output = optional_int(*u, "output_tokens", usage_path);
  usage.total = optional_int(*u, "total_tokens", usage_path);
  if (const JsonValue* in = optional_object(*u, keys.input_details, usage_path)) {
    std::string in_path = member_path(usage_path, keys.input_details);
    usage.cache_read = optional_int(*in, keys.cache_read, in_path);
    if (!keys.cache_write.empty()) {
      usage.cache_write = optional_int(*in, keys.cache_write, in_path);
    }
  }
  if (const JsonValue* out = optional_object(*u, keys.output_details, usage_path)) {
    usage.reasoning = optional_int(*out, keys.reasoning, member_path(usage_path, keys.output_details));
  }
}

void write_usage_metadata(JsonWriter& w, const Usage& u, const JsonValue* original,
                          const UsageKeys& keys) {
  if (original != nullptr && !original->IsObject()) {
    original = nullptr;
  }
  std::int64_t in = u.input.value_or(0);
  std::int64_t out = u.output.value_or(0);
  ObjectWriter usage(w, original);
  usage.set_int("input_tokens", in);
  usage.set_int("output_tokens", out);
  usage.set_int("total_tokens", u.total.value_or(in + out));
  auto details = [&](std::string_view key, std::initializer_list<std::pair<std::string_view, std::optional<std::int64_t>>> counts) {
    bool any = false;
    for (const auto& [name, value] : counts) {
      any |= !name.empty() && value.has_value();
    }
    if (!any) {
      return;
    }
    const JsonValue* was = original != nullptr ? find_member(*original, key) : nullptr;
    std::vector<std::pair<std::string_view, std::optional<std::int64_t>>> list(counts);
    usage.set(key, [was, list](JsonWriter& dw) {
      ObjectWriter d(dw, was != nullptr && was->IsObject() ? was : nullptr);
      for (const auto& [name, value] : list) {
        if (!name.empty() && value) {
          d.set_int(name, *value);
        }
      }
      d.write();
    });
  };
  details(keys.input_details, {{keys.cache_read, u.cache_read}, {keys.cache_write, u.cache_write}});
  details(keys.output_details, {{keys.reasoning, u.reasoning}});
  usage.write();
}

void decode_response_metadata(const JsonValue& object, const std::string& path, Message& message) {
  const JsonValue* meta = optional_object(object, "response_metadata", path);
  if (meta == nullptr) {
    return;
  }
  std::string meta_path = member_path(path, "response_metadata");
  auto model = optional_string(*meta, "model_name", meta_path);
  if (!model) {
    model = optional_string(*meta, "model", meta_path);
  }
  message.meta.edit().model = std::string(model.value_or(""));
  auto stop = optional_string(*meta, "finish_reason", meta_path);
  if (!stop) {
    stop = optional_string(*meta, "stop_reason", meta_path);
  }
  message.meta.edit().stop_reason = std::string(stop.value_or(""));
}

bool has_response_metadata(const Message& m) {
  return m.role == Role::assistant && (!m.meta->model.empty() || !m.meta->stop_reason.empty());
}

void write_response_metadata(JsonWriter& w, const Message& m) {
  w.StartObject();
  if (!m.meta->model.empty()) {
    w.Key("model_name");
    write_string(w, m.meta->model);
  }
  if (!m.meta->stop_reason.empty()) {
    w.Key("finish_reason");
    write_string(w, m.meta->stop_reason);
  }
  w.EndObject();
}

}  // namespace convo
