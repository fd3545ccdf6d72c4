// The two page writers of render (HTML and Markdown): the Renderer decides what is
// on the page and in what order, a PageWriter how it looks. Everything given here
// is text as recorded: writers escape it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "message.h"
#include "stages/render.h"

namespace convo {

class PageWriter {
 public:
  virtual ~PageWriter() = default;

  virtual void begin_document(std::string_view title) = 0;
  virtual void end_document() = 0;
  // `session` numbers the sessions of a document (anchors stay unique).
  virtual void begin_session(int session, std::string_view name) = 0;
  virtual void end_session() = 0;

  // One record: `role` is its class ("user", "assistant", "system", "tool",
  // "compact", "meta"), `label` what is shown ("User", ...).
  virtual void begin_message(std::string_view role, std::string_view label,
                             std::string_view timestamp, std::string_view model) = 0;
  virtual void end_message() = 0;

  virtual void text(std::string_view text) = 0;
  virtual void thinking(std::string_view text) = 0;  // collapsed
  virtual void tool_call(std::string_view id, std::string_view name, std::string_view input) = 0;
  // `content`: the result's text; its images follow as `image` calls before
  // `end_tool_result`.
  virtual void begin_tool_result(std::string_view id, std::string_view name,
                                 std::string_view content, bool is_error) = 0;
  virtual void end_tool_result() = 0;
  virtual void image(const MediaSource& source) = 0;
  // A block shown by its type only: [redacted_thinking], [document: application/pdf].
  virtual void other(std::string_view what) = 0;

  // A mark between records: compaction, an interrupt.
  virtual void marker(std::string_view kind, std::string_view text) = 0;

  // A subagent, nested, linked to the call that started it (`call_id`, may be empty).
  virtual void begin_subagent(std::string_view label, std::string_view call_id) = 0;
  virtual void end_subagent() = 0;

  virtual void index(const std::vector<RenderedSession>& sessions,
                     const std::vector<std::string>& links) = 0;
};

std::unique_ptr<PageWriter> make_html_writer(const RenderOptions& options, Output& out);
std::unique_ptr<PageWriter> make_markdown_writer(const RenderOptions& options, Output& out);

// Whether `text` should be collapsed: more than `lines` lines or 40 * `lines` bytes.
bool render_is_long(std::string_view text, std::size_t lines);
// `text` on one line (runs of white space as one space), cut to `limit` bytes at a
// character boundary with "…".
std::string render_one_line(std::string_view text, std::size_t limit);

}  // namespace convo
