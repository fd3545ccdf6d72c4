#include "json.h"

#include <fmt/format.h>

#include <rapidjson/error/error.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "json_streams.h"

namespace convo {

void json_assertion_failed(const char* expression) {
  throw std::logic_error(fmt::format("internal error: JSON assertion failed: {}", expression));
}

namespace {

// The parser's own stack (for strings and nesting) throws on exhaustion too.
using JsonReader = rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, JsonBaseAllocator>;

// Numbers come from the parser as their text and are typed by forward_number below,
// not by the parser: RapidJSON 1.1.0 (Debian's, the last release) has undefined
// behaviour in its full-precision conversion when every digit is zero and the exponent
// is far from 0 (`0e100`, `0.` and 23 zeros: clz of 0 in DiyFp::Normalize, a garbage
// value; Tencent/rapidjson#1249, fixed after the release). Found by fuzz_stage_tool_links.
constexpr unsigned k_parse_flags =
    rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseNumbersAsStringsFlag;

// Sends the number spelled `text` (valid JSON, checked by the parser) to `sink` as the
// parser would type it with kParseFullPrecisionFlag: an integer without fraction or
// exponent as Uint or Uint64 (Int or Int64 when negative, -0 as Int 0) while it fits,
// anything else as the correctly rounded double (std::from_chars; strtod where that is
// out of range, for infinity or a denormal's rounding to zero, as RapidJSON gives).
template <class Sink>
bool forward_number(Sink& sink, const char* text, std::size_t size) {
  const char* const end = text + size;
  const bool minus = size > 0 && text[0] == '-';
  const char* digits = text + (minus ? 1 : 0);
  if (std::find_if(digits, end, [](char c) { return c == '.' || c == 'e' || c == 'E'; }) == end) {
    std::uint64_t value = 0;
    auto [stop, error] = std::from_chars(digits, end, value);
    if (error == std::errc() && stop == end) {
      if (!minus) {
        return value <= UINT32_MAX ? sink.Uint(static_cast<unsigned>(value)) : sink.Uint64(value);
      }
      if (value <= std::uint64_t{1} << 31) {
        return sink.Int(static_cast<int>(-static_cast<std::int64_t>(value)));
      }
      if (value <= std::uint64_t{1} << 63) {
        return sink.Int64(static_cast<std::int64_t>(~value + 1));
      }
    }
  }
  double value = 0;
  auto [stop, error] = std::from_chars(text, end, value);
  if (error == std::errc::result_out_of_range) {
    value = std::strtod(std::string(text, size).c_str(), nullptr);
  } else if (error != std::errc() || stop != end) {
    return false;
  }
  return sink.Double(value);
}

// Forwards SAX events to `Sink` (the document being built, or a writer) and stops the
// parse when nesting passes k_max_json_depth: the recursive parser then never recurses
// deeper than that. Remembers whether the root is an object.
template <class Sink>
class DepthLimitedHandler {
 public:
  explicit DepthLimitedHandler(Sink& sink) : m_sink(sink) {}

  bool Null() { return m_sink.Null(); }
  bool Bool(bool b) { return m_sink.Bool(b); }
  bool Int(int i) { return m_sink.Int(i); }
  bool Uint(unsigned i) { return m_sink.Uint(i); }
  bool Int64(int64_t i) { return m_sink.Int64(i); }
  bool Uint64(uint64_t i) { return m_sink.Uint64(i); }
  bool Double(double d) { return m_sink.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    return forward_number(m_sink, s, n);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    if constexpr (k_document) {
      return m_sink.String(s, n, copy);
    } else {
      return m_sink.String(s, n);
    }
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    if constexpr (k_document) {
      return m_sink.Key(s, n, copy);
    } else {
      return m_sink.Key(s, n);
    }
  }
  bool StartObject() {
    m_object_root = m_object_root || m_depth == 0;
    return enter() && m_sink.StartObject();
  }
  bool EndObject(rapidjson::SizeType n) {
    --m_depth;
    return m_sink.EndObject(n);
  }
  bool StartArray() { return enter() && m_sink.StartArray(); }
  bool EndArray(rapidjson::SizeType n) {
    --m_depth;
    return m_sink.EndArray(n);
  }

  bool too_deep() const { return m_too_deep; }
  bool object_root() const { return m_object_root; }

