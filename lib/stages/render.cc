// render: what goes on the page and in what order (the Renderer), reading sessions
// and their subagent files, and the directory mode with its index. How a page looks
// is render_html.cc's and render_markdown.cc's.
#include "stages/render.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <system_error>

#include "error.h"
#include "io/input_list.h"
#include "io/output.h"
#include "json.h"
#include "stages/render_writer.h"

namespace convo {

namespace {

namespace fs = std::filesystem;

constexpr int k_max_subagent_depth = 4;

// Tools whose call starts a subagent (Claude Code: Task, since 2.1 Agent).
bool starts_subagent(std::string_view tool) { return tool == "Task" || tool == "Agent"; }

bool is_interrupt(std::string_view text) {
  return text.starts_with("[Request interrupted by user");
}

// The subagent a tool result's record names: Claude Code writes the agent's id in
// the record's `toolUseResult.agentId` (beside `message`, so it is the record's own
// JSON, not the message's). Empty when there is none.
std::string agent_id_of(const Message& message) {
  if (message.source == nullptr || !message.source->doc.IsObject()) {
    return {};
  }
  const JsonValue* result = find_member(message.source->doc, "toolUseResult");
  if (result == nullptr || !result->IsObject()) {
    return {};
  }
  auto id = string_member(*result, "agentId");
  if (!id) {
    return {};
  }
  // An id names a file: letters, digits, '-' and '_' only.
  for (char c : *id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') {
      return {};
    }
  }
  return std::string(*id);
}

std::string_view label_of(const Message& message, std::string_view& role) {
  switch (message.role) {
    case Role::user:
      role = "user";
      return "User";
    case Role::assistant:
      role = "assistant";
      return "Assistant";
    case Role::system:
    case Role::developer:
      role = "system";
      return message.role == Role::system ? "System" : "Developer";
    case Role::tool:
    case Role::function:
      role = "tool";
      return "Tool";
    case Role::custom:
      role = "custom";
      return message.custom_role;
    case Role::none:
      break;
  }
  role = "other";
  return message.record_type;
}

// The first user text worth a title: not a tool result, not Claude Code's
// `<command-...>` or caveat wrappers, not meta.
std::string prompt_of(const Message& message) {
  if (message.role != Role::user || message.meta->is_meta ||
      message.meta->is_compact_summary) {
    return {};
  }
  std::string text;
  if (message.content.is_string()) {
    text = message.content.text;
  } else {
    for (const Block& block : message.content.blocks) {
      if (block.type == BlockType::text) {
        text = block.text;
        break;
      }
    }
  }
  if (text.empty() || text.starts_with('<') || is_interrupt(text)) {
    return {};
  }
  return render_one_line(text, 120);
}

class FileHandler final : public InputHandler {
 public:
  explicit FileHandler(Renderer& renderer) : m_renderer(renderer) {}
  void message(Message&& message) override { m_renderer.put(message); }

 private:
  Renderer& m_renderer;
};

// The subagent files of `paths` whose session is also there: they are rendered
// nested in it. `<dir>/<sid>/subagents/**.jsonl` belongs to `<dir>/<sid>.jsonl`.
bool nested_in_listed_session(const std::string& path, const std::vector<std::string>& paths) {
  auto at = path.rfind("/subagents/");
  if (at == std::string::npos) {
    return false;
  }
  std::string session = path.substr(0, at) + ".jsonl";
  return std::find(paths.begin(), paths.end(), session) != paths.end();
}

// A session to render: its file, and the name shown for it (the path below the
// directory argument it was found in, or the path as given).
struct SessionFile {
  std::string path;
  std::string name;
};

std::vector<SessionFile> sessions_of(const std::vector<std::string>& paths,
                                     Diagnostics& diagnostics) {
  if (paths.empty()) {
    return {{"-", "-"}};
  }
  std::vector<SessionFile> listed;
  std::vector<std::string> files;
  for (const std::string& argument : paths) {
    std::error_code error;
    bool directory = argument != "-" && fs::is_directory(argument, error);
    std::string prefix = argument;
    if (!prefix.empty() && prefix.back() != '/') {
      prefix += '/';
    }
    for (std::string& file : expand_inputs({argument}, &diagnostics)) {
      std::string name = directory && file.starts_with(prefix) ? file.substr(prefix.size()) : file;
      files.push_back(file);
      listed.push_back({std::move(file), std::move(name)});
    }
  }
  std::vector<SessionFile> sessions;
  for (SessionFile& session : listed) {
    if (!nested_in_listed_session(session.path, files)) {
      sessions.push_back(std::move(session));
    }
  }
  return sessions;
}

}  // namespace

