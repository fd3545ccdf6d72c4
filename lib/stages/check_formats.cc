#include "stages/check_formats.h"

#include <fmt/format.h>

#include <algorithm>

#include "json.h"
#include "stages/check_report.h"

namespace convo {

namespace {

// GitHub's escaping of a workflow command's data (the message).
std::string github_data(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// ... and of a property's value, where ':' and ',' are separators.
std::string github_property(std::string_view text) {
  std::string out;
  for (char c : github_data(text)) {
    switch (c) {
      case ':':
        out += "%3A";
        break;
      case ',':
        out += "%2C";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void put_string(JsonWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// XML's five escapes, and control characters XML 1.0 cannot hold at all replaced by
// U+FFFD (a JUnit consumer rejects the whole file for one).
std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      case '\t':
        out += "&#9;";
        break;
      default:
        out += u < 0x20 ? std::string("\xEF\xBF\xBD") : std::string(1, c);
    }
  }
  return out;
}

std::string place(const Problem& p) {
  std::string file = p.where.file ? *p.where.file : std::string();
  return p.where.line != 0 ? fmt::format("{}:{}", file, p.where.line) : file;
}

}  // namespace

std::string github_annotation(const Problem& p, std::string_view level) {
  std::string props;
  if (p.where.file) {
    props = "file=" + github_property(*p.where.file);
    if (p.where.line != 0) {
      props += fmt::format(",line={}", p.where.line);
    }
    props += ",";
  }
  props += "title=" + github_property(p.rule);
  return fmt::format("::{} {}::{}", level, props, github_data(p.message));
}

std::string sarif_report(const std::vector<FileReport>& files, std::string_view version) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("$schema");
  w.String("https://json.schemastore.org/sarif-2.1.0.json");
  w.Key("version");
  w.String("2.1.0");
  w.Key("runs");
  w.StartArray();
  w.StartObject();
  w.Key("tool");
  w.StartObject();
  w.Key("driver");
  w.StartObject();
  w.Key("name");
  w.String("convo");
  w.Key("version");
  put_string(w, version);
  w.Key("rules");
  w.StartArray();
  std::vector<std::string_view> names;
  for (const CheckRule& rule : check_rules()) {
    names.push_back(rule.name);
    w.StartObject();
    w.Key("id");
    put_string(w, rule.name);
    w.Key("shortDescription");
    w.StartObject();
    w.Key("text");
    put_string(w, rule.summary);
    w.EndObject();
    w.Key("defaultConfiguration");
    w.StartObject();
    w.Key("level");
    put_string(w, severity_name(rule_severity(rule.name)));
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();  // driver
  w.EndObject();  // tool
  w.Key("results");
  w.StartArray();
  for (const FileReport& file : files) {
    for (const Problem& p : file.problems) {
      w.StartObject();
      w.Key("ruleId");
      put_string(w, p.rule);
      auto index = std::find(names.begin(), names.end(), p.rule);
      if (index != names.end()) {
        w.Key("ruleIndex");
        w.Uint64(static_cast<std::uint64_t>(index - names.begin()));
      }
      w.Key("level");
      put_string(w, severity_name(rule_severity(p.rule)));
      w.Key("message");
      w.StartObject();
      w.Key("text");
      put_string(w, p.message);
      w.EndObject();
      w.Key("locations");
      w.StartArray();
      w.StartObject();
      w.Key("physicalLocation");
      w.StartObject();
      w.Key("artifactLocation");
      w.StartObject();
      w.Key("uri");
      put_string(w, file.file);
      w.EndObject();
      if (p.where.line != 0) {
        w.Key("region");
        w.StartObject();
        w.Key("startLine");
        w.Uint64(p.where.line);
        w.EndObject();
      }
      w.EndObject();  // physicalLocation
      w.EndObject();
      w.EndArray();
      w.EndObject();
    }
  }
  w.EndArray();
  w.EndObject();  // run
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string junit_report(const std::vector<FileReport>& files) {
  std::size_t failures = 0;
  for (const FileReport& file : files) {
    failures += file.problems.size();
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"convo check\" tests=\"{}\" failures=\"{}\">\n",
                     files.size(), failures);
  out += fmt::format("  <testsuite name=\"convo check\" tests=\"{}\" failures=\"{}\">\n",
                     files.size(), failures);
  for (const FileReport& file : files) {
    std::string name = xml_escape(file.file);
    if (file.problems.empty()) {
      out += fmt::format("    <testcase classname=\"convo.check\" name=\"{}\"/>\n", name);
      continue;
    }
    out += fmt::format("    <testcase classname=\"convo.check\" name=\"{}\">\n", name);
    for (const Problem& p : file.problems) {
      out += fmt::format("      <failure type=\"{}\" message=\"{}\">{}: {}: {}: {}</failure>\n",
                         xml_escape(p.rule), xml_escape(p.message), xml_escape(place(p)),
                         severity_name(rule_severity(p.rule)), xml_escape(p.rule),
                         xml_escape(p.message));
    }
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>";
  return out;
}

}  // namespace convo
