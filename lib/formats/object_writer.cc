#include "formats/object_writer.h"

namespace convo {

ObjectWriter::ObjectWriter(JsonWriter& writer, const JsonValue* original)
    : m_writer(writer), m_original(original != nullptr && original->IsObject() ? original : nullptr) {}

ObjectWriter::Entry* ObjectWriter::find(std::string_view key) {
  for (Entry& entry : m_entries) {
    if (entry.key == key) {
      return &entry;
    }
  }
  return nullptr;
}

ObjectWriter& ObjectWriter::set(std::string_view key, WriteFn write) {
  if (Entry* entry = find(key)) {
    entry->write = std::move(write);
  } else {
    m_entries.push_back(Entry{key, std::move(write)});
  }
  return *this;
}

ObjectWriter& ObjectWriter::set_blocks(std::string_view key, std::vector<const Block*> blocks,
                                       std::function<void(JsonWriter&, const Block&)> write_one) {
  if (blocks.empty()) {
    return original_has(key) ? remove(key) : *this;
  }
  return set(key, [blocks = std::move(blocks), write_one = std::move(write_one)](JsonWriter& w) {
    w.StartArray();
    for (const Block* block : blocks) {
      write_one(w, *block);
    }
    w.EndArray();
  });
}

ObjectWriter& ObjectWriter::set_string(std::string_view key, std::string_view value) {
  // A copy: callers pass temporaries, and the value is written only in write().
  return set(key, [text = std::string(value)](JsonWriter& w) {
    w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  });
}

ObjectWriter& ObjectWriter::set_bool(std::string_view key, bool value) {
  return set(key, [value](JsonWriter& w) { w.Bool(value); });
}

ObjectWriter& ObjectWriter::set_int(std::string_view key, std::int64_t value) {
  return set(key, [value](JsonWriter& w) { w.Int64(value); });
}

ObjectWriter& ObjectWriter::set_raw(std::string_view key, std::string_view json) {
  return set(key, [text = std::string(json)](JsonWriter& w) {
    w.RawValue(text.data(), text.size(), rapidjson::kObjectType);
  });
}

ObjectWriter& ObjectWriter::set_null(std::string_view key) {
  return set(key, [](JsonWriter& w) { w.Null(); });
}

ObjectWriter& ObjectWriter::remove(std::string_view key) {
  return set(key, WriteFn());
}

bool ObjectWriter::original_has(std::string_view key) const {
  return m_original != nullptr && find_member(*m_original, key) != nullptr;
}

void ObjectWriter::write() {
  m_writer.StartObject();
  if (m_original != nullptr) {
    for (const auto& member : m_original->GetObject()) {
      Entry* entry = find(view_of(member.name));
      if (entry == nullptr) {
        m_writer.Key(member.name.GetString(), member.name.GetStringLength());
        member.value.Accept(m_writer);
        continue;
      }
      entry->used = true;
      if (entry->write) {
        m_writer.Key(member.name.GetString(), member.name.GetStringLength());
        entry->write(m_writer);
      }
    }
  }
  for (Entry& entry : m_entries) {
    if (!entry.used && entry.write) {
      m_writer.Key(entry.key.data(), static_cast<rapidjson::SizeType>(entry.key.size()));
      entry.write(m_writer);
    }
  }
  m_writer.EndObject();
}

}  // namespace convo