bool render_is_long(std::string_view text, std::size_t lines) {
  if (text.size() > lines * 40) {
    return true;
  }
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) >= lines;
}

std::string render_one_line(std::string_view text, std::size_t limit) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) {
      out.push_back(' ');
      space = false;
    }
    out.push_back(c);
    if (out.size() >= limit) {
      // Back to a character boundary.
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) {
        out.pop_back();
      }
      if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0x80) != 0) {
        out.pop_back();
      }
      out += "…";
      break;
    }
  }
  return out;
}

Renderer::Renderer(const RenderOptions& options, Output& out)
    : m_options(options),
      m_writer(options.style == RenderOptions::Style::html ? make_html_writer(options, out)
                                                           : make_markdown_writer(options, out)) {}

Renderer::~Renderer() = default;

void Renderer::begin_document(const std::string& title) { m_writer->begin_document(title); }

void Renderer::end_document() { m_writer->end_document(); }

void Renderer::begin_session(const std::string& name, const std::string& path) {
  m_path = path == "-" ? std::string() : path;
  m_summary = RenderedSession{};
  m_summary.name = name;
  m_tool_names.clear();
  m_nested.clear();
  m_last_agent_call.clear();
  m_records = 0;
  m_file_is_sidechain = false;
  m_in_sidechain = false;
  m_writer->begin_session(++m_session, name);
}

RenderedSession Renderer::end_session() {
  close_sidechain();
  unlinked_subagent_files();
  m_writer->end_session();
  return m_summary;
}

void Renderer::index(const std::vector<RenderedSession>& sessions,
                     const std::vector<std::string>& links) {
  m_writer->index(sessions, links);
}

void Renderer::close_sidechain() {
  if (m_in_sidechain) {
    m_writer->end_subagent();
    m_in_sidechain = false;
  }
}

void Renderer::put(const Message& message) {
  if (message.kind == Kind::event && message.meta->subtype == "compact_boundary") {
    close_sidechain();
    m_writer->marker("compaction", "Conversation compacted");
    return;
  }
  if (!message.is_turn()) {
    return;  // progress, attachments, bookkeeping: not what was said
  }
  if (m_records++ == 0) {
    m_file_is_sidechain = message.meta->is_sidechain;
  }
  // Claude Code 1.0 writes a subagent's records into the session, isSidechain set.
  if (message.meta->is_sidechain && !m_file_is_sidechain && m_depth == 0) {
    if (!m_in_sidechain) {
      m_writer->begin_subagent("Subagent", m_last_agent_call);
      m_in_sidechain = true;
    }
  } else {
    close_sidechain();
  }
  if (!message.timestamp.empty()) {
    if (m_summary.start.empty()) {
      m_summary.start = message.timestamp;
    }
    m_summary.end = message.timestamp;
  }
  if (m_summary.first_prompt.empty() && m_depth == 0 && !m_in_sidechain) {
    m_summary.first_prompt = prompt_of(message);
  }
  ++m_summary.messages;

  // An interrupt is a mark, not a message.
  std::string_view only_text = message.content.is_string() ? message.content.text.view()
                               : (message.content.blocks.size() == 1 &&
                                  message.content.blocks[0].type == BlockType::text)
                                   ? std::string_view(message.content.blocks[0].text)
                                   : std::string_view();
  if (message.role == Role::user && is_interrupt(only_text)) {
    m_writer->marker("interrupt", only_text);
    return;
  }

  std::string_view role;
  std::string_view label = label_of(message, role);
  bool results_only = message.content.is_blocks() && !message.content.blocks.empty() &&
                      std::all_of(message.content.blocks.begin(), message.content.blocks.end(),
                                  [](const Block& b) { return b.type == BlockType::tool_result; });
  if (results_only) {
    role = "tool";
    label = "Tool result";
  }
  if (message.meta->is_compact_summary) {
    role = "compact";
    label = "Compaction summary";
  } else if (message.meta->is_meta) {
    role = "meta";
  }
  m_writer->begin_message(role, label, message.timestamp, message.meta->model);
  put_blocks(message);
  m_writer->end_message();
  subagent_file(message);
}

