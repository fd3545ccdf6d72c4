#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "conversation.h"
#include "stages/trim.h"
#include "test_util.h"
#include "tool_links.h"

using namespace convo;
using namespace convo::test;

namespace {

const auto k_approx = make_token_counter({TokenCounterKind::approx, k_chars_per_token});
const auto k_messages = make_token_counter({TokenCounterKind::messages, k_chars_per_token});
const auto k_usage = make_token_counter({TokenCounterKind::usage, k_chars_per_token});

TrimOptions budget(std::int64_t max_tokens, TrimStrategy strategy = TrimStrategy::last) {
  TrimOptions options;
  options.max_tokens = max_tokens;
  options.strategy = strategy;
  return options;
}

// The ids of the messages, for short assertions (OpenAI lines carry "id").
std::vector<std::string> ids(const std::vector<Message>& messages) {
  std::vector<std::string> out;
  for (const Message& message : messages) {
    out.push_back(message.id);
  }
  return out;
}

std::int64_t total(const std::vector<Message>& messages, const TokenCounter& counter) {
  std::int64_t sum = 0;
  for (std::int64_t n : counter.count_conversation(messages)) {
    sum += n;
  }
  return sum;
}

const char* const k_weather =
    R"({"role":"system","content":"You are a helpful assistant.","id":"s0"})" "\n"
    R"({"role":"user","content":"What's the weather in Paris and Rome?","name":"alice","id":"u1"})" "\n"
    R"({"role":"assistant","content":"Let me check both.","id":"a1","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}},{"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Rome\"}"}}]})" "\n"
    R"({"role":"tool","content":"Paris: 18C, cloudy","tool_call_id":"call_1","id":"t1"})" "\n"
    R"({"role":"tool","content":"Rome: 24C, sunny","tool_call_id":"call_2","id":"t2"})" "\n"
    R"({"role":"assistant","content":"Paris is 18C and cloudy; Rome is 24C and sunny.","id":"a2"})" "\n"
    R"({"role":"user","content":"Thanks! Which one is warmer?","name":"alice","id":"u2"})" "\n"
    R"({"role":"assistant","content":"Rome is warmer.","id":"a3"})" "\n";

}  // namespace

TEST_CASE("trim keeps the newest messages that fit, never a result without its call",
          "[trim]") {
  // LangChain keeps t1, t2 (their call a1 cut away) at 60 tokens; convo drops them.
  auto out = trim(read_messages(k_weather), budget(60), *k_approx);
  CHECK(ids(out) == std::vector<std::string>{"a2", "u2", "a3"});
  CHECK(total(out, *k_approx) <= 60);
  // With room for the whole unit, the call and both results come back.
  out = trim(read_messages(k_weather), budget(120), *k_approx);  // the unit is 74, the rest 39
  CHECK(ids(out) == std::vector<std::string>{"a1", "t1", "t2", "a2", "u2", "a3"});
}

TEST_CASE("trim with strategy first drops a call together with its results", "[trim]") {
  // LangChain keeps a1 with only t1 here (4 messages); convo cannot split the unit.
  auto out = trim(read_messages(k_weather), budget(4, TrimStrategy::first), *k_messages);
  CHECK(ids(out) == std::vector<std::string>{"s0", "u1"});
  out = trim(read_messages(k_weather), budget(5, TrimStrategy::first), *k_messages);
  CHECK(ids(out) == std::vector<std::string>{"s0", "u1", "a1", "t1", "t2"});
}

TEST_CASE("trim keeps the system message when --include-system", "[trim]") {
  TrimOptions options = budget(3);
  options.include_system = true;
  auto out = trim(read_messages(k_weather), options, *k_messages);
  CHECK(ids(out) == std::vector<std::string>{"s0", "u2", "a3"});
  // Alone over the budget, it is still kept (as LangChain Python does).
  options.max_tokens = 0;
  out = trim(read_messages(k_weather), options, *k_messages);
  CHECK(ids(out) == std::vector<std::string>{"s0"});
}

