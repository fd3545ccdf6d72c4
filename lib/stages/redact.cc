#include "stages/redact.h"

#include <fmt/format.h>

#include "formats/format.h"
#include "io/output.h"

namespace convo {

namespace {

struct Redactor {
  const SecretScanner& scanner;
  JsonAllocator& alloc;
  const Location& where;
  std::vector<Problem>& found;

  // Redacts `text`; true when it changed, the new text in `out`.
  bool redact_text(std::string_view text, const std::string& path, std::string& out) {
    // JSON in a string: redact its strings, then write it again.
    std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) {
      JsonDoc inner;
      if (!parse_json(text, inner)) {
        Redactor nested{scanner, inner.GetAllocator(), where, found};
        if (!nested.walk(inner, path + "{}")) {
          return false;
        }
        out = to_json(inner);
        return true;
      }
    }
    std::vector<SecretMatch> matches = scanner.scan(text);
    if (matches.empty()) {
      return false;
    }
    out.clear();
    std::size_t at = 0;
    for (const SecretMatch& m : matches) {
      found.push_back(Problem{where, m.rule,
                              fmt::format("{}: {}", path.empty() ? "(record)" : path,
                                          mask_secret(text.substr(m.begin, m.length)))});
      out.append(text.substr(at, m.begin - at));
      out += fmt::format("[REDACTED:{}]", m.rule);
      at = m.begin + m.length;
    }
    out.append(text.substr(at));
    return true;
  }

  // True when anything in `value` changed.
  bool walk(JsonValue& value, const std::string& path) {
    bool changed = false;
    std::string text;
    if (value.IsObject()) {
      for (auto& member : value.GetObject()) {
        std::string name(view_of(member.name));
        std::string child = path.empty() ? name : path + "." + name;
        if (redact_text(name, path, text)) {
          member.name.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
          changed = true;
        }
        changed |= walk(member.value, child);
      }
    } else if (value.IsArray()) {
      std::size_t i = 0;
      for (JsonValue& item : value.GetArray()) {
        changed |= walk(item, fmt::format("{}[{}]", path, i++));
      }
    } else if (value.IsString()) {
      if (redact_text(view_of(value), path, text)) {
        value.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
        changed = true;
      }
    }
    return changed;
  }
};

class RedactSink final : public MessageSink {
 public:
  RedactSink(Output& out, std::shared_ptr<const SecretScanner> scanner, bool dry_run,
             std::shared_ptr<RedactTally> tally)
      : m_out(out), m_scanner(std::move(scanner)), m_dry_run(dry_run), m_tally(std::move(tally)) {}

  void put(Message&& message) override {
    // A document of many messages, or a line read as several, is one record.
    const Source* source = message.source.get();
    if (message.container) {
      if (message.container.get() == m_container) {
        return;
      }
      m_container = message.container.get();
      source = message.container->source.get();
      write(source, message.container->raw, message.where);
      return;
    }
    m_container = nullptr;
    if (source != nullptr && source == m_source) {
      return;
    }
    m_source = source;
    write(source, message.raw, message.where);
  }

 private:
  void write(const Source* source, std::string_view raw, const Location& where) {
    std::optional<std::string> redacted;
    std::vector<Problem> found;
    if (source != nullptr && !source->doc.HasParseError()) {
      redacted = redact_json(source->doc, *m_scanner, where, found);
    }
    if (redacted) {
      m_tally->secrets += found.size();
      ++m_tally->records;
    }
    if (m_dry_run) {
      for (const Problem& p : found) {
        std::string file = p.where.file ? *p.where.file : std::string();
        m_out.write_line(fmt::format("{}:{}: {}: {}", file, p.where.line, p.rule, p.message));
      }
      return;
    }
    m_out.write_line(redacted ? *redacted : raw);
  }

  Output& m_out;
  std::shared_ptr<const SecretScanner> m_scanner;
  bool m_dry_run;
  std::shared_ptr<RedactTally> m_tally;
  const Container* m_container = nullptr;
  const Source* m_source = nullptr;
};

}  // namespace

std::optional<std::string> redact_json(const JsonValue& root, const SecretScanner& scanner,
                                       const Location& where, std::vector<Problem>& found) {
  JsonDoc copy;
  copy.CopyFrom(root, copy.GetAllocator());
  Redactor redactor{scanner, copy.GetAllocator(), where, found};
  if (!redactor.walk(copy, std::string())) {
    return std::nullopt;
  }
  return to_json(copy);
}

SinkFactory redact_sink(std::shared_ptr<const SecretScanner> scanner, bool dry_run,
                        std::shared_ptr<RedactTally> tally) {
  return [scanner, dry_run, tally](Output& out, LossReport&) -> std::unique_ptr<MessageSink> {
    return std::make_unique<RedactSink>(out, scanner, dry_run, tally);
  };
}

}  // namespace convo
