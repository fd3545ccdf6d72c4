#!/usr/bin/env bash
# Claude Code itself as the oracle for normalize-for-api, over the real sessions of
# ../shared/corpus/claude-code: the cc-oracle harness resumes each with the real
# `claude` program against a loopback stand-in for the Messages API and compares the
# messages it sent with convo's. Every session must be SAME, or DIFF only in the
# named resume artefacts and version options listed in cc_oracle_differences.txt
# (one line per session: path under the corpus, then what differs and why).
#
#   cc_oracle_test.sh CONVO_BINARY SOURCE_DIR
#
# Exit 77 (SKIPPED) without the harness, Claude Code or the corpus. It takes
# several minutes (about 2 s per session on 2 jobs), so CTest runs it only in a
# build configured with -DCONVO_CC_ORACLE=ON (label cc-oracle).
set -u
convo=$(realpath "$1") source_dir=$2
oracle=${CC_ORACLE:-$source_dir/../shared/cc-oracle}
corpus=$source_dir/../shared/corpus/claude-code
claude=$oracle/node_modules/@anthropic-ai/claude-code-linux-x64/claude
if [ ! -f "$oracle/compare.py" ] || [ ! -x "$claude" ]; then
  echo "SKIPPED: Claude Code is not installed in the cc-oracle harness ($oracle; run npm ci there)"
  exit 77
fi
if [ ! -d "$corpus" ]; then
  echo "SKIPPED: no corpus at $corpus"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
find "$corpus" -name '*.jsonl' -print0 | sort -z | xargs -0 env CONVO="$convo" \
  python3 "$oracle/compare.py" --jobs "${CC_ORACLE_JOBS:-2}" --json "$tmp/results.json" >"$tmp/log" 2>&1
tail -25 "$tmp/log"
python3 - "$tmp/results.json" "$corpus" "$source_dir/tests/cc_oracle_differences.txt" <<'EOF'
import json, os, sys
results = json.load(open(sys.argv[1]))
corpus = os.path.realpath(sys.argv[2])
allowed = {}
for line in open(sys.argv[3], encoding="utf-8"):
    line = line.rstrip("\n")
    if line and not line.startswith("#"):
        path, _, why = line.partition("  ")
        allowed[path] = why.strip()
bad = 0
for r in results:
    rel = os.path.relpath(os.path.realpath(r["file"]), corpus)
    if r["status"] in ("SAME", "SKIP"):
        continue
    if rel in allowed:
        continue
    bad += 1
    first = r["diffs"][0] if r["diffs"] else ["", r["why"]]
    print(f"UNEXPECTED {r['status']} {rel}\n    [{first[0]}] {first[1][:300]}")
same = sum(r["status"] == "SAME" for r in results)
print(f"{same} of {len(results)} sessions SAME; {len(allowed)} listed differences; {bad} unexpected")
sys.exit(1 if bad else 0)
EOF
