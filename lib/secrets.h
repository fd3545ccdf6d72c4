// Credentials in decoded text: API keys, tokens, private keys, JWTs and
// high-entropy password/token/secret assignments (the rules man/convo-check.1
// lists), plus the user's own patterns and known values. Used by `check --secrets`.
// One pass over each string: SIMD table look-ups of each position's three bytes
// (compares of byte pairs without AVX2), then an exact look at the three, pick the
// positions where a rule could start, and only there is a rule tried; strings too short for any rule are passed over; user patterns
// (std::regex) run on top.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "json.h"

namespace convo {

// A rule: its name (as reports print it) and what it finds.
struct SecretRule {
  std::string_view name;
  std::string_view summary;
};

// Every built-in rule, then secret-pattern and secret-known-value.
std::span<const SecretRule> secret_rules();
bool is_secret_rule(std::string_view name);

// The generic assignment rule's bar: the value's Shannon entropy, in bits per
// character, and its length.
inline constexpr double k_min_assignment_entropy = 3.5;
inline constexpr std::size_t k_min_assignment_length = 12;

struct SecretOptions {
  std::vector<std::string> patterns;  // ECMAScript regexes (secret-pattern)
  std::vector<std::string> known;     // literal values (secret-known-value)
};

// A secret within one string: its bytes [begin, begin + length).
struct SecretMatch {
  std::size_t begin = 0;
  std::size_t length = 0;
  std::string_view rule;
};

class SecretScanner {
 public:
  // Throws std::regex_error for a pattern std::regex cannot compile.
  explicit SecretScanner(const SecretOptions& options);

  // The secrets in `text`, in order, none overlapping (the first found wins).
  std::vector<SecretMatch> scan(std::string_view text) const;

  // Calls `found` for each secret in the strings of `value` (member names too),
  // and in JSON held in a string (an OpenAI tool call's `arguments`), with the
  // string's path from `path` (`message.content[2].input.command`; inside a string's
  // JSON, `arguments{}.command`).
  using Found =
      std::function<void(const std::string& path, std::string_view text, const SecretMatch& match)>;
  void scan_json(const JsonValue& value, std::string path, const Found& found) const;

 private:
  // A string's place, as a chain up to the record's root on the walk's stack (no
  // allocation per member; the path is spelled out only for a finding).
  struct PathPart {
    const PathPart* up = nullptr;
    std::string_view name;  // a member's name; null data for an array index
    std::size_t index = 0;
    bool json = false;  // into the JSON a string holds
  };
  static std::string path_string(const std::string& root, const PathPart* last);
  void walk(const JsonValue& value, const std::string& root, const PathPart* path,
            const Found& found) const;

  std::vector<std::regex> m_patterns;
  std::vector<std::string> m_known;
  bool m_any_length = false;  // user patterns or values, which may match short strings
};

// What a report shows of a secret: its first 4 characters, an ellipsis and its
// length ("sk-a… (108 chars)"), never the whole.
std::string mask_secret(std::string_view secret);

// Shannon entropy of `text` in bits per byte.
double shannon_entropy(std::string_view text);

}  // namespace convo
