#include "fuzz.h"

#include <map>
#include <span>
#include <string_view>

#include "formats/format.h"

namespace convo::fuzz {

void run_stage_on(const std::uint8_t* data, std::size_t size, const StageFactory& make_stage,
                  const SinkFactory& make_sink) {
  if (size < 2) {
    return;
  }
  // Byte 0: output format (or each input's own), --on-error, -j, --strict.
  // Byte 1: --from (auto or a format).
  std::span<const FormatInfo> formats = all_formats();
  const unsigned choice = data[0];
  const unsigned from = data[1];
  std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);

  StreamOptions options;
  std::size_t to = choice % (formats.size() + 1);
  if (to < formats.size()) {
    options.to = formats[to].format;
  }
  options.read.on_error = static_cast<OnError>((choice >> 3) % 3);
  options.read.jobs = (choice & 0x40) != 0 ? 2 : 1;
  options.strict = (choice & 0x80) != 0;
  std::size_t from_index = from % (formats.size() + 1);
  if (from_index < formats.size()) {
    options.read.from = formats[from_index].format;
  }
  std::map<std::string, std::string> files;
  if (options.read.jobs > 1) {
    std::size_t half = text.size() / 2;
    files["a.jsonl"] = std::string(text.substr(0, half));
    files["b.jsonl"] = std::string(text.substr(half));
  } else {
    files["a.jsonl"] = std::string(text);
  }
  for (const auto& [name, bytes] : files) {
    options.inputs.push_back(name);
  }
  Opener open = [&files](const std::string& path) { return memory_source(files.at(path)); };
  StringOutput out;
  NullDiagnostics diagnostics;
  try {
    run_stream(options, make_stage, make_sink ? make_sink : format_sink(options.to), out,
               diagnostics, open);
  } catch (const Error&) {
    // A bad input, reported with its place: what convo is meant to do.
  }
}

}  // namespace convo::fuzz
