// The path every subcommand's data takes: inputs -> records -> messages (with the
// format detected per input and bad records handled by policy) -> a stage -> a sink
// that encodes and writes. cmd/ wires a subcommand's options into these pieces.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diagnostics.h"
#include "formats/format.h"
#include "io/input.h"
#include "message.h"

namespace convo {

class Output;

// What to do with a record that is not valid JSON or not valid for its format.
enum class OnError : std::uint8_t {
  fail,  // stop with an error naming file:line:column (the default)
  skip,  // warn, count, and go on without it
  keep,  // warn, and write the line through unchanged
};

struct ReadOptions {
  std::optional<Format> from;  // nullopt: detect each input's format from its first records
  OnError on_error = OnError::fail;
};

// Receives what `read_inputs` reads.
class InputHandler {
 public:
  virtual ~InputHandler() = default;
  // An input begins. `format` is Format::none when it has no valid record to tell by.
  virtual void begin_input(const std::string& name, Format format) {
    (void)name;
    (void)format;
  }
  virtual void message(Message&& message) = 0;
  virtual void end_input() {}
};

struct ReadStats {
  std::uint64_t inputs = 0;
  std::uint64_t records = 0;  // valid records decoded
  std::uint64_t bad = 0;      // records skipped or kept by policy
};

// Opens an input by name; `open_input` by default, memory in tests.
using Opener = std::function<std::unique_ptr<ByteSource>(const std::string& path)>;

// Reads `paths` in order ("-" is standard input; an empty list means standard
// input) and hands every message to `handler`. Bad records follow
// `options.on_error`; warnings go to `diagnostics`. Throws convo::Error.
ReadStats read_inputs(const std::vector<std::string>& paths, const ReadOptions& options,
                      InputHandler& handler, Diagnostics& diagnostics,
                      const Opener& open = open_input);

// Where a stage sends the messages it keeps.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  virtual void put(Message&& message) = 0;
  // One whole conversation, from a whole-conversation stage (an input may hold
  // several). By default its messages are put one by one.
  virtual void put_conversation(std::vector<Message>&& conversation) {
    for (Message& message : conversation) {
      put(std::move(message));
    }
  }
  // An input ended.
  virtual void end_input() {}
};

// Encodes messages and writes them: in `to`, or in each message's own format.
class FormatWriter final : public MessageSink {
 public:
  FormatWriter(Output& out, std::optional<Format> to, LossReport& loss);
  ~FormatWriter() override;

  void put(Message&& message) override;
  // Closes any open container (a request body being rebuilt).
  void end_input() override;

 private:
  Encoder& encoder_for(Format format);

  Output& m_out;
  std::optional<Format> m_to;
  LossReport& m_loss;
  std::vector<std::pair<Format, std::unique_ptr<Encoder>>> m_encoders;
};

// A streaming stage: gets messages one at a time and passes on what it keeps.
// Memory stays flat: a stage holds back at most a few messages.
class StreamStage {
 public:
  virtual ~StreamStage() = default;
  virtual void push(Message&& message, MessageSink& next) = 0;
  // The input ended: pass on anything held back. Stages do not carry state from
  // one input to the next.
  virtual void finish(MessageSink& next) { (void)next; }
};

// Makes a fresh stage. Each input gets its own, so that inputs can be processed
// independently (and, one day, in parallel).
using StageFactory = std::function<std::unique_ptr<StreamStage>()>;

// Makes the sink that one input's messages go to after its stage, writing to `out`
// and reporting what it cannot write to `loss`. Each input gets its own sink, so a
// sink keeps no state across inputs; what it must share (a count of problems found)
// goes through what the factory captured.
using SinkFactory = std::function<std::unique_ptr<MessageSink>(Output& out, LossReport& loss)>;

// The sink of the subcommands that write transcripts: a FormatWriter for `to`.
SinkFactory format_sink(std::optional<Format> to);

// Reads `paths`, runs every message through a stage made for its input, and gives
// the result to a sink made for that input.
ReadStats run_stage(const std::vector<std::string>& paths, const ReadOptions& options,
                    const StageFactory& make_stage, const SinkFactory& make_sink, Output& out,
                    LossReport& loss, Diagnostics& diagnostics, const Opener& open = open_input);

// What every subcommand that writes transcripts reads and writes.
struct StreamOptions {
  std::vector<std::string> inputs;  // empty: standard input
  ReadOptions read;
  std::optional<Format> to;  // nullopt: each message in the format it was read in
  bool strict = false;       // what the output format cannot hold is an error
};

// The whole run of a subcommand: reads the inputs, runs the stages, hands the result
// to sinks from `make_sink` that write to `out`, and reports what was dropped for
// want of room in the output format once, at the end (an error at the first loss
// under `strict`).
ReadStats run_stream(const StreamOptions& options, const StageFactory& make_stage,
                     const SinkFactory& make_sink, Output& out, Diagnostics& diagnostics,
                     const Opener& open = open_input);

// `run_stream` writing transcripts in `options.to` (or each input's own format).
ReadStats run_stream(const StreamOptions& options, const StageFactory& make_stage, Output& out,
                     Diagnostics& diagnostics, const Opener& open = open_input);

}  // namespace convo