TEST_CASE("trim --start-on and --end-on look at the ends of units", "[trim]") {
  TrimOptions options = budget(100);
  options.start_on = TypeSet::parse("human");
  auto out = trim(read_messages(k_weather), options, *k_messages);
  CHECK(ids(out) == std::vector<std::string>{"u1", "a1", "t1", "t2", "a2", "u2", "a3"});
  // The unit a1+t1+t2 ends with a tool message: --end-on ai skips past it.
  options = budget(5, TrimStrategy::first);
  options.end_on = TypeSet::parse("ai");
  out = trim(read_messages(k_weather), options, *k_messages);
  CHECK(ids(out).empty());
  options.max_tokens = 6;
  out = trim(read_messages(k_weather), options, *k_messages);
  CHECK(ids(out) == std::vector<std::string>{"s0", "u1", "a1", "t1", "t2", "a2"});
}

TEST_CASE("trim --allow-partial keeps the end of the message at the cut", "[trim]") {
  auto messages = read_messages(
      R"({"role":"user","content":"one\ntwo\nthree\nfour","id":"u1"})" "\n"
      R"({"role":"assistant","content":"ok","id":"a1"})" "\n");
  TrimOptions options = budget(approx_tokens(messages[1]) + 6);
  options.allow_partial = true;
  auto out = trim(messages, options, *k_approx);
  REQUIRE(ids(out) == std::vector<std::string>{"u1", "a1"});
  CHECK(out[0].modified);
  CHECK(out[0].content.text == "four");  // "three\nfour" would be ceil((10 + 4) / 4) + 3 = 7 > 6
  CHECK_FALSE(out[1].modified);
  CHECK(total(out, *k_approx) <= options.max_tokens);
  options.strategy = TrimStrategy::first;
  options.max_tokens = 7;
  out = trim(messages, options, *k_approx);
  REQUIRE(out.size() == 1);
  CHECK(out[0].content.text == "one\ntwo\n");  // with "three\n": ceil(18 / 4) + 3 = 8 > 7
}

TEST_CASE("trim --allow-partial keeps whole blocks first, from the right end", "[trim]") {
  auto messages = read_messages(
      R"({"role":"assistant","content":[{"type":"text","text":"First block of the answer."},{"type":"text","text":"Second block of the answer."},{"type":"text","text":"Third block."}],"id":"a1"})" "\n");
  TrimOptions options = budget(14);  // the last two blocks would be ceil(48 / 4) + 3 = 15
  options.allow_partial = true;
  auto out = trim(messages, options, *k_approx);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].content.is_blocks());
  REQUIRE(out[0].content.blocks.size() == 1);
  CHECK(out[0].content.blocks[0].text == "Third block.");
  options.strategy = TrimStrategy::first;
  options.max_tokens = 20;
  out = trim(messages, options, *k_approx);
  REQUIRE(out.size() == 1);
  CHECK(out[0].content.blocks.size() == 2);
}

TEST_CASE("trim --allow-partial never cuts a tool exchange", "[trim]") {
  auto messages = read_messages(k_weather);
  for (std::int64_t max = 0; max < 120; ++max) {
    TrimOptions options = budget(max, TrimStrategy::first);
    options.allow_partial = true;
    for (const Message& message : trim(messages, options, *k_approx)) {
      if (message.modified) {
        CHECK_FALSE(message.has_tool_uses());
        CHECK_FALSE(message.has_tool_results());
        CHECK(message.role != Role::tool);
      }
    }
  }
}

