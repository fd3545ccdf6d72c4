// check --secrets: a stage in front of the check stage that searches every decoded
// string of each record as read (before the check stage slims it), and gives what
// it finds to the report sink (a ProblemSink) as problems of the secret-* rules.
#pragma once

#include <memory>
#include <vector>

#include "message.h"
#include "pipeline.h"
#include "secrets.h"
#include "stages/check.h"

namespace convo {

// The secrets in one record: the whole record's JSON (members convo does not model
// too), or, for a message of a multi-message document (a request body), that
// message's object, its path starting at `messages[N]`. Each problem's message is
// `PATH: MASKED`.
void find_secrets(const Message& record, const SecretScanner& scanner, std::vector<Problem>& out);

// `inner` with find_secrets run on each record before it; without `inner`, each
// record goes on to the sink as it comes.
std::unique_ptr<StreamStage> make_secrets_stage(std::unique_ptr<StreamStage> inner,
                                                std::shared_ptr<const SecretScanner> scanner);

}  // namespace convo
