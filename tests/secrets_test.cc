// The secrets scanner (lib/secrets.h), redaction (stages/redact.h), the CI report
// formats (stages/check_formats.h) and budgets (stages/budgets.h).
#include <catch2/catch.hpp>

#include "secrets.h"
#include "stages/budgets.h"
#include "stages/check_formats.h"
#include "stages/redact.h"

using namespace convo;

namespace {

std::vector<std::string> rules_in(std::string_view text, const SecretOptions& options = {}) {
  SecretScanner scanner(options);
  std::vector<std::string> out;
  for (const SecretMatch& m : scanner.scan(text)) {
    out.push_back(std::string(m.rule) + "=" + std::string(text.substr(m.begin, m.length)));
  }
  return out;
}

}  // namespace

TEST_CASE("each built-in rule finds its credential, and only the credential", "[secrets]") {
  using V = std::vector<std::string>;
  CHECK(rules_in("key sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2 ok") ==
        V{"secret-anthropic-key=sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"});
  CHECK(rules_in("sk-proj-Q1w2E3r4T5y6U7i8O9p0AsDf") ==
        V{"secret-openai-key=sk-proj-Q1w2E3r4T5y6U7i8O9p0AsDf"});
  CHECK(rules_in("id=AKIAZ7QWERTY2UIOP3AS,") == V{"secret-aws-access-key=AKIAZ7QWERTY2UIOP3AS"});
  CHECK(rules_in("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY") ==
        V{"secret-aws-secret-key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"});
  CHECK(rules_in("GITHUB_TOKEN=ghp_Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbAz") ==
        V{"secret-github-token=ghp_Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbAz"});
  CHECK(rules_in("glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn") ==
        V{"secret-gitlab-token=glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn"});
  CHECK(rules_in("AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q") ==
        V{"secret-google-api-key=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"});
  CHECK(rules_in("xoxb-1234567890-abcdefGHIJ") ==
        V{"secret-slack-token=xoxb-1234567890-abcdefGHIJ"});
  CHECK(rules_in("rk_live_4eC39HqLyjWDarjtT1zdp7dc") ==
        V{"secret-stripe-key=rk_live_4eC39HqLyjWDarjtT1zdp7dc"});
  CHECK(rules_in("a\n-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\nb") ==
        V{"secret-private-key=-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----"});
  CHECK(rules_in("password: Tr0ub4dor3x!Qz9#Lm2v") ==
        V{"secret-generic-assignment=Tr0ub4dor3x!Qz9#Lm2v"});
}

TEST_CASE("what looks like a credential but is not stays unreported", "[secrets]") {
  CHECK(rules_in("the task-runner uses sk-learn-style names").empty());   // no digit, short
  CHECK(rules_in("xsk-proj-Q1w2E3r4T5y6U7i8O9p0AsDf").empty());           // glued to a word
  CHECK(rules_in("c2lnbmF0dXJl/sk-Q1w2E3r4T5y6U7i8O9p0AsDfGh").empty());  // inside base64
  CHECK(rules_in("AKIAZ7QWERTY2UIOP3ASX").empty());                       // 17 characters
  CHECK(rules_in("password=hunter2").empty());                            // low entropy, short
  CHECK(rules_in("TOKEN_PRICE_PER_TOKEN = TOKEN_PRICE_PER_1M").empty());  // a constant
  CHECK(rules_in("tokens = float(last.get(\"input_tokens\"))").empty());  // code
  CHECK(rules_in("token: ${GITHUB_TOKEN_VALUE_2024}").empty());           // a variable
  // eyJ... whose header is not JSON with alg
  CHECK(rules_in("eyJub3QiOiJqd3QifQ.eyJzdWIiOiIxIn0.c2ln").empty());
  CHECK(rules_in("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln").size() == 1);
}

