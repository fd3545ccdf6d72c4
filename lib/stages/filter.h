// filter: keeps or drops records by type, name and id with LangChain's rules
// (filter_messages), and removes tool calls together with their results.
// Streaming: a record is decided when it arrives and nothing is held back.
#pragma once

#include <deque>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "message_types.h"
#include "pipeline.h"

namespace convo {

// A set of strings looked up by string_view (names, ids).
using NameSet = std::set<std::string, std::less<>>;

struct FilterOptions {
  // LangChain's rules: a record matching any exclusion is dropped; then, when any
  // include list is given, a record is kept only if it matches one of them (by
  // name, by type or by id); with no include list everything else is kept.
  TypeSet include_types;
  TypeSet exclude_types;
  NameSet include_names;
  NameSet exclude_names;
  NameSet include_ids;  // a record's id, or its API response id (Claude Code message.id)
  NameSet exclude_ids;

  // --exclude-tool-calls: remove every tool call (`all_tool_calls`), or the calls
  // whose id or tool name is in `tool_calls`, together with the tool results that
  // answer them and the Claude Code progress and system records that belong to them.
  bool all_tool_calls = false;
  NameSet tool_calls;

  bool excludes_tool_calls() const { return all_tool_calls || !tool_calls.empty(); }
};

// The filter stage. Records it keeps whole are passed on untouched (so they are
// written as their original bytes); a record that loses tool calls or results is
// marked modified, and dropped when nothing is left of it. Bad lines kept by
// --on-error keep always pass. Memory: the ids of the calls excluded by tool name
// (so that their results, which come later, can be found), or with
// `all_tool_calls` those of the latest 4096 calls (for their progress records).
class Filter final : public StreamStage {
 public:
  explicit Filter(FilterOptions options);

  void push(Message&& message, MessageSink& next) override;

 private:
  // LangChain's keep-or-drop decision for the record as read.
  bool selected(const Message& message) const;
  // Removes the excluded tool calls and results from a turn (only notes the ids of
  // excluded calls when `edit` is false). Returns false when nothing is left of it.
  bool strip_tool_calls(Message& message, bool edit);
  bool call_excluded(const Block& call) const;
  // Notes the id of an excluded call, for its results and progress records.
  void remember(const std::string& call);
  bool result_excluded(const Block& result) const;

  FilterOptions m_options;
  bool m_has_include = false;
  // How many of the latest calls are remembered when every call is removed.
  static constexpr std::size_t k_recent_calls = 4096;

  NameSet m_excluded_calls;  // ids of excluded calls seen so far
  std::deque<std::string> m_recent_calls;  // with all_tool_calls: the latest, oldest first
};

}  // namespace convo
