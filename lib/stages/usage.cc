#include "stages/usage.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>

#include "formats/format.h"
#include "timestamps.h"

namespace convo {

namespace {

constexpr std::int64_t k_hour_ms = 3600 * 1000;
constexpr std::int64_t k_block_ms = 5 * k_hour_ms;  // a billing block: 5 hours
constexpr const char* k_synthetic = "<synthetic>";  // Claude Code's stand-in for no model

// A recorded count, negative ones as 0 and absurd ones capped at 2^40 (a trillion
// tokens, far past any response), so that sums of hostile input cannot overflow.
std::int64_t count(const std::optional<std::int64_t>& value) {
  constexpr std::int64_t k_most = std::int64_t{1} << 40;
  return value && *value > 0 ? std::min(*value, k_most) : 0;
}

// The session's project: the directory that holds its file, above a subagent
// file's `<session>/subagents/` (Claude Code's ~/.claude/projects/<project>/).
std::string project_of(const std::string& file) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= file.size()) {
    std::size_t slash = file.find('/', start);
    if (slash == std::string::npos) {
      slash = file.size();
    }
    parts.push_back(file.substr(start, slash - start));
    start = slash + 1;
  }
  parts.pop_back();  // the file itself
  auto subagents = std::find(parts.begin(), parts.end(), "subagents");
  if (subagents != parts.end() && subagents != parts.begin()) {
    parts.erase(subagents - 1, parts.end());
  }
  while (!parts.empty() && (parts.back().empty() || parts.back() == ".")) {
    parts.pop_back();
  }
  return parts.empty() ? std::string() : parts.back();
}

// A file's name without its directory and transcript extensions: the session of
// records that name none.
std::string stem_of(const std::string& file) {
  std::string name = file.substr(file.rfind('/') + 1);
  for (const char* ext : {".gz", ".zst", ".jsonl", ".json"}) {
    std::string_view e(ext);
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) {
      name.resize(name.size() - e.size());
    }
  }
  return name;
}

// Per model, in order of first use; sorted by cost, highest first, as ccusage does.
void add_to_breakdown(std::vector<std::pair<std::string, UsageCount>>& breakdown,
                      const std::string& model, const UsageCount& count) {
  for (auto& [name, sum] : breakdown) {
    if (name == model) {
      sum.add(count);
      return;
    }
  }
  breakdown.emplace_back(model, count);
}

void add_model_used(std::vector<std::string>& used, const std::string& model) {
  if (!model.empty() && model != k_synthetic &&
      std::find(used.begin(), used.end(), model) == used.end()) {
    used.push_back(model);
  }
}

}  // namespace

UsageCount usage_count(const Message& record) {
  const Usage& usage = record.usage;
  UsageCount c;
  c.input = count(usage.input);
  c.output = count(usage.output);
  c.cache_read = count(usage.cache_read);
  c.cache_write = count(usage.cache_write);
  c.reasoning = count(usage.reasoning);
  if (format_info(record.origin).usage_input_includes_cache) {
    c.input = std::max<std::int64_t>(0, c.input - c.cache_read);
  }
  return c;
}

double usage_cost(const UsageCount& count, const std::optional<double>& recorded,
                  const std::string& model, const PriceTable& prices) {
  if (recorded) {
    return *recorded;
  }
  const ModelPrice* price = model.empty() ? nullptr : prices.find(model);
  if (price == nullptr) {
    return 0;
  }
  return PriceTable::cost(
      *price, TokenCounts{count.input, count.output, count.cache_write, count.cache_read});
}

void UsageCount::add(const UsageCount& other) {
  input += other.input;
  output += other.output;
  cache_write += other.cache_write;
  cache_read += other.cache_read;
  reasoning += other.reasoning;
  cost += other.cost;
}

UsageLedger::UsageLedger(UsageOptions options)
    : m_options(options),
      m_prices(options.prices != nullptr ? options.prices : &PriceTable::builtin()) {}

std::uint32_t UsageLedger::intern(std::vector<std::string>& names,
                                  std::unordered_map<std::string, std::uint32_t>& index,
                                  const std::string& name) {
  auto [it, added] = index.emplace(name, static_cast<std::uint32_t>(names.size()));
  if (added) {
    names.push_back(name);
  }
  return it->second;
}

