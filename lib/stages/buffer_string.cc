#include "stages/buffer_string.h"

#include <range/v3/view/filter.hpp>
#include <range/v3/view/remove_if.hpp>

#include "io/output.h"
#include "json.h"
#include "json_dialects.h"

namespace convo {

namespace {

// What the text formats pick out of a message's blocks (range-v3 views over them).
bool is_tool_call(const Block& block) { return block.type == BlockType::tool_use; }
bool is_tool_result(const Block& block) { return block.type == BlockType::tool_result; }

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

// Calls `each` with the arguments of a tool call, parsed, or with nullptr when
// they are not JSON (then `text` holds them).
template <typename Each>
void with_arguments(const Block& call, Each each) {
  if (call.input.empty() && call.input_value != nullptr) {
    each(call.input_value, std::string_view());
    return;
  }
  JsonDoc args;
  std::string text = call.input_json();
  if (parse_json(text, args)) {
    each(nullptr, std::string_view(text));
  } else {
    each(&args, std::string_view());
  }
}

// --- The prefix format ---

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
    append_json_string(id, out);
  } else {
    append_json_string(std::string(id.substr(0, cut)) + "...", out);
  }
}

// The tool calls as LangChain.js's getBufferString writes them.
void append_tool_calls(const Message& message, std::string& out) {
  bool any = false;
  for (const Block& block : message.content.blocks | ranges::views::filter(is_tool_call)) {
    out += any ? ',' : '[';
    any = true;
    out += '{';
    if (!block.id.empty()) {
      out += "\"id\":";
      append_display_id(block.id, out);
      out += ',';
    }
    out += "\"args\":";
    with_arguments(block, [&](const JsonValue* args, std::string_view text) {
      if (args != nullptr) {
        append_js_json(*args, out);
      } else {
        append_json_string(text, out);  // arguments that are not JSON, as they are
      }
    });
    out += ",\"name\":";
    append_json_string(block.name, out);
    out += ",\"type\":\"tool_call\"}";
  }
  if (any) {
    out += ']';
  }
}

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
  for (const Block& block : content.blocks | ranges::views::remove_if(is_tool_result)) {
    append_block(block, out);
  }
}

// --- The prefix format, readable (--readable) ---

// The parts of `content` on lines of their own: texts (empty ones left out), other
// blocks as [type], tool calls as [call NAME: arguments]; tool results are entries
// of their own.
void append_readable(const Content& content, std::string& out) {
  auto part = [&](std::string_view text) {
    if (text.empty()) {
      return;
    }
    if (!out.empty() && out.back() != '\n') {
      out += '\n';
    }
    out += text;
  };
  if (content.form == Content::Form::string) {
    part(content.text);
    return;
  }
  for (const Block& block : content.blocks | ranges::views::remove_if(is_tool_result)) {
    if (block.type == BlockType::text) {
      part(block.text);
    } else if (block.type == BlockType::tool_use) {
      part("[call " + block.name + ": " + block.input_json() + "]");
    } else {
      std::string name;
      TextOut text(name);
      append_block(block, text);
      part(name);
    }
  }
}

// --- The xml format (LangChain Python's format="xml") ---

// xml.sax.saxutils.escape: &, < and >.
void append_escaped(std::string_view text, std::string& out) {
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char* entity = nullptr;
    switch (text[i]) {
      case '&':
        entity = "&amp;";
        break;
      case '<':
        entity = "&lt;";
        break;
      case '>':
        entity = "&gt;";
        break;
      default:
        continue;
    }
    out.append(text, run, i - run);
    out += entity;
    run = i + 1;
  }
  out.append(text, run);
}

// xml.sax.saxutils.quoteattr: escaped, newlines and tabs as character references,
// in double quotes, or in single quotes when the value holds only double ones.
void append_attribute(std::string_view value, std::string& out) {
  std::string text;
  append_escaped(value, text);
  std::string quoted;
  bool doubles = text.find('"') != std::string::npos;
  bool singles = text.find('\'') != std::string::npos;
  for (char c : text) {
    if (c == '\n') {
      quoted += "&#10;";
    } else if (c == '\r') {
      quoted += "&#13;";
    } else if (c == '\t') {
      quoted += "&#9;";
    } else if (c == '"' && singles) {
      quoted += "&quot;";
    } else {
      quoted += c;
    }
  }
  char quote = doubles && !singles ? '\'' : '"';
  out += quote;
  out += quoted;
  out += quote;
}

