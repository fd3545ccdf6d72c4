#!/usr/bin/env bash
# check --secrets over the real corpus as it is: every finding is listed in
# secrets_corpus_expected.txt (looked at: private key blocks and a JWT that tools
# printed in one Gemini CLI archive). Exit 77 (SKIPPED) without the corpus.
#
#   secrets_corpus_test.sh CONVO_BINARY SOURCE_DIR
set -u
convo=$1 source=$2
corpus="$source/../shared/corpus"
[ -d "$corpus" ] || { echo "SKIPPED: no corpus at $corpus"; exit 77; }
rules=secret-anthropic-key,secret-openai-key,secret-aws-access-key,secret-aws-secret-key
rules=$rules,secret-github-token,secret-gitlab-token,secret-google-api-key,secret-slack-token
rules=$rules,secret-stripe-key,secret-private-key,secret-jwt,secret-generic-assignment
actual=$(cd "$corpus" && find . -name '*.json*' | LC_ALL=C sort | xargs "$convo" check --select "$rules" 2>&1)
if ! diff -u "$source/tests/secrets_corpus_expected.txt" <(printf '%s\n' "$actual"); then
  echo "check --secrets finds something new in the corpus: look at it, then update the expectation" >&2
  exit 1
fi
