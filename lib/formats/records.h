// The records an encoder writes for one message, one after the other in one buffer.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>
#include <vector>

#include "json.h"

namespace convo {

// The compact JSON records an encoder writes for one message (usually one; none
// when the format cannot hold it; several when the format splits it), each followed
// by a LF in one buffer: either a buffer of their own, or the output's buffer after
// what it holds, so that a record goes to the output where it was written. A record
// is added whole (`add`) or written in place with a `JsonWriter` on `open()`'s
// buffer and ended with `close()`.
class Records {
 public:
  class Iterator;

  // Records in a buffer of their own.
  Records() : m_buffer(&m_own) {}
  // Records appended to `buffer` after what it holds now. Unless `keep` is called,
  // they are taken back from it when this goes (an encoder that threw, a record
  // that failed its UTF-8 check).
  explicit Records(rapidjson::StringBuffer& buffer)
      : m_buffer(&buffer), m_start(buffer.GetSize()), m_kept(false) {}
  ~Records() {
    if (!m_kept) {
      m_buffer->Pop(m_buffer->GetSize() - m_start);
    }
  }
  Records(const Records&) = delete;
  Records& operator=(const Records&) = delete;

  // Adds `json` (compact JSON text, not a view into these records) as a record.
  void add(std::string_view json) {
    char* at = m_buffer->Push(json.size() + 1);
    std::memcpy(at, json.data(), json.size());
    at[json.size()] = '\n';
    push_end();
  }
  // The buffer to write the next record into (with a `JsonWriter` of its own), up
  // to `close()` or `cancel()`. Nothing else is added in between.
  rapidjson::StringBuffer& open() { return *m_buffer; }
  // Ends the record written since `open()`.
  void close() {
    m_buffer->Put('\n');
    push_end();
  }
  // Takes back what was written since `open()`: no record after all.
  void cancel() {
    m_buffer->Pop(m_buffer->GetSize() - m_start - (m_count == 0 ? 0 : end_of(m_count - 1)));
  }

  std::size_t size() const { return m_count; }
  bool empty() const { return m_count == 0; }
  // Record `i`, without its LF.
  std::string_view operator[](std::size_t i) const {
    std::size_t from = i == 0 ? 0 : end_of(i - 1);
    return {base() + from, end_of(i) - from - 1};
  }
  std::string_view front() const { return (*this)[0]; }
  // Every record, each followed by its LF: the lines to write.
  std::string_view lines() const { return {base(), m_count == 0 ? 0 : end_of(m_count - 1)}; }
  Iterator begin() const;
  Iterator end() const;

  // Takes back every record.
  void clear() {
    m_buffer->Pop(m_buffer->GetSize() - m_start);
    m_count = 0;
    m_more_ends.clear();
  }
  // The records stay in the borrowed buffer when this goes.
  void keep() { m_kept = true; }

 private:
  const char* base() const { return m_buffer->stack_.template Bottom<char>() + m_start; }
  // Where record `i`'s LF ends, from m_start.
  std::size_t end_of(std::size_t i) const {
    return i < k_first_ends ? m_first_ends[i] : m_more_ends[i - k_first_ends];
  }
  void push_end() {
    const std::size_t end = m_buffer->GetSize() - m_start;
    if (m_count < k_first_ends) {
      m_first_ends[m_count] = end;
    } else {
      m_more_ends.push_back(end);
    }
    ++m_count;
  }

  // A message is most often one record, rarely more than a few: their ends are
  // kept here without an allocation.
  static constexpr std::size_t k_first_ends = 4;

  rapidjson::StringBuffer m_own;
  rapidjson::StringBuffer* m_buffer;
  std::size_t m_start = 0;  // where the first record starts in `m_buffer`
  std::size_t m_count = 0;  // records
  std::size_t m_first_ends[k_first_ends] = {};
  std::vector<std::size_t> m_more_ends;  // the ends of records past k_first_ends
  bool m_kept = true;
};

// --- Inline implementations ---

class Records::Iterator {
 public:
  Iterator(const Records* records, std::size_t i) : m_records(records), m_i(i) {}
  std::string_view operator*() const { return (*m_records)[m_i]; }
  Iterator& operator++() {
    ++m_i;
    return *this;
  }
  bool operator!=(const Iterator& other) const { return m_i != other.m_i; }

 private:
  const Records* m_records;
  std::size_t m_i;
};

inline Records::Iterator Records::begin() const { return {this, 0}; }
inline Records::Iterator Records::end() const { return {this, size()}; }

}  // namespace convo
