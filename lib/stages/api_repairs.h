// normalize-for-api, steps 6-8 (convo-normalize-for-api(1)): a conversation's API
// view repaired into messages the Messages API accepts: roles and blocks it has no
// place for dropped, tool calls and results paired, thinking selected, blank text and
// empty messages removed, adjacent messages of one role merged, and the last
// assistant message tidied. Internal to normalize-for-api.
#pragma once

#include <vector>

#include "message.h"
#include "stages/normalize_for_api.h"

namespace convo {

// `messages`, one conversation's API view (without the blocks' origins), repaired.
std::vector<Message> repair_for_api(std::vector<Message> messages, const NormalizeOptions& options);

// From the view (normalize_for_api.cc), which the repairs use too.

// Turns string content into a block list (a string becomes one text block, kept even
// when empty so that `check` still sees it); its origin is added to `origins`.
void to_blocks(Content& content, std::vector<BlockOrigin>* origins, const BlockOrigin& origin);
// Appends the content of `from` to `into`, which becomes a block list, with the
// blocks' origins when given.
void append_content(Message& into, Message&& from, std::vector<BlockOrigin>* into_origins,
                    const BlockOrigin* into_origin, std::vector<BlockOrigin>* from_origins,
                    const BlockOrigin* from_origin);
// Whether messages of `role` in a row become one.
bool mergeable(Role role);
// Whether `next` joins `last`, the message before it.
bool joins(const Message& last, const Message& next);

}  // namespace convo
