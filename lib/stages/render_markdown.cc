// render's Markdown: GitHub-flavoured, to read on a code forge. Turns are headed
// sections; what people write is written as the Markdown it usually is, with raw
// HTML neutralised ('<' as &lt; outside code) and any code fence left open closed,
// so that one message cannot swallow or restyle the rest of the page. Tool input
// and results are fenced with more backticks than they hold; long ones, thinking
// and subagents are collapsed in <details> (GitHub renders Markdown inside).
#include <algorithm>
#include <string>

#include "io/output.h"
#include "stages/render_writer.h"

namespace convo {

namespace {

void html_escape_into(std::string_view text, std::string& out) {
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\0': out += "\xEF\xBF\xBD"; break;
      default: out.push_back(c);
    }
  }
}

std::size_t longest_run(std::string_view text, char c) {
  std::size_t longest = 0;
  std::size_t run = 0;
  for (char d : text) {
    run = d == c ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// `text` as a code block: a backtick fence longer than any run of backticks in it.
void fence_into(std::string_view text, std::string_view info, std::string& out) {
  std::string fence(std::max<std::size_t>(3, longest_run(text, '`') + 1), '`');
  out += fence;
  out += info;
  out += '\n';
  for (char c : text) {
    out += c == '\0' ? std::string_view("\xEF\xBF\xBD") : std::string_view(&c, 1);
  }
  if (!text.empty() && text.back() != '\n') {
    out += '\n';
  }
  out += fence;
  out += "\n\n";
}

// `text` as an inline code span, on one line.
void code_span_into(std::string_view text, std::string& out) {
  std::string one;
  for (char c : text) {
    one += (c == '\n' || c == '\r') ? ' ' : c == '\0' ? '?' : c;
  }
  std::string ticks(longest_run(one, '`') + 1, '`');
  bool pad = one.empty() || one.front() == '`' || one.back() == '`';
  out += ticks;
  out += pad ? " " : "";
  out += one;
  out += pad ? " " : "";
  out += ticks;
}

// A fence opening or closing line: up to 3 spaces, then 3 or more ` or ~.
std::size_t fence_at(std::string_view line, char& mark) {
  std::size_t i = 0;
  while (i < 3 && i < line.size() && line[i] == ' ') {
    ++i;
  }
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) {
    return 0;
  }
  mark = line[i];
  std::size_t n = 0;
  while (i + n < line.size() && line[i + n] == mark) {
    ++n;
  }
  return n >= 3 ? n : 0;
}

// Prose as Markdown: '<' outside code written &lt; (no raw HTML), a fence left
// open closed at the end.
void prose_into(std::string_view text, std::string& out) {
  char open_mark = 0;
  std::size_t open_length = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    char mark = 0;
    std::size_t length = fence_at(line, mark);
    if (open_length > 0) {
      if (length >= open_length && mark == open_mark) {
        open_length = 0;
      }
      for (char c : line) {
        out += c == '\0' ? std::string_view("\xEF\xBF\xBD") : std::string_view(&c, 1);
      }
      out += '\n';
      continue;
    }
    if (length > 0) {
      open_mark = mark;
      open_length = length;
      out += line;
      out += '\n';
      continue;
    }
    for (std::size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (c == '`') {
        std::size_t run = 1;
        while (i + run < line.size() && line[i + run] == '`') {
          ++run;
        }
        // A code span ends at a run of as many backticks on the same line.
        std::size_t close = i + run;
        bool found = false;
        while ((close = line.find('`', close)) != std::string_view::npos) {
          std::size_t n = 1;
          while (close + n < line.size() && line[close + n] == '`') {
            ++n;
          }
          if (n == run) {
            found = true;
            break;
          }
          close += n;
        }
        if (found) {
          std::size_t stop = close + run;
          for (std::size_t k = i; k < stop; ++k) {
            out += line[k] == '\0' ? '?' : line[k];
          }
          i = stop - 1;
        } else {
          out.append(run, '`');
          i += run - 1;
        }
      } else if (c == '<') {
        out += "&lt;";
      } else if (c == '\0') {
        out += "\xEF\xBF\xBD";
      } else {
        out += c;
      }
    }
    out += '\n';
  }
  if (open_length > 0) {
    out.append(open_length, open_mark);
    out += '\n';
  }
  out += '\n';
}

