#include <catch2/catch.hpp>

#include "io/output.h"
#include "stages/convert.h"
#include "stages/render.h"
#include "test_util.h"

using namespace convo;
using namespace convo::test;

namespace {

std::string render(const std::string& text, RenderOptions::Style style) {
  auto options = std::make_shared<RenderOptions>();
  options->style = style;
  return run_stage_on(
             text, [] { return std::make_unique<PassThrough>(); }, render_sink(options))
      .out;
}

std::string html(const std::string& text) { return render(text, RenderOptions::Style::html); }
std::string markdown(const std::string& text) {
  return render(text, RenderOptions::Style::markdown);
}

const std::string k_hostile =
    R"({"role":"user","content":"</script><script>alert(1)</script><img src=x onerror=alert(2)> \"q\" 'a' & ``` x"})"
    "\n";

}  // namespace

TEST_CASE("render's HTML escapes every piece of recorded text", "[render]") {
  std::string page = html(k_hostile);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("<img src=x") == std::string::npos);
  CHECK(page.find("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x "
                  "onerror=alert(2)&gt; &quot;q&quot; &#39;a&#39; &amp; ``` x") !=
        std::string::npos);
  // No network: a policy that allows nothing from outside, and no script at all.
  CHECK(page.find("default-src 'none'") != std::string::npos);
  CHECK(page.starts_with("<!DOCTYPE html>"));
  CHECK(page.ends_with("</html>\n"));
}

TEST_CASE("render's HTML escapes names and ids in attributes", "[render]") {
  std::string text =
      R"({"role":"assistant","content":[{"type":"tool_use","id":"t\"><b>","name":"<i>x</i>","input":{"a":"</pre>"}}]})"
      "\n"
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t\"><b>","content":"<done>"}]})"
      "\n";
  std::string page = html(text);
  CHECK(page.find("<b>") == std::string::npos);
  CHECK(page.find("<i>") == std::string::npos);
  CHECK(page.find("id=\"s1-call-t_22_3e_3cb_3e\"") != std::string::npos);
  CHECK(page.find("href=\"#s1-call-t_22_3e_3cb_3e\"") != std::string::npos);
  CHECK(page.find("Result of <a href=\"#s1-call-t_22_3e_3cb_3e\"><code>&lt;i&gt;x&lt;/i&gt;</code>") !=
        std::string::npos);
  CHECK(page.find("&lt;done&gt;") != std::string::npos);
}

TEST_CASE("render's HTML writes base64 images inline and URL images as links", "[render]") {
  std::string text =
      R"({"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0K"}},)"
      R"({"type":"image","source":{"type":"url","url":"https://example.com/a.png"}},)"
      R"({"type":"image","source":{"type":"base64","media_type":"image/png\" onerror=\"x","data":"AAAA"}},)"
      R"J({"type":"image","source":{"type":"url","url":"javascript:alert(1)"}}]})J"
      "\n";
  std::string page = html(text);
  CHECK(page.find("<img alt=\"image\" src=\"data:image/png;base64,iVBORw0K\">") !=
        std::string::npos);
  CHECK(page.find("<a rel=\"noreferrer\" href=\"https://example.com/a.png\">") !=
        std::string::npos);
  CHECK(page.find("<img src=\"https") == std::string::npos);
  CHECK(page.find("onerror=\"x") == std::string::npos);
  CHECK(page.find("javascript:") == std::string::npos);
}

TEST_CASE("render collapses thinking and long tool results", "[render]") {
  std::string long_result;
  for (int i = 0; i < 40; ++i) {
    long_result += "line\\n";
  }
  std::string text =
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"tool_use","id":"t1","name":"Bash","input":{}}]})"
      "\n"
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":")" +
      long_result + R"("}]})" + "\n";
  std::string page = html(text);
  CHECK(page.find("<details class=\"thinking\"><summary>Thinking</summary>") != std::string::npos);
  CHECK(page.find("<details><summary class=\"tool-head\">Result of") != std::string::npos);
  CHECK(page.find("(41 lines, 200 bytes)") != std::string::npos);
}

TEST_CASE("render's Markdown neutralises HTML and fences code with enough backticks",
          "[render]") {
  std::string text =
      R"({"role":"user","content":"a <img src=x onerror=alert(1)> and `<kept>` then\n```\nunclosed <b>"})"
      "\n"
      R"({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"c":"````"}}]})"
      "\n"
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x ````` y"}]})"
      "\n";
  std::string page = markdown(text);
  CHECK(page.find("a &lt;img src=x onerror=alert(1)> and `<kept>` then\n```\nunclosed <b>\n```\n") !=
        std::string::npos);
  CHECK(page.find("`````json\n{\"c\":\"````\"}\n`````\n") != std::string::npos);
  CHECK(page.find("``````\nx ````` y\n``````\n") != std::string::npos);
  CHECK(page.find("**Result of** [`Bash`](#s1-call-t1)") != std::string::npos);
}

TEST_CASE("render marks interrupts and compaction", "[render]") {
  std::string text =
      cc_user("u1", "", R"("[Request interrupted by user]")") + "\n" +
      cc_line("system", "u2", "u1",
              R"("subtype":"compact_boundary","content":"Conversation compacted","level":"info")") +
      "\n" +
      cc_line("user", "u3", "u2",
              R"("isCompactSummary":true,"message":{"role":"user","content":"Summary"})") +
      "\n";
  std::string page = html(text);
  CHECK(page.find("<div class=\"marker interrupt\">[Request interrupted by user]</div>") !=
        std::string::npos);
  CHECK(page.find("<div class=\"marker compaction\">Conversation compacted</div>") !=
        std::string::npos);
  CHECK(page.find("<article class=\"msg compact\">") != std::string::npos);
  CHECK(page.find("<article class=\"msg user\">") == std::string::npos);
}

TEST_CASE("render nests Claude Code 1.0 sidechains under the call that started them",
          "[render]") {
  std::string text =
      cc_user("u1", "", R"("go")") + "\n" +
      cc_line("assistant", "a1", "u1",
              R"("message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"task1","name":"Task","input":{"prompt":"look"}}]})") +
      "\n" +
      cc_line("user", "s1", "", R"("isSidechain":true,"message":{"role":"user","content":"look"})") +
      "\n" +
      cc_line("assistant", "s2", "s1",
              R"("isSidechain":true,"message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"seen"}]})") +
      "\n" +
      cc_user("u2", "a1", R"([{"type":"tool_result","tool_use_id":"task1","content":"seen"}])") +
      "\n";
  std::string page = html(text);
  auto nested = page.find("<details class=\"subagent\"><summary>Subagent</summary>");
  REQUIRE(nested != std::string::npos);
  CHECK(page.find("href=\"#s1-call-task1\">its call</a>", nested) != std::string::npos);
  auto seen = page.find(">seen</div>", nested);
  auto closed = page.find("</details>", seen);
  auto result = page.find("id=\"s1-result-task1\"");
  CHECK(seen < closed);
  CHECK(closed < result);
}
