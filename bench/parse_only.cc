// The benchmark baseline: read a JSONL file line by line and parse each line into a
// RapidJSON document, doing nothing else. convo's stages are measured against it.
//
//   parse_only FILE   prints the number of lines parsed
#include <malloc.h>
// The same RapidJSON configuration as convo (lib/json.h): SIMD string scanning.
#if defined(__SSE2__)
#define RAPIDJSON_SSE2
#elif defined(__ARM_NEON)
#define RAPIDJSON_NEON
#endif
#include <rapidjson/document.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  // The same allocator settings as convo (cmd/main.cc), so that the comparison is
  // of the work done, not of glibc's mmap threshold.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  if (argc != 2) {
    std::fprintf(stderr, "usage: parse_only FILE\n");
    return 2;
  }
  std::ifstream in;
  static char buffer[1 << 20];
  in.rdbuf()->pubsetbuf(buffer, sizeof buffer);
  in.open(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "parse_only: cannot open %s\n", argv[1]);
    return 1;
  }
  std::string line;
  unsigned long lines = 0;
  unsigned long members = 0;
  while (std::getline(in, line)) {
    rapidjson::Document doc;
    // The NUL-terminated form: RapidJSON's fastest string stream.
    doc.Parse<rapidjson::kParseFullPrecisionFlag>(line.c_str());
    if (doc.HasParseError()) {
      std::fprintf(stderr, "parse_only: line %lu: parse error\n", lines + 1);
      return 1;
    }
    members += doc.IsObject() ? doc.MemberCount() : 0;  // keep the parse observable
    ++lines;
  }
  std::printf("%lu lines, %lu members\n", lines, members);
  return 0;
}
