#!/usr/bin/env bash
# Every example shown to users, in `convo SUBCOMMAND --help`, in the EXAMPLES of
# man/*.1 and in README.md's ```sh blocks (the lines that run convo, with
# continuation lines joined and a trailing "# comment" left off), must be the first line of some golden case's `cmd`, so that it is run
# and its output checked (jq's man.test idea).
#
#   examples_test.sh CONVO_BINARY SOURCE_DIR
set -u
binary=$1 src=$2
first_lines=$(for f in "$src"/testdata/*/*/cmd; do head -n 1 "$f"; done)
missing=0
check() { # where example
  if ! grep -qxF -- "$2" <<<"$first_lines"; then
    echo "*** $1: example has no golden case (first line of a testdata/*/*/cmd): $2" >&2
    missing=1
  fi
}

subcommands=$("$binary" --help | awk '/^Subcommands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
[ -n "$subcommands" ] || { echo "*** no subcommands found in convo --help" >&2; exit 1; }
for sub in $subcommands; do
  [ "$sub" = help ] && continue  # `convo help SUB` shows SUB's help
  examples=$("$binary" "$sub" --help | awk '/^Examples:/ {on=1; next} on && /^  convo / {sub(/^  /, ""); print; next} on && /^$/ {exit}')
  [ -n "$examples" ] || { echo "*** convo $sub --help has no examples" >&2; missing=1; }
  while IFS= read -r example; do
    [ -n "$example" ] && check "convo $sub --help" "$example"
  done <<<"$examples"
done

for page in "$src"/man/*.1; do
  examples=$(awk '/^\.SH EXAMPLES/ {on=1; next} /^\.SH/ {on=0} on && /^convo / {print}' "$page" |
             sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\(aq/'"'"'/g')
  while IFS= read -r example; do
    [ -n "$example" ] && check "$(basename "$page")" "$example"
  done <<<"$examples"
done
# README.md: a line ending in "\" goes on with the next, whose indent becomes one space.
examples=$(awk '/^```sh/ {on=1; next} /^```/ {on=0; next}
                on { if (held != "") { sub(/^ +/, ""); $0 = held " " $0; held = "" }
                     if (/\\$/) { sub(/ *\\$/, ""); held = $0; next }
                     print }' "$src/README.md" |
           sed -E 's/[[:space:]]+#.*$//' | grep -E "(^|[ |'])convo ")
[ -n "$examples" ] || { echo "*** README.md shows no convo examples" >&2; missing=1; }
while IFS= read -r example; do
  [ -n "$example" ] && check README.md "$example"
done <<<"$examples"
exit $missing
