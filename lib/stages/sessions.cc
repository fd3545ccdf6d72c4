#include "stages/sessions.h"

#include <algorithm>
#include <cctype>
#include <functional>

#include <fmt/format.h>

#include "json.h"
#include "stages/budgets.h"
#include "timestamps.h"

namespace convo {

namespace {

std::string stem_of(const std::string& file) {
  std::string name = file.substr(file.rfind('/') + 1);
  for (std::string_view ext : {".gz", ".zst", ".jsonl", ".json"}) {
    if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0) {
      name.resize(name.size() - ext.size());
    }
  }
  return name;
}

bool path_matches(std::string_view candidate, std::string_view path) {
  while (path.size() > 1 && path.back() == '/') {
    path.remove_suffix(1);
  }
  if (candidate.empty() || path.empty()) {
    return false;
  }
  if (candidate == path) {
    return true;
  }
  if (candidate.size() > path.size() && candidate.compare(0, path.size(), path) == 0 &&
      (candidate[path.size()] == '/' || path.back() == '/')) {
    return true;  // below it
  }
  return candidate.size() > path.size() &&
         candidate.compare(candidate.size() - path.size(), path.size(), path) == 0 &&
         candidate[candidate.size() - path.size() - 1] == '/';  // it, named from elsewhere
}

// Words of a shell command, split at blanks, quotes and operators: a best effort
// at the paths it names.
bool command_touches(std::string_view command, std::string_view path) {
  std::string word;
  auto done = [&] {
    bool hit = path_matches(word, path);
    word.clear();
    return hit;
  };
  for (char c : command) {
    if (std::isspace(static_cast<unsigned char>(c)) ||
        std::string_view("'\";|&<>()`=").find(c) != std::string_view::npos) {
      if (done()) {
        return true;
      }
    } else {
      word += c;
    }
  }
  return done();
}

// Real user text: not a tool result, not Claude Code's wrapped command output,
// caveats, reminders or interruption notes.
bool is_prompt(std::string_view text) {
  std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) {
    return false;
  }
  text.remove_prefix(start);
  for (std::string_view noise : {"<local-command", "<command-", "Caveat:", "[Request interrupted",
                                 "<system-reminder>", "<bash-", "<user-memory-input>", "<ide_"}) {
    if (text.compare(0, noise.size(), noise) == 0) {
      return false;
    }
  }
  return true;
}

// What is between <TAG> and </TAG> in `text`, or nothing.
std::string_view tagged(std::string_view text, std::string_view tag) {
  // Appended rather than "<" + std::string(tag): g++ 12 at -O3 warns of an overlap
  // in that operator+ that cannot happen (-Wrestrict, GCC bug 105329).
  std::string open = "<";
  open.append(tag).push_back('>');
  std::string close = "</";
  close.append(tag).push_back('>');
  std::size_t start = text.find(open);
  if (start == std::string_view::npos) {
    return {};
  }
  start += open.size();
  std::size_t end = text.find(close, start);
  return end == std::string_view::npos ? std::string_view() : text.substr(start, end - start);
}

// A slash command the user typed, as Claude Code records it
// (<command-name>/init</command-name><command-args>...</command-args>): "/init ...".
// Empty for none, and for /clear, which only starts a session.
std::string slash_command(std::string_view text) {
  std::string_view name = tagged(text, "command-name");
  if (name.empty() || name == "/clear") {
    return {};
  }
  std::string_view args = tagged(text, "command-args");
  return args.empty() ? std::string(name) : std::string(name) + " " + std::string(args);
}

std::string user_text(const Message& record) {
  if (record.content.is_string()) {
    return record.content.text.str();
  }
  for (const Block& block : record.content.blocks) {
    if (block.type == BlockType::text && is_prompt(block.text)) {
      return block.text.str();
    }
  }
  return {};
}

