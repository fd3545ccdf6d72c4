// convo sessions: one line per conversation of the inputs: its id, when it ran,
// how many messages and tokens, the model, working directory, git branch and first
// prompt; optionally only those that mention a text or whose tools touched a path.
//
// A streaming stage feeding a list: `SessionsStage` passes nothing on and hands
// each record to a `SessionList`, which keeps one small summary per session (and
// the ids of its responses, to count split ones once), never the records.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "message.h"
#include "pipeline.h"

namespace convo {

struct SessionsOptions {
  std::string grep;      // only sessions whose text contains this (empty: all)
  std::string touching;  // only sessions whose tool calls touched this path (empty: all)
};

// What one session is, as listed.
struct SessionSummary {
  std::string id;                          // sessionId, or the file's name without extensions
  std::string file;                        // the first file it was read from
  std::optional<std::int64_t> start, end;  // first and last timestamps, ms
  std::uint64_t messages = 0;              // user and assistant turns, subagents' too
  std::uint64_t tokens = 0;  // recorded usage: input + output + cache, once a response
  std::string model;         // the model of most responses ("" when none)
  std::string cwd, git_branch;
  std::string first_prompt;  // the first real user text, on one line
  bool matched_grep = false, matched_touching = false;
};

// True when a tool call with `input` (JSON text or a parsed object) touched `path`:
// its `file_path`, `path` or `notebook_path` is `path`, lies below it, or ends with
// "/" + `path`; for a `command` (Bash), any word of it does.
bool touches(const Block& tool_use, std::string_view path);

// The first prompt as listed: whitespace runs made one space, at most 200 bytes.
std::string one_line(std::string_view text);

class SessionList {
 public:
  explicit SessionList(SessionsOptions options) : m_options(std::move(options)) {}

  void add(const Message& record);
  void end_input() { m_current.clear(); }
  // The sessions that match the options, by start time (undated last).
  std::vector<SessionSummary> sessions() const;

 private:
  struct Held {
    SessionSummary summary;
    std::unordered_map<std::uint64_t, std::uint64_t> responses;  // id hash -> tokens counted
    std::unordered_map<std::string, std::uint64_t> models;
    // From subagent records, for a session whose main thread is not among the
    // inputs (a subagent's file alone).
    std::string side_prompt, side_cwd, side_branch;
  };
  SessionsOptions m_options;
  std::vector<Held> m_sessions;
  std::unordered_map<std::string, std::size_t> m_index;
  std::string m_current;  // the session of the input's last record that named one
};

class SessionsStage final : public StreamStage {
 public:
  explicit SessionsStage(std::shared_ptr<SessionList> list) : m_list(std::move(list)) {}
  void push(Message&& message, MessageSink& next) override;
  void finish(MessageSink& next) override;

 private:
  std::shared_ptr<SessionList> m_list;
};

// One object per session, one per line, in a JSON array.
std::string sessions_json(const std::vector<SessionSummary>& sessions);
// An aligned table: ID, START, DURATION, MSGS, TOKENS, MODEL, BRANCH, CWD, FIRST PROMPT.
std::string sessions_table(const std::vector<SessionSummary>& sessions);

}  // namespace convo
