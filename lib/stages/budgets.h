// Budgets and policies for `convo check`, per conversation: a token budget from
// recorded usage, tools that must not be called, and a limit on failed tool calls.
// Rules max-tokens, forbidden-tool, max-tool-errors (man/convo-check.1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "message.h"
#include "stages/check.h"

namespace convo {

struct BudgetOptions {
  std::optional<std::uint64_t> max_tokens;       // recorded tokens per conversation
  std::optional<double> max_cost;                 // USD per conversation, as `convo usage` prices
  std::vector<std::string> forbid_tools;         // tool names that must not be called
  std::optional<std::uint64_t> max_tool_errors;  // failed tool results per conversation

  bool any() const { return max_tokens || max_cost || !forbid_tools.empty() || max_tool_errors; }
};

// The tokens one response's recorded usage counts: input + output + cache_read +
// cache_write (what each request is billed for; reasoning tokens are part of
// output), or `total` when only that was recorded.
std::uint64_t usage_tokens(const Usage& usage);

// The budget and policy problems of one conversation (its records in file order).
// A response split over several records (one message id) counts once (for
// max-cost with its largest counts, as `convo usage`; priced by the table shipped
// with convo). max-tokens
// is reported once, at the record that goes over; max-tool-errors likewise, at the
// error result that goes over; forbidden-tool at each call.
void check_budgets(const std::vector<Message>& conversation, const BudgetOptions& options,
                   std::vector<Problem>& out);

}  // namespace convo
