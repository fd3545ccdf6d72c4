// LossReport (format.h): what the writers of a run could not hold, counted by
// name and reported once at the end, or the first of it an error under --strict.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "formats/format.h"

namespace convo {

std::size_t LossReport::drop(Format target, std::string_view what, const Location& where,
                             std::size_t entry) {
  if (m_strict) {
    throw Error(where, fmt::format("{} cannot hold {} (--strict)", format_name(target), what));
  }
  if (entry < m_entries.size() && m_entries[entry].target == target &&
      m_entries[entry].what == what) {
    ++m_entries[entry].count;
    return entry;
  }
  for (std::size_t i = 0; i < m_entries.size(); ++i) {
    if (m_entries[i].target == target && m_entries[i].what == what) {
      ++m_entries[i].count;
      return i;
    }
  }
  m_entries.push_back(Entry{target, std::string(what), 1});
  return m_entries.size() - 1;
}

void LossReport::merge(const LossReport& other) {
  for (const Entry& theirs : other.m_entries) {
    auto ours = std::find_if(m_entries.begin(), m_entries.end(), [&](const Entry& entry) {
      return entry.target == theirs.target && entry.what == theirs.what;
    });
    if (ours == m_entries.end()) {
      m_entries.push_back(theirs);
    } else {
      ours->count += theirs.count;
    }
  }
}

std::string LossReport::summary() const {
  std::string out;
  std::vector<Format> targets;
  for (const Entry& entry : m_entries) {
    if (std::find(targets.begin(), targets.end(), entry.target) == targets.end()) {
      targets.push_back(entry.target);
    }
  }
  for (Format target : targets) {
    if (!out.empty()) {
      out += "; ";
    }
    out += fmt::format("{} cannot hold", format_name(target));
    bool first = true;
    for (const Entry& entry : m_entries) {
      if (entry.target == target) {
        out += fmt::format("{} {} ({})", first ? "" : ",", entry.what, entry.count);
        first = false;
      }
    }
  }
  return out;
}

}  // namespace convo
