#!/usr/bin/env bash
# Codex CLI itself as the oracle for `convert --to codex`: each golden input converted
# to a rollout, and every Codex rollout of ../shared/corpus/codex, is resumed by the
# real `codex` program (npm @openai/codex, pinned in tests/codex_oracle/package.json)
# against a loopback stand-in for the Responses API; the `input` it sends must hold
# exactly the items `convert --to openai-responses` says the rollout holds
# (tests/codex_oracle/compare.py). About 1 s a file.
#
#   codex_oracle_test.sh CONVO_BINARY SOURCE_DIR
#
# Exit 77 (SKIPPED) without Codex: `npm ci` in tests/codex_oracle installs it, or
# CODEX names the binary.
set -u
convo=$(realpath "$1") source_dir=$(realpath "$2")
here=$source_dir/tests/codex_oracle
codex=${CODEX:-$here/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex}
if [ ! -x "$codex" ]; then
  echo "SKIPPED: Codex CLI is not installed (npm ci in $here, or set CODEX)"
  exit 77
fi
files=()
for d in "$source_dir"/testdata/convert/*-to-codex; do
  for f in "$d"/*; do
    case $(basename "$f") in cmd|out|err|exit) ;; *) files+=("$f") ;; esac
  done
done
corpus=$source_dir/../shared/corpus/codex
if [ -d "$corpus" ]; then
  while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$corpus" -name '*.jsonl' -print0 | sort -z)
fi
CONVO=$convo CODEX=$codex python3 "$here/compare.py" "${files[@]}"
