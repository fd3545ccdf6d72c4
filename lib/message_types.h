// The names users give kinds of messages in --include-types, --exclude-types,
// --start-on, --end-on: LangChain's message types, their OpenAI aliases, Claude
// Code's record kinds, and envelope flags. One vocabulary for every subcommand.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "message.h"

namespace convo {

// A set of type names, as given on the command line ("human,ai,progress").
class TypeSet {
 public:
  TypeSet() = default;

  // Parses a comma-separated list. Throws convo::Error (ExitCode::usage) for an
  // unknown name, with a "did you mean" hint.
  static TypeSet parse(std::string_view list);

  bool empty() const { return m_names.empty(); }
  // True when `message` has any of the types in the set.
  bool matches(const Message& message) const;
  const std::vector<std::string>& names() const { return m_names; }

 private:
  std::vector<std::string> m_names;
};

// True when `message` is of type `type` (a name from `type_vocabulary()`):
//   human, user     a user turn that is not only tool results
//   ai, assistant   an assistant turn
//   system          a system or developer message (LangChain's SystemMessage)
//   developer       an OpenAI developer message
//   tool            a tool message, or a user turn holding only tool_result blocks
//   function        OpenAI legacy function messages
//   chat, generic   turns with a custom role (LangChain ChatMessage; "generic" is
//                   LangChain.js's name for it)
//   remove          LangChain/Synaptic RemoveMessage
//   turn            any conversation turn, whatever its role
//   event           a Claude Code `system` record (notices, compact boundaries, ...)
//   progress, attachment, summary, bookkeeping, unknown
//                   other Claude Code record kinds (bookkeeping: snapshots, queue
//                   operations, titles, ...); Claude Code record type names such as
//                   file-history-snapshot match that type exactly
//   meta, sidechain, compact-summary, api-error
//                   Claude Code envelope flags, on records of any kind
bool has_type(const Message& message, std::string_view type);

// Every accepted type name, for help texts and hints.
const std::vector<std::string>& type_vocabulary();

// True for a user turn whose content is tool_result blocks and nothing else.
bool is_tool_result_turn(const Message& message);

}  // namespace convo
