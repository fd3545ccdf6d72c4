#include "fuzz.h"

#include <array>
#include <map>
#include <span>
#include <string_view>

#include "formats/format.h"
#include "io/record_reader.h"
#include "message.h"

namespace convo::fuzz {

namespace {

// The sizes bits of the last byte choose from: convo's own twice (inputs read as
// convo reads them), and sizes that lines and strings of test inputs cross.
constexpr std::array<std::size_t, 8> k_long_line_sizes = {
    RecordReader::k_long_line, 16, 64, 256, 1024, 4096, 16384, RecordReader::k_long_line};
constexpr std::array<std::size_t, 8> k_borrow_sizes = {
    Text::k_borrow_at, 16, 64, 256, 1024, 4096, 16384, Text::k_borrow_at};

}  // namespace

std::uint8_t last_byte(const std::uint8_t* data, std::size_t size) {
  return size > 0 ? data[size - 1] : 0;
}

void choose_sizes(std::uint8_t byte) {
  RecordReader::set_long_line_size(k_long_line_sizes[byte & 7]);
  Text::set_borrow_at(k_borrow_sizes[(byte >> 3) & 7]);
}

GroupBy grouping(std::uint8_t byte) { return (byte & 0x40) != 0 ? GroupBy::file : GroupBy::session; }

std::optional<Format> output_format(const std::uint8_t* data, std::size_t size) {
  std::span<const FormatInfo> formats = all_formats();
  std::size_t to = size > 0 ? data[0] % (formats.size() + 1) : formats.size();
  if (to < formats.size()) {
    return formats[to].format;
  }
  return std::nullopt;
}

void run_stage_on(const std::uint8_t* data, std::size_t size, const StageFactory& make_stage,
                  const SinkFactory& make_sink) {
  if (size < 2) {
    return;
  }
  // Byte 0: output format (or each input's own), --on-error, -j, --strict.
  // Byte 1: --from (auto or a format).
  // The last byte (staying part of the text): the sizes (choose_sizes).
  std::span<const FormatInfo> formats = all_formats();
  const unsigned choice = data[0];
  const unsigned from = data[1];
  std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  choose_sizes(last_byte(data, size));

  StreamOptions options;
  options.to = output_format(data, size);
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