void Renderer::put_blocks(const Message& message) {
  const Content& content = message.content;
  if (content.is_string()) {
    m_writer->text(content.text);
    return;
  }
  for (const Block& block : content.blocks) {
    switch (block.type) {
      case BlockType::text:
        m_writer->text(block.text);
        break;
      case BlockType::thinking:
        m_writer->thinking(block.text);
        break;
      case BlockType::tool_use:
      case BlockType::server_tool_use: {
        m_tool_names.emplace_back(block.id, block.name);
        if (starts_subagent(block.name)) {
          m_last_agent_call = block.id;
        }
        m_writer->tool_call(block.id, block.name, block.input_json());
        break;
      }
      case BlockType::tool_result: {
        std::string name = block.name;
        if (name.empty()) {
          // Most recent call with that id (ids repeat across formats' counters).
          for (auto it = m_tool_names.rbegin(); it != m_tool_names.rend(); ++it) {
            if (it->first == block.id) {
              name = it->second;
              break;
            }
          }
        }
        m_writer->begin_tool_result(block.id, name,
                                    block.result.is_string() ? block.result.text
                                                             : block.result.joined_text(),
                                    block.is_error.value_or(false));
        if (block.result.is_blocks()) {
          for (const Block& part : block.result.blocks) {
            if (part.type == BlockType::image) {
              m_writer->image(part.source);
            } else if (part.type != BlockType::text) {
              m_writer->other(part.type_name.empty() ? block_type_name(part.type)
                                                     : part.type_name);
            }
          }
        }
        m_writer->end_tool_result();
        break;
      }
      case BlockType::image:
        m_writer->image(block.source);
        break;
      case BlockType::document:
      case BlockType::audio:
      case BlockType::video:
      case BlockType::file: {
        std::string what(block_type_name(block.type));
        if (!block.source.media_type.empty()) {
          what += ": " + block.source.media_type;
        }
        m_writer->other(what);
        break;
      }
      default:
        m_writer->other(block.type_name.empty() ? block_type_name(block.type) : block.type_name);
        break;
    }
  }
}

// A later Claude Code's subagent: the result of its Task/Agent call names the agent,
// whose records are in <session>/subagents/agent-<id>.jsonl.
void Renderer::subagent_file(const Message& message) {
  if (m_path.empty() || m_read == nullptr || m_depth >= k_max_subagent_depth ||
      !message.has_tool_results()) {
    return;
  }
  std::string agent = agent_id_of(message);
  if (agent.empty()) {
    return;
  }
  fs::path session(m_path);
  std::string stem = session.filename().string();
  if (auto dot = stem.find('.'); dot != std::string::npos) {
    stem.resize(dot);
  }
  fs::path dir = session.parent_path() / stem / "subagents";
  fs::path file = dir / ("agent-" + agent + ".jsonl");
  std::error_code error;
  if (!fs::is_regular_file(file, error)) {
    return;
  }
  const Block* result = message.tool_results().front();
  // Keep the session's state: the subagent's file has its own calls and threads.
  std::string path = m_path;
  std::string last_call = m_last_agent_call;
  int records = m_records;
  bool file_is_sidechain = m_file_is_sidechain;
  nest_file(file.string(), "Subagent " + agent, result->id);
  m_path = path;
  m_last_agent_call = last_call;
  m_records = records;
  m_file_is_sidechain = file_is_sidechain;
}

void Renderer::nest_file(const std::string& file, const std::string& label,
                         std::string_view call_id) {
  m_nested.push_back(file);
  m_writer->begin_subagent(label, call_id);
  ++m_depth;
  m_records = 0;
  FileHandler handler(*this);
  read_inputs({file}, *m_read, handler, *m_diagnostics);
  close_sidechain();
  --m_depth;
  m_writer->end_subagent();
}

