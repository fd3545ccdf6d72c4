#!/usr/bin/env python3
"""Credentials of every kind planted in every position of copies of corpus sessions
(user text, tool output, thinking, tool input, an OpenAI tool call's JSON
arguments; some written with a \\uXXXX escape inside, some between \\n): check
--secrets finds every one at its line under its rule, and after redact none
remains in any decoded string (nor in JSON held in a string). The copies are made
here, at run time. Exit 77 (SKIPPED) without the corpus.

    redact_planted_test.py CONVO_BINARY SOURCE_DIR [--keep DIR]

--keep DIR leaves the planted copies in DIR (secretlint_test.py reads them), and
their plants in DIR/plants.json.
"""
import json
import os
import subprocess
import sys
import tempfile

convo, source = sys.argv[1], sys.argv[2]
corpus = os.path.join(source, "..", "shared", "corpus")
SESSIONS = [
    "claude-code/d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/"
    "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    "claude-code/iansherr__claude-code-log/test/test_data/sidechain.jsonl",
    "openai-chat/pydantic__pydantic-ai/test_cache_prefix_stability__test_openai_tool_call_roundtrip_wire_stable_vercel_/02.request.json",
]
if not all(os.path.exists(os.path.join(corpus, s)) for s in SESSIONS):
    print(f"SKIPPED: the corpus sessions are not under {corpus}")
    sys.exit(77)

# Fake credentials, made for this test.
PLANTS = [
    ("secret-anthropic-key", "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbAzYxWvUt"),
    ("secret-openai-key", "sk-proj-Q1w2E3r4T5y6U7i8O9p0AsDfGhJkLzXc"),
    ("secret-aws-access-key", "AKIAZ7QWERTY2UIOP3AS"),
    ("secret-github-token", "ghp_Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbAz"),
    ("secret-github-token", "github_pat_11ABCDEFG0123456789abcdefghij"),
    ("secret-gitlab-token", "glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn"),
    ("secret-google-api-key", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("secret-slack-token", "xoxb-1234567890-abcdefGHIJ"),
    ("secret-stripe-key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("secret-jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
                   "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("secret-private-key", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk\n"
                           "-----END EC PRIVATE KEY-----"),
]
# Where to plant: strings under these keys (text, thinking, tool input and output).
KEYS = {"text", "thinking", "content", "command", "output", "arguments", "stdout", "input"}


def plant_in(value, counter, planted, line_no):
    """Appends a plant to every string under KEYS; returns the new value."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(v, str) and k in KEYS:
                rule, secret = PLANTS[counter[0] % len(PLANTS)]
                counter[0] += 1
                try:
                    inner = json.loads(v)
                except ValueError:
                    inner = None
                if isinstance(inner, dict):  # JSON in a string: plant inside it
                    inner["planted"] = secret
                    v = json.dumps(inner)
                else:
                    v = v + "\n" + secret + "\n"
                planted.append((line_no, rule, secret))
                out[k] = v
            else:
                out[k] = plant_in(v, counter, planted, line_no)
        return out
    if isinstance(value, list):
        return [plant_in(v, counter, planted, line_no) for v in value]
    return value


def escape_some(line, planted_here, counter):
    # Every other plant written with its sixth character as a \\u escape.
    for _, _, secret in planted_here:
        counter[0] += 1
        if counter[0] % 2 == 0:
            encoded = json.dumps(secret)[1:-1]
            c = secret[5]
            line = line.replace(encoded, encoded[:5] + "\\u%04x" % ord(c) + encoded[6:], 1)
    return line


def strings(value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, str):
        yield value
        try:
            inner = json.loads(value)
        except ValueError:
            return
        if isinstance(inner, (dict, list)):
            yield from strings(inner)


keep = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--keep" else None
with tempfile.TemporaryDirectory() as scratch:
    tmp = keep or scratch
    total = 0
    all_plants = {}
    for i, session in enumerate(SESSIONS):
        planted = []
        counter, escapes = [i], [0]
        path = os.path.join(tmp, f"planted{i}.jsonl")
        with open(os.path.join(corpus, session), encoding="utf-8") as src, \
                open(path, "w", encoding="utf-8") as dst:
            for line_no, line in enumerate(src, 1):
                try:
                    record = json.loads(line)
                except ValueError:
                    dst.write(line)
                    continue
                here = []
                record = plant_in(record, counter, here, line_no)
                planted += here
                dst.write(escape_some(json.dumps(record), here, escapes) + "\n")
        assert planted, session
        all_plants[os.path.basename(path)] = planted
        total += len(planted)
        rules = ",".join(sorted({r for r, _ in PLANTS}))
        found = subprocess.run([convo, "check", "--format", "json", "--select", rules, path],
                               capture_output=True, text=True)
        hits = {(p["line"], p["rule"]) for p in map(json.loads, found.stdout.splitlines())}
        for problem in map(json.loads, found.stdout.splitlines()):
            for _, _, secret in planted:
                assert secret not in problem["message"], "a finding shows a secret whole"
        missed = [(n, r) for n, r, _ in planted if (n, r) not in hits]
        assert not missed, f"{session}: check --secrets missed {missed[:5]}"
        redacted = subprocess.run([convo, "redact", path], capture_output=True, text=True)
        assert redacted.returncode == 0, redacted.stderr
        left = []
        for line in redacted.stdout.splitlines():
            record = json.loads(line)  # valid JSON still
            for s in strings(record):
                left += [secret for _, _, secret in planted if secret in s]
        assert not left, f"{session}: redact left {left[:3]}"
        assert len(redacted.stdout.splitlines()) == len(open(path).read().splitlines())
        print(f"{session}: {len(planted)} plants found, none left after redact")
    print(f"{total} plants in {len(SESSIONS)} sessions")
    with open(os.path.join(tmp, "plants.json"), "w") as f:
        json.dump(all_plants, f)