TEST_CASE("trim keeps bookkeeping records with their turn and counts them 0", "[trim]") {
  auto messages = read_messages(
      R"({"type":"summary","summary":"title","leafUuid":"x"})" "\n"
      R"({"type":"user","message":{"role":"user","content":"first"},"uuid":"u1","sessionId":"s"})" "\n"
      R"({"type":"attachment","attachment":{"type":"hook_success","content":"a very long hook output that would cost many tokens if it counted"},"uuid":"h1","sessionId":"s"})" "\n"
      R"({"type":"user","message":{"role":"user","content":"second"},"uuid":"u2","sessionId":"s"})" "\n"
      R"({"type":"system","subtype":"turn_duration","content":"","uuid":"e2","sessionId":"s"})" "\n");
  auto out = trim(messages, budget(1), *k_messages);
  CHECK(ids(out) == std::vector<std::string>{"u2", "e2"});
  out = trim(messages, budget(1, TrimStrategy::first), *k_messages);
  CHECK(ids(out) == std::vector<std::string>{"", "u1", "h1"});
  CHECK(total(messages, *k_approx) == approx_tokens(messages[1]) + approx_tokens(messages[3]));
}

TEST_CASE("trim rejects what LangChain rejects", "[trim]") {
  TrimOptions options = budget(10, TrimStrategy::first);
  options.start_on = TypeSet::parse("human");
  CHECK_THROWS_AS(trim({}, options, *k_approx), Error);
  options.start_on = TypeSet{};
  options.include_system = true;
  CHECK_THROWS_AS(check_trim_options(options), Error);
  CHECK_THROWS_AS(check_trim_options(budget(-1)), Error);
  CHECK_NOTHROW(check_trim_options(budget(0)));
}

TEST_CASE("text splitters keep what they cut at", "[trim]") {
  CHECK(split_text("a\nb\nc", TextSplitter::newline) == std::vector<std::string>{"a\n", "b\n", "c"});
  CHECK(split_text("a\n", TextSplitter::newline) == std::vector<std::string>{"a\n", ""});
  CHECK(split_text("to be", TextSplitter::space) == std::vector<std::string>{"to ", "be"});
  CHECK(split_text("caf\xc3\xa9", TextSplitter::character) ==
        std::vector<std::string>{"c", "a", "f", "\xc3\xa9"});
}

// --- Properties over generated conversations with tool calls ---