// A block as LangChain Python's XML transcript has it; false when it is left out
// (base64 media, documents, thinking, tool blocks and blocks it does not know).
bool append_xml_block(const Block& block, std::string& out) {
  switch (block.type) {
    case BlockType::text:
      if (block.text.empty()) {
        return false;
      }
      append_escaped(block.text, out);
      return true;
    case BlockType::image:
    case BlockType::audio:
    case BlockType::video: {
      const MediaSource& source = block.source;
      std::string_view attribute;
      if (source.type == MediaSource::Type::url && !source.data.empty()) {
        attribute = "url";
      } else if (source.type == MediaSource::Type::file_id && !source.data.empty()) {
        attribute = "file_id";
      } else {
        return false;
      }
      out += '<';
      out += block_type_name(block.type);
      out += ' ';
      out += attribute;
      out += '=';
      append_attribute(source.data, out);
      out += " />";
      return true;
    }
    default:
      return false;
  }
}

// The content's parts joined with a single space.
void append_xml_content(const Content& content, std::string& out) {
  if (content.form == Content::Form::string) {
    append_escaped(content.text, out);
    return;
  }
  bool first = true;
  std::string part;
  for (const Block& block : content.blocks) {
    part.clear();
    if (append_xml_block(block, part)) {
      if (!first) {
        out += ' ';
      }
      first = false;
      out += part;
    }
  }
}

// The prefix in lower case (Python's str.lower, for ASCII letters).
std::string lower_case(const std::string& prefix) {
  std::string type = prefix;
  for (char& c : type) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return type;
}

// The type of a message's XML entry: its prefix in lower case, or its own role.
std::string xml_type(const Message& message, const BufferStringOptions& options) {
  return message.role == Role::custom ? message.custom_role
                                      : lower_case(prefix_of(message, options));
}

void append_xml_message(const std::string& type, const Content& content, bool with_calls,
                        std::string& out) {
  out += "<message type=";
  append_attribute(type, out);
  out += '>';
  if (!with_calls) {
    append_xml_content(content, out);
    out += "</message>\n";
    return;
  }
  std::string parts;
  append_xml_content(content, parts);
  if (!parts.empty()) {
    out += "\n  <content>";
    out += parts;
    out += "</content>";
  }
  for (const Block& block : content.blocks) {
    if (block.type != BlockType::tool_use) {
      continue;
    }
    out += "\n  <tool_call id=";
    append_attribute(block.id, out);
    out += " name=";
    append_attribute(block.name, out);
    out += '>';
    std::string args;
    with_arguments(block, [&](const JsonValue* value, std::string_view text) {
      if (value != nullptr) {
        append_python_json(*value, args);
      } else {
        args = text;
      }
    });
    append_escaped(args, out);
    out += "</tool_call>";
  }
  out += "\n</message>\n";
}

// --- Both ---

void render(const Message& message, const BufferStringOptions& options, TextOut& out,
            std::string& scratch) {
  if (message.kind != Kind::turn) {
    return;
  }
  const bool xml = options.style == BufferStringOptions::Style::xml;
  const Content& content = message.content;
  bool results_only = message.role == Role::tool;
  if (content.is_blocks()) {
    std::size_t results = 0;
    for (const Block& block : content.blocks) {
      if (block.type != BlockType::tool_result) {
        continue;
      }
      ++results;
      if (xml) {
        scratch.clear();
        append_xml_message(lower_case(options.tool_prefix), block.result, false, scratch);
        out.add(scratch);
      } else if (options.readable) {
        scratch.clear();
        append_readable(block.result, scratch);
        if (!scratch.empty()) {
          out.add(options.tool_prefix);
          out.add(": ");
          out.add(scratch);
          out.add("\n");
        }
      } else {
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
  const bool calls = message.role == Role::assistant && message.has_tool_uses();
  if (options.readable && !xml) {
    scratch.clear();
    append_readable(content, scratch);
    if (!scratch.empty()) {
      out.add(prefix_of(message, options));
      out.add(": ");
      out.add(scratch);
      out.add("\n");
    }
    return;
  }
  if (xml) {
    scratch.clear();
    append_xml_message(xml_type(message, options), content, calls, scratch);
    out.add(scratch);
    return;
  }
  out.add(prefix_of(message, options));
  out.add(": ");
  append_content(content, out);
  if (calls) {
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
