// merge-runs: consecutive conversation messages of the same role become one, as
// LangChain's merge_message_runs does, in linear time and holding back one message.
// Contents merge as in LangChain Python: two text contents (strings, or nothing)
// become one text with the separator between them when both are non-empty; in
// formats that keep tool calls apart from the content (OpenAI) the calls do not stop
// a message's text from being text, and they follow in order; any other pair of
// contents becomes the list of the first's blocks followed by the second's (a
// non-empty string becoming a text block).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipeline.h"

namespace convo {

struct MergeRunsOptions {
  // Put between the texts of two merged messages whose content is text (strings,
  // in LangChain's terms), and only when both are non-empty (LangChain Python's
  // chunk_separator).
  std::string separator = "\n";
};

// True for a conversation turn that may take part in a merge: not a tool result
// (a tool message, or a message holding tool_result blocks).
bool can_ever_merge(const Message& message);

// True when `b` may be merged into `a`, the message before it: both are turns of the
// same role (and custom role), neither is a tool result, their names are equal (and
// so are both absent), they come from the same document in the same format, and
// Claude Code's sidechain, meta, compact-summary and API-error flags and session id
// agree.
bool can_merge(const Message& a, const Message& b);

// The stage. A run's first message is held back until a turn arrives that cannot be
// merged into it. The merged message is marked modified and keeps the first
// message's fields (id, name, timestamp, Claude Code parentUuid and the members
// convo does not model), with the last message's Claude Code uuid (so records that
// name it as their parent still find it) and stop_reason, and usage summed over the
// API responses merged (the pieces of one response carry running totals, so the
// last piece of each counts). Records that are not conversation turns (progress,
// attachments, system events, summaries, ...) do not break a run: those that
// arrive while a message is held are held with it and follow it, in their order,
// so nothing moves unless something merged. Bad lines kept by --on-error keep and
// remove records break a run. Memory: one message and the records that are not
// turns between it and the next turn.
class MergeRuns final : public StreamStage {
 public:
  explicit MergeRuns(MergeRunsOptions options) : m_options(std::move(options)) {}

  void push(Message&& message, MessageSink& next) override;
  void finish(MessageSink& next) override;

 private:
  void merge(Message&& message);
  void flush(MessageSink& next);

  MergeRunsOptions m_options;
  std::optional<Message> m_held;
  bool m_held_is_text = false;     // its content is text in LangChain's terms
  std::vector<Message> m_between;  // records that are not turns, after the held message
  Usage m_usage_before;          // usage of the responses merged before the last one
  std::string m_last_response;   // API response id of the last message merged
};

}  // namespace convo
