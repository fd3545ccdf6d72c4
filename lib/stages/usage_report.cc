// The report writers of convo usage: ccusage's JSON, CSV, and a table.
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "json.h"
#include "stages/usage.h"
#include "timestamps.h"

namespace convo {

namespace {

// A number as JavaScript's JSON.stringify writes it (shortest round trip; fixed
// notation between 1e-7 and 1e21), so that output compares with ccusage's as text.
std::string js_number(double value) {
  if (!std::isfinite(value)) {
    return "null";
  }
  if (value == 0) {
    return "0";
  }
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, result.ptr);
  bool negative = sci[0] == '-';
  if (negative) {
    sci.erase(0, 1);
  }
  std::size_t e = sci.find('e');
  int exponent = std::stoi(sci.substr(e + 1));
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  std::string out;
  if (exponent >= 21 || exponent < -7) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) {
      out.push_back('.');  // not "." + digits.substr(1): GCC bug 105329 at -O3
      out.append(digits, 1);
    }
    out += fmt::format("e{}{}", exponent < 0 ? "-" : "+", std::abs(exponent));
  } else if (exponent < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  } else if (static_cast<std::size_t>(exponent) + 1 >= digits.size()) {
    out = digits + std::string(static_cast<std::size_t>(exponent) + 1 - digits.size(), '0');
  } else {
    out = digits.substr(0, static_cast<std::size_t>(exponent) + 1) + "." +
          digits.substr(static_cast<std::size_t>(exponent) + 1);
  }
  return negative ? "-" + out : out;
}

// A JSON writer that indents as JSON.stringify(value, null, 2).
class Pretty {
 public:
  void open(char bracket) {
    value_prefix();
    m_out += bracket;
    m_first.push_back(true);
  }
  void close(char bracket) {
    bool empty = m_first.back();
    m_first.pop_back();
    if (!empty) {
      newline();
    }
    m_out += bracket;
  }
  void key(std::string_view name) {
    item_prefix();
    m_out += json_quote(name);
    m_out += ": ";
    m_after_key = true;
  }
  void raw(std::string_view text) {
    value_prefix();
    m_out += text;
  }
  void string(std::string_view text) { raw(json_quote(text)); }
  void integer(std::int64_t n) { raw(std::to_string(n)); }
  void number(double n) { raw(js_number(n)); }
  void boolean(bool b) { raw(b ? "true" : "false"); }
  std::string take() { return std::move(m_out) + "\n"; }

 private:
  void newline() {
    m_out += '\n';
    m_out.append(m_first.size() * 2, ' ');
  }
  void item_prefix() {
    if (!m_first.back()) {
      m_out += ',';
    }
    m_first.back() = false;
    newline();
  }
  void value_prefix() {
    if (m_after_key) {
      m_after_key = false;
    } else if (!m_first.empty()) {
      item_prefix();
    }
  }
  std::string m_out;
  std::vector<bool> m_first;
  bool m_after_key = false;
};

const char* list_name(UsageBy by) {
  switch (by) {
    case UsageBy::day:
      return "daily";
    case UsageBy::month:
      return "monthly";
    case UsageBy::session:
      return "sessions";
    case UsageBy::block:
      return "blocks";
    case UsageBy::model:
      return "models";
  }
  return "daily";
}

const char* key_name(UsageBy by) {
  switch (by) {
    case UsageBy::day:
      return "date";
    case UsageBy::month:
      return "month";
    case UsageBy::session:
      return "sessionId";
    case UsageBy::block:
      return "id";
    case UsageBy::model:
      return "model";
  }
  return "date";
}

void write_tokens(Pretty& w, const UsageCount& c) {
  w.key("inputTokens");
  w.integer(c.input);
  w.key("outputTokens");
  w.integer(c.output);
  w.key("cacheCreationTokens");
  w.integer(c.cache_write);
  w.key("cacheReadTokens");
  w.integer(c.cache_read);
}

void write_models(Pretty& w, const UsageRow& row) {
  w.key("modelsUsed");
  w.open('[');
  for (const std::string& model : row.models_used) {
    w.string(model);
  }
  w.close(']');
  w.key("modelBreakdowns");
  w.open('[');
  for (const auto& [model, c] : row.breakdown) {
    w.open('{');
    w.key("modelName");
    w.string(model);
    write_tokens(w, c);
    w.key("reasoningTokens");
    w.integer(c.reasoning);
    w.key("cost");
    w.number(c.cost);
    w.close('}');
  }
  w.close(']');
}

void write_block(Pretty& w, const UsageRow& row) {
  w.key("id");
  w.string(row.key);
  w.key("startTime");
  w.string(iso_timestamp(row.start));
  w.key("endTime");
  w.string(iso_timestamp(row.end));
  w.key("actualEndTime");
  if (row.is_gap) {
    w.raw("null");
  } else {
    w.string(iso_timestamp(row.actual_end));
  }
  w.key("isActive");
  w.boolean(row.is_active);
  w.key("isGap");
  w.boolean(row.is_gap);
  w.key("entries");
  w.integer(static_cast<std::int64_t>(row.entries));
  w.key("tokenCounts");
  w.open('{');
  w.key("inputTokens");
  w.integer(row.sum.input);
  w.key("outputTokens");
  w.integer(row.sum.output);
  w.key("cacheCreationInputTokens");
  w.integer(row.sum.cache_write);
  w.key("cacheReadInputTokens");
  w.integer(row.sum.cache_read);
  w.close('}');
  w.key("totalTokens");
  w.integer(row.sum.total());
  w.key("reasoningTokens");
  w.integer(row.sum.reasoning);
  w.key("costUSD");
  w.number(row.sum.cost);
  w.key("models");
  w.open('[');
  for (const std::string& model : row.models_used) {
    w.string(model);
  }
  w.close(']');
}

