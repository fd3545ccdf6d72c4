#!/usr/bin/env bash
# GNU parallel --pipe over a generated corpus gives the same bytes as one convo
# process, for each streaming subcommand listed below (README: "Many machines").
# Skipped (exit 77) when GNU parallel or ../shared/bench/gen-corpus is missing.
#
#   parallel_test.sh CONVO_BINARY SOURCE_DIR
set -u
binary=$(realpath "$1") src=$2
gen=$src/../shared/bench/gen-corpus
command -v parallel >/dev/null 2>&1 || { echo "SKIPPED: GNU parallel is not installed (Debian: parallel)"; exit 77; }
[ -f "$gen" ] || { echo "SKIPPED: $gen is missing"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$gen" --format claude-code --messages 3000 --seed 7 >"$tmp/corpus.jsonl" || exit 1

# The streaming subcommands, as they are run on each block. Each block is a
# separate input, so the format is named rather than detected block by block.
commands=(
  "convert --from claude-code --to openai"
  "convert --from claude-code --to anthropic"
  "convert --from claude-code --to claude-code"
)
status=0
for command in "${commands[@]}"; do
  # shellcheck disable=SC2086
  "$binary" $command "$tmp/corpus.jsonl" >"$tmp/one" 2>/dev/null
  # 200 KB blocks: about 60 jobs over the 13 MB corpus; -k keeps their order.
  parallel --will-cite --pipe --block 200k -k "$binary" $command <"$tmp/corpus.jsonl" \
    >"$tmp/many" 2>/dev/null
  if cmp -s "$tmp/one" "$tmp/many"; then
    echo "ok: convo $command under parallel --pipe"
  else
    echo "*** convo $command: parallel --pipe output differs from one process"
    cmp "$tmp/one" "$tmp/many" | head -1
    status=1
  fi
done
exit $status
