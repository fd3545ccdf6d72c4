#!/usr/bin/env bash
# Gemini CLI itself as the oracle for the gemini-cli format: every Gemini CLI chat of
# ../shared/corpus/gemini-cli, the chats convo writes from the other formats'
# golden inputs (testdata/convert/*-to-gemini-cli), and the session lines Gemini CLI
# wrote (testdata/convert/gemini-cli-session-lines-*), are resumed by the real `gemini`
# against a loopback stand-in for the Gemini API, and the contents it sends must be
# convo's `convert --to gemini` of the same conversation (tests/gemini_cli_oracle.py
# says what is ignored).
#
#   gemini_cli_oracle_test.sh CONVO_BINARY SOURCE_DIR [EVERY]
#
# EVERY=N resumes every Nth corpus chat only (in sorted order, starting with the
# first) beside all the golden ones: CTest passes 6 unless configured with
# -DCONVO_GEMINI_CLI_ORACLE_ALL=ON, to keep the suite within its time (the whole
# corpus takes about 100 s).
#
# Exit 77 (SKIPPED) without Gemini CLI: `npm ci` in tests/gemini_cli_oracle installs
# the pinned one (scripts/setup.sh does); GEMINI_CLI or `gemini` on PATH name another. About 3 s a session.
set -u
convo=$(realpath "$1") source_dir=$(realpath "$2") every=${3:-1}
pinned=$source_dir/tests/gemini_cli_oracle/node_modules/.bin/gemini
[ -x "$pinned" ] || pinned=$(command -v gemini || true)
gemini=${GEMINI_CLI:-$pinned}
if [ -z "$gemini" ] || [ ! -x "$gemini" ]; then
  echo "SKIPPED: Gemini CLI is not installed (set GEMINI_CLI or put gemini on PATH)"
  exit 77
fi
files=()
if [ -d "$source_dir/../shared/corpus/gemini-cli" ]; then
  while IFS= read -r -d '' f; do files+=("$f"); done < \
    <(find "$source_dir/../shared/corpus/gemini-cli" -name '*.json' -print0 | sort -z)
  sample=()
  for i in "${!files[@]}"; do
    if (( i % every == 0 )); then sample+=("${files[$i]}"); fi
  done
  echo "corpus chats resumed: ${#sample[@]} of ${#files[@]} (every $every)"
  files=("${sample[@]}")
fi
for f in "$source_dir"/testdata/convert/*-to-gemini-cli/*; do
  case $(basename "$f") in cmd|out|err|exit) ;; *) files+=("$f") ;; esac
done
# The session lines (session-*.jsonl) Gemini CLI itself wrote when it resumed a chat.
files+=("$source_dir"/testdata/convert/gemini-cli-session-lines-to-anthropic/session.jsonl)
python3 "$source_dir/tests/gemini_cli_oracle.py" "$convo" "$gemini" "${files[@]}"
