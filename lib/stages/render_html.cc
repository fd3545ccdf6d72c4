// render's HTML: one self-contained page. CSS inline, no script: collapsing is
// <details>, so the page works with scripts off. A Content-Security-Policy allows
// nothing from outside (no fetch, no script; images only as data: URIs), so
// whatever a transcript holds, opening the page touches no network.
// Every piece of recorded text is escaped (& < > " '); images are written inline
// only from base64 data of an image/* type; URL images are links, never fetched.
// Messages are `content-visibility: auto`, so that the browser lays out only those
// near the viewport: a long session's page opens and scrolls without laying out
// every message first.
#include <algorithm>
#include <cctype>
#include <string>

#include "io/output.h"
#include "stages/render_writer.h"

namespace convo {

namespace {

constexpr std::string_view k_css = R"(
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#656d76;--line:#d0d7de;
--user:#ddf4ff;--assistant:#f6f8fa;--tool:#fff8c5;--error:#ffebe9;--side:#fbefff}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;
--line:#30363d;--user:#0c2d6b;--assistant:#161b22;--tool:#2e2a0f;--error:#4c1d1d;--side:#2a1a3a}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);
font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif}
main{max-width:60rem;margin:0 auto;padding:1rem}
h1{font-size:1.3rem;word-break:break-all}
.msg{border:1px solid var(--line);border-radius:8px;margin:.75rem 0;padding:.5rem .75rem;
background:var(--assistant);overflow-wrap:anywhere}
.msg{content-visibility:auto;contain-intrinsic-size:auto 8rem}
.msg.user{background:var(--user)}.msg.tool{background:var(--tool)}
.msg.meta,.msg.compact{opacity:.85}
.msg>header{font-size:.8rem;color:var(--muted);display:flex;gap:.5rem;flex-wrap:wrap}
.msg>header .role{font-weight:600;color:var(--fg)}
.text{white-space:pre-wrap;margin:.25rem 0}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.25rem 0;padding:.5rem;
background:var(--bg);border:1px solid var(--line);border-radius:6px;
font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
details>summary{cursor:pointer;color:var(--muted);font-size:.85rem}
.tool-call,.tool-result{margin:.35rem 0}
.tool-head{font-size:.85rem}.tool-head code{font-weight:600}
.tool-result.error pre{background:var(--error)}
.subagent{border-left:3px solid #8250df;background:var(--side);margin:.5rem 0 .5rem .5rem;
padding:.25rem .5rem;border-radius:0 8px 8px 0}
.marker{text-align:center;color:var(--muted);font-size:.85rem;margin:1rem 0;
border-top:1px dashed var(--line);padding-top:.25rem}
.marker.interrupt{color:#cf222e;border-top-color:#cf222e}
img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px}
.other{color:var(--muted);font-size:.85rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid var(--line);
padding:.35rem;text-align:left;vertical-align:top;font-size:.9rem}
a{color:#0969da}
)";

void escape_into(std::string_view text, std::string& out) {
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\0': out += "\xEF\xBF\xBD"; break;  // U+FFFD: NUL is not allowed in HTML
      default: out.push_back(c);
    }
  }
}

// A value for an id attribute: ids come from transcripts, so anything but
// [A-Za-z0-9_-] is written as _XX.
void anchor_into(std::string_view text, std::string& out) {
  static constexpr char k_hex[] = "0123456789abcdef";
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || c == '-') {
      out.push_back(c);
    } else {
      out.push_back('_');
      out.push_back(k_hex[u >> 4]);
      out.push_back(k_hex[u & 15]);
    }
  }
}

bool is_base64(std::string_view data) {
  for (char c : data) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '+' && c != '/' && c != '=' &&
        c != '\n' && c != '\r') {
      return false;
    }
  }
  return true;
}