TEST_CASE("a credential is found at every offset and at the end of a string", "[secrets]") {
  // The scan looks at 32 positions at a time (16 without AVX2) and copies what is left
  // at a string's end into a zeroed block: every offset of every rule's prefix, in
  // strings of every length around those sizes, must come out as one scalar pass finds it.
  const std::vector<std::string> credentials = {
      "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2",     "sk-proj-Q1w2E3r4T5y6U7i8O9p0AsDf",
      "AKIAZ7QWERTY2UIOP3AS",                      "ASIAZ7QWERTY2UIOP3AS",
      "ghp_Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbAz",   "github_pat_11ABCDEFG0123456789abcdef",
      "glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn",                "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
      "xoxb-1234567890-abcdefGHIJ",                "rk_live_4eC39HqLyjWDarjtT1zdp7dc",
      "sk_live_4eC39HqLyjWDarjtT1zdp7dc",          "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "PASSWORD=Tr0ub4dor3xQz9Lm2v",
      "Token: Tr0ub4dor3xQz9Lm2v",                 "SECRET=Tr0ub4dor3xQz9Lm2v",
      "API_KEY=Tr0ub4dor3xQz9Lm2v",                "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"};
  // Filler holding pairs and classes' near misses (to, se, pa, ap, sp, gh, xo, ey).
  const std::string filler = "to se pa ap spec eye gh xo -- ak as ai rk sk ";
  SecretScanner scanner(SecretOptions{});
  for (const std::string& credential : credentials) {
    std::vector<SecretMatch> alone = scanner.scan(credential);
    REQUIRE(alone.size() == 1);
    for (std::size_t offset = 0; offset <= 70; ++offset) {
      std::string before;
      while (before.size() < offset) {
        before += filler;
      }
      before.resize(offset);
      if (offset > 0) {
        before.back() = ' ';
      }
      for (const std::string& after : {std::string(), std::string(" "), " " + filler}) {
        std::string text = before + credential + after;
        std::vector<SecretMatch> found = scanner.scan(text);
        INFO(text);
        REQUIRE(found.size() == 1);
        CHECK(found[0].rule == alone[0].rule);
        CHECK(found[0].begin == offset + alone[0].begin);
        CHECK(found[0].length == alone[0].length);
      }
    }
  }
}

TEST_CASE("patterns and known values add to the rules", "[secrets]") {
  SecretOptions options;
  options.patterns = {"corp-[0-9]{6}"};
  options.known = {"opensesame"};
  CHECK(rules_in("id corp-123456 and opensesame", options) ==
        std::vector<std::string>{"secret-pattern=corp-123456", "secret-known-value=opensesame"});
}

TEST_CASE("a secret is masked: four characters, an ellipsis, its length", "[secrets]") {
  CHECK(mask_secret("sk-ant-api03-abcdef") == "sk-a\u2026 (19 chars)");
  CHECK(mask_secret("ab") == "ab\u2026 (2 chars)");
  CHECK(shannon_entropy("aaaa") == 0);
  CHECK(shannon_entropy("abcd") == Approx(2.0));
}

TEST_CASE("redaction re-escapes the string, and re-serializes JSON held in a string", "[secrets]") {
  JsonDoc doc;
  REQUIRE(!parse_json(
      R"({"a":"x\nAKIA\u005a7QWERTY2UIOP3AS","f":{"arguments":"{\"t\":\"glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn\"}"},"n":1})",
      doc));
  SecretScanner scanner(SecretOptions{});
  std::vector<Problem> found;
  std::optional<std::string> out = redact_json(doc, scanner, Location{}, found);
  REQUIRE(out);
  CHECK(
      *out ==
      R"({"a":"x\n[REDACTED:secret-aws-access-key]","f":{"arguments":"{\"t\":\"[REDACTED:secret-gitlab-token]\"}"},"n":1})");
  REQUIRE(found.size() == 2);
  CHECK(found[1].message == "f.arguments{}.t: glpa\u2026 (26 chars)");
  JsonDoc clean;
  REQUIRE(!parse_json(R"({"a":"nothing here"})", clean));
  CHECK(!redact_json(clean, scanner, Location{}, found));
}

TEST_CASE("GitHub annotations escape data and properties as GitHub documents", "[check]") {
  Problem p{Location{std::make_shared<const std::string>("a,b:c%.jsonl"), 7}, "rule-x",
            "50% of\r\nit"};
  CHECK(github_annotation(p, "error") ==
        "::error file=a%2Cb%3Ac%25.jsonl,line=7,title=rule-x::50%25 of%0D%0Ait");
}

TEST_CASE("usage counts input, output and cache tokens, or the total alone", "[check]") {
  Usage usage;
  usage.input = 10;
  usage.output = 5;
  usage.cache_read = 100;
  usage.cache_write = 1;
  usage.reasoning = 3;  // part of output
  CHECK(usage_tokens(usage) == 116);
  Usage total;
  total.total = 42;
  CHECK(usage_tokens(total) == 42);
}
