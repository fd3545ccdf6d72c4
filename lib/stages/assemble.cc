#include "stages/assemble.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <future>
#include <optional>

#include "formats/fields.h"
#include "formats/stream.h"
#include "io/compression.h"
#include "io/input_list.h"
#include "io/output.h"
#include "sse_reader.h"
#include "utf8.h"

namespace convo {

namespace {

std::string error_text(const JsonValue& event) {
  const JsonValue* error = find_member(event, "error");
  if (error == nullptr || !error->IsObject()) {
    return "stream error";
  }
  auto type = string_member(*error, "type");
  auto message = string_member(*error, "message");
  if (type && message) {
    return fmt::format("stream error: {}: {}", *type, *message);
  }
  if (message || type) {
    return fmt::format("stream error: {}", message ? *message : *type);
  }
  return fmt::format("stream error: {}", to_json(*error));
}

// --- The driver ---

// How an event of `by` ending `of`'s unfinished response is told: "an OpenAI stream
// starts before the Anthropic one ends", "a LangChain chunk comes before the OpenAI
// stream ends".
std::string interruption(const StreamReader& by, const StreamReader& of) {
  bool says_stream = by.arrival().find("stream") != std::string_view::npos;
  return fmt::format("{} before the {} {} ends", by.arrival(), of.name(),
                     says_stream ? "one" : "stream");
}

class StreamAssembler {
 public:
  StreamAssembler(StreamEventReader& reader, Diagnostics& diagnostics)
      : m_reader(reader), m_diagnostics(diagnostics) {
    // Every format that streams, in registry order: the first that claims an event
    // takes it.
    for (const FormatInfo& info : all_formats()) {
      if (info.make_stream_reader != nullptr) {
        m_dialects.push_back(info.make_stream_reader());
      }
    }
  }

  std::vector<AssembledResponse> run() {
    StreamEvent event;
    Location last = Location{m_reader.file()};
    while (m_reader.next(event)) {
      handle(event);
      last = event.where;
    }
    // A stream cut off ends after its last event: that is the place to name.
    for (auto& dialect : m_dialects) {
      if (dialect->open()) {
        if (dialect->complete()) {
          m_out.push_back(dialect->end("", {}));
        } else {
          m_out.push_back(dialect->end(dialect->cut_off(), last));
        }
      }
    }
    return std::move(m_out);
  }

 private:
  void handle(const StreamEvent& event) {
    if (event.data.empty()) {
      return;
    }
    for (auto& dialect : m_dialects) {
      if (dialect->end_marker(event.data, m_out)) {
        return;
      }
    }
    JsonDoc doc;
    if (auto error = parse_json(event.data, doc)) {
      Location where = event.at(error->offset);
      fail_current(fmt::format("event data is not JSON: {}", error->message), where);
      return;
    }
    if (!doc.IsObject()) {
      fail_current(fmt::format("event data is {}, not an object", json_type_name(doc)),
                   event.where);
      return;
    }
    std::string_view type = string_member(doc, "type").value_or("");
    if (event.name == "error" || type == "error" ||
        (find_member(doc, "error") != nullptr && type.empty() &&
         std::none_of(m_dialects.begin(), m_dialects.end(),
                      [&](const auto& dialect) { return dialect->owns_error_member(doc); }))) {
      fail_current(error_text(doc), event.where);
      return;
    }
    auto dialect = std::find_if(m_dialects.begin(), m_dialects.end(),
                                [&](const auto& d) { return d->claims(event, doc); });
    if (dialect == m_dialects.end()) {
      m_diagnostics.warning(
          event.where, fmt::format("ignored an event of unknown type{}",
                                   type.empty() ? std::string() : fmt::format(" \"{}\"", type)));
      return;
    }
    // An event of one dialect ends another's response: whole if nothing was
    // still to come, else cut off here.
    for (auto& other : m_dialects) {
      if (other != *dialect && other->open()) {
        m_out.push_back(
            other->end(other->complete() ? "" : interruption(**dialect, *other), event.where));
      }
    }
    std::string problem = (*dialect)->take(event, doc, m_out, m_diagnostics);
    if (!problem.empty()) {
      fail_current(problem, event.where);
    }
  }

  // The open response ends here with `problem`; with none open, the problem alone.
  void fail_current(const std::string& problem, const Location& where) {
    for (auto& dialect : m_dialects) {
      if (dialect->open()) {
        m_out.push_back(dialect->end(problem, where));
        return;
      }
    }
    AssembledResponse response;
    response.problem = problem;
    response.problem_at = where;
    m_out.push_back(std::move(response));
  }

  StreamEventReader& m_reader;
  Diagnostics& m_diagnostics;
  std::vector<std::unique_ptr<StreamReader>> m_dialects;  // at most one has a response open
  std::vector<AssembledResponse> m_out;
};

}  // namespace

std::vector<AssembledResponse> assemble_stream(StreamEventReader& reader,
                                               Diagnostics& diagnostics) {
  return StreamAssembler(reader, diagnostics).run();
}

namespace {

// The warnings of one stream, held until its turn to be written comes (with -j).
class HeldDiagnostics final : public Diagnostics {
 public:
  void warning(const Location& where, std::string_view what) override {
    m_held.emplace_back(where, std::string(what));
  }
  void replay(Diagnostics& to) const {
    for (const auto& [where, what] : m_held) {
      to.warning(where, what);
    }
  }

