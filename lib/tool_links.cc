#include "tool_links.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "error.h"

namespace convo {

namespace {

struct Call {
  std::size_t message = 0;
  bool answered = false;
};

}  // namespace

ToolLinks link_tools(std::span<const Message> conversation) {
  ToolLinks out;
  std::vector<Call> calls;  // every call, in order
  std::unordered_map<std::string_view, std::size_t> latest;  // id -> its latest call
  for (std::size_t i = 0; i < conversation.size(); ++i) {
    const Message& message = conversation[i];
    if (!message.is_turn() || !message.content.is_blocks()) {
      continue;
    }
    bool orphan = false;
    // Results first: a message cannot answer a call it makes itself.
    for (const Block& block : message.content.blocks) {
      if (block.type != BlockType::tool_result) {
        continue;
      }
      auto it = block.id.empty() ? latest.end() : latest.find(block.id);
      if (it == latest.end()) {
        orphan = true;
        continue;
      }
      Call& call = calls[it->second];
      call.answered = true;
      out.links.push_back({call.message, i, it->first});
    }
    if (orphan) {
      out.orphan_results.push_back(i);
    }
    for (const Block& block : message.content.blocks) {
      if (block.type != BlockType::tool_use || block.id.empty()) {
        continue;
      }
      latest[block.id] = calls.size();
      calls.push_back({i, false});
    }
  }
  for (const Call& call : calls) {
    if (!call.answered &&
        (out.unanswered_calls.empty() || out.unanswered_calls.back() != call.message)) {
      out.unanswered_calls.push_back(call.message);
    }
  }
  return out;
}

std::vector<BlockAt> duplicate_tool_uses(std::span<const Message> conversation) {
  std::vector<BlockAt> out;
  std::unordered_set<std::string_view> seen;
  for (std::size_t i = 0; i < conversation.size(); ++i) {
    const Message& message = conversation[i];
    if (!message.is_turn() || !message.content.is_blocks()) {
      continue;
    }
    for (std::size_t b = 0; b < message.content.blocks.size(); ++b) {
      const Block& block = message.content.blocks[b];
      if (block.type == BlockType::tool_use && !seen.insert(block.id).second) {
        out.push_back({i, b});
      }
    }
  }
  return out;
}

bool same_response(const Message& a, const Message& b) {
  return a.is_turn() && b.is_turn() && a.role == Role::assistant && b.role == Role::assistant &&
         !a.meta->message_id.empty() && a.meta->message_id == b.meta->message_id;
}

std::vector<std::size_t> response_starts(std::span<const Message> conversation) {
  std::vector<std::size_t> starts(conversation.size());
  std::unordered_map<std::string_view, std::size_t> first;
  for (std::size_t i = 0; i < conversation.size(); ++i) {
    const Message& message = conversation[i];
    starts[i] = i;
    if (message.is_turn() && message.role == Role::assistant &&
        !message.meta->message_id.empty()) {
      starts[i] = first.try_emplace(message.meta->message_id, i).first->second;
    }
  }
  return starts;
}

std::vector<AtomicUnit> atomic_units(std::span<const Message> conversation) {
  AtomicUnitBuilder builder;
  builder.reserve(conversation.size());
  for (const Message& message : conversation) {
    builder.add(message);
  }
  return builder.finish();
}

namespace {

constexpr std::uint32_t k_turn = std::uint32_t{1} << 31;

}  // namespace

std::size_t AtomicUnitBuilder::add(const Message& message) {
  const auto i = static_cast<std::uint32_t>(m_reach.size());
  if (i >= k_turn - 1) {
    throw Error(message.where, "more than 2 billion records in one conversation");
  }
  const bool turn = message.is_turn();
  m_reach.push_back(i | (turn ? k_turn : 0));
  auto reach_to = [&](std::uint32_t from) {
    std::uint32_t& reach = m_reach[from];
    reach = (reach & k_turn) | std::max(reach & ~k_turn, i);
  };
  auto slot = [&](std::vector<std::uint32_t>& by_id, std::string_view id) -> std::uint32_t& {
    const std::uint32_t at = m_ids.intern(id);
    if (at >= by_id.size()) {
      by_id.resize(std::max<std::size_t>(m_ids.size(), by_id.size() * 2), k_none);
    }
    return by_id[at];
  };
  if (turn && message.content.is_blocks()) {
    // Results first: a message cannot answer a call it makes itself (link_tools).
    for (const Block& block : message.content.blocks) {
      if (block.type == BlockType::tool_result && !block.id.empty()) {
        if (const std::uint32_t call = slot(m_call, block.id); call != k_none) {
          reach_to(call);
        }
      }
    }
    for (const Block& block : message.content.blocks) {
      if (block.type == BlockType::tool_use && !block.id.empty()) {
        slot(m_call, block.id) = i;
      }
    }
  }
  // The records of one response reach its last.
  if (turn && message.role == Role::assistant && !message.meta->message_id.empty()) {
    std::uint32_t& first = slot(m_response, message.meta->message_id);
    if (first == k_none) {
      first = i;
    }
    reach_to(first);
    return first;
  }
  return i;
}

std::vector<AtomicUnit> AtomicUnitBuilder::finish() {
  const std::size_t n = m_reach.size();
  std::vector<AtomicUnit> units;
  if (n > 0) {
    // Room for a unit a record, of which only the pages used are ever touched: no
    // copy of the units as they grow beside a conversation held whole.
    units.reserve(n);
  }
  auto reach = [&](std::size_t i) -> std::size_t { return m_reach[i] & ~k_turn; };
  // Sweep: a run ends where nothing before it reaches further. Runs without a
  // turn (bookkeeping records) join the run before them, or the next one at the
  // start of the input.
  std::size_t i = 0;
  while (i < n) {
    std::size_t start = i;
    std::size_t end = reach(i);
    AtomicUnit unit;
    for (; i <= end; ++i) {
      end = std::max(end, reach(i));
      if ((m_reach[i] & k_turn) != 0) {
        if (unit.turns == 0) {
          unit.first_turn = static_cast<std::uint32_t>(i);
        }
        unit.last_turn = static_cast<std::uint32_t>(i);
        ++unit.turns;
      }
    }
    if (unit.turns == 0) {
      if (!units.empty()) {
        units.back().end = static_cast<std::uint32_t>(i);
      }
      continue;  // leading riders wait for the first turn
    }
    unit.begin = units.empty() ? 0 : static_cast<std::uint32_t>(start);
    unit.end = static_cast<std::uint32_t>(i);
    units.push_back(unit);
  }
  if (units.empty() && n > 0) {
    // No turn at all: everything is one run.
    AtomicUnit all;
    all.end = static_cast<std::uint32_t>(n);
    units.push_back(all);
  }
  std::vector<std::uint32_t>().swap(m_reach);
  std::vector<std::uint32_t>().swap(m_call);
  std::vector<std::uint32_t>().swap(m_response);
  m_ids.clear();
  return units;
}

std::string_view answered_call(const Block& block) {
  return block.type == BlockType::tool_result ? std::string_view(block.id) : std::string_view();
}

std::string_view owning_call(const Message& message) {
  if (message.kind == Kind::turn) {
    return {};
  }
  return message.meta->tool_use_id;
}

}  // namespace convo
