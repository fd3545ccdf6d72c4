#include "stages/buffer_string.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>
#include <algorithm>
#include <unordered_map>

#include "io/output.h"
#include "json.h"

namespace convo {

namespace {

// --- JSON as JavaScript's JSON.stringify writes it ---
// LangChain.js renders tool calls with JSON.stringify; the arguments are re-written
// from their parsed value, so spacing, escapes and numbers follow JavaScript.

void append_js_string(std::string_view text, std::string& out) {
  static constexpr char k_hex[] = "0123456789abcdef";
  out += '"';
  std::size_t run = 0;  // start of the characters not yet written
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') {
      continue;
    }
    out.append(text, run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += k_hex[c >> 4];
        out += k_hex[c & 15];
    }
  }
  out.append(text, run);
  out += '"';
}

// Number.prototype.toString: the shortest digits that read back as `value`, in
// plain notation from 1e-7 up to 1e21 and in exponent notation outside.
void append_js_number(double value, std::string& out) {
  if (!std::isfinite(value)) {
    out += "null";  // JSON.stringify(NaN) and Infinity
    return;
  }
  if (value == 0) {
    out += '0';  // also -0
    return;
  }
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
  if (text.front() == '-') {
    out += '-';
    text.remove_prefix(1);
  }
  std::size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') {
      digits += c;
    }
  }
  int exponent = std::stoi(std::string(text.substr(e + 1)));
  int k = static_cast<int>(digits.size());
  int n = exponent + 1;  // value = 0.digits * 10^n
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, 0, static_cast<std::size_t>(n));
    out += '.';
    out.append(digits, static_cast<std::size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += 'e';
    out += n - 1 < 0 ? '-' : '+';
    out += std::to_string(std::abs(n - 1));
  }
}

// The value of a key that JavaScript treats as an array index: the canonical
// decimal form of an integer from 0 to 2^32 - 2.
std::optional<std::uint32_t> array_index(std::string_view key) {
  if (key.empty() || key.size() > 10 || (key.size() > 1 && key[0] == '0')) {
    return std::nullopt;
  }
  std::uint64_t n = 0;
  for (char c : key) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (n > 0xFFFFFFFEu) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(n);
}

void append_js_object(const JsonValue& object, std::string& out);

void append_js_json(const JsonValue& value, std::string& out) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      out += "null";
      return;
    case rapidjson::kFalseType:
      out += "false";
      return;
    case rapidjson::kTrueType:
      out += "true";
      return;
    case rapidjson::kStringType:
      append_js_string(view_of(value), out);
      return;
    case rapidjson::kNumberType:
      if (value.IsInt64() && std::abs(value.GetInt64()) <= (std::int64_t{1} << 53)) {
        out += std::to_string(value.GetInt64());
      } else {
        append_js_number(value.GetDouble(), out);
      }
      return;
    case rapidjson::kArrayType: {
      out += '[';
      bool first = true;
      for (const JsonValue& element : value.GetArray()) {
        if (!first) {
          out += ',';
        }
        first = false;
        append_js_json(element, out);
      }
      out += ']';
      return;
    }
    case rapidjson::kObjectType:
      append_js_object(value, out);
      return;
  }
}

// An object as JavaScript holds it: JSON.parse keeps the last of duplicate keys in
// the place of the first, and an object lists its array-index keys ("0", "17")
// first, in increasing order, then the others in the order they came.
void append_js_object(const JsonValue& object, std::string& out) {
  using Member = std::pair<std::string_view, const JsonValue*>;
  std::vector<Member> members;
  members.reserve(object.MemberCount());
  // Small objects (the usual tool arguments) are searched for duplicates; large
  // ones indexed.
  constexpr rapidjson::SizeType k_search_up_to = 16;
  std::unordered_map<std::string_view, std::size_t> index;
  bool indexed = object.MemberCount() > k_search_up_to;
  bool any_array_index = false;
  for (const auto& member : object.GetObject()) {
    std::string_view key = view_of(member.name);
    std::size_t found = members.size();
    if (indexed) {
      auto [it, fresh] = index.try_emplace(key, members.size());
      found = it->second;
    } else {
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (members[i].first == key) {
          found = i;
          break;
        }
      }
    }
    if (found < members.size()) {
      members[found].second = &member.value;
    } else {
      members.emplace_back(key, &member.value);
      any_array_index = any_array_index || array_index(key);
    }
  }
  if (any_array_index) {
    std::stable_partition(members.begin(), members.end(),
                          [](const Member& m) { return array_index(m.first).has_value(); });
    auto numeric_end = std::find_if(members.begin(), members.end(), [](const Member& m) {
      return !array_index(m.first).has_value();
    });
    std::sort(members.begin(), numeric_end, [](const Member& a, const Member& b) {
      return *array_index(a.first) < *array_index(b.first);
    });
  }
  out += '{';
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (i > 0) {
      out += ',';
    }
    append_js_string(members[i].first, out);
    out += ':';
    append_js_json(*members[i].second, out);
  }
  out += '}';
}

