#include "stages/check_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <unordered_map>

#include "io/output.h"
#include "json.h"
#include "secrets.h"

namespace convo {

namespace {

// The rules about the file's own bookkeeping: Claude Code's uuids and parent links.
// No API request carries them, so they cannot make one fail.
constexpr std::string_view k_warning_rules[] = {"duplicate-uuid", "dangling-parent"};

std::string plural(std::uint64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

bool reported_rule(const ReportOptions& options, std::string_view rule) {
  auto named = [rule](const std::vector<std::string>& rules) {
    return std::find(rules.begin(), rules.end(), rule) != rules.end();
  };
  return (options.select.empty() || named(options.select)) && !named(options.ignore);
}

bool whole_run(const ReportOptions& options) {
  return options.format == ReportFormat::sarif || options.format == ReportFormat::junit;
}

void write_problem(Output& out, const ReportOptions& options, const Problem& p,
                   Severity severity) {
  std::string file = p.where.file ? *p.where.file : std::string();
  std::string_view level = severity_name(severity);
  if (options.format == ReportFormat::github) {
    out.write_line(github_annotation(p, level));
    return;
  }
  if (options.format == ReportFormat::text) {
    std::string place = p.where.line != 0 ? fmt::format("{}:{}", file, p.where.line) : file;
    out.write_line(fmt::format("{}: {}: {}: {}", place, level, p.rule, p.message));
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
  out.write_line(std::string_view(buffer.GetString(), buffer.GetSize()));
}

class CheckReport final : public MessageSink, public ProblemSink, public HeldLinksSink {
 public:
  CheckReport(Output& out, const ReportOptions& options, std::shared_ptr<CheckTally> tally)
      : m_out(out),
        m_options(options),
        m_check(options.check),
        m_tally(std::move(tally)),
        m_checks(checks_conversations(options)) {}

  // Records that come one by one (not through ConversationStage) are one conversation.
  void put(Message&& message) override {
    note_name(message);
    if (m_checks) {
      m_held.push_back(std::move(message));
    }
  }
  // Problems found before the check stage slimmed the records (secrets, budgets).
  void add_problem(Problem&& problem) override { m_extra.push_back(std::move(problem)); }
  // The links of the records of the next conversation that it leaves out.
  void put_held_links(std::vector<RecordLink>&& links) override { m_held_links = std::move(links); }
  bool takes_conversations_whole() const override { return true; }
  void put_conversation(std::vector<Message>&& conversation) override {
    if (!conversation.empty()) {
      note_name(conversation.front());
    }
    if (!m_checks) {
      return;
    }
    check();
    if (m_options.budgets.any()) {
      check_budgets(conversation, m_options.budgets, m_extra);
    }
    m_check.conversation(std::move(conversation), m_held_links);
    std::vector<RecordLink>().swap(m_held_links);
  }
  void end_input() override {
    check();
    std::uint64_t reported = 0;
    FileReport report;
    if (!m_name.empty()) {
      report.file = m_name;
    }
    bool links_reported = reported_rule(m_options, "dangling-parent");
    InputLinks links;
    std::vector<Problem> problems = m_check.finish(links_reported ? &links : nullptr);
    for (Problem& p : m_extra) {
      problems.push_back(std::move(p));
    }
    m_extra.clear();
    std::stable_sort(problems.begin(), problems.end(), [](const Problem& a, const Problem& b) {
      return a.where.line < b.where.line;
    });
    for (Problem& p : problems) {
      if (!reported_rule(m_options, p.rule)) {
        continue;
      }
      ++reported;
      Severity severity = rule_severity(p.rule);
      ++(severity == Severity::error ? m_tally->errors : m_tally->warnings);
      if (report.file.empty() && p.where.file) {
        report.file = *p.where.file;
      }
      if (whole_run(m_options)) {
        report.problems.push_back(std::move(p));
      } else if (!m_options.quiet) {
        write_problem(m_out, m_options, p, severity);
      }
    }
    if (whole_run(m_options)) {
      std::lock_guard<std::mutex> lock(m_tally->mutex);
      m_tally->reports.push_back(std::move(report));
    }
    ++m_tally->files;
    if (reported > 0) {
      ++m_tally->files_with_problems;
    }
    if (!links_reported) {
      return;
    }
    std::lock_guard<std::mutex> lock(m_tally->links_mutex);
    m_tally->uuids.insert(m_tally->uuids.end(), links.uuids.begin(), links.uuids.end());
    if (!links.dangling.empty()) {
      std::string file = links.dangling.front().problem.where.file
                             ? *links.dangling.front().problem.where.file
                             : std::string();
      m_tally->pending.push_back(
          CheckTally::PendingInput{std::move(file), reported > 0, std::move(links.dangling)});
    }
  }

 private:
  void note_name(const Message& message) {
    if (m_name.empty() && message.where.file) {
      m_name = *message.where.file;
    }
  }

  void check() {
    if (m_held.empty()) {
      return;
    }
    std::vector<Message> conversation;
    conversation.swap(m_held);
    if (m_options.budgets.any()) {
      check_budgets(conversation, m_options.budgets, m_extra);
    }
    m_check.conversation(std::move(conversation));
  }

  Output& m_out;
  const ReportOptions& m_options;
  InputCheck m_check;
  std::vector<RecordLink> m_held_links;
  std::shared_ptr<CheckTally> m_tally;
  std::vector<Message> m_held;
  std::vector<Problem> m_extra;
  std::string m_name;  // the input's name, from its first record
  bool m_checks;       // checks_conversations
};

}  // namespace

bool checks_conversations(const ReportOptions& options) {
  return std::any_of(check_rules().begin(), check_rules().end(), [&](const CheckRule& rule) {
    return !is_secret_rule(rule.name) && reported_rule(options, rule.name);
  });
}

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

std::string whole_run_report(ReportFormat format, CheckTally& tally, std::string_view version) {
  std::lock_guard<std::mutex> lock(tally.mutex);
  std::stable_sort(tally.reports.begin(), tally.reports.end(),
                   [](const FileReport& a, const FileReport& b) { return a.file < b.file; });
  if (format == ReportFormat::sarif) {
    return sarif_report(tally.reports, version);
  }
  if (format == ReportFormat::junit) {
    return junit_report(tally.reports);
  }
  return std::string();
}

SinkFactory check_report_sink(ReportOptions options, std::shared_ptr<CheckTally> tally) {
  auto shared = std::make_shared<const ReportOptions>(std::move(options));
  return [shared, tally](Output& out, LossReport&) -> std::unique_ptr<MessageSink> {
    // The sink keeps a reference to the options; the factory, which run_stream holds
    // for the whole run, keeps them alive.
    return std::make_unique<CheckReport>(out, *shared, tally);
  };
}

void report_dangling_parents(Output& out, const ReportOptions& options, CheckTally& tally,
                             const std::vector<std::string>& inputs) {
  std::lock_guard<std::mutex> lock(tally.links_mutex);
  std::unordered_map<std::string_view, std::size_t> order;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    order.emplace(inputs[i], i);
  }
  auto place = [&order](const std::string& file) {
    auto found = order.find(file);
    return found == order.end() ? order.size() : found->second;
  };
  std::stable_sort(tally.pending.begin(), tally.pending.end(),
                   [&](const CheckTally::PendingInput& a, const CheckTally::PendingInput& b) {
                     std::size_t pa = place(a.file);
                     std::size_t pb = place(b.file);
                     return pa != pb ? pa < pb : a.file < b.file;
                   });
  if (!tally.pending.empty()) {
    std::sort(tally.uuids.begin(), tally.uuids.end());
  }
  for (CheckTally::PendingInput& input : tally.pending) {
    bool any = false;
    for (InputLinks::Dangling& link : input.dangling) {
      if (std::binary_search(tally.uuids.begin(), tally.uuids.end(),
                             std::hash<std::string_view>{}(link.parent))) {
        continue;
      }
      any = true;
      Severity severity = rule_severity(link.problem.rule);
      ++(severity == Severity::error ? tally.errors : tally.warnings);
      if (whole_run(options)) {
        std::lock_guard<std::mutex> reports_lock(tally.mutex);
        auto report = std::find_if(tally.reports.begin(), tally.reports.end(),
                                   [&](const FileReport& r) { return r.file == input.file; });
        if (report == tally.reports.end()) {
          tally.reports.push_back(FileReport{input.file, {}});
          report = std::prev(tally.reports.end());
        }
        report->problems.push_back(std::move(link.problem));
      } else if (!options.quiet) {
        write_problem(out, options, link.problem, severity);
      }
    }
    if (any && !input.counted) {
      ++tally.files_with_problems;
    }
  }
  tally.pending.clear();
  std::vector<std::size_t>().swap(tally.uuids);
}

}  // namespace convo