bool contains(const Message& record, std::string_view needle) {
  if (record.content.is_string()) {
    return record.content.text.find(needle) != std::string::npos;
  }
  for (const Block& block : record.content.blocks) {
    if (block.text.find(needle) != std::string::npos) {
      return true;
    }
    if (block.type == BlockType::tool_use && block.input_json().find(needle) != std::string::npos) {
      return true;
    }
    if (block.type == BlockType::tool_result &&
        block.result.joined_text().find(needle) != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::string duration_text(std::int64_t ms) {
  std::int64_t s = ms / 1000;
  if (s < 60) {
    return fmt::format("{}s", s);
  }
  if (s < 3600) {
    return fmt::format("{}m{:02}s", s / 60, s % 60);
  }
  return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
}

}  // namespace

bool touches(const Block& tool_use, std::string_view path) {
  JsonDoc parsed;
  const JsonValue* input = tool_use.input_value;
  if (input == nullptr) {
    std::string text = tool_use.input_json();
    if (parse_json(text, parsed)) {
      return false;
    }
    input = &parsed;
  }
  if (!input->IsObject()) {
    return false;
  }
  for (const char* key : {"file_path", "path", "notebook_path"}) {
    auto it = input->FindMember(key);
    if (it != input->MemberEnd() && it->value.IsString() &&
        path_matches(std::string_view(it->value.GetString(), it->value.GetStringLength()), path)) {
      return true;
    }
  }
  auto command = input->FindMember("command");
  return command != input->MemberEnd() && command->value.IsString() &&
         command_touches(
             std::string_view(command->value.GetString(), command->value.GetStringLength()), path);
}

std::string one_line(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) {
      out += ' ';
      space = false;
    }
    out += c;
    if (out.size() >= 200) {
      // Cut at a character boundary.
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) {
        out.pop_back();
      }
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) {
        out.pop_back();
      }
      out += "...";
      break;
    }
  }
  return out;
}

void SessionList::add(const Message& record) {
  const std::string file = record.where.file ? *record.where.file : std::string();
  const std::string& named = record.meta->session_id;
  std::string id = !named.empty() ? named : !m_current.empty() ? m_current : stem_of(file);
  if (!named.empty()) {
    m_current = named;
  }
  auto [it, added] = m_index.emplace(id, m_sessions.size());
  if (added) {
    m_sessions.emplace_back();
    m_sessions.back().summary.id = id;
    m_sessions.back().summary.file = file;
  }
  Held& held = m_sessions[it->second];
  SessionSummary& s = held.summary;
  if (auto time = parse_timestamp(record.timestamp)) {
    s.start = s.start ? std::min(*s.start, *time) : *time;
    s.end = s.end ? std::max(*s.end, *time) : *time;
  }
  const bool side = record.meta->is_sidechain;
  std::string& cwd = side ? held.side_cwd : s.cwd;
  if (cwd.empty()) {
    cwd = record.meta->cwd;
  }
  if (!record.meta->git_branch.empty()) {
    (side ? held.side_branch : s.git_branch) = record.meta->git_branch;  // where it ended
  }
  if (!record.is_turn() || (record.role != Role::user && record.role != Role::assistant)) {
    return;
  }
  ++s.messages;
  if (!record.usage->empty()) {
    std::uint64_t tokens = usage_tokens(record.usage);
    const RecordMeta& e = *record.meta;
    bool fresh = true;
    if (!e.message_id.empty()) {
      std::uint64_t key = std::hash<std::string>{}(e.message_id + '\n' + e.request_id);
      auto [r, first_record] = held.responses.emplace(key, tokens);
      fresh = first_record;
      if (!first_record && tokens > r->second) {
        s.tokens += tokens - r->second;  // the largest count of a split response
        r->second = tokens;
      }
    }
    if (fresh) {
      s.tokens += tokens;
      if (!e.model.empty() && e.model != "<synthetic>") {
        ++held.models[e.model];
      }
    }
  }
  std::string& prompt_of = side ? held.side_prompt : s.first_prompt;
  if (record.role == Role::user && prompt_of.empty() && !record.meta->is_meta &&
      !record.meta->is_compact_summary) {
    std::string text = record.content.is_string() ? record.content.text.str()
                                                  : record.content.joined_text();
    std::string command = slash_command(text);
    if (!command.empty()) {
      prompt_of = one_line(command);
    } else if (std::string prompt = user_text(record); is_prompt(prompt)) {
      prompt_of = one_line(prompt);
    }
  }
  if (!m_options.grep.empty() && !s.matched_grep && contains(record, m_options.grep)) {
    s.matched_grep = true;
  }
  if (!m_options.touching.empty() && !s.matched_touching) {
    for (const Block& block : record.content.blocks) {
      if (block.type == BlockType::tool_use && touches(block, m_options.touching)) {
        s.matched_touching = true;
        break;
      }
    }
  }
}

