// usage: the ledger (split responses, sessions, prices, blocks) and every report
// of it, written when an input ends.
#include "fuzz.h"
#include "stages/usage.h"

namespace {

class UsageReports final : public convo::StreamStage {
 public:
  UsageReports() {
    for (auto by : {convo::UsageBy::day, convo::UsageBy::month, convo::UsageBy::session,
                    convo::UsageBy::block, convo::UsageBy::model}) {
      convo::UsageOptions options;
      options.by = by;
      options.local_time = false;
      m_ledgers.push_back(std::make_unique<convo::UsageLedger>(options));
    }
  }
  void push(convo::Message&& message, convo::MessageSink& next) override {
    (void)next;
    for (auto& ledger : m_ledgers) {
      ledger->add(message);
    }
  }
  void finish(convo::MessageSink& next) override {
    (void)next;
    for (auto& ledger : m_ledgers) {
      convo::UsageReport report = ledger->report();
      (void)convo::usage_json(report);
      (void)convo::usage_csv(report);
      (void)convo::usage_table(report);
      (void)ledger->unpriced_models();
    }
  }

 private:
  std::vector<std::unique_ptr<convo::UsageLedger>> m_ledgers;
};

}  // namespace

CONVO_FUZZ_STAGE([] { return std::make_unique<UsageReports>(); })
