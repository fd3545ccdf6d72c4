// check: what an API would reject in a conversation, and what is wrong with the file
// itself. A whole-conversation function plus the sink that reports what it finds.
// Claude Code sessions are checked as the API request they would become if sent as
// recorded (api_view in normalize_for_api.h: the main thread and each subagent's,
// records of one response joined, no repairs); other formats as their messages
// stand. man/convo-check.1 documents every rule.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "conversation.h"
#include "error.h"
#include "held_records.h"
#include "message.h"
#include "pipeline.h"

namespace convo {

// Whose rules.
enum class CheckTarget : std::uint8_t { anthropic, openai };

struct CheckOptions {
  CheckTarget target = CheckTarget::anthropic;
  // Each conversation by the rules of the API its format feeds (openai files by
  // OpenAI's, see `follows_openai_api`), `target` only where the format does not say.
  bool by_format = false;
};

// A rule: its stable name (as reports print it) and which targets it applies to.
struct CheckRule {
  std::string_view name;
  std::string_view summary;  // one line, for --help
  bool anthropic = true;
  bool openai = true;
};

// Every rule, in the order man/convo-check.1 lists them.
std::span<const CheckRule> check_rules();

// One problem: where, which rule, and what exactly (a lower-case fragment).
struct Problem {
  Location where;
  std::string_view rule;
  std::string message;
};

// An input's parent links that name no record of it, and the uuids it has: a
// subagent file's first record names a record of its session's main file, so a link
// dangles only if no input of the run has its parent (`check_report_sink` decides at
// the end of the run).
struct InputLinks {
  std::vector<std::size_t> uuids;  // hashed (std::hash): 8 bytes a record for the whole run
  struct Dangling {
    std::string parent;
    Problem problem;  // dangling-parent
  };
  std::vector<Dangling> dangling;
};

// Checks one input: each of its conversations against the API's rules, and the
// input's own integrity (bad records, uuids, parent links) across all of them.
class InputCheck {
 public:
  explicit InputCheck(CheckOptions options) : m_options(options) {}

  // Checks one conversation: its records as read, in file order, bad records kept as
  // Kind::invalid; `held`, in file order, are the links of records of it that are
  // not among `records` (held_records.h: records off every thread).
  void conversation(std::vector<Message> records, std::span<const RecordLink> held = {});
  // The input ended: every problem found, ordered by line. With `links`, parent links
  // that name no record of this input are put there, with the input's uuids, instead
  // of being reported as dangling-parent.
  std::vector<Problem> finish(InputLinks* links = nullptr);

 private:
  // The input's uuids and parentUuids, each string once (an id is its index in
  // m_uuids): a record's 36-byte uuid is held once however many records name it,
  // and the links between records are ids, followed without hashing. Linear in the
  // input's records, as duplicate-uuid and dangling-parent need (about 100 bytes a
  // record), but no string or map node of its own per record.
  static constexpr std::uint32_t k_no_uuid = UINT32_MAX;
  struct Uuid {
    std::size_t offset = 0;  // in m_uuid_bytes
    std::uint32_t size = 0;
    bool is_record = false;                // some record has this uuid
    std::uint64_t line = 0;                // the first such record's line
    std::uint32_t first_link = k_no_uuid;  // the first link from such a record
    std::size_t hash = 0;                  // std::hash of the string
  };
  struct Link {
    std::uint32_t uuid = k_no_uuid;  // of the record that links (may be none)
    std::uint32_t parent = k_no_uuid;
    Location where;
  };
  std::uint32_t intern(std::string_view uuid);
  std::string_view uuid_text(std::uint32_t id) const {
    return std::string_view(m_uuid_bytes).substr(m_uuids[id].offset, m_uuids[id].size);
  }
  // A record's uuid and parentUuid, for duplicate-uuid, dangling-parent and cycles.
  void note_link(std::string_view uuid, std::string_view parent_uuid, const Location& where);
  // Message text that is not valid UTF-8 (normalize-for-api refuses to write it).
  void invalid_utf8(const Message& record);
  // parentUuid links that lead back to their own record.
  void cycles();

  CheckOptions m_options;
  std::vector<Problem> m_problems;
  std::string m_uuid_bytes;
  std::vector<Uuid> m_uuids;
  std::vector<std::uint32_t> m_uuid_slots;  // open addressing: id + 1, 0 for free
  std::size_t m_record_uuids = 0;           // uuids some record has
  std::vector<Link> m_links;                // parentUuid references
};

// The problems of `records` checked as one input holding one conversation.
std::vector<Problem> check_conversation(std::vector<Message> records, const CheckOptions& options);

// The check stage: records grouped into conversations by `group_by` and slimmed as
// they arrive (slim_for_api), each conversation passed on whole to the sink. With
// `as_bytes`, records are held as their bytes until the API view uses them
// (slim_for_api): for a sink that reads records' content only through `api_view`
// (not check_budgets).
std::unique_ptr<StreamStage> make_check_stage(GroupBy group_by, bool as_bytes = false);

// How the report is written (stages/check_report.h writes it).
enum class ReportFormat : std::uint8_t {
  text,  // FILE:LINE: severity: rule: message
  json,  // one {"file","line","rule","severity","message"} object per line
  github,  // GitHub workflow command annotations (stages/check_formats.h)
  sarif,   // one SARIF 2.1.0 log for the run
  junit,   // one JUnit XML report for the run
};

}  // namespace convo