// The session's subagent files that no call's result named (agents of workflows,
// teammates): nested at the end of the session, so that nothing is left out.
void Renderer::unlinked_subagent_files() {
  if (m_path.empty() || m_read == nullptr) {
    return;
  }
  fs::path session(m_path);
  std::string stem = session.filename().string();
  if (auto dot = stem.find('.'); dot != std::string::npos) {
    stem.resize(dot);
  }
  fs::path dir = session.parent_path() / stem / "subagents";
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    return;
  }
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(dir, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    std::string name = it->path().filename().string();
    if (it->is_regular_file(error) && is_transcript_file_name(name) && !name.starts_with('.')) {
      files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    if (std::find(m_nested.begin(), m_nested.end(), file) == m_nested.end()) {
      nest_file(file, "Subagent file " + fs::relative(file, dir, error).string(), "");
    }
  }
}

void Renderer::put_file(const std::string& path, const ReadOptions& read,
                        Diagnostics& diagnostics) {
  m_read = &read;
  m_diagnostics = &diagnostics;
  FileHandler handler(*this);
  read_inputs({path}, read, handler, diagnostics);
}

void render_inputs(const std::vector<std::string>& paths, const RenderOptions& options,
                   const ReadOptions& read, Output& out, Diagnostics& diagnostics) {
  std::vector<SessionFile> sessions = sessions_of(paths, diagnostics);
  Renderer renderer(options, out);
  renderer.begin_document(sessions.size() == 1 ? sessions.front().name : "Sessions");
  for (const SessionFile& session : sessions) {
    renderer.begin_session(session.name, session.path);
    renderer.put_file(session.path, read, diagnostics);
    renderer.end_session();
  }
  renderer.end_document();
}

std::size_t render_pages(const std::vector<std::string>& paths, const RenderOptions& options,
                         const ReadOptions& read, const std::string& dir,
                         Diagnostics& diagnostics) {
  std::vector<SessionFile> sessions = sessions_of(paths, diagnostics);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    throw Error(dir + ": cannot create directory: " + error.message(), ExitCode::output);
  }
  const char* extension = options.style == RenderOptions::Style::html ? ".html" : ".md";
  std::vector<RenderedSession> summaries;
  std::vector<std::string> links;
  std::map<std::string, int> taken{{std::string("index") + extension, 1}};
  for (const SessionFile& session : sessions) {
    std::string stem = session.path == "-" ? "stdin" : fs::path(session.path).filename().string();
    if (auto dot = stem.find('.'); dot != std::string::npos && dot > 0) {
      stem.resize(dot);
    }
    std::string name = stem + extension;
    for (int n = 2; taken.contains(name); ++n) {
      name = stem + "-" + std::to_string(n) + extension;
    }
    taken[name] = 1;
    FileOutput page((fs::path(dir) / name).string());
    Renderer renderer(options, page);
    renderer.begin_document(session.name);
    renderer.begin_session(session.name, session.path);
    renderer.put_file(session.path, read, diagnostics);
    summaries.push_back(renderer.end_session());
    renderer.end_document();
    page.commit();
    links.push_back(name);
  }
  FileOutput index((fs::path(dir) / (std::string("index") + extension)).string());
  Renderer renderer(options, index);
  renderer.begin_document("Sessions");
  renderer.index(summaries, links);
  renderer.end_document();
  index.commit();
  return sessions.size();
}

namespace {

class RenderSink final : public MessageSink {
 public:
  RenderSink(std::shared_ptr<const RenderOptions> options, Output& out)
      : m_options(std::move(options)), m_renderer(*m_options, out) {}

  void put(Message&& message) override {
    if (!m_open) {
      m_renderer.begin_document(message.where.file ? *message.where.file : "-");
      m_renderer.begin_session(message.where.file ? *message.where.file : "-", "");
      m_open = true;
    }
    m_renderer.put(message);
  }
  void end_input() override {
    if (m_open) {
      m_renderer.end_session();
      m_renderer.end_document();
      m_open = false;
    }
  }

 private:
  std::shared_ptr<const RenderOptions> m_options;
  Renderer m_renderer;
  bool m_open = false;
};

}  // namespace

SinkFactory render_sink(std::shared_ptr<const RenderOptions> options) {
  return [options](Output& out, LossReport&) -> std::unique_ptr<MessageSink> {
    return std::make_unique<RenderSink>(options, out);
  };
}

}  // namespace convo
