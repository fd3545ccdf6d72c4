// Prices of models, per token, for `convo usage` and `check --max-cost`: a table
// in the shape of LiteLLM's model_prices_and_context_window.json, the one shipped
// in lib/data/prices.json (compiled in) or one a user gives.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace convo {

// The per-token prices of one model, in USD. The `above` prices apply to the part
// of a count past 200k tokens, when the model has them (LiteLLM's
// `*_above_200k_tokens`).
struct ModelPrice {
  double input = 0, output = 0, cache_write = 0, cache_read = 0;
  std::optional<double> input_above, output_above, cache_write_above, cache_read_above;
};

// Token counts to price: input excludes cache reads and writes (Anthropic's
// `input_tokens`); reasoning tokens are part of `output`.
struct TokenCounts {
  std::int64_t input = 0, output = 0, cache_write = 0, cache_read = 0;
};

class PriceTable {
 public:
  // Parses a table from JSON text (an object of model name -> prices; members whose
  // name starts with '_' and entries without `input_cost_per_token` are left out).
  // `name` is the file's name for errors. Throws convo::Error.
  static PriceTable parse(std::string_view json, const std::string& name);
  // Reads the table in `path`. Throws convo::Error.
  static PriceTable read(const std::string& path);
  // The table shipped with convo (lib/data/prices.json).
  static const PriceTable& builtin();

  // The prices of `model`, found as ccusage finds them: the name itself, then with
  // the prefixes "anthropic/", "claude-3-5-", "claude-3-", "claude-", then the first
  // entry whose name contains the model's or is contained in it (case-insensitive).
  // Null when none is found. Not thread-safe (remembers answers).
  const ModelPrice* find(std::string_view model) const;

  // The cost of `tokens` at `price`, in USD, as ccusage computes it.
  static double cost(const ModelPrice& price, const TokenCounts& tokens);

  std::size_t size() const { return m_models.size(); }

 private:
  std::vector<std::pair<std::string, ModelPrice>> m_models;  // in the file's order
  std::unordered_map<std::string, std::size_t> m_index;
  mutable std::unordered_map<std::string, const ModelPrice*> m_found;
};

}  // namespace convo
