// render: a session as a page people read, not JSON. HTML (one self-contained file:
// CSS inline, no script, no network) or GitHub-flavoured Markdown.
//
// Rendering streams: records are written as they are read, in file order, so memory
// holds one record (and the tool names of the session's calls), however long the
// session. A tool result is written where it was recorded, linked to its call both
// ways; a subagent is written nested where it was started: Claude Code 1.0's
// isSidechain records in place, and a later Claude Code's subagent file
// (<session>/subagents/agent-<agentId>.jsonl, named by the `toolUseResult.agentId` of
// the Task/Agent call's result) right after that result, both linked to the call.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "pipeline.h"

namespace convo {

class Output;
class PageWriter;

struct RenderOptions {
  enum class Style : std::uint8_t { html, markdown };
  Style style = Style::html;
  // A tool call's input or a tool result longer than this many lines (or 40 times as
  // many bytes) is collapsed.
  std::size_t collapse_lines = 12;
};

// What a rendered session was, for an index page.
struct RenderedSession {
  std::string name;          // the input's name
  std::string first_prompt;  // the first thing the user typed, on one line, shortened
  std::string start, end;    // first and last timestamps, as recorded
  std::uint64_t messages = 0;  // turn records written (subagents' included)
};

// Writes pages to `out`: a document holds sessions, a session holds records.
class Renderer {
 public:
  Renderer(const RenderOptions& options, Output& out);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  void begin_document(const std::string& title);
  // `path` is the session's file, where its subagent files are looked for ("" or "-":
  // none are).
  void begin_session(const std::string& name, const std::string& path);
  void put(const Message& message);
  RenderedSession end_session();
  void end_document();
  // An index page's list: one entry per session, linking to `links[i]`.
  void index(const std::vector<RenderedSession>& sessions, const std::vector<std::string>& links);

  // Reads `path` (a session file) through `read` and renders every record of it.
  void put_file(const std::string& path, const ReadOptions& read, Diagnostics& diagnostics);

 private:
  void put_blocks(const Message& message);
  void subagent_file(const Message& message);
  void close_sidechain();
  void nest_file(const std::string& file, const std::string& label, std::string_view call_id);
  void unlinked_subagent_files();

  const RenderOptions& m_options;
  std::unique_ptr<PageWriter> m_writer;
  // The session being written.
  std::string m_path;
  const ReadOptions* m_read = nullptr;
  Diagnostics* m_diagnostics = nullptr;
  RenderedSession m_summary;
  std::vector<std::pair<std::string, std::string>> m_tool_names;  // call id -> name
  std::vector<std::string> m_nested;  // subagent files nested so far
  std::string m_last_agent_call;  // the latest Task/Agent call's id
  int m_depth = 0;                // subagent files being read inside each other
  int m_records = 0;              // records seen of the current file
  bool m_file_is_sidechain = false;  // the file is a subagent's own log
  bool m_in_sidechain = false;       // inside a run of isSidechain records
  int m_session = 0;                 // sessions begun in the document
};

// Renders every session in `paths` (directories expanded; a subagent's file beside
// its session is nested there, not rendered apart) as one page to `out`.
void render_inputs(const std::vector<std::string>& paths, const RenderOptions& options,
                   const ReadOptions& read, Output& out, Diagnostics& diagnostics);

// Renders each session in `paths` to a page of its own in `dir` (created if missing),
// named after its file (`<stem>.html` or `.md`, `-2`, `-3`, ... when taken), and an
// index of them (`index.html` or `index.md`). Returns the number of pages written.
std::size_t render_pages(const std::vector<std::string>& paths, const RenderOptions& options,
                         const ReadOptions& read, const std::string& dir,
                         Diagnostics& diagnostics);

// A sink that renders each input given to it as a page of its own (fuzzing, tests).
SinkFactory render_sink(std::shared_ptr<const RenderOptions> options);

}  // namespace convo