namespace {

// A message's place in its input: line, and slot within a multi-message document.
using Place = std::pair<std::uint64_t, std::size_t>;
Place place(const Message& m) { return {m.where.line, m.slot}; }

// Checks the promises of trim for one run; returns what is wrong, or "".
std::string check_trim(const std::vector<Message>& input, const std::vector<Message>& output,
                       const TrimOptions& options, const TokenCounter& counter) {
  std::map<Place, std::size_t> index;
  for (std::size_t i = 0; i < input.size(); ++i) {
    index[place(input[i])] = i;
  }
  std::vector<std::size_t> at;
  std::set<std::size_t> kept;
  for (const Message& m : output) {
    auto it = index.find(place(m));
    if (it == index.end()) {
      return "a message that was not in the input";
    }
    at.push_back(it->second);
    kept.insert(it->second);
  }
  // A contiguous run of the input, after the system unit when it is kept apart.
  std::vector<AtomicUnit> units = atomic_units(input);
  std::size_t from = 0;
  if (options.include_system && !at.empty() && at[0] == 0 && !units.empty()) {
    while (from < at.size() && at[from] < units[0].end && at[from] == from) {
      ++from;
    }
  }
  for (std::size_t k = from + 1; k < at.size(); ++k) {
    if (at[k] != at[k - 1] + 1) {
      return "not a contiguous run of the input";
    }
  }
  // No result without its call, no call without its results.
  for (const ToolLink& link : link_tools(input).links) {
    if (kept.count(link.result) != kept.count(link.call)) {
      return "a tool call and its result were separated (id " + std::string(link.id) + ")";
    }
  }
  // Within the budget, unless the system message alone is over it.
  std::int64_t used = total(output, counter);
  bool system_alone = options.include_system && from == at.size() && !at.empty();
  if (used > options.max_tokens && !system_alone) {
    return "over the budget: " + std::to_string(used);
  }
  // At most the message at the cut is changed.
  std::size_t changed = 0;
  for (const Message& m : output) {
    changed += m.modified ? 1 : 0;
  }
  if (changed > (options.allow_partial ? 1U : 0U)) {
    return "more messages changed than the one at the cut";
  }
  return "";
}

// A random conversation in Claude Code's shape: split responses sharing
// message.id, one tool_use per record, results in one user record or one each,
// interleaved with progress records, attachments and system events, a few
// responses with recorded usage, and now and then a call left unanswered at the end.
std::string claude_code_conversation(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto words = [&](int n) {
    static const char* k_words[] = {"the", "file", "build", "parse", "token", "error", "fix",
                                    "caf\u00e9", "\u65e5\u672c", "line\nbreak", "tab\tbed"};
    std::string out;
    for (int i = 0; i < n; ++i) {
      out += (i ? " " : "");
      out += k_words[pick(11)];
    }
    return out;
  };
  auto quote = [](const std::string& s) { return json_quote(s); };
  std::string out;
  int uuid = 0;
  int call = 0;
  auto record = [&](const std::string& body) {
    out += R"({"uuid":")" + std::to_string(uuid++) + R"(","sessionId":"s",)" + body + "}\n";
  };
  auto user_text = [&] {
    record(R"("type":"user","message":{"role":"user","content":)" + quote(words(1 + pick(30))) +
           "}");
  };
  auto assistant = [&](const std::string& id, const std::string& block) {
    std::string usage = pick(2) ? R"(,"usage":{"input_tokens":10,"output_tokens":)" +
                                      std::to_string(1 + pick(400)) + "}"
                                : "";
    record(R"("type":"assistant","message":{"id":")" + id +
           R"(","role":"assistant","content":[)" + block + "]" + usage + "}");
  };
  if (pick(3) == 0) {
    out += R"({"type":"summary","summary":"a title","leafUuid":"x"})" "\n";
  }
  int turns = 1 + pick(8);
  int response = 0;
  for (int t = 0; t < turns; ++t) {
    user_text();
    if (pick(3) == 0) {
      record(R"("type":"attachment","attachment":{"type":"skill_listing"})");
    }
    int responses = 1 + pick(3);
    for (int r = 0; r < responses; ++r) {
      std::string id = "msg_" + std::to_string(response++);
      if (pick(2)) {
        assistant(id, R"({"type":"thinking","thinking":)" + quote(words(pick(20))) +
                          R"(,"signature":"c2lnbmF0dXJl"})");
      }
      if (pick(2)) {
        assistant(id, R"({"type":"text","text":)" + quote(words(1 + pick(40))) + "}");
      }
      int calls = r + 1 == responses ? 0 : pick(4);
      bool last_turn = t + 1 == turns && r + 2 == responses;
      bool unanswered = last_turn && pick(4) == 0;
      std::vector<std::string> ids;
      bool together = pick(2);
      for (int c = 0; c < calls; ++c) {
        std::string call_id = "toolu_" + std::to_string(call++);
        ids.push_back(call_id);
        assistant(id, R"({"type":"tool_use","id":")" + call_id +
                          R"(","name":"Bash","input":{"command":)" + quote(words(3)) + "}}");
        if (pick(2)) {
          record(R"("type":"progress","data":{"type":"bash_progress"},"parentToolUseID":")" +
                 call_id + "\"");
        }
        if (!together && !unanswered) {
          record(R"("type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":")" +
                 call_id + R"(","content":)" + quote(words(1 + pick(60))) + "}]}");
          if (pick(3) == 0) {
            record(R"("type":"attachment","attachment":{"type":"hook_success"})");
          }
        }
      }
      if (together && !unanswered && !ids.empty()) {
        std::string blocks;
        for (const std::string& call_id : ids) {
          blocks += (blocks.empty() ? "" : ",");
          blocks += R"({"type":"tool_result","tool_use_id":")" + call_id + R"(","content":[{"type":"text","text":)" +
                    quote(words(1 + pick(60))) + "}]}";
        }
        record(R"("type":"user","message":{"role":"user","content":[)" + blocks + "]}");
      }
      if (unanswered) {
        return out;
      }
    }
    if (pick(2)) {
      record(R"("type":"system","subtype":"turn_duration","content":"")");
    }
  }
  return out;
}

