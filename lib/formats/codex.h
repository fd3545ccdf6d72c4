// The codex format: Codex CLI session rollouts (~/.codex/sessions/YYYY/MM/DD/
// rollout-*.jsonl), one `{"timestamp","type","payload"}` record per line. A
// `response_item`'s payload is a Responses item, the conversation (mapped as in
// formats/responses_items.h), with the line's timestamp. `session_meta` (whose `id`
// is the session of every later message), `turn_context` (whose `model` is the
// model of later assistant messages), `event_msg` (its payload's type the subtype;
// a token_count's `info.last_token_usage` its usage) are bookkeeping records;
// `compacted` an event holding the summary that replaced the history. Older
// rollouts (no wrapper: a first line of session metadata, bare items,
// `{"record_type":"state"}` lines) are read too. Written from another format: a
// session_meta line first, then response_item lines with timestamps, a rollout
// Codex resumes.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "formats/format.h"

namespace convo {

int sniff_codex(const JsonValue& record);
std::unique_ptr<Decoder> make_codex_decoder();
std::unique_ptr<Encoder> make_codex_encoder(LossReport& loss);
// Calls `unheld` with what a rollout line carries that other formats have no place
// for: its timestamp, and what its item carries (formats/responses_items.h).
void codex_unmodelled(const Message& message,
                      const std::function<void(std::string_view)>& unheld);
// Its key (FormatInfo::unmodelled_key): the item's, and whether the line has a time.
std::optional<std::uint64_t> codex_unmodelled_key(const Message& message);

}  // namespace convo
