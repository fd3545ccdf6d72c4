// What the two files of EncoderBase share: encoder_base.cc (records written one by
// one, replies joined, what a target cannot hold counted) and encoder_bodies.cc
// (containers and API bodies written whole). Internal to lib/formats.
#pragma once

#include <span>
#include <string_view>

#include "formats/format.h"

namespace convo {

// Throws EncodeError when `value`, re-encoded from `raw` (found at `where`), is not
// valid UTF-8, pointing at the first bad byte of `raw` where it can. A reply joined
// from several records (`joined`: those after the first, whose bytes `raw` are) is
// pointed at the record that holds the bad byte, and kept or skipped whole; so is a
// message a stage merged from several records (`merged`: `joined` are
// RecordMeta::merged), which the message then says.
void check_utf8(std::string_view value, const Location& where, std::string_view raw,
                std::span<const JoinedRecord> joined = {}, bool merged = false);

// What a container's members beyond its messages are counted as when the messages
// go to another format ("tools of request bodies"); empty for containers that hold
// nothing but messages (a JSON array, `{"loglines": [...]}`).
std::string_view container_noun(const Container& container);

// True when `item`, a turn of the Responses family, is part of the same turn as
// `reply` (the items joined so far): in a reply, reasoning, a tool call, or a message
// after something that is not one (two messages in a row stay two turns, as they
// come back); after a call's output, the output of another call (the outputs that
// answer one reply are one turn of results: Anthropic's user turn, Gemini's user
// content, the AI SDK's tool message).
bool item_joins_reply(const Message& reply, const Message& item);

// Appends the blocks of `item` to `reply` (the turn's usage is the first item's
// that has one).
void append_reply_item(Message& reply, Message&& item);

}  // namespace convo