 private:
  std::vector<std::pair<Location, std::string>> m_held;
};

struct AssembledInput {
  std::vector<AssembledResponse> responses;
  HeldDiagnostics warnings;
};

AssembledInput assemble_input(const std::string& path, const AssembleOptions& options,
                              const Opener& open) {
  AssembledInput input;
  std::string name = display_name(path);
  StreamEventReader reader(decompressing(counted(open(path), options.progress), name), name);
  input.responses = assemble_stream(reader, input.warnings);
  if (options.progress != nullptr) {
    options.progress->records.fetch_add(input.responses.size(), std::memory_order_relaxed);
    options.progress->inputs_done.fetch_add(1, std::memory_order_relaxed);
  }
  return input;
}

}  // namespace

AssembleStats assemble(const AssembleOptions& options, Output& out, Diagnostics& diagnostics,
                       const Opener& open) {
  AssembleStats stats;
  std::uint64_t stray = 0;  // events with a problem that belong to no response
  LossReport loss(options.strict);
  // As every subcommand reads: compressed streams decompressed, a directory as
  // the transcript files below it.
  std::vector<std::string> inputs =
      options.inputs.empty() ? std::vector<std::string>{"-"} : expand_inputs(options.inputs, &diagnostics);
  if (options.progress != nullptr) {
    count_inputs(inputs, *options.progress);
  }
  // Up to `jobs` streams are assembled ahead on threads of their own; they are
  // written, and their warnings and errors given, in input order.
  unsigned jobs = std::max(1u, options.jobs);
  std::deque<std::future<AssembledInput>> pending;
  std::size_t next = 0;
  auto launch = [&] {
    pending.push_back(std::async(jobs > 1 ? std::launch::async : std::launch::deferred,
                                 assemble_input, std::cref(inputs[next]), std::cref(options),
                                 std::cref(open)));
    ++next;
  };
  while (next < inputs.size() && pending.size() < jobs) {
    launch();
  }
  while (!pending.empty()) {
    AssembledInput input = pending.front().get();
    pending.pop_front();
    if (next < inputs.size()) {
      launch();
    }
    input.warnings.replay(diagnostics);
    std::vector<AssembledResponse>& responses = input.responses;
    FormatWriter writer(out, options.to, loss);
    for (AssembledResponse& response : responses) {
      if (!response.json.empty() && options.from && response.format != *options.from) {
        throw Error(response.where,
                    fmt::format("the stream is {}, not {} as --from says",
                                format_name(response.format), format_name(*options.from)));
      }
      if (!response.json.empty()) {
        // The events' strings are copied as they came; JSON (and the APIs) take
        // only UTF-8, so a stream with bytes that are not is not written out.
        if (std::optional<std::size_t> bad = find_invalid_utf8(response.json)) {
          std::string problem = fmt::format(
              "the response's text is not valid UTF-8 (byte 0x{:02X}); it is not written",
              static_cast<unsigned char>(response.json[*bad]));
          response.json.clear();
          if (response.problem.empty()) {
            response.problem = std::move(problem);
            response.problem_at = response.where;
          } else {
            diagnostics.warning(response.where, problem);
          }
        }
      }
      if (!response.json.empty()) {
        ++stats.responses;
        Record record;
        record.raw = std::move(response.json);
        record.where = response.where;
        record.source = std::make_shared<Source>();
        if (parse_json(record.raw, record.source->doc)) {
          throw std::logic_error("internal error: an assembled response is not JSON");
        }
        std::vector<Message> messages;
        try {
          format_info(response.format).make_decoder()->decode(std::move(record), messages);
        } catch (const DecodeError& error) {
          throw Error(response.where,
                      fmt::format("the assembled response does not read as {}: {}: {}",
                                  format_name(response.format), readable_path(error.path()),
                                  error.message()));
        }
        for (Message& message : messages) {
          writer.put(std::move(message));
        }
        writer.end_input();
      }
      if (!response.problem.empty()) {
        // An event outside any response (after a garbled one) is not a response.
        if (response.in_response()) {
          ++stats.incomplete;
        } else {
          ++stray;
        }
        if (options.on_error == OnError::fail) {
          out.flush();  // what arrived, then the error
          throw Error(response.problem_at, response.problem);
        }
        diagnostics.warning(response.problem_at, response.problem);
      }
    }
    writer.end_input();
  }
  out.flush();
  if (!loss.empty()) {
    diagnostics.warning(Location{}, fmt::format("dropped what the output format cannot hold: "
                                                "{} (--strict makes this an error)",
                                                loss.summary()));
  }
  if (stats.incomplete > 0 && options.on_error != OnError::fail) {
    diagnostics.warning(Location{}, fmt::format("{} incomplete response{}", stats.incomplete,
                                                stats.incomplete == 1 ? "" : "s"));
  }
  if (stray > 0 && options.on_error != OnError::fail) {
    diagnostics.warning(Location{}, fmt::format("{} event{} outside any response ignored", stray,
                                                stray == 1 ? "" : "s"));
  }
  return stats;
}

}  // namespace convo
