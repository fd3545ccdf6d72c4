#include "prices.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "error.h"
#include "json.h"

namespace convo {

// lib/data/prices.json, embedded by CMake (cmake/embed.cmake).
extern const char k_builtin_prices[];

namespace {

std::optional<double> number(const JsonValue& entry, const char* key) {
  auto it = entry.FindMember(key);
  if (it == entry.MemberEnd() || !it->value.IsNumber()) {
    return std::nullopt;
  }
  return it->value.GetDouble();
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// ccusage's calculateTieredCost: the part past 200k tokens at the higher price.
double tiered(std::int64_t tokens, double base, const std::optional<double>& above) {
  constexpr std::int64_t k_threshold = 200000;
  if (tokens <= 0) {
    return 0;
  }
  if (tokens > k_threshold && above) {
    return static_cast<double>(tokens - k_threshold) * *above +
           static_cast<double>(k_threshold) * base;
  }
  return static_cast<double>(tokens) * base;
}

}  // namespace

PriceTable PriceTable::parse(std::string_view json, const std::string& name) {
  JsonDoc doc;
  std::string text(json);
  if (auto error = parse_json(text, doc)) {
    throw Error(Location{std::make_shared<const std::string>(name), 0, 0},
                fmt::format("not a price table: {}", error->message));
  }
  if (!doc.IsObject()) {
    throw Error(Location{std::make_shared<const std::string>(name), 0, 0},
                "not a price table: expected an object of model names");
  }
  PriceTable table;
  for (const auto& member : doc.GetObject()) {
    std::string model(member.name.GetString(), member.name.GetStringLength());
    if (model.empty() || model[0] == '_' || !member.value.IsObject()) {
      continue;
    }
    const JsonValue& entry = member.value;
    std::optional<double> input = number(entry, "input_cost_per_token");
    if (!input) {
      continue;
    }
    ModelPrice price;
    price.input = *input;
    price.output = number(entry, "output_cost_per_token").value_or(0);
    price.cache_write = number(entry, "cache_creation_input_token_cost").value_or(0);
    price.cache_read = number(entry, "cache_read_input_token_cost").value_or(0);
    price.input_above = number(entry, "input_cost_per_token_above_200k_tokens");
    price.output_above = number(entry, "output_cost_per_token_above_200k_tokens");
    price.cache_write_above = number(entry, "cache_creation_input_token_cost_above_200k_tokens");
    price.cache_read_above = number(entry, "cache_read_input_token_cost_above_200k_tokens");
    if (table.m_index.emplace(model, table.m_models.size()).second) {
      table.m_models.emplace_back(std::move(model), price);
    }
  }
  return table;
}

PriceTable PriceTable::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(fmt::format("{}: cannot read the price table", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

const PriceTable& PriceTable::builtin() {
  static const PriceTable table = parse(k_builtin_prices, "prices.json");
  return table;
}

const ModelPrice* PriceTable::find(std::string_view model) const {
  std::string key(model);
  if (auto it = m_found.find(key); it != m_found.end()) {
    return it->second;
  }
  const ModelPrice* found = nullptr;
  for (const char* prefix : {"", "anthropic/", "claude-3-5-", "claude-3-", "claude-"}) {
    if (auto it = m_index.find(prefix + key); it != m_index.end()) {
      found = &m_models[it->second].second;
      break;
    }
  }
  if (!found && !key.empty()) {
    std::string wanted = lower(key);
    for (const auto& [name, price] : m_models) {
      std::string candidate = lower(name);
      if (candidate.find(wanted) != std::string::npos ||
          wanted.find(candidate) != std::string::npos) {
        found = &price;
        break;
      }
    }
  }
  m_found.emplace(std::move(key), found);
  return found;
}

double PriceTable::cost(const ModelPrice& price, const TokenCounts& tokens) {
  return tiered(tokens.input, price.input, price.input_above) +
         tiered(tokens.output, price.output, price.output_above) +
         tiered(tokens.cache_write, price.cache_write, price.cache_write_above) +
         tiered(tokens.cache_read, price.cache_read, price.cache_read_above);
}

}  // namespace convo
