#!/usr/bin/env bash
# `convo check` passes every output of `convo normalize-for-api` over the real
# sessions of ../shared/corpus (Claude Code logs, with and without --sidechains,
# and the other formats' transcripts). Skipped (exit 77) without the corpus.
#
#   normalize_check_corpus.sh CONVO_BINARY SOURCE_DIR
set -u
convo=$1 corpus=$2/../shared/corpus
if [ ! -d "$corpus" ]; then
  echo "SKIPPED: no corpus at $corpus"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=0 checked=0 failed=0
while IFS= read -r -d '' file; do
  files=$((files + 1))
  for flags in "" "--sidechains"; do
    # Inputs convo refuses are another test's business; what it writes must pass.
    "$convo" normalize-for-api -q --on-error skip $flags "$file" >"$tmp/out" 2>/dev/null || continue
    [ -s "$tmp/out" ] || continue
    checked=$((checked + 1))
    # One conversation per line group: check each as its own file would be.
    if ! "$convo" check --from anthropic "$tmp/out" >"$tmp/report" 2>&1; then
      failed=$((failed + 1))
      echo "FAIL normalize-for-api $flags $file:"
      head -5 "$tmp/report" | sed 's/^/    /'
    fi
  done
done < <(find "$corpus" -type f \( -name '*.jsonl' -o -name '*.json' \) -size -20M -print0 | sort -z)
echo "$checked outputs of normalize-for-api checked ($files files), $failed with problems"
[ "$failed" -eq 0 ]