void UsageLedger::add(const Message& record) {
  if (record.usage->empty()) {
    return;
  }
  const Usage& usage = record.usage;
  Entry entry;
  entry.count = usage_count(record);
  entry.recorded_cost = usage.cost;
  entry.time = parse_timestamp(record.timestamp).value_or(k_no_time);

  const RecordMeta& envelope = *record.meta;
  if (!envelope.message_id.empty() && !envelope.request_id.empty()) {
    std::uint64_t key = std::hash<std::string>{}(envelope.message_id + '\n' + envelope.request_id);
    auto [it, added] = m_responses.emplace(key, static_cast<std::uint32_t>(m_entries.size()));
    if (!added) {
      if (m_options.split == SplitUsage::largest) {
        UsageCount& held = m_entries[it->second].count;
        held.input = std::max(held.input, entry.count.input);
        held.output = std::max(held.output, entry.count.output);
        held.cache_read = std::max(held.cache_read, entry.count.cache_read);
        held.cache_write = std::max(held.cache_write, entry.count.cache_write);
        held.reasoning = std::max(held.reasoning, entry.count.reasoning);
      }
      return;
    }
  }
  const std::string file = record.where.file ? *record.where.file : std::string();
  std::string session = envelope.session_id.empty() ? stem_of(file) : envelope.session_id;
  entry.session = intern(m_sessions, m_session_index, session);
  if (m_projects.size() < m_sessions.size()) {
    m_projects.push_back(project_of(file));
  }
  entry.model = intern(m_models, m_model_index, envelope.model);
  m_entries.push_back(entry);
}

double UsageLedger::cost_of(const Entry& entry) const {
  return usage_cost(entry.count, entry.recorded_cost, m_models[entry.model], *m_prices);
}

int UsageLedger::date_of_entry(const Entry& entry) const {
  return entry.time == k_no_time ? 0 : date_of(entry.time, m_options.local_time);
}

bool UsageLedger::in_range(int date) const {
  if (!m_options.since && !m_options.until) {
    return true;
  }
  return date != 0 && (!m_options.since || date >= *m_options.since) &&
         (!m_options.until || date <= *m_options.until);
}

