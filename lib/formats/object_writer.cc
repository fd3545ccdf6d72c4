#include "formats/object_writer.h"

#include <cstring>
#include <memory>
#include <utility>

namespace convo {

ObjectWriter::ObjectWriter(JsonWriter& writer, const JsonValue* original)
    : m_writer(writer), m_original(original != nullptr && original->IsObject() ? original : nullptr) {
  m_entries = static_cast<Entry*>(take(k_first_entries * sizeof(Entry), alignof(Entry)));
  m_capacity = k_first_entries;
}

ObjectWriter::~ObjectWriter() {
  for (std::size_t i = 0; i < m_count; ++i) {
    drop_callable(m_entries[i]);
  }
}

void* ObjectWriter::take(std::size_t size, std::size_t align) {
  const std::size_t at = (m_used + align - 1) & ~(align - 1);
  if (at + size <= k_room) {
    m_used = at + size;
    return m_room + at;
  }
  // operator new[] aligns to max_align_t, the most `set` takes. Owned before the
  // list grows, so that a list that cannot grow leaks nothing.
  auto block = std::make_unique_for_overwrite<std::byte[]>(size);
  std::byte* const taken = block.get();
  m_overflow.push_back(std::move(block));
  return taken;
}

std::string_view ObjectWriter::copy(std::string_view text) {
  if (text.empty()) {
    return std::string_view("", 0);  // the writer takes no null pointer
  }
  auto* at = static_cast<char*>(take(text.size(), 1));
  std::memcpy(at, text.data(), text.size());
  return {at, text.size()};
}

ObjectWriter::Entry* ObjectWriter::find(std::string_view key) {
  for (std::size_t i = 0; i < m_count; ++i) {
    if (m_entries[i].key == key) {
      return &m_entries[i];
    }
  }
  return nullptr;
}

ObjectWriter::Entry& ObjectWriter::entry(std::string_view key) {
  if (Entry* found = find(key)) {
    return *found;
  }
  if (m_count == m_capacity) {
    auto* grown = static_cast<Entry*>(take(2 * m_capacity * sizeof(Entry), alignof(Entry)));
    std::memcpy(static_cast<void*>(grown), m_entries, m_count * sizeof(Entry));
    m_entries = grown;
    m_capacity *= 2;
  }
  Entry& added = *::new (&m_entries[m_count]) Entry();
  ++m_count;
  added.key = key;
  return added;
}

ObjectWriter& ObjectWriter::set_string(std::string_view key, std::string_view value) {
  // A copy: callers pass temporaries, and the value is written only in write().
  Entry& e = entry(key);
  const std::string_view text = copy(value);
  drop_callable(e);
  e.kind = Entry::Kind::string;
  e.text = text;
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
  const std::string_view text = copy(json);
  drop_callable(e);
  e.kind = Entry::Kind::raw;
  e.text = text;
  return *this;
}

ObjectWriter& ObjectWriter::set_null(std::string_view key) {
  return set(key, [](JsonWriter& w) { w.Null(); });
}

ObjectWriter& ObjectWriter::remove(std::string_view key) {
  Entry& e = entry(key);
  drop_callable(e);
  e.kind = Entry::Kind::remove;
  return *this;
}

bool ObjectWriter::original_has(std::string_view key) const {
  return m_original != nullptr && find_member(*m_original, key) != nullptr;
}

void ObjectWriter::write_value(Entry& entry) {
  switch (entry.kind) {
    case Entry::Kind::write:
      entry.call(entry.fn, m_writer);
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
  for (std::size_t i = 0; i < m_count; ++i) {
    Entry& entry = m_entries[i];
    if (!entry.used && entry.kind != Entry::Kind::remove) {
      m_writer.Key(entry.key.data(), static_cast<rapidjson::SizeType>(entry.key.size()));
      write_value(entry);
    }
  }
  m_writer.EndObject();
}

}  // namespace convo
