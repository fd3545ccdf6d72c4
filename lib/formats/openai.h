// The openai format: Chat Completions messages, one per line. Roles system,
// developer, user, assistant, tool (and legacy function); content a string, null or
// a list of parts. Assistant `tool_calls` become tool_use blocks (arguments kept as
// the original JSON text), each tool message a tool_result block, and the reasoning
// text OpenAI-compatible providers add to assistant messages (`reasoning_content`,
// `reasoning`) a thinking block ahead of the content; the encoder maps them back. Also read: request bodies (`{"model","messages",...}`), response
// bodies (`{"choices":[{"message":...}]}`) and JSON arrays of messages, written
// back as they were with their messages in place.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "formats/format.h"

namespace convo {

// The members in which OpenAI-compatible providers return an assistant's reasoning.
inline constexpr std::string_view k_openai_reasoning_members[] = {"reasoning_content", "reasoning"};

int sniff_openai(const JsonValue& record);
std::unique_ptr<Decoder> make_openai_decoder();
std::unique_ptr<Encoder> make_openai_encoder(LossReport& loss);
// What an OpenAI Chat message carries that convo does not model, for the loss report
// of a conversion to another format: members beyond role, name, id, content,
// tool_call_id, tool_calls and reasoning text (Mistral's `prefix`, `refusal`,
// `annotations`, ...), and a tool call's beyond id, type and function (`index`).
void openai_unmodelled(const Message& message, const std::function<void(std::string_view)>& unheld);

// Appends to `content` (made a list of blocks) a tool_use block for each OpenAI tool
// call in the `tool_calls` member of `object` (at `path`), the arguments kept as
// their JSON text. LangChain's old records keep such calls in additional_kwargs.
void decode_openai_tool_calls(const JsonValue& object, const std::string& path,
                              const std::shared_ptr<const Source>& owner, Content& content);

// True for a thinking block read from the `reasoning_content` (DeepSeek, ...) or
// `reasoning` (OpenRouter, Groq, ...) member of an OpenAI-compatible assistant
// message: its `type_name` is that member's name. The openai writer puts it back
// there; LangChain, which keeps such members in additional_kwargs, does not see it
// as content.
bool is_openai_reasoning(const Block& block);

// Writes OpenAI's image part, `{"type": "image_url", "image_url": {"url": ...}}`, for
// `source` (base64 data as a data: URL). LangChain's chat models read it too.
void write_openai_image_part(JsonWriter& w, const MediaSource& source);

// The media type of an `input_audio` part's `format` ("mp3" is audio/mpeg, as the
// writer reads it back).
std::string openai_audio_media_type(std::string_view format);

}  // namespace convo
