#!/usr/bin/env bash
# The bash completion script that `convo completions bash` prints, loaded into bash,
# completes a subcommand, a flag and a value of --to; the zsh and fish scripts
# parse (checked where those shells are installed).
#
#   completions_test.sh CONVO_BINARY
# Also run by scripts/package-test on the installed convo, with the script the
# package installed: completions_test.sh convo /usr/share/bash-completion/completions/convo
set -u
binary=$1 script=${2:-}
status=0
# complete WORD... : what _convo offers for the last word.
complete() {
  bash -c '
    if [ -n "$2" ]; then source "$2"; else source <("$1" completions bash); fi
    shift 2
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _convo
    echo "${COMPREPLY[*]}"' complete "$binary" "$script" "$@"
}
expect() { # expected words...
  local expected=$1
  shift
  local got
  got=$(complete "$@")
  if [ "$got" != "$expected" ]; then
    echo "*** completing '$*': got '$got', expected '$expected'" >&2
    status=1
  fi
}
expect "convert" convo conv
expect "--strict" convo convert --st
expect "openai opencode openai-responses" convo convert --to op
expect "openai opencode openai-responses" convo convert --to = op
expect "fail skip keep" convo filter --on-error =
expect "first last" convo trim --strategy ""
expect "--select" convo check --sel
expect "normalize-for-api" convo help norm
expect "bash" convo completions ba

for shell in zsh fish; do
  if command -v "$shell" >/dev/null 2>&1; then
    "$binary" completions "$shell" | "$shell" -n || { echo "*** $shell cannot parse its script" >&2; status=1; }
  fi
done
exit $status
