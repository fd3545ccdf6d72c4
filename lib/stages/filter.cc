#include "stages/filter.h"

#include <algorithm>

#include "tool_links.h"

namespace convo {

namespace {

bool contains(const NameSet& set, std::string_view value) {
  return !value.empty() && set.find(value) != set.end();
}

bool id_in(const NameSet& ids, const Message& message) {
  return contains(ids, message.id) || contains(ids, message.meta->message_id);
}

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// True when a turn has nothing left worth sending: no block, or only blank text.
bool nothing_left(const Content& content) {
  return std::all_of(content.blocks.begin(), content.blocks.end(), [](const Block& block) {
    return block.type == BlockType::text && is_blank(block.text);
  });
}

}  // namespace

Filter::Filter(FilterOptions options) : m_options(std::move(options)) {
  m_has_include = !m_options.include_types.empty() || !m_options.include_names.empty() ||
                  !m_options.include_ids.empty();
}

bool Filter::selected(const Message& message) const {
  const FilterOptions& o = m_options;
  if (contains(o.exclude_names, message.name) || o.exclude_types.matches(message) ||
      id_in(o.exclude_ids, message)) {
    return false;
  }
  if (!m_has_include) {
    return true;
  }
  return contains(o.include_names, message.name) || o.include_types.matches(message) ||
         id_in(o.include_ids, message);
}

bool Filter::call_excluded(const Block& call) const {
  return m_options.all_tool_calls || contains(m_options.tool_calls, call.id) ||
         contains(m_options.tool_calls, call.name);
}

bool Filter::result_excluded(const Block& result) const {
  std::string_view call = answered_call(result);
  return m_options.all_tool_calls || contains(m_options.tool_calls, call) ||
         contains(m_excluded_calls, call) || contains(m_options.tool_calls, result.name);
}

void Filter::remember(const std::string& call) {
  if (!m_excluded_calls.insert(call).second || !m_options.all_tool_calls) {
    return;
  }
  // With every call removed, results need no memory (they all go); only the
  // progress and system records of a call do, and they follow it closely (hooks
  // run just after its result), so a window of recent calls keeps memory flat.
  m_recent_calls.push_back(call);
  if (m_recent_calls.size() > k_recent_calls) {
    m_excluded_calls.erase(m_recent_calls.front());
    m_recent_calls.pop_front();
  }
}

bool Filter::strip_tool_calls(Message& message, bool edit) {
  if (!message.content.is_blocks()) {
    return true;
  }
  std::vector<Block>& blocks = message.content.blocks;
  bool removed = false;
  for (const Block& block : blocks) {
    if (block.type == BlockType::tool_use && call_excluded(block)) {
      // Results and progress records name the call by id; a call excluded by its
      // tool name (or by "all") is remembered so that they can be found later.
      if (!block.id.empty() && !contains(m_options.tool_calls, block.id)) {
        remember(block.id);
      }
      removed = true;
    } else if (block.type == BlockType::tool_result && result_excluded(block)) {
      removed = true;
    }
  }
  if (!removed || !edit) {
    return true;
  }
  std::erase_if(blocks, [&](const Block& block) {
    return (block.type == BlockType::tool_use && call_excluded(block)) ||
           (block.type == BlockType::tool_result && result_excluded(block));
  });
  if (nothing_left(message.content)) {
    return false;
  }
  message.touch();
  return true;
}

void Filter::push(Message&& message, MessageSink& next) {
  if (message.kind == Kind::invalid) {
    next.put(std::move(message));
    return;
  }
  bool keep = selected(message);
  if (m_options.excludes_tool_calls()) {
    if (message.kind == Kind::turn) {
      keep = strip_tool_calls(message, keep) && keep;
    } else {
      std::string_view call = owning_call(message);
      keep = keep && !contains(m_options.tool_calls, call) && !contains(m_excluded_calls, call);
    }
  }
  if (keep) {
    next.put(std::move(message));
  }
}

}  // namespace convo
