// The gemini-cli format: Gemini CLI's saved chats
// (`~/.gemini/tmp/<project hash>/chats/session-*.json`), one session document per
// file: `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`. A
// `user` message is a user turn (content a string or Gemini parts); a `gemini`
// message an assistant turn: its `thoughts` thinking blocks ("**subject**\n\n
// description"), its `content` text, its `toolCalls` tool_use blocks, `tokens` the
// usage and `model` the model; the calls' `result`s (functionResponse parts) make
// the tool turn that follows it. `info`, `error`, `warning` and other messages are
// kept as event records. The document is a container: written back as it was,
// with changed messages in place; from other formats, one document per input.
// Newer Gemini CLI (0.61 does) saves the same chat as lines (`session-*.jsonl`): the
// session's members, then one line a message (a container of its own), and `$set`
// lines; the first and the `$set` lines (history checkpoints too) are bookkeeping
// records. Rewinds (`$rewindTo`) are refused.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <string_view>

#include "formats/format.h"

namespace convo {

int sniff_gemini_cli(const JsonValue& record);
std::unique_ptr<Decoder> make_gemini_cli_decoder();
std::unique_ptr<Encoder> make_gemini_cli_encoder(LossReport& loss);
// Shared by the reader (gemini_cli.cc) and the writer (gemini_cli_encode.cc): the
// subject and description of a thought text ("**subject**\n\ndescription"), and
// the tool_result block a tool call record's `result` makes (nullopt without one).
std::pair<std::string, std::string> split_gemini_thought(std::string_view text);
std::optional<Block> decode_gemini_cli_result(const JsonValue& call, const std::string& path,
                                              const std::shared_ptr<const Source>& owner,
                                              const Block& use);
// What a Gemini CLI message carries that other formats have no place for: the
// thoughts' timestamps and subjects, tool calls' display members, tool token counts.
void gemini_cli_unmodelled(const Message& message,
                           const std::function<void(std::string_view)>& unheld);

}  // namespace convo