std::string thousands(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    return std::string(text);
  }
  std::string out = "\"";
  for (char c : text) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  return out + "\"";
}

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    out += (out.empty() ? "" : std::string(separator)) + item;
  }
  return out;
}

const char* key_title(UsageBy by) {
  switch (by) {
    case UsageBy::day:
      return "Date";
    case UsageBy::month:
      return "Month";
    case UsageBy::session:
      return "Session";
    case UsageBy::block:
      return "Block Start";
    case UsageBy::model:
      return "Model";
  }
  return "Date";
}

}  // namespace

std::string usage_json(const UsageReport& report) {
  Pretty w;
  w.open('{');
  w.key(list_name(report.by));
  w.open('[');
  for (const UsageRow& row : report.rows) {
    w.open('{');
    if (report.by == UsageBy::block) {
      write_block(w, row);
      w.close('}');
      continue;
    }
    w.key(key_name(report.by));
    w.string(row.key);
    write_tokens(w, row.sum);
    w.key("totalTokens");
    w.integer(row.sum.total());
    w.key("reasoningTokens");
    w.integer(row.sum.reasoning);
    w.key("totalCost");
    w.number(row.sum.cost);
    if (report.by == UsageBy::session) {
      w.key("lastActivity");
      w.string(row.last_activity);
    }
    if (report.by != UsageBy::model) {
      write_models(w, row);
    }
    if (report.by == UsageBy::session) {
      w.key("projectPath");
      w.string(row.project);
    }
    w.close('}');
  }
  w.close(']');
  w.key("totals");
  w.open('{');
  write_tokens(w, report.totals);
  w.key("totalTokens");
  w.integer(report.totals.total());
  w.key("reasoningTokens");
  w.integer(report.totals.reasoning);
  w.key("totalCost");
  w.number(report.totals.cost);
  w.close('}');
  w.close('}');
  return w.take();
}

std::string usage_csv(const UsageReport& report) {
  std::string out = fmt::format(
      "{},inputTokens,outputTokens,cacheCreationTokens,cacheReadTokens,totalTokens,"
      "reasoningTokens,totalCost,models\n",
      key_name(report.by));
  auto line = [&](std::string_view key, const UsageCount& c, const std::vector<std::string>& m) {
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", csv_field(key), c.input, c.output,
                       c.cache_write, c.cache_read, c.total(), c.reasoning, js_number(c.cost),
                       csv_field(joined(m, " ")));
  };
  for (const UsageRow& row : report.rows) {
    line(row.key, row.sum, row.models_used);
  }
  line("total", report.totals, {});
  return out;
}

std::string usage_table(const UsageReport& report) {
  // Rows by model need no Models column.
  const bool models = report.by != UsageBy::model;
  const std::size_t texts = models ? 2 : 1;  // left-aligned columns
  std::vector<std::vector<std::string>> cells;
  auto add = [&](std::string key, std::string used, std::vector<std::string> numbers) {
    std::vector<std::string> row{std::move(key)};
    if (models) {
      row.push_back(std::move(used));
    }
    row.insert(row.end(), numbers.begin(), numbers.end());
    cells.push_back(std::move(row));
  };
  add(key_title(report.by), "Models",
      {"Input", "Output", "Cache Create", "Cache Read", "Reasoning", "Total Tokens", "Cost (USD)"});
  auto add_count = [&](std::string key, const UsageCount& c, std::string used) {
    add(std::move(key), std::move(used),
        {thousands(c.input), thousands(c.output), thousands(c.cache_write), thousands(c.cache_read),
         thousands(c.reasoning), thousands(c.total()), fmt::format("${:.2f}", c.cost)});
  };
  for (const UsageRow& row : report.rows) {
    std::string key = row.key;
    if (report.by == UsageBy::block) {
      key = row.is_gap ? "(gap) " + iso_timestamp(row.start).substr(0, 16)
                       : iso_timestamp(row.start).substr(0, 16) + (row.is_active ? " ACTIVE" : "");
    }
    add_count(key, row.sum, joined(row.models_used, ", "));
  }
  add_count("Total", report.totals, "");
  std::vector<std::size_t> width(cells[0].size(), 0);
  for (const auto& row : cells) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  std::string out;
  auto rule = [&] {
    for (std::size_t i = 0; i < width.size(); ++i) {
      out += (i ? "  " : "") + std::string(width[i], '-');
    }
    out += '\n';
  };
  for (std::size_t r = 0; r < cells.size(); ++r) {
    if (r == cells.size() - 1) {
      rule();
    }
    for (std::size_t i = 0; i < cells[r].size(); ++i) {
      const std::string& cell = cells[r][i];
      std::string pad(width[i] - cell.size(), ' ');
      out += i ? "  " : "";
      out += i < texts ? cell + pad : pad + cell;
    }
    while (!out.empty() && out.back() == ' ') {
      out.pop_back();
    }
    out += '\n';
    if (r == 0) {
      rule();
    }
  }
  return out;
}

}  // namespace convo
