#!/usr/bin/env bash
# GNU parallel over a generated corpus gives the same bytes as one convo process
# (man convo: MANY MACHINES): --pipe for the subcommands that take each record on
# its own, one file per job for those that look across records.
# Skipped (exit 77) when GNU parallel or ../shared/bench/gen-corpus is missing.
#
#   parallel_test.sh CONVO_BINARY SOURCE_DIR [SHARED_DIR]
set -u
binary=$(realpath "$1") src=$2
gen=${3:-$src/../shared}/bench/gen-corpus
command -v parallel >/dev/null 2>&1 || { echo "SKIPPED: GNU parallel is not installed (Debian: parallel)"; exit 77; }
[ -f "$gen" ] || { echo "SKIPPED: $gen is missing"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$gen" --format claude-code --messages 3000 --seed 7 >"$tmp/corpus.jsonl" || exit 1

# The subcommands that take each record on its own, as they are run on each block.
# Each block is a separate input, so the format is named rather than detected
# block by block.
commands=(
  "convert --from claude-code --to claude-code"
  "filter --from claude-code --include-types human,ai"
  "buffer-string --from claude-code"
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
# Those that look across records (a run to merge, a tool call and its result, the
# records of one Claude Code response written as one turn): one file per job, in order.
(cd "$tmp" && split -n l/8 -d --additional-suffix=.jsonl corpus.jsonl part)
for command in "merge-runs" "filter --exclude-tool-calls" \
               "convert --from claude-code --to openai" "convert --from claude-code --to anthropic"; do
  # shellcheck disable=SC2086
  "$binary" $command "$tmp"/part*.jsonl >"$tmp/one" 2>/dev/null
  parallel --will-cite -k "$binary" $command ::: "$tmp"/part*.jsonl >"$tmp/many" 2>/dev/null
  if cmp -s "$tmp/one" "$tmp/many"; then
    echo "ok: convo $command under parallel, one file per job"
  else
    echo "*** convo $command: parallel output (one file per job) differs from one process"
    status=1
  fi
done
exit $status
