// Converts an OpenAI chat line to Anthropic's format through the installed
// libconvo's public headers; prints the result and exits 0 when it is right.
#include <cstdio>
#include <memory>
#include <string>

#include <convo/diagnostics.h>
#include <convo/io/output.h>
#include <convo/pipeline.h>
#include <convo/stages/convert.h>

int main() {
  convo::StreamOptions options;
  options.inputs = {"chat.jsonl"};
  options.to = convo::parse_format("anthropic");
  convo::StringOutput out;
  convo::NullDiagnostics diagnostics;
  convo::run_stream(
      options, [] { return std::make_unique<convo::PassThrough>(); }, out, diagnostics,
      [](const std::string&) {
        return convo::memory_source(R"({"role":"user","content":"hi"})"
                                    "\n");
      });
  std::fputs(out.str().c_str(), stdout);
  return out.str() == R"({"role":"user","content":"hi"})"
                      "\n"
             ? 0
             : 1;
}