bool is_image_type(std::string_view type) {
  if (!type.starts_with("image/") || type.size() > 64) {
    return false;
  }
  for (char c : type.substr(6)) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '+' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

class HtmlWriter final : public PageWriter {
 public:
  HtmlWriter(const RenderOptions& options, Output& out) : m_options(options), m_out(out) {}

  void begin_document(std::string_view title) override {
    m_buf.clear();
    m_buf +=
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; img-src data:\">\n"
        "<meta name=\"generator\" content=\"convo render\">\n<title>";
    escape_into(title, m_buf);
    m_buf += "</title>\n<style>";
    m_buf += k_css;
    m_buf += "</style>\n</head>\n<body>\n<main>\n";
    flush();
  }

  void end_document() override {
    m_buf += "</main>\n</body>\n</html>\n";
    flush();
  }

  void begin_session(int session, std::string_view name) override {
    m_session = session;
    m_buf += "<section class=\"session\" id=\"s" + std::to_string(session) + "\">\n<h1>";
    escape_into(name, m_buf);
    m_buf += "</h1>\n";
    flush();
  }

  void end_session() override {
    m_buf += "</section>\n";
    flush();
  }

  void begin_message(std::string_view role, std::string_view label, std::string_view timestamp,
                     std::string_view model) override {
    m_buf += "<article class=\"msg ";
    m_buf += role;  // one of render.cc's fixed class names
    m_buf += "\"><header><span class=\"role\">";
    escape_into(label, m_buf);
    m_buf += "</span>";
    if (!model.empty()) {
      m_buf += "<span class=\"model\">";
      escape_into(model, m_buf);
      m_buf += "</span>";
    }
    if (!timestamp.empty()) {
      m_buf += "<time>";
      escape_into(timestamp, m_buf);
      m_buf += "</time>";
    }
    m_buf += "</header>\n";
    m_collapse = role == "compact" || role == "meta";
    if (m_collapse) {
      m_buf += "<details><summary>";
      m_buf += role == "compact" ? "Summary of the conversation before it" : "Meta";
      m_buf += "</summary>\n";
    }
  }

  void end_message() override {
    if (m_collapse) {
      m_buf += "</details>\n";
    }
    m_buf += "</article>\n";
    flush();
  }

  void text(std::string_view text) override {
    if (text.empty()) {
      return;
    }
    m_buf += "<div class=\"text\">";
    escape_into(text, m_buf);
    m_buf += "</div>\n";
  }

  void thinking(std::string_view text) override {
    m_buf += "<details class=\"thinking\"><summary>Thinking</summary><div class=\"text\">";
    escape_into(text, m_buf);
    m_buf += "</div></details>\n";
  }

  void tool_call(std::string_view id, std::string_view name, std::string_view input) override {
    m_buf += "<div class=\"tool-call\" id=\"";
    anchor(id, "call-");
    m_buf += "\">";
    bool collapse = render_is_long(input, m_options.collapse_lines);
    m_buf += collapse ? "<details><summary class=\"tool-head\">" : "<div class=\"tool-head\">";
    m_buf += "Tool call <code>";
    escape_into(name, m_buf);
    m_buf += "</code>";
    if (!id.empty()) {
      m_buf += " <a href=\"#";
      anchor(id, "result-");
      m_buf += "\">result</a>";
    }
    m_buf += collapse ? "</summary>" : "</div>";
    m_buf += "<pre>";
    escape_into(input, m_buf);
    m_buf += "</pre>";
    m_buf += collapse ? "</details></div>\n" : "</div>\n";
  }

  void begin_tool_result(std::string_view id, std::string_view name, std::string_view content,
                         bool is_error) override {
    m_buf += is_error ? "<div class=\"tool-result error\" id=\"" : "<div class=\"tool-result\" id=\"";
    anchor(id, "result-");
    m_buf += "\">";
    m_result_collapsed = render_is_long(content, m_options.collapse_lines);
    m_buf += m_result_collapsed ? "<details><summary class=\"tool-head\">"
                                : "<div class=\"tool-head\">";
    m_buf += is_error ? "Error from " : "Result of ";
    if (!id.empty()) {
      m_buf += "<a href=\"#";
      anchor(id, "call-");
      m_buf += "\"><code>";
      escape_into(name.empty() ? std::string_view("the call") : name, m_buf);
      m_buf += "</code></a>";
    } else {
      m_buf += "<code>";
      escape_into(name, m_buf);
      m_buf += "</code>";
    }
    if (m_result_collapsed) {
      auto lines = std::count(content.begin(), content.end(), '\n') + 1;
      m_buf += " (" + std::to_string(lines) + (lines == 1 ? " line, " : " lines, ") +
               std::to_string(content.size()) + " bytes)";
    }
    m_buf += m_result_collapsed ? "</summary>" : "</div>";
    if (!content.empty()) {
      m_buf += "<pre>";
      escape_into(content, m_buf);
      m_buf += "</pre>";
    }
  }

  void end_tool_result() override {
    m_buf += m_result_collapsed ? "</details></div>\n" : "</div>\n";
  }

  void image(const MediaSource& source) override {
    if (source.type == MediaSource::Type::base64 && is_image_type(source.media_type) &&
        is_base64(source.data)) {
      m_buf += "<img alt=\"image\" src=\"data:";
      m_buf += source.media_type;
      m_buf += ";base64,";
      for (char c : source.data) {
        if (c != '\n' && c != '\r') {
          m_buf.push_back(c);
        }
      }
      m_buf += "\">\n";
    } else if (source.type == MediaSource::Type::url &&
               (source.data.starts_with("https://") || source.data.starts_with("http://"))) {
      m_buf += "<div class=\"other\">[image: <a rel=\"noreferrer\" href=\"";
      escape_into(source.data, m_buf);
      m_buf += "\">";
      escape_into(source.data, m_buf);
      m_buf += "</a>]</div>\n";
    } else {
      other(source.media_type.empty() ? std::string("image") : "image: " + source.media_type);
    }
  }

  void other(std::string_view what) override {
    m_buf += "<div class=\"other\">[";
    escape_into(what, m_buf);
    m_buf += "]</div>\n";
  }

  void marker(std::string_view kind, std::string_view text) override {
    m_buf += "<div class=\"marker ";
    m_buf += kind;  // render.cc's fixed names
    m_buf += "\">";
    escape_into(text, m_buf);
    m_buf += "</div>\n";
    flush();
  }

  void begin_subagent(std::string_view label, std::string_view call_id) override {
    m_buf += "<details class=\"subagent\"><summary>";
    escape_into(label, m_buf);
    m_buf += "</summary>\n";
    if (!call_id.empty()) {
      m_buf += "<p class=\"other\">Started by <a href=\"#";
      anchor(call_id, "call-");
      m_buf += "\">its call</a></p>\n";
    }
    flush();
  }

  void end_subagent() override {
    m_buf += "</details>\n";
    flush();
  }

  void index(const std::vector<RenderedSession>& sessions,
             const std::vector<std::string>& links) override {
    m_buf += "<h1>Sessions</h1>\n<table>\n<thead><tr><th>Session</th><th>First prompt</th>"
             "<th>Start</th><th>End</th><th>Messages</th></tr></thead>\n<tbody>\n";
    for (std::size_t i = 0; i < sessions.size(); ++i) {
      const RenderedSession& s = sessions[i];
      m_buf += "<tr><td><a href=\"";
      escape_into(links[i], m_buf);
      m_buf += "\">";
      escape_into(s.name, m_buf);
      m_buf += "</a></td><td>";
      escape_into(s.first_prompt, m_buf);
      m_buf += "</td><td>";
      escape_into(s.start, m_buf);
      m_buf += "</td><td>";
      escape_into(s.end, m_buf);
      m_buf += "</td><td>" + std::to_string(s.messages) + "</td></tr>\n";
    }
    m_buf += "</tbody>\n</table>\n";
    flush();
  }

 private:
  void anchor(std::string_view id, std::string_view prefix) {
    m_buf += 's';
    m_buf += std::to_string(m_session);
    m_buf += '-';
    m_buf += prefix;
    anchor_into(id, m_buf);
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

std::unique_ptr<PageWriter> make_html_writer(const RenderOptions& options, Output& out) {
  return std::make_unique<HtmlWriter>(options, out);
}

}  // namespace convo