std::vector<std::string> UsageLedger::unpriced_models() const {
  std::vector<bool> used(m_models.size());
  for (const Entry& entry : m_entries) {
    used[entry.model] = used[entry.model] || !entry.recorded_cost;
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < m_models.size(); ++i) {
    if (used[i] && !m_models[i].empty() && m_models[i] != k_synthetic &&
        m_prices->find(m_models[i]) == nullptr) {
      out.push_back(m_models[i]);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

UsageReport UsageLedger::report() const {
  UsageReport report;
  report.by = m_options.by;
  auto model_name = [&](const Entry& entry) -> const std::string& {
    static const std::string unknown = "unknown";
    const std::string& model = m_models[entry.model];
    return model.empty() ? unknown : model;
  };
  auto add_entry = [&](UsageRow& row, const Entry& entry, const UsageCount& c) {
    row.sum.add(c);
    ++row.entries;
    const std::string& model = m_models[entry.model];
    add_model_used(row.models_used, model);
    if (model != k_synthetic) {
      add_to_breakdown(row.breakdown, model_name(entry), c);
    }
  };

  if (m_options.by == UsageBy::block) {
    std::vector<const Entry*> timed;
    for (const Entry& entry : m_entries) {
      if (entry.time != k_no_time) {
        timed.push_back(&entry);
      }
    }
    std::stable_sort(timed.begin(), timed.end(),
                     [](const Entry* a, const Entry* b) { return a->time < b->time; });
    const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    auto floor_hour = [](std::int64_t ms) {
      std::int64_t floored = ms - ((ms % k_hour_ms) + k_hour_ms) % k_hour_ms;
      return floored;
    };
    std::vector<UsageRow> blocks;
    auto close = [&](UsageRow& block) {
      block.end = block.start + k_block_ms;
      block.is_active = now - block.actual_end < k_block_ms && now < block.end;
      blocks.push_back(std::move(block));
    };
    std::optional<UsageRow> current;
    for (const Entry* entry : timed) {
      if (current && (entry->time - current->start > k_block_ms ||
                      entry->time - current->actual_end > k_block_ms)) {
        std::int64_t last = current->actual_end;
        close(*current);
        if (entry->time - last > k_block_ms) {
          UsageRow gap;
          gap.is_gap = true;
          gap.start = last + k_block_ms;
          gap.end = entry->time;
          gap.key = "gap-" + iso_timestamp(gap.start);
          blocks.push_back(std::move(gap));
        }
        current.reset();
      }
      if (!current) {
        current.emplace();
        current->start = floor_hour(entry->time);
        current->key = iso_timestamp(current->start);
      }
      UsageCount c = entry->count;
      c.cost = cost_of(*entry);
      add_entry(*current, *entry, c);
      // ccusage lists every model of a block, "<synthetic>" too.
      const std::string& model = m_models[entry->model];
      if (model == k_synthetic &&
          std::find(current->models_used.begin(), current->models_used.end(), model) ==
              current->models_used.end()) {
        current->models_used.push_back(model);
      }
      current->actual_end = entry->time;
    }
    if (current) {
      close(*current);
    }
    for (UsageRow& block : blocks) {
      int date = date_of(block.start, m_options.local_time);
      if (block.is_gap || in_range(date)) {
        report.totals.add(block.sum);
        report.rows.push_back(std::move(block));
      }
    }
    return report;
  }

  // Rows keyed by day, month, session or model, in the order ccusage sorts them.
  std::map<std::string, UsageRow> keyed;
  std::vector<UsageRow> sessions(m_options.by == UsageBy::session ? m_sessions.size() : 0);
  std::vector<std::int64_t> last_time(sessions.size(), INT64_MIN);
  for (const Entry& entry : m_entries) {
    UsageCount c = entry.count;
    c.cost = cost_of(entry);
    int date = date_of_entry(entry);
    if (m_options.by == UsageBy::session) {
      UsageRow& row = sessions[entry.session];
      add_entry(row, entry, c);
      if (entry.time != k_no_time && entry.time >= last_time[entry.session]) {
        last_time[entry.session] = entry.time;
      }
      continue;
    }
    if (!in_range(date)) {
      continue;
    }
    std::string key;
    if (m_options.by == UsageBy::model) {
      key = model_name(entry);
    } else if (date == 0) {
      key = "unknown";
    } else {
      key = date_text(date);
      if (m_options.by == UsageBy::month) {
        key.resize(7);
      }
    }
    UsageRow& row = keyed[key];
    row.key = key;
    add_entry(row, entry, c);
  }
  auto sort_breakdown = [](UsageRow& row) {
    std::stable_sort(row.breakdown.begin(), row.breakdown.end(),
                     [](const auto& a, const auto& b) { return a.second.cost > b.second.cost; });
  };
  if (m_options.by == UsageBy::session) {
    std::vector<std::pair<int, std::size_t>> order;  // last date, first-use order
    for (std::size_t i = 0; i < sessions.size(); ++i) {
      int date = last_time[i] == INT64_MIN ? 0 : date_of(last_time[i], m_options.local_time);
      if (sessions[i].entries == 0 || !in_range(date)) {
        continue;
      }
      sessions[i].key = m_sessions[i];
      sessions[i].project = m_projects[i];
      sessions[i].last_activity = date == 0 ? "unknown" : date_text(date);
      order.emplace_back(date, i);  // undated (0) last
    }
    // Newest first, as ccusage's session report.
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [date, i] : order) {
      sort_breakdown(sessions[i]);
      report.totals.add(sessions[i].sum);
      report.rows.push_back(std::move(sessions[i]));
    }
    return report;
  }
  for (auto& [key, row] : keyed) {
    sort_breakdown(row);
    report.totals.add(row.sum);
    report.rows.push_back(std::move(row));
  }
  if (m_options.by == UsageBy::model) {
    std::stable_sort(report.rows.begin(), report.rows.end(),
                     [](const UsageRow& a, const UsageRow& b) { return a.sum.cost > b.sum.cost; });
  }  // by day or month: dates in order, "unknown" (undated) last

  return report;
}

void UsageStage::push(Message&& message, MessageSink& next) {
  (void)next;
  m_ledger->add(message);
}

}  // namespace convo
