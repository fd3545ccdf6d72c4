#include "formats/object_writer.h"

namespace convo {

ObjectWriter::ObjectWriter(JsonWriter& writer, const JsonValue* original)
    : m_writer(writer), m_original(original != nullptr && original->IsObject() ? original : nullptr) {
  m_entries.reserve(8);  // most objects set fewer: one allocation, not four
}

ObjectWriter::Entry* ObjectWriter::find(std::string_view key) {
  for (Entry& entry : m_entries) {
    if (entry.key == key) {
      return &entry;
    }
  }
  return nullptr;
}

ObjectWriter::Entry& ObjectWriter::entry(std::string_view key) {
  if (Entry* found = find(key)) {
    return *found;
  }
  Entry& added = m_entries.emplace_back();
  added.key = key;
  return added;
}

ObjectWriter& ObjectWriter::set(std::string_view key, WriteFn write) {
  Entry& e = entry(key);
  e.kind = write ? Entry::Kind::write : Entry::Kind::remove;
  e.write = std::move(write);
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
  Entry& e = entry(key);
  e.kind = Entry::Kind::string;
  e.write = nullptr;
  e.text.assign(value);
  return *this;
}

ObjectWriter& ObjectWriter::set_bool(std::string_view key, bool value) {
  return set(key, [value](JsonWriter& w) { w.Bool(value); });
}

ObjectWriter& ObjectWriter::set_int(std::string_view key, std::int64_t value) {
  return set(key, [value](JsonWriter& w) { w.Int64(value); });
}

ObjectWriter& ObjectWriter::set_raw(std::string_view key, std::string_view json) {
  Entry& e = entry(key);
  e.kind = Entry::Kind::raw;
  e.write = nullptr;
  e.text.assign(json);
  return *this;
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

void ObjectWriter::write_value(Entry& entry) {
  switch (entry.kind) {
    case Entry::Kind::write:
      entry.write(m_writer);
      break;
    case Entry::Kind::string:
      m_writer.String(entry.text.data(), static_cast<rapidjson::SizeType>(entry.text.size()));
      break;
    case Entry::Kind::raw:
      m_writer.RawValue(entry.text.data(), entry.text.size(), rapidjson::kObjectType);
      break;
    case Entry::Kind::remove:
      break;
  }
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
      if (entry->kind != Entry::Kind::remove) {
        m_writer.Key(member.name.GetString(), member.name.GetStringLength());
        write_value(*entry);
      }
    }
  }
  for (Entry& entry : m_entries) {
    if (!entry.used && entry.kind != Entry::Kind::remove) {
      m_writer.Key(entry.key.data(), static_cast<rapidjson::SizeType>(entry.key.size()));
      write_value(entry);
    }
  }
  m_writer.EndObject();
}

}  // namespace convo