// A random OpenAI chat: a system message, turns with parallel tool calls and their
// tool messages, consecutive messages of one role.
std::string openai_conversation(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto text = [&](int n) {
    std::string out;
    for (int i = 0; i < n; ++i) {
      out += (i ? (pick(5) ? " " : "\n") : "");
      out += pick(2) ? "word" : "token";
    }
    return json_quote(out);
  };
  std::string out;
  int call = 0;
  if (pick(4)) {
    out += R"({"role":"system","content":)" + text(1 + pick(20)) + "}\n";
  }
  int turns = 1 + pick(10);
  for (int t = 0; t < turns; ++t) {
    out += R"({"role":"user","content":)" + text(1 + pick(30)) + "}\n";
    int rounds = pick(3);
    for (int r = 0; r < rounds; ++r) {
      int calls = 1 + pick(3);
      std::string list;
      std::vector<std::string> ids;
      for (int c = 0; c < calls; ++c) {
        ids.push_back("call_" + std::to_string(call++));
        list += (c ? "," : "");
        list += R"({"id":")" + ids.back() +
                R"(","type":"function","function":{"name":"f","arguments":"{\"q\": 1}"}})";
      }
      out += R"({"role":"assistant","content":)" + (pick(2) ? text(pick(10)) : "null") +
             R"(,"tool_calls":[)" + list + "]}\n";
      for (const std::string& id : ids) {
        out += R"({"role":"tool","tool_call_id":")" + id + R"(","content":)" + text(1 + pick(40)) +
               "}\n";
      }
    }
    out += R"({"role":"assistant","content":)" + text(1 + pick(30)) + "}\n";
  }
  return out;
}

// Budgets from 0 to just over the whole conversation: every one for small
// conversations, about 60 spread over the range (and the ends) for large ones.
std::vector<std::int64_t> budgets(std::int64_t whole) {
  std::vector<std::int64_t> out;
  std::int64_t step = std::max<std::int64_t>(1, whole / 60);
  for (std::int64_t b = 0; b <= whole + 1; b += step) {
    out.push_back(b);
  }
  out.push_back(whole);
  out.push_back(whole - 1);
  return out;
}

}  // namespace

TEST_CASE("trim never separates tool calls from results, on generated conversations",
          "[trim]") {
  std::mt19937 rng(20261122);
  const TokenCounter* counters[] = {k_approx.get(), k_messages.get(), k_usage.get()};
  const int conversations = k_sanitized ? 24 : 120;
  int runs = 0;
  for (int n = 0; n < conversations; ++n) {
    std::string text = n % 2 ? claude_code_conversation(rng) : openai_conversation(rng);
    std::vector<Message> input = read_messages(text);
    REQUIRE_FALSE(input.empty());
    for (const TokenCounter* counter : counters) {
      for (std::int64_t max : budgets(total(input, *counter))) {
        for (int variant = 0; variant < 6; ++variant) {
          TrimOptions options = budget(max, variant < 2 ? TrimStrategy::first : TrimStrategy::last);
          options.allow_partial = variant % 2 == 1;
          options.include_system = variant >= 4;
          if (variant == 2 && n % 3 == 0) {
            options.start_on = TypeSet::parse("human");
            options.end_on = TypeSet::parse("ai");
          }
          options.text_splitter = static_cast<TextSplitter>(n % 3);
          std::vector<Message> output = trim(input, options, *counter);
          std::string problem = check_trim(input, output, options, *counter);
          if (!problem.empty()) {
            FAIL("conversation " << n << ", budget " << max << ", variant " << variant << ": "
                                 << problem << "\n" << text);
          }
          ++runs;
        }
      }
    }
  }
  CHECK(runs > conversations * 80);
}

