// The progress line's text (cmd/progress.cc); tests/progress_pty_test.py checks how
// it is drawn on a terminal.
#include <catch2/catch.hpp>

#include "progress.h"

using convo::cli::progress_line;
using convo::cli::ProgressCounts;

TEST_CASE("progress without known sizes shows megabytes and rates", "[progress]") {
  ProgressCounts counts{.inputs_done = 1, .inputs_total = 3, .bytes = 2'500'000, .records = 38'400};
  CHECK(progress_line(counts, 1.0) == "convo: 1/3 files, 2.5 MB, 38.4k records, 38.4k records/s");
}

TEST_CASE("progress with known sizes shows a percentage and the time left", "[progress]") {
  ProgressCounts counts{.inputs_done = 3,
                        .inputs_total = 40,
                        .bytes = 25'000'000,
                        .bytes_total = 100'000'000,
                        .records = 1'200'000};
  CHECK(progress_line(counts, 10.0) ==
        "convo: 3/40 files, 25.0 of 100.0 MB (25%), 1.2M records, 120.0k records/s, 0:30 left");
  // Past an hour, hours too.
  counts.bytes = 1'000'000;
  CHECK(
      progress_line(counts, 100.0).ends_with("(1%), 1.2M records, 12.0k records/s, 2:45:00 left"));
  // No time left before there is a pace to go by.
  counts.bytes = 500'000;
  CHECK(progress_line(counts, 0.4) ==
        "convo: 3/40 files, 0.5 of 100.0 MB (0%), 1.2M records, 3.0M records/s");
}
