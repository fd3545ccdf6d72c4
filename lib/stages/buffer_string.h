// buffer-string: a transcript as text, one `Prefix: text` entry per message, as
// LangChain's get_buffer_string writes it, so that a session reads as a play script.
// It writes text, not transcripts: the work is done by a sink (`BufferStringWriter`)
// that the pipeline hands every message to.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "pipeline.h"

namespace convo {

struct BufferStringOptions {
  enum class Style : std::uint8_t {
    prefix,  // `Prefix: text` entries
    xml,     // LangChain Python's format="xml": <message type="human">text</message>
  };
  Style style = Style::prefix;
  std::string human_prefix = "Human";
  std::string ai_prefix = "AI";
  std::string system_prefix = "System";  // system and developer messages
  std::string tool_prefix = "Tool";      // tool messages and tool_result blocks
  std::string function_prefix = "Function";  // OpenAI's legacy function messages
  // The prefix format for people rather than LangChain (--readable): a message's
  // parts on lines of their own (texts, [thinking], [call NAME: arguments]) instead
  // of glued together, and an entry with nothing to show (an empty `AI:`) left out.
  bool readable = false;
};

// Appends the entries `message` renders to, each followed by a newline (LangChain
// joins them with "\n"; this ends the last with one too). In both formats:
// - records that are not conversation turns render nothing;
// - each tool_result block is an entry of its own, a tool message with the
//   result's content, and a message that holds nothing else renders nothing more;
// - the message's name is not shown (LangChain Python; LangChain.js writes "name, ").
// The prefix format is `<prefix>: <content>`: text as it is, text blocks joined
// with nothing between them, media as [image], [audio], [video], [file],
// [document], tool_use blocks as nothing, any other block as [<its type>]
// ([thinking], ...), and an assistant message's tool calls after its content as
// LangChain.js writes them: JSON, [{"id","args","name","type":"tool_call"}], ids
// over 64 characters shortened with "...".
// The xml format is LangChain Python's: <message type="<prefix lower-cased>">
// with the content's parts (escaped text; media given by URL or file id as
// <image url="..." />) joined by a space; other blocks are left out. An assistant
// message with tool calls spans lines: its parts in <content>, then one
// <tool_call id="..." name="...">arguments</tool_call> per call, the arguments as
// Python's json.dumps writes them.
void render_buffer_string(const Message& message, const BufferStringOptions& options,
                          std::string& out);

// A sink that writes each message it is given as text to `out`.
class BufferStringWriter final : public MessageSink {
 public:
  BufferStringWriter(Output& out, const BufferStringOptions& options)
      : m_out(out), m_options(options) {}

  void put(Message&& message) override;

 private:
  Output& m_out;
  const BufferStringOptions& m_options;
  std::string m_scratch;  // reused
};

// Makes a BufferStringWriter per input; `options` are shared by all of them.
SinkFactory buffer_string_sink(std::shared_ptr<const BufferStringOptions> options);

}  // namespace convo