TEST_CASE("the trim stage gives what trim gives, releasing and decoding again", "[trim]") {
  class Collect final : public MessageSink {
   public:
    void put(Message&& message) override { out.push_back(std::move(message)); }
    std::vector<Message> out;
  };
  std::mt19937 rng(99);
  auto counter = std::shared_ptr<const TokenCounter>(
      make_token_counter({TokenCounterKind::usage, k_chars_per_token}));
  int cut = 0;
  for (int n = 0; n < 60; ++n) {
    std::string text = n % 2 ? claude_code_conversation(rng) : openai_conversation(rng);
    std::vector<Message> input = read_messages(text);
    std::int64_t whole = total(input, *counter);
    for (std::int64_t max : {whole / 5, whole / 2, whole - 3}) {
      TrimOptions options = budget(max, n % 4 < 2 ? TrimStrategy::last : TrimStrategy::first);
      options.allow_partial = true;
      options.text_splitter = TextSplitter::space;
      std::vector<Message> expected = trim(input, options, *counter);
      for (auto [to, group_by] : {std::pair{std::optional<Format>{}, GroupBy::session},
                                  std::pair{std::optional<Format>{Format::anthropic}, GroupBy::session},
                                  std::pair{std::optional<Format>{}, GroupBy::file},
                                  std::pair{std::optional<Format>{Format::anthropic}, GroupBy::file}}) {
        auto stage = make_trim_stage(options, counter, group_by, to);
        Collect sink;
        for (const Message& message : input) {
          stage->push(Message(message), sink);
        }
        stage->finish(sink);
        REQUIRE(sink.out.size() == expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
          CHECK(sink.out[i].raw == expected[i].raw);
          CHECK(sink.out[i].modified == expected[i].modified);
          if (expected[i].modified) {
            ++cut;
            CHECK(sink.out[i].content.text == expected[i].content.text);
            CHECK(sink.out[i].content.blocks.size() == expected[i].content.blocks.size());
            CHECK(sink.out[i].json != nullptr);  // decoded again, so it can be encoded
          }
        }
      }
    }
  }
  CHECK(cut > 20);
}

// `messages` trimmed by the trim stage with --group-by file (held compactly).
std::vector<Message> trim_file(const std::vector<Message>& messages, const TrimOptions& options,
                               const std::shared_ptr<const TokenCounter>& counter) {
  class Collect final : public MessageSink {
   public:
    void put(Message&& message) override { out.push_back(std::move(message)); }
    std::vector<Message> out;
  } sink;
  auto stage = make_trim_stage(options, counter, GroupBy::file, std::nullopt);
  for (const Message& message : messages) {
    stage->push(Message(message), sink);
  }
  stage->finish(sink);
  return std::move(sink.out);
}

