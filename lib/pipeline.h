// The path every subcommand's data takes: inputs -> records -> messages (with the
// format detected per input and bad records handled by policy) -> a stage -> a sink
// that encodes and writes. cmd/ wires a subcommand's options into these pieces.
#pragma once

#include <atomic>
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
#include "io/record_reader.h"
#include "input_reader.h"
#include "message.h"

namespace convo {

class Output;

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
  // True when the sink takes a conversation as one thing (a request body, the
  // conversation `check` checks), which --on-error then skips or keeps whole;
  // otherwise the pipeline's guard puts its messages one by one, so that one that
  // cannot be written is the only one left out. Whoever overrides put_conversation
  // says true here.
  virtual bool takes_conversations_whole() const { return false; }
  // An input ended.
  virtual void end_input() {}
  // The sink that finally receives what is put here, through any wrapper (the
  // pipeline's own guard): for a stage that also hands a sink something other than
  // messages (check --secrets' problems), found with dynamic_cast.
  virtual MessageSink& target() { return *this; }
};

// Drops what it is given: the sink of subcommands that report on what they read
// (usage, sessions) rather than write it.
class DiscardSink final : public MessageSink {
 public:
  void put(Message&& message) override { (void)message; }
};

// Encodes messages and writes them: in `to`, or in each message's own format.
class FormatWriter final : public MessageSink {
 public:
  FormatWriter(Output& out, std::optional<Format> to, LossReport& loss,
               const EncodeOptions& options = {});
  ~FormatWriter() override;

  void put(Message&& message) override;
  // Closes any open container (a request body being rebuilt).
  void end_input() override;

 private:
  Encoder& encoder_for(Format format);

  Output& m_out;
  std::optional<Format> m_to;
  LossReport& m_loss;
  EncodeOptions m_options;
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
// independently, and with `-j` in parallel: the factory is then called from several
// threads at once.
using StageFactory = std::function<std::unique_ptr<StreamStage>()>;

// Makes the sink that one input's messages go to after its stage, writing to `out`
// and reporting what it cannot write to `loss`. Each input gets its own sink, `out`
// and `loss` (merged in input order), so a sink keeps no state across inputs. With
// `-j` the factory is called, and the sinks run, on several threads at once: what a
// sink must share (a count of problems found) goes through what the factory
// captured, and must be thread-safe (an atomic counter).
using SinkFactory = std::function<std::unique_ptr<MessageSink>(Output& out, LossReport& loss)>;

// The sink of the subcommands that write transcripts: a FormatWriter for `to`,
// its encoders configured with `options`.
SinkFactory format_sink(std::optional<Format> to, const EncodeOptions& options = {});

// `options` with what the read options ask of the writers: records' bytes held
// only under --on-error keep (EncodeOptions::keeps_bad_records).
EncodeOptions encode_options(const ReadOptions& read, EncodeOptions options = {});

// Reads `paths`, runs every message through a stage made for its input, and gives
// the result to a sink made for that input, writing to `out`.
//
// All-or-nothing: `out` receives the output of a stage's `push` (or `finish`) whole
// or not at all. For a streaming stage that is one record; for a ConversationStage,
// one conversation. When an input fails (a bad record under --on-error fail, a loss
// under --strict, a stage's error), what was completed before the failure is
// flushed to `out`, what was not is dropped, and the error is thrown.
//
// With `options.jobs` > 1, up to that many inputs are processed at once, each
// into a buffer of its own; buffers, warnings and the error are handed on in input
// order, so that `out`, `diagnostics`, `loss` and the error are exactly what one job
// gives. Output waiting behind an unfinished earlier input is bounded (64 MB in
// all): past that, the later inputs wait.
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