// Appends `id`, cut to 64 UTF-16 code units and "..." when it is longer, as
// LangChain.js does to keep long ids from flooding the text.
void append_display_id(std::string_view id, std::string& out) {
  constexpr std::size_t k_limit = 64;
  std::size_t units = 0;
  std::size_t cut = std::string_view::npos;
  for (std::size_t i = 0; i < id.size();) {
    auto lead = static_cast<unsigned char>(id[i]);
    std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    std::size_t width = length == 4 ? 2 : 1;
    if (units + width > k_limit && cut == std::string_view::npos) {
      cut = i;
    }
    units += width;
    i += length;
  }
  if (units <= k_limit) {
    append_js_string(id, out);
  } else {
    append_js_string(std::string(id.substr(0, cut)) + "...", out);
  }
}

void append_tool_calls(const Message& message, std::string& out) {
  bool any = false;
  for (const Block& block : message.content.blocks) {
    if (block.type != BlockType::tool_use) {
      continue;
    }
    out += any ? ',' : '[';
    any = true;
    out += '{';
    if (!block.id.empty()) {
      out += "\"id\":";
      append_display_id(block.id, out);
      out += ',';
    }
    out += "\"args\":";
    if (block.input.empty() && block.input_value != nullptr) {
      append_js_json(*block.input_value, out);
    } else {
      JsonDoc args;
      std::string text = block.input_json();
      if (parse_json(text, args)) {
        append_js_string(text, out);  // arguments that are not JSON, as they are
      } else {
        append_js_json(args, out);
      }
    }
    out += ",\"name\":";
    append_js_string(block.name, out);
    out += ",\"type\":\"tool_call\"}";
  }
  if (any) {
    out += ']';
  }
}

// --- Content ---

// Where rendered text goes: a string, or straight into the output (so the texts,
// most of what is written, are copied once).
class TextOut {
 public:
  explicit TextOut(std::string& text) : m_text(&text) {}
  explicit TextOut(Output& output) : m_output(&output) {}

  void add(std::string_view text) {
    if (m_text != nullptr) {
      m_text->append(text);
    } else {
      m_output->write(text);
    }
  }

 private:
  std::string* m_text = nullptr;
  Output* m_output = nullptr;
};

void append_block(const Block& block, TextOut& out) {
  std::string_view name;
  switch (block.type) {
    case BlockType::text:
      out.add(block.text);
      return;
    case BlockType::tool_use:
      return;  // rendered after the content, as LangChain's tool calls
    case BlockType::image:
    case BlockType::audio:
    case BlockType::video:
    case BlockType::file:
    case BlockType::document:
      name = block_type_name(block.type);
      break;
    default:
      name = block.type_name.empty() ? block_type_name(block.type) : block.type_name;
      break;
  }
  out.add("[");
  out.add(name);
  out.add("]");
}

void append_content(const Content& content, TextOut& out) {
  if (content.form == Content::Form::string) {
    out.add(content.text);
    return;
  }
  for (const Block& block : content.blocks) {
    if (block.type != BlockType::tool_result) {
      append_block(block, out);
    }
  }
}

const std::string& prefix_of(const Message& message, const BufferStringOptions& options) {
  switch (message.role) {
    case Role::user:
      return options.human_prefix;
    case Role::assistant:
      return options.ai_prefix;
    case Role::system:
    case Role::developer:
      return options.system_prefix;
    case Role::tool:
      return options.tool_prefix;
    case Role::function:
      return options.function_prefix;
    case Role::custom:
      return message.custom_role;
    case Role::none:
      break;
  }
  return options.human_prefix;
}

void render(const Message& message, const BufferStringOptions& options, TextOut& out,
            std::string& scratch) {
  if (message.kind != Kind::turn) {
    return;
  }
  const Content& content = message.content;
  bool results_only = message.role == Role::tool;
  if (content.is_blocks()) {
    std::size_t results = 0;
    for (const Block& block : content.blocks) {
      if (block.type == BlockType::tool_result) {
        ++results;
        out.add(options.tool_prefix);
        out.add(": ");
        append_content(block.result, out);
        out.add("\n");
      }
    }
    results_only = results_only || (results > 0 && results == content.blocks.size());
  }
  if (results_only) {
    return;
  }
  out.add(prefix_of(message, options));
  out.add(": ");
  append_content(content, out);
  if (message.role == Role::assistant && message.has_tool_uses()) {
    scratch.clear();
    append_tool_calls(message, scratch);
    out.add(scratch);
  }
  out.add("\n");
}

}  // namespace

void render_buffer_string(const Message& message, const BufferStringOptions& options,
                          std::string& out) {
  TextOut text(out);
  std::string scratch;
  render(message, options, text, scratch);
}

void BufferStringWriter::put(Message&& message) {
  TextOut text(m_out);
  render(message, m_options, text, m_scratch);
}

SinkFactory buffer_string_sink(std::shared_ptr<const BufferStringOptions> options) {
  return [options](Output& out, LossReport&) -> std::unique_ptr<MessageSink> {
    return std::make_unique<BufferStringWriter>(out, *options);
  };
}

}  // namespace convo
