#!/usr/bin/env bash
# Every message file of OpenCode's older storage in ../shared/corpus
# (storage/message/SESSION/MESSAGE.json) is read with the parts stored beside it
# (storage/part/MESSAGE/*.json): each part's text appears in what convert writes.
# Skipped (exit 77) without the corpus or without such storage in it.
#
#   opencode_storage_corpus.sh CONVO_BINARY SOURCE_DIR
set -u
convo=$1 corpus=$2/../shared/corpus
[ -d "$corpus" ] || { echo "SKIPPED: no corpus at $corpus"; exit 77; }
messages=0 failed=0
while IFS= read -r -d '' file; do
  dir=$(dirname "$file")
  id=$(basename "$file" .json)
  parts="$dir/../../part/$id"
  [ "$(basename "$(dirname "$dir")")" = message ] && [ -d "$parts" ] || continue
  messages=$((messages + 1))
  out=$("$convo" convert --to anthropic -q "$file" 2>/dev/null) || { echo "FAIL (exit) $file"; failed=$((failed + 1)); continue; }
  for part in "$parts"/*.json; do
    text=$(sed -n 's/.*"text" *: *"\([^"\\]*\)".*/\1/p' "$part" | head -1)
    if [ -n "$text" ] && ! grep -qF -- "$text" <<<"$out"; then
      echo "FAIL $file: the text of $part is missing"
      failed=$((failed + 1))
    fi
  done
done < <(find "$corpus/opencode" -path '*/message/*' -name '*.json' -print0 | sort -z)
[ "$messages" -gt 0 ] || { echo "SKIPPED: no OpenCode storage in $corpus"; exit 77; }
echo "$messages message files read with their parts, $failed failures"
[ "$failed" -eq 0 ]
