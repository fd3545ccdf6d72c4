#include "stages/budgets.h"

#include "prices.h"
#include "stages/usage.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace convo {

std::uint64_t usage_tokens(const Usage& usage) {
  auto n = [](const std::optional<std::int64_t>& v) {
    return v && *v > 0 ? static_cast<std::uint64_t>(*v) : std::uint64_t{0};
  };
  if (!usage.input && !usage.output && !usage.cache_read && !usage.cache_write) {
    return n(usage.total);
  }
  return n(usage.input) + n(usage.output) + n(usage.cache_read) + n(usage.cache_write);
}

void check_budgets(const std::vector<Message>& conversation, const BudgetOptions& options,
                   std::vector<Problem>& out) {
  std::uint64_t tokens = 0;
  std::uint64_t errors = 0;
  bool over_tokens = false;
  bool over_errors = false;
  std::unordered_set<std::string> responses;
  double spent = 0;
  bool over_cost = false;
  std::unordered_map<std::string, double> costs;  // a response's cost counted so far
  for (const Message& record : conversation) {
    if (options.max_tokens && !record.usage->empty()) {
      const std::string& id = record.meta->message_id;
      if (id.empty() || responses.insert(id).second) {
        tokens += usage_tokens(record.usage);
      }
      if (!over_tokens && tokens > *options.max_tokens) {
        over_tokens = true;
        out.push_back(Problem{record.where, "max-tokens",
                              fmt::format("the conversation has used {} tokens by here, over "
                                          "--max-tokens {}",
                                          tokens, *options.max_tokens)});
      }
    }
    if (options.max_cost && !record.usage->empty()) {
      double cost = usage_cost(usage_count(record), record.usage->cost, record.meta->model,
                               PriceTable::builtin());
      const RecordMeta& e = *record.meta;
      if (e.message_id.empty()) {
        spent += cost;
      } else {
        // A split response: its largest cost, as `convo usage` counts its largest counts.
        auto [it, added] = costs.emplace(e.message_id + '\n' + e.request_id, cost);
        if (added) {
          spent += cost;
        } else if (cost > it->second) {
          spent += cost - it->second;
          it->second = cost;
        }
      }
      if (!over_cost && spent > *options.max_cost) {
        over_cost = true;
        out.push_back(Problem{record.where, "max-cost",
                              fmt::format("the conversation has cost ${:.4f} by here, over "
                                          "--max-cost {}",
                                          spent, *options.max_cost)});
      }
    }
    for (const Block& block : record.content.blocks) {
      if (block.type == BlockType::tool_use && !options.forbid_tools.empty() &&
          std::find(options.forbid_tools.begin(), options.forbid_tools.end(), block.name) !=
              options.forbid_tools.end()) {
        out.push_back(Problem{record.where, "forbidden-tool",
                              fmt::format("tool {} is called (id {})", block.name, block.id)});
      }
      if (block.type == BlockType::tool_result && block.is_error.value_or(false) &&
          options.max_tool_errors) {
        ++errors;
        if (!over_errors && errors > *options.max_tool_errors) {
          over_errors = true;
          out.push_back(Problem{record.where, "max-tool-errors",
                                fmt::format("{} failed tool calls by here, over "
                                            "--max-tool-errors {}",
                                            errors, *options.max_tool_errors)});
        }
      }
    }
  }
}

}  // namespace convo