std::vector<SessionSummary> SessionList::sessions() const {
  std::vector<SessionSummary> out;
  for (const Held& held : m_sessions) {
    const SessionSummary& s = held.summary;
    if ((!m_options.grep.empty() && !s.matched_grep) ||
        (!m_options.touching.empty() && !s.matched_touching)) {
      continue;
    }
    out.push_back(s);
    SessionSummary& listed = out.back();
    for (auto [mine, side] : {std::pair{&listed.first_prompt, &held.side_prompt},
                              std::pair{&listed.cwd, &held.side_cwd},
                              std::pair{&listed.git_branch, &held.side_branch}}) {
      if (mine->empty()) {
        *mine = *side;
      }
    }
    std::uint64_t most = 0;
    for (const auto& [model, n] : held.models) {
      if (n > most || (n == most && model < out.back().model)) {
        most = n;
        out.back().model = model;
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const SessionSummary& a, const SessionSummary& b) {
    return a.start.value_or(INT64_MAX) < b.start.value_or(INT64_MAX);
  });
  return out;
}

void SessionsStage::push(Message&& message, MessageSink& next) {
  (void)next;
  m_list->add(message);
}

void SessionsStage::finish(MessageSink& next) {
  (void)next;
  m_list->end_input();
}

std::string sessions_json(const std::vector<SessionSummary>& sessions) {
  std::string out = "[";
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    const SessionSummary& s = sessions[i];
    auto time = [](const std::optional<std::int64_t>& t) {
      return t ? json_quote(iso_timestamp(*t)) : std::string("null");
    };
    out += fmt::format(
        "{}\n{{\"id\":{},\"file\":{},\"start\":{},\"end\":{},\"durationSeconds\":{},"
        "\"messages\":{},\"tokens\":{},\"model\":{},\"cwd\":{},\"gitBranch\":{},"
        "\"firstPrompt\":{}}}",
        i ? "," : "", json_quote(s.id), json_quote(s.file), time(s.start), time(s.end),
        s.start ? std::to_string((*s.end - *s.start) / 1000) : "null", s.messages, s.tokens,
        json_quote(s.model), json_quote(s.cwd), json_quote(s.git_branch),
        json_quote(s.first_prompt));
  }
  return out + (sessions.empty() ? "]\n" : "\n]\n");
}

std::string sessions_table(const std::vector<SessionSummary>& sessions) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back(
      {"ID", "START", "DURATION", "MSGS", "TOKENS", "MODEL", "BRANCH", "CWD", "FIRST PROMPT"});
  for (const SessionSummary& s : sessions) {
    std::string prompt = s.first_prompt;
    if (prompt.size() > 60) {
      prompt = one_line(prompt.substr(0, 57));
      while (!prompt.empty() && (static_cast<unsigned char>(prompt.back()) & 0xC0) == 0x80) {
        prompt.pop_back();
      }
      prompt += "...";
    }
    rows.push_back({s.id, s.start ? iso_timestamp(*s.start).substr(0, 16) : "-",
                    s.start ? duration_text(*s.end - *s.start) : "-", std::to_string(s.messages),
                    std::to_string(s.tokens), s.model.empty() ? "-" : s.model,
                    s.git_branch.empty() ? "-" : s.git_branch, s.cwd.empty() ? "-" : s.cwd,
                    prompt});
  }
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) {
        line += std::string(width[i] - row[i].size() + 2, ' ');
      }
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + '\n';
  }
  return out;
}

}  // namespace convo
