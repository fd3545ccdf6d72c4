#include "stages/check_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "io/output.h"
#include "json.h"

namespace convo {

namespace {

// The rules about the file's own bookkeeping: Claude Code's uuids and parent links.
// No API request carries them, so they cannot make one fail.
constexpr std::string_view k_warning_rules[] = {"duplicate-uuid", "dangling-parent"};

std::string plural(std::uint64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

class CheckReport final : public MessageSink {
 public:
  CheckReport(Output& out, const ReportOptions& options, std::shared_ptr<CheckTally> tally)
      : m_out(out), m_options(options), m_check(options.check), m_tally(std::move(tally)) {}

  // Records that come one by one (not through ConversationStage) are one conversation.
  void put(Message&& message) override { m_held.push_back(std::move(message)); }
  void put_conversation(std::vector<Message>&& conversation) override {
    check();
    m_check.conversation(std::move(conversation));
  }
  void end_input() override {
    check();
    std::uint64_t reported = 0;
    for (const Problem& p : m_check.finish()) {
      if (!reported_rule(p.rule)) {
        continue;
      }
      ++reported;
      Severity severity = rule_severity(p.rule);
      ++(severity == Severity::error ? m_tally->errors : m_tally->warnings);
      if (!m_options.quiet) {
        write(p, severity);
      }
    }
    ++m_tally->files;
    if (reported > 0) {
      ++m_tally->files_with_problems;
    }
  }

 private:
  bool reported_rule(std::string_view rule) const {
    auto named = [rule](const std::vector<std::string>& rules) {
      return std::find(rules.begin(), rules.end(), rule) != rules.end();
    };
    return (m_options.select.empty() || named(m_options.select)) && !named(m_options.ignore);
  }

  void check() {
    if (m_held.empty()) {
      return;
    }
    std::vector<Message> conversation;
    conversation.swap(m_held);
    m_check.conversation(std::move(conversation));
  }

  void write(const Problem& p, Severity severity) {
    std::string file = p.where.file ? *p.where.file : std::string();
    std::string_view level = severity_name(severity);
    if (m_options.format == ReportFormat::text) {
      std::string place = p.where.line != 0 ? fmt::format("{}:{}", file, p.where.line) : file;
      m_out.write_line(fmt::format("{}: {}: {}: {}", place, level, p.rule, p.message));
      return;
    }
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    w.Key("file");
    w.String(file.data(), static_cast<rapidjson::SizeType>(file.size()));
    if (p.where.line != 0) {
      w.Key("line");
      w.Uint64(p.where.line);
    }
    w.Key("rule");
    w.String(p.rule.data(), static_cast<rapidjson::SizeType>(p.rule.size()));
    w.Key("severity");
    w.String(level.data(), static_cast<rapidjson::SizeType>(level.size()));
    w.Key("message");
    w.String(p.message.data(), static_cast<rapidjson::SizeType>(p.message.size()));
    w.EndObject();
    m_out.write_line(std::string_view(buffer.GetString(), buffer.GetSize()));
  }

  Output& m_out;
  const ReportOptions& m_options;
  InputCheck m_check;
  std::shared_ptr<CheckTally> m_tally;
  std::vector<Message> m_held;
};

}  // namespace

Severity rule_severity(std::string_view rule) {
  return std::find(std::begin(k_warning_rules), std::end(k_warning_rules), rule) !=
                 std::end(k_warning_rules)
             ? Severity::warning
             : Severity::error;
}

std::string_view severity_name(Severity severity) {
  return severity == Severity::error ? "error" : "warning";
}

std::string check_summary(const CheckTally& tally) {
  std::vector<std::string> kinds;
  if (tally.errors > 0) {
    kinds.push_back(plural(tally.errors, "error"));
  }
  if (tally.warnings > 0) {
    kinds.push_back(plural(tally.warnings, "warning"));
  }
  std::string what = plural(tally.problems(), "problem");
  if (!kinds.empty()) {
    what += fmt::format(" ({})", fmt::join(kinds, ", "));
  }
  return fmt::format("{} in {} of {}", what, tally.files_with_problems,
                     plural(tally.files, "file"));
}

SinkFactory check_report_sink(ReportOptions options, std::shared_ptr<CheckTally> tally) {
  auto shared = std::make_shared<const ReportOptions>(std::move(options));
  return [shared, tally](Output& out, LossReport&) -> std::unique_ptr<MessageSink> {
    // The sink keeps a reference to the options; the factory, which run_stream holds
    // for the whole run, keeps them alive.
    return std::make_unique<CheckReport>(out, *shared, tally);
  };
}

}  // namespace convo
