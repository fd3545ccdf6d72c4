#include "stages/secrets_check.h"

#include <fmt/format.h>

#include "stages/check_report.h"

namespace convo {

namespace {

class SecretsStage final : public StreamStage {
 public:
  SecretsStage(std::unique_ptr<StreamStage> inner, std::shared_ptr<const SecretScanner> scanner)
      : m_inner(std::move(inner)), m_scanner(std::move(scanner)) {}

  void push(Message&& message, MessageSink& next) override {
    m_found.clear();
    find_secrets(message, *m_scanner, m_found);
    if (!m_found.empty()) {
      if (auto* sink = dynamic_cast<ProblemSink*>(&next.target())) {
        for (Problem& p : m_found) {
          sink->add_problem(std::move(p));
        }
      }
    }
    if (m_inner) {
      m_inner->push(std::move(message), next);
    } else {
      next.put(std::move(message));
    }
  }
  void finish(MessageSink& next) override {
    if (m_inner) {
      m_inner->finish(next);
    }
  }

 private:
  std::unique_ptr<StreamStage> m_inner;
  std::shared_ptr<const SecretScanner> m_scanner;
  std::vector<Problem> m_found;
};

}  // namespace

void find_secrets(const Message& record, const SecretScanner& scanner, std::vector<Problem>& out) {
  // A record convo cannot read as a transcript (a file of a format it does not know,
  // a record its format has no kind for) is still searched when it is JSON: a secret
  // is a secret whatever file holds it.
  JsonDoc unread;
  const JsonValue* root = nullptr;
  if (record.source) {
    root = &record.source->doc;
  } else if (record.kind == Kind::invalid && !record.raw.empty() &&
             !parse_json(record.raw, unread)) {
    root = &unread;
  } else {
    return;
  }
  std::string path;
  if (record.container && record.json != nullptr) {
    root = record.json;
    path = fmt::format("messages[{}]", element_index(*record.container, record.slot));
  }
  scanner.scan_json(
      *root, path, [&](const std::string& where, std::string_view text, const SecretMatch& m) {
        out.push_back(Problem{record.where, m.rule,
                              fmt::format("{}: {}", where.empty() ? "(record)" : where,
                                          mask_secret(text.substr(m.begin, m.length)))});
      });
}

std::unique_ptr<StreamStage> make_secrets_stage(std::unique_ptr<StreamStage> inner,
                                                std::shared_ptr<const SecretScanner> scanner) {
  return std::make_unique<SecretsStage>(std::move(inner), std::move(scanner));
}

}  // namespace convo