class MarkdownWriter final : public PageWriter {
 public:
  MarkdownWriter(const RenderOptions& options, Output& out) : m_options(options), m_out(out) {}

  void begin_document(std::string_view) override {}
  void end_document() override { flush(); }

  void begin_session(int session, std::string_view name) override {
    m_session = session;
    m_buf += "# ";
    code_span_into(name, m_buf);
    m_buf += "\n\n";
    flush();
  }
  void end_session() override { flush(); }

  void begin_message(std::string_view role, std::string_view label, std::string_view timestamp,
                     std::string_view model) override {
    m_buf += "### ";
    html_escape_into(label, m_buf);
    if (!model.empty()) {
      m_buf += " · ";
      code_span_into(model, m_buf);
    }
    if (!timestamp.empty()) {
      m_buf += " · ";
      html_escape_into(timestamp, m_buf);
    }
    m_buf += "\n\n";
    m_collapse = role == "compact" || role == "meta";
    if (m_collapse) {
      m_buf += role == "compact"
                   ? "<details><summary>Summary of the conversation before it</summary>\n\n"
                   : "<details><summary>Meta</summary>\n\n";
    }
  }

  void end_message() override {
    if (m_collapse) {
      m_buf += "</details>\n\n";
    }
    flush();
  }

  void text(std::string_view text) override {
    if (!text.empty()) {
      prose_into(text, m_buf);
    }
  }

  void thinking(std::string_view text) override {
    m_buf += "<details><summary>Thinking</summary>\n\n";
    prose_into(text, m_buf);
    m_buf += "</details>\n\n";
  }

  void tool_call(std::string_view id, std::string_view name, std::string_view input) override {
    bool collapse = render_is_long(input, m_options.collapse_lines);
    anchor(id, "call-");
    if (collapse) {
      m_buf += "<details><summary>Tool call <code>";
      html_escape_into(name, m_buf);
      m_buf += "</code></summary>\n\n";
    } else {
      m_buf += "**Tool call** ";
      code_span_into(name, m_buf);
      m_buf += "\n\n";
    }
    fence_into(input, "json", m_buf);
    if (collapse) {
      m_buf += "</details>\n\n";
    }
  }

  void begin_tool_result(std::string_view id, std::string_view name, std::string_view content,
                         bool is_error) override {
    m_result_collapsed = render_is_long(content, m_options.collapse_lines);
    anchor(id, "result-");
    std::string_view what = is_error ? "Error from" : "Result of";
    if (m_result_collapsed) {
      auto lines = std::count(content.begin(), content.end(), '\n') + 1;
      m_buf += "<details><summary>";
      m_buf += what;
      m_buf += " <code>";
      html_escape_into(name, m_buf);
      m_buf += "</code> (" + std::to_string(lines) + (lines == 1 ? " line)" : " lines)");
      m_buf += "</summary>\n\n";
    } else {
      m_buf += "**";
      m_buf += what;
      m_buf += "** ";
      if (!id.empty()) {
        m_buf += "[";
        code_span_into(name.empty() ? std::string_view("the call") : name, m_buf);
        m_buf += "](#";
        anchor_name(id, "call-");
        m_buf += ")";
      } else {
        code_span_into(name, m_buf);
      }
      m_buf += "\n\n";
    }
    if (!content.empty()) {
      fence_into(content, "", m_buf);
    }
  }

  void end_tool_result() override {
    if (m_result_collapsed) {
      m_buf += "</details>\n\n";
    }
  }