 private:
  // A document's handler says whether a string must be copied; a writer's does not.
  static constexpr bool k_document = std::is_same_v<Sink, JsonDoc>;

  bool enter() {
    if (++m_depth > k_max_json_depth) {
      m_too_deep = true;
      return false;
    }
    return true;
  }

  Sink& m_sink;
  int m_depth = 0;
  bool m_too_deep = false;
  bool m_object_root = false;
};

std::string describe(rapidjson::ParseErrorCode code, std::string_view text, std::size_t offset,
                     bool too_deep) {
  using namespace rapidjson;
  if (too_deep) {
    return fmt::format("JSON nested deeper than {} levels", k_max_json_depth);
  }
  const bool at_end = offset >= text.size();
  if (!at_end && text[offset] == '\0') {
    return "NUL byte in JSON text";
  }
  switch (code) {
    case kParseErrorDocumentEmpty:
      return "expected a JSON value";
    case kParseErrorDocumentRootNotSingular:
      return "unexpected text after the JSON value";
    case kParseErrorValueInvalid:
      return at_end ? "unexpected end of input (truncated line?)" : "invalid JSON value";
    case kParseErrorObjectMissName:
      return at_end ? "unexpected end of input (truncated line?)"
                    : "expected a member name in double quotes";
    case kParseErrorObjectMissColon:
      return at_end ? "unexpected end of input (truncated line?)" : "expected ':'";
    case kParseErrorObjectMissCommaOrCurlyBracket:
      return at_end ? "unexpected end of input (truncated line?)" : "expected ',' or '}'";
    case kParseErrorArrayMissCommaOrSquareBracket:
      return at_end ? "unexpected end of input (truncated line?)" : "expected ',' or ']'";
    case kParseErrorStringUnicodeEscapeInvalidHex:
      return "invalid \\u escape";
    case kParseErrorStringUnicodeSurrogateInvalid:
      return "invalid UTF-16 surrogate in \\u escape";
    case kParseErrorStringEscapeInvalid:
      if (!at_end && static_cast<unsigned char>(text[offset]) < 0x20) {
        return "unescaped control character in string";
      }
      return "invalid escape in string";
    case kParseErrorStringMissQuotationMark:
      return at_end ? "unterminated string (truncated line?)" : "unterminated string";
    case kParseErrorStringInvalidEncoding:
      if (!at_end && static_cast<unsigned char>(text[offset]) < 0x20) {
        return "unescaped control character in string";
      }
      return "invalid UTF-8 in string";
    case kParseErrorNumberTooBig:
      return "number out of range";
    case kParseErrorNumberMissFraction:
      return "expected digits after '.'";
    case kParseErrorNumberMissExponent:
      return "expected digits in exponent";
    case kParseErrorTermination:
    case kParseErrorUnspecificSyntaxError:
    case kParseErrorNone:
      break;
  }
  return "invalid JSON";
}

std::optional<JsonParseError> parse_at(std::string_view text, JsonDoc& doc,
                                       std::size_t& consumed) {
  StrictStringStream stream(text.data());
  rapidjson::ParseResult result;
  bool too_deep = false;
  auto generator = [&](JsonDoc& target) {
    DepthLimitedHandler<JsonDoc> handler(target);
    JsonReader reader;
    result = reader.Parse<k_parse_flags>(stream, handler);
    too_deep = handler.too_deep();
    return !result.IsError();
  };
  doc.Populate(generator);
  if (result.IsError()) {
    // A stop for depth comes just after the opening bracket; point at it.
    std::size_t offset = result.Offset() - (too_deep && result.Offset() > 0 ? 1 : 0);
    return JsonParseError{offset, describe(result.Code(), text, offset, too_deep),
                          result.Code() == rapidjson::kParseErrorStringUnicodeSurrogateInvalid};
  }
  consumed = stream.Tell();
  if (consumed > text.size()) {
    // The parser ran into the NUL that terminates the buffer as if it were data.
    return JsonParseError{text.size(), "unexpected end of input (truncated line?)"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<JsonParseError> parse_json(std::string_view text, JsonDoc& doc) {
  std::size_t consumed = 0;
  if (auto error = parse_at(text, doc, consumed)) {
    return error;
  }
  for (std::size_t i = consumed; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      continue;
    }
    if (c == '\0') {
      return JsonParseError{i, "NUL byte in JSON text"};
    }
    return JsonParseError{i, "unexpected text after the JSON value"};
  }
  return std::nullopt;
}

namespace {

// The last text `json_object_as_written` found one JSON object (as written or not):
// `json_text_type` answers for that text from here (its bytes compared, so a stale
// answer is never given). An encoder asks both of one tool call's arguments (whether
// a format that holds them as an object gives them back as they were, then whether to
// write them), and parsing a big input (a patch) twice was 4% of a conversion to
// Anthropic.
thread_local std::string t_last_object;
thread_local bool t_last_object_set = false;

void remember_object(std::string_view text) {
  t_last_object_set = text.size() <= (std::size_t{1} << 22);
  if (t_last_object_set) {
    t_last_object.assign(text);
  } else {
    std::string().swap(t_last_object);
  }
}

// `json_text_type` without the memory above.
std::optional<rapidjson::Type> parse_type(std::string_view text);

}  // namespace

std::optional<bool> json_object_as_written(std::string_view text) {
  t_last_object_set = false;
  // Most tool inputs are spelled as the writer writes (a program wrote them, or convo
  // did), or so but for spaces after the colons and commas (Python's json.dumps):
  // then one validating scan of their bytes says so, without parsing them or
  // writing them out (the writer's escaping, then a parse for the type, were most
  // of this; the parse and the writing of spaced ones 2% of a conversion to Anthropic).
  const std::size_t first = text.find_first_not_of(" \n\r\t");
  if (first != std::string_view::npos && text[first] == '{') {
    const JsonSpelling spelling = json_spelling(text);
    if (spelling != JsonSpelling::unknown) {
      remember_object(text);
      return spelling == JsonSpelling::as_written;
    }
  }
  // Else parsed in place in a padded copy, as json_text_type parses (the same answers
  // as parse_json), the strings going from there to the writer; both buffers are kept
  // for the thread (every tool call a conversion writes may come here), but not
  // after a huge one.
  thread_local std::string copy;
  thread_local rapidjson::StringBuffer written;
  struct Shrink {
    ~Shrink() {
      if (copy.capacity() > (std::size_t{1} << 22)) {
        std::string().swap(copy);
      }
      if (written.stack_.GetCapacity() > (std::size_t{1} << 22)) {
        written.ShrinkToFit();
      }
    }
  } shrink;
  reserve_parse_padding(copy, text.size());
  copy.assign(text);
  copy.append(k_parse_padding, '\0');
  copy.resize(text.size());
  written.Clear();
  JsonWriter writer(written);
  DepthLimitedHandler<JsonWriter> handler(writer);
  PaddedInsituStream stream(copy.data());
  JsonReader reader;
  if (reader.Parse<k_parse_flags | rapidjson::kParseInsituFlag>(stream, handler).IsError() ||
      !handler.object_root()) {
    return std::nullopt;
  }
  if (!ends_after_value(stream, copy)) {
    return std::nullopt;
  }
  remember_object(text);
  return std::string_view(written.GetString(), written.GetSize()) == text;
}

namespace {

// Parses `text` (NULs after its size) through `stream` into `doc`: true when it is
// one value followed by whitespace alone up to the real end (not a NUL).
bool parse_padded(PaddedInsituStream& stream, std::string_view text, JsonDoc& doc) {
  rapidjson::ParseResult result;
  auto generator = [&](JsonDoc& target) {
    DepthLimitedHandler<JsonDoc> handler(target);
    JsonReader reader;
    result = reader.Parse<k_parse_flags | rapidjson::kParseInsituFlag>(stream, handler);
    return !result.IsError();
  };
  doc.Populate(generator);
  return !result.IsError() && ends_after_value(stream, text);
}

}  // namespace

void reserve_parse_padding(std::string& text, std::size_t size) {
  text.reserve(size + k_parse_padding);
}

bool parse_json_in_place(std::string& text, JsonDoc& doc) {
  // Zeros after the text (appended and taken off again: only the capacity stays).
  const std::size_t size = text.size();
  text.append(k_parse_padding, '\0');
  text.resize(size);
  PaddedInsituStream stream(text.data());
  return parse_padded(stream, text, doc);
}

bool parse_json_shadowed(std::string_view text, char* shadow, JsonDoc& doc,
                         std::size_t& lone_surrogates) {
  // Only read: the stream's pointers are not const because in place they write.
  char* const begin = const_cast<char*>(text.data());
  PaddedInsituStream stream(begin, shadow, true);
  const bool parsed = parse_padded(stream, text, doc);
  lone_surrogates = stream.lone_surrogates;
  return parsed;
}

namespace {

// SAX events counted, not kept: the root value's type, and nesting limited as
// DepthLimitedHandler limits it.
class TypeOnlyHandler {
 public:
  bool Null() { return value(rapidjson::kNullType); }
  bool Bool(bool b) { return value(b ? rapidjson::kTrueType : rapidjson::kFalseType); }
  bool Int(int) { return value(rapidjson::kNumberType); }
  bool Uint(unsigned) { return value(rapidjson::kNumberType); }
  bool Int64(int64_t) { return value(rapidjson::kNumberType); }
  bool Uint64(uint64_t) { return value(rapidjson::kNumberType); }
  bool Double(double) { return value(rapidjson::kNumberType); }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return value(rapidjson::kNumberType); }
  bool String(const char*, rapidjson::SizeType, bool) { return value(rapidjson::kStringType); }
  bool Key(const char*, rapidjson::SizeType, bool) { return true; }
  bool StartObject() { return value(rapidjson::kObjectType) && enter(); }
  bool EndObject(rapidjson::SizeType) {
    --m_depth;
    return true;
  }
  bool StartArray() { return value(rapidjson::kArrayType) && enter(); }
  bool EndArray(rapidjson::SizeType) {
    --m_depth;
    return true;
  }

  std::optional<rapidjson::Type> root;

 private:
  bool value(rapidjson::Type type) {
    if (!root) {
      root = type;
    }
    return true;
  }
  bool enter() { return ++m_depth <= k_max_json_depth; }

  int m_depth = 0;
};

}  // namespace

std::optional<rapidjson::Type> json_text_type(std::string_view text) {
  if (t_last_object_set && t_last_object == text) {
    return rapidjson::kObjectType;  // json_object_as_written just parsed it
  }
  return parse_type(text);
}

namespace {

std::optional<rapidjson::Type> parse_type(std::string_view text) {
  // One buffer a thread, kept: every tool call a conversion writes is checked here.
  thread_local std::string copy;
  if (copy.capacity() > (std::size_t{1} << 22)) {
    std::string().swap(copy);  // not kept after a huge one
  }
  reserve_parse_padding(copy, text.size());
  copy.assign(text);
  TypeOnlyHandler handler;
  copy.append(k_parse_padding, '\0');
  copy.resize(text.size());
  PaddedInsituStream stream(copy.data());
  JsonReader reader;
  if (reader.Parse<k_parse_flags | rapidjson::kParseInsituFlag>(stream, handler).IsError()) {
    return std::nullopt;
  }
  if (!ends_after_value(stream, copy)) {
    return std::nullopt;
  }
  return handler.root;
}

}  // namespace

std::optional<JsonParseError> parse_json_prefix(std::string_view text, JsonDoc& doc,
                                                std::size_t& consumed) {
  return parse_at(text, doc, consumed);
}


std::optional<bool> bool_member(const JsonValue& object, std::string_view key) {
  const JsonValue* value = find_member(object, key);
  if (value == nullptr || !value->IsBool()) {
    return std::nullopt;
  }
  return value->GetBool();
}

const char* json_type_name(const JsonValue& value) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
  }
  return "value";
}

void append_json(const JsonValue& value, std::string& out) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  value.Accept(writer);
  out.append(buffer.GetString(), buffer.GetSize());
}

std::string to_json(const JsonValue& value) {
  std::string out;
  append_json(value, out);
  return out;
}

std::string json_quote(std::string_view text) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  return std::string(buffer.GetString(), buffer.GetSize());
}

void set_member(JsonValue& object, std::string_view key, JsonValue value, JsonAllocator& alloc) {
  auto it = object.FindMember(
      JsonValue(rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size()))));
  if (it != object.MemberEnd()) {
    it->value = std::move(value);
    return;
  }
  object.AddMember(make_string(key, alloc), std::move(value), alloc);
}

void erase_member(JsonValue& object, std::string_view key) {
  auto it = object.FindMember(
      JsonValue(rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size()))));
  if (it != object.MemberEnd()) {
    object.EraseMember(it);
  }
}

}  // namespace convo
