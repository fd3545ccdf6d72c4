// The anthropic format's request body: a conversation as a whole Messages API
// request (`{"model","max_tokens","system","tools","messages",...}`), what
// `normalize-for-api --request` writes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "formats/format.h"
#include "message.h"

namespace convo {

struct RequestOptions {
  std::string model;  // empty: the input request's, or the last the conversation recorded
  std::optional<std::int64_t> max_tokens;  // nullopt: the input request's, else 4096
  std::optional<std::string> system;       // replaces the conversation's leading system messages
  bool prefill = false;  // keep final assistant messages (else the request ends on a user one)
  // Keep thinking blocks although the request sets no `thinking` parameter.
  bool thinking_without_parameter = false;
  Diagnostics* diagnostics = nullptr;  // told what was left out; may be null
};

// The request body (compact JSON) for `conversation`, which normalize-for-api has
// made valid for the API. Settings of the request body the conversation was read
// from (tools, thinking, metadata, ...) come along; a session log's tools are
// declared from the calls it made. Throws convo::Error (usage) when no model is
// recorded or given. What the messages cannot hold is counted in `loss`.
std::string anthropic_request_body(std::vector<Message> conversation,
                                   const RequestOptions& options, LossReport& loss);

}  // namespace convo