TEST_CASE("trim --group-by file holds a file compactly and keeps what trim keeps, for the corpus",
          "[trim][corpus]") {
  // Whole files of the corpus (several sessions, progress, summaries, bad lines),
  // where records kept lose their parents and have their links patched.
  std::shared_ptr<const TokenCounter> counters[] = {
      make_token_counter({TokenCounterKind::approx, k_chars_per_token}),
      make_token_counter({TokenCounterKind::usage, k_chars_per_token})};
  int files = 0;
  int patched = 0;
  for (const CorpusFile& file : corpus_files()) {
    if (file.format != Format::claude_code) {
      continue;
    }
    INFO(file.path);
    std::vector<Message> messages =
        read_messages(file.text, ReadOptions{std::nullopt, OnError::keep});
    ++files;
    std::map<std::uint64_t, std::string> bytes_at;  // by line, as read
    for (const Message& message : messages) {
      bytes_at.emplace(message.where.line, message.raw.str());
    }
    std::int64_t whole = total(messages, *counters[0]);
    for (std::int64_t max : {std::int64_t{0}, std::int64_t{2000}, whole / 3, whole}) {
      for (int variant = 0; variant < 4; ++variant) {
        TrimOptions options = budget(max, variant == 1 ? TrimStrategy::first : TrimStrategy::last);
        options.allow_partial = variant < 2;
        if (variant == 2) {
          options.include_system = true;
          options.start_on = TypeSet::parse("human");
        }
        if (variant == 3) {
          options.end_on = TypeSet::parse("ai");
        }
        const auto& counter = counters[variant % 2];
        std::vector<Message> expected = trim(messages, options, *counter);
        std::vector<Message> got = trim_file(messages, options, counter);
        REQUIRE(got.size() == expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
          CHECK(got[i].raw == expected[i].raw);
          CHECK(got[i].modified == expected[i].modified);
          CHECK(got[i].meta->parent_uuid == expected[i].meta->parent_uuid);
          CHECK(got[i].where.line == expected[i].where.line);
          if (expected[i].modified) {
            CHECK(got[i].json != nullptr);  // whole again, to be encoded
          }
          patched += !expected[i].modified && got[i].raw != bytes_at[got[i].where.line];
        }
      }
    }
  }
  if (files == 0) {
    WARN("skipped: no corpus");
    return;
  }
  CHECK(patched > 0);
}

TEST_CASE("trim keeps a conversation that fits whole and in order", "[trim]") {
  std::mt19937 rng(7);
  for (int n = 0; n < 40; ++n) {
    std::vector<Message> input = read_messages(n % 2 ? claude_code_conversation(rng)
                                                     : openai_conversation(rng));
    std::vector<Message> output = trim(input, budget(total(input, *k_approx)), *k_approx);
    REQUIRE(output.size() == input.size());
    for (std::size_t i = 0; i < input.size(); ++i) {
      CHECK(output[i].raw == input[i].raw);
      CHECK_FALSE(output[i].modified);
    }
  }
}

TEST_CASE("real Claude Code sessions trimmed at several budgets keep tool calls whole",
          "[trim][corpus]") {
  namespace fs = std::filesystem;
  fs::path root = fs::path(CONVO_CORPUS_DIR) / "claude-code";
  if (!fs::exists(root)) {
    WARN("skipped: no corpus at " << root.string());
    return;
  }
  int files = 0;
  int conversations = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".jsonl" && ext != ".json")) {
      continue;
    }
    std::string text;
    {
      std::ifstream in(entry.path(), std::ios::binary);
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    ReadOptions read;
    read.on_error = OnError::skip;
    std::vector<Message> messages;
    try {
      messages = read_messages(text, read);
    } catch (const Error&) {
      continue;  // not a transcript convo can read (the readers' tests cover that)
    }
    if (messages.empty()) {
      continue;  // refused whole (the readers' tests cover that)
    }
    ++files;
    for (std::int64_t max : {0, 50, 500, 2000, 10000, 100000}) {
      for (TrimStrategy strategy : {TrimStrategy::first, TrimStrategy::last}) {
        for (const TokenCounter* counter : {k_approx.get(), k_usage.get()}) {
          TrimOptions options = budget(max, strategy);
          options.allow_partial = max % 2 == 0;
          ConversationStage stage([&](std::vector<Message> conversation) {
            std::vector<Message> output = trim(conversation, options, *counter);
            std::string problem = check_trim(conversation, output, options, *counter);
            if (!problem.empty()) {
              FAIL(entry.path().string() << ", budget " << max << ": " << problem);
            }
            ++conversations;
            return output;
          });
          class Drop final : public MessageSink {
           public:
            void put(Message&&) override {}
          } drop;
          for (const Message& message : messages) {
            stage.push(Message(message), drop);
          }
          stage.finish(drop);
        }
      }
    }
  }
  INFO(files << " files, " << conversations << " trimmed conversations");
  CHECK(files > 100);
  CHECK(conversations > files * 24);
}
