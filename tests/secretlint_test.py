#!/usr/bin/env python3
"""check --secrets against secretlint (npm secretlint with its recommended preset,
pinned in tests/secretlint/package-lock.json) on the same files: the hand-written
plants of testdata/check/secrets-in-every-position and the planted copies of
corpus sessions that redact_planted_test.py makes. Every line secretlint flags,
convo flags too; the test says how many plants convo finds that secretlint
misses (escaped, inside JSON in a string, or kinds its preset lacks). Exit 77
(SKIPPED) without node or without `npm ci` run in tests/secretlint.

    secretlint_test.py CONVO_BINARY SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

convo, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
here = os.path.join(source, "tests", "secretlint")
binary = os.path.join(here, "node_modules", ".bin", "secretlint")
if shutil.which("node") is None:
    print("SKIPPED: node is not installed")
    sys.exit(77)
if not os.path.exists(binary):
    print(f"SKIPPED: run `npm ci` in {here} first")
    sys.exit(77)

with tempfile.TemporaryDirectory() as tmp:
    hand = os.path.join(source, "testdata", "check", "secrets-in-every-position")
    files = []
    for name in ("session.jsonl", "chat.jsonl"):
        shutil.copy(os.path.join(hand, name), os.path.join(tmp, "hand-" + name))
        files.append(os.path.join(tmp, "hand-" + name))
    plants = {}
    made = subprocess.run([sys.executable, os.path.join(source, "tests", "redact_planted_test.py"),
                           convo, source, "--keep", tmp], capture_output=True, text=True)
    if made.returncode == 0:
        with open(os.path.join(tmp, "plants.json")) as f:
            plants = json.load(f)
        files += [os.path.join(tmp, name) for name in sorted(plants)]
    elif made.returncode != 77:
        sys.exit(f"redact_planted_test.py failed: {made.stdout}{made.stderr}")

    lint = subprocess.run([binary, "--secretlintrc", os.path.join(here, ".secretlintrc.json"),
                           "--format", "json", *files], capture_output=True, text=True, cwd=here)
    theirs = set()
    for result in json.loads(lint.stdout):
        for message in result["messages"]:
            theirs.add((os.path.basename(result["filePath"]), message["loc"]["start"]["line"]))

    checked = subprocess.run([convo, "check", "--format", "json", "--secrets", "--select",
                              ",".join(r for r in [
                                  "secret-anthropic-key", "secret-openai-key",
                                  "secret-aws-access-key", "secret-aws-secret-key",
                                  "secret-github-token", "secret-gitlab-token",
                                  "secret-google-api-key", "secret-slack-token",
                                  "secret-stripe-key", "secret-private-key", "secret-jwt",
                                  "secret-generic-assignment"]), *files],
                             capture_output=True, text=True)
    ours = {(os.path.basename(p["file"]), p["line"]) for p in map(json.loads, checked.stdout.splitlines())}

    missed = sorted(theirs - ours)
    assert not missed, f"secretlint finds what convo does not: {missed[:10]}"
    planted = sum(len(v) for v in plants.values())
    lines_planted = {(name, line) for name, v in plants.items() for line, _, _ in v}
    print(f"secretlint flags {len(theirs)} lines, convo {len(ours)}; every line secretlint "
          f"flags, convo flags too")
    print(f"planted lines secretlint misses: {len(lines_planted - theirs)} of {len(lines_planted)} "
          f"({planted} plants in corpus copies); convo misses none of them")
