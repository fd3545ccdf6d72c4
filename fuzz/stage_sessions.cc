// sessions: summaries, first prompts, --grep and --touching over tool inputs.
#include "fuzz.h"
#include "stages/sessions.h"

namespace {

class SessionsReports final : public convo::StreamStage {
 public:
  void push(convo::Message&& message, convo::MessageSink& next) override {
    m_stage.push(std::move(message), next);
  }
  void finish(convo::MessageSink& next) override {
    m_stage.finish(next);
    auto sessions = m_list->sessions();
    (void)convo::sessions_json(sessions);
    (void)convo::sessions_table(sessions);
  }

 private:
  std::shared_ptr<convo::SessionList> m_list =
      std::make_shared<convo::SessionList>(convo::SessionsOptions{"a", "/"});
  convo::SessionsStage m_stage{m_list};
};

}  // namespace

CONVO_FUZZ_STAGE([] { return std::make_unique<SessionsReports>(); })