  void image(const MediaSource& source) override {
    std::string url = source.to_url();
    bool safe_scheme = url.starts_with("data:image/") || url.starts_with("https://") ||
                       url.starts_with("http://");
    if (url.empty() || !safe_scheme) {
      other(source.media_type.empty() ? std::string("image") : "image: " + source.media_type);
      return;
    }
    m_buf += source.type == MediaSource::Type::base64 ? "![image](<" : "[image](<";
    for (char c : url) {
      switch (c) {
        case '<': m_buf += "%3C"; break;
        case '>': m_buf += "%3E"; break;
        case '\n': case '\r': break;
        case ' ': m_buf += "%20"; break;
        default: m_buf += c;
      }
    }
    m_buf += ">)\n\n";
  }

  void other(std::string_view what) override {
    m_buf += "_[";
    html_escape_into(what, m_buf);
    m_buf += "]_\n\n";
  }

  void marker(std::string_view kind, std::string_view text) override {
    if (kind == "compaction") {
      m_buf += "---\n\n**";
      html_escape_into(text, m_buf);
      m_buf += "**\n\n---\n\n";
    } else {
      m_buf += "> **Interrupted:** ";
      html_escape_into(text, m_buf);
      m_buf += "\n\n";
    }
    flush();
  }

  void begin_subagent(std::string_view label, std::string_view call_id) override {
    m_buf += "<details><summary>";
    html_escape_into(label, m_buf);
    m_buf += "</summary>\n\n";
    if (!call_id.empty()) {
      m_buf += "_Started by [its call](#";
      anchor_name(call_id, "call-");
      m_buf += ")._\n\n";
    }
    flush();
  }

  void end_subagent() override {
    m_buf += "</details>\n\n";
    flush();
  }

  void index(const std::vector<RenderedSession>& sessions,
             const std::vector<std::string>& links) override {
    m_buf += "# Sessions\n\n| Session | First prompt | Start | End | Messages |\n"
             "| --- | --- | --- | --- | ---: |\n";
    auto cell = [&](std::string_view text) {
      for (char c : text) {
        if (c == '|' || c == '[' || c == ']') {
          m_buf += '\\';
          m_buf += c;
        } else if (c == '\n') {
          m_buf += ' ';
        } else if (c == '<') {
          m_buf += "&lt;";
        } else {
          m_buf += c;
        }
      }
    };
    for (std::size_t i = 0; i < sessions.size(); ++i) {
      const RenderedSession& s = sessions[i];
      m_buf += "| [";
      cell(s.name);
      m_buf += "](<";
      cell(links[i]);
      m_buf += ">) | ";
      cell(s.first_prompt);
      m_buf += " | ";
      cell(s.start);
      m_buf += " | ";
      cell(s.end);
      m_buf += " | " + std::to_string(s.messages) + " |\n";
    }
    m_buf += '\n';
    flush();
  }

 private:
  // An anchor target: <a id="..."></a> on its own line before the thing.
  void anchor(std::string_view id, std::string_view prefix) {
    if (id.empty()) {
      return;
    }
    m_buf += "<a id=\"";
    anchor_name(id, prefix);
    m_buf += "\"></a>\n\n";
  }
  void anchor_name(std::string_view id, std::string_view prefix) {
    static constexpr char k_hex[] = "0123456789abcdef";
    m_buf += 's';
    m_buf += std::to_string(m_session);
    m_buf += '-';
    m_buf += prefix;
    for (char c : id) {
      auto u = static_cast<unsigned char>(c);
      if (std::isalnum(u) != 0 || c == '-') {
        m_buf += c;
      } else {
        m_buf += '_';
        m_buf += k_hex[u >> 4];
        m_buf += k_hex[u & 15];
      }
    }
  }

  void flush() {
    m_out.write(m_buf);
    m_buf.clear();
  }

  const RenderOptions& m_options;
  Output& m_out;
  std::string m_buf;
  int m_session = 0;
  bool m_collapse = false;
  bool m_result_collapsed = false;
};

}  // namespace

std::unique_ptr<PageWriter> make_markdown_writer(const RenderOptions& options, Output& out) {
  return std::make_unique<MarkdownWriter>(options, out);
}

}  // namespace convo
