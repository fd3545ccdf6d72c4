#!/usr/bin/env bash
# Runs one golden case: testdata/<subcommand>/<case>/ holds `cmd` (a shell command
# line; `convo` is the binary under test), its inputs, `out` (the expected stdout,
# byte for byte), and optionally `err` (expected stderr; without it stderr must be
# empty) and `exit` (expected exit code; 0 without it).
#
#   golden.sh CONVO_BINARY CASE_DIR [--update]
#
# --update rewrites out/err/exit from what the command does now, for review in git diff.
set -u
binary=$1 case_dir=$(realpath "$2") update=${3:-}
[ -f "$case_dir/cmd" ] || { echo "golden: no cmd in $case_dir" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/work"
ln -s "$(realpath "$binary")" "$tmp/bin/convo"
# Run in a copy of the case, so commands that write files leave testdata/ clean;
# HOME is that copy too, so an example may name ~/.claude/projects/.
cp -R "$case_dir/." "$tmp/work/"
(cd "$tmp/work" && HOME="$tmp/work" PATH="$tmp/bin:$PATH" LC_ALL=C bash -o pipefail ./cmd >"$tmp/out" 2>"$tmp/err")
code=$?

if [ "$update" = "--update" ]; then
  cp "$tmp/out" "$case_dir/out"
  if [ -s "$tmp/err" ]; then cp "$tmp/err" "$case_dir/err"; else rm -f "$case_dir/err"; fi
  if [ "$code" -ne 0 ]; then echo "$code" >"$case_dir/exit"; else rm -f "$case_dir/exit"; fi
  echo "updated $case_dir"
  exit 0
fi

status=0
# Reports the first differing line of an expectation.
compare() { # name expected actual
  if ! cmp -s "$2" "$3"; then
    echo "*** $(basename "$case_dir"): $1 differs" >&2
    diff -u --label "expected $1" --label "actual $1" "$2" "$3" | head -20 >&2
    status=1
  fi
}
expected_exit=0
[ -f "$case_dir/exit" ] && expected_exit=$(cat "$case_dir/exit")
if [ "$code" != "$expected_exit" ]; then
  echo "*** $(basename "$case_dir"): exit code $code, expected $expected_exit" >&2
  status=1
fi
compare stdout "$case_dir/out" "$tmp/out"
if [ -f "$case_dir/err" ]; then
  compare stderr "$case_dir/err" "$tmp/err"
else
  compare stderr /dev/null "$tmp/err"
fi
exit $status
