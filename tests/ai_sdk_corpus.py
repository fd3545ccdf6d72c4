#!/usr/bin/env python3
"""The ai-sdk corpus (../shared/corpus/ai-sdk), whose files are not JSONL.

- Vitest snapshot files (`.snap`, JavaScript): their messages are pulled out with
  ai_sdk_snapshots.py into JSONL, which must convert to ai-sdk byte for byte, the
  format detected and named.
- JSON arrays of UI message stream chunks (`.json`): written as SSE `data:` lines,
  `convo assemble` must put them together into one whole UIMessage, which converts
  to ai-sdk byte for byte.

Skipped (exit 77) without the corpus.

  ai_sdk_corpus.py CONVO SOURCE_DIR
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ai_sdk_snapshots  # noqa: E402


def run(*args, stdin=None):
    result = subprocess.run(list(args), input=stdin, capture_output=True, timeout=120)
    return result.returncode, result.stdout, result.stderr.decode("utf-8", "replace")


def main():
    convo, source_dir = sys.argv[1], sys.argv[2]
    corpus = os.path.join(source_dir, "..", "shared", "corpus", "ai-sdk")
    if not os.path.isdir(corpus):
        print(f"SKIPPED: no corpus at {corpus}")
        return 77
    failures = []
    files = 0
    messages = 0
    with tempfile.TemporaryDirectory() as tmp:
        for dirpath, _, names in sorted(os.walk(corpus)):
            for name in sorted(names):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, corpus)
                if name.endswith(".snap"):
                    files += 1
                    jsonl = os.path.join(tmp, name + ".jsonl")
                    text = ai_sdk_snapshots.to_jsonl(ai_sdk_snapshots.messages(path))
                    messages += text.count("\n")
                    with open(jsonl, "w", encoding="utf-8") as f:
                        f.write(text)
                    for forced in ([], ["--from", "ai-sdk"]):
                        rc, out, err = run(convo, "convert", "--to", "ai-sdk", *forced, jsonl)
                        if rc != 0 or out.decode("utf-8") != text:
                            failures.append(f"{rel} {' '.join(forced)}: not byte for byte "
                                            f"(exit {rc}) {err.strip()}")
                elif name.endswith(".json"):
                    with open(path, encoding="utf-8") as f:
                        chunks = json.load(f)
                    if not (isinstance(chunks, list) and chunks and isinstance(chunks[0], dict)
                            and "role" not in chunks[0]):
                        continue
                    files += 1
                    sse = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks)
                    sse += "data: [DONE]\n\n"
                    rc, out, err = run(convo, "assemble", stdin=sse.encode("utf-8"))
                    lines = out.decode("utf-8").splitlines()
                    if rc != 0 or len(lines) != 1 or err:
                        failures.append(f"{rel}: assemble gave {len(lines)} messages "
                                        f"(exit {rc}) {err.strip()}")
                        continue
                    message = json.loads(lines[0])
                    if message.get("role") != "assistant" or not message.get("parts"):
                        failures.append(f"{rel}: assembled no assistant UIMessage")
                    messages += 1
                    rc, back, err = run(convo, "convert", "--to", "ai-sdk", stdin=out)
                    if rc != 0 or back != out:
                        failures.append(f"{rel}: the assembled message does not convert to "
                                        f"itself (exit {rc}) {err.strip()}")
    print(f"{files} files, {messages} messages")
    for failure in failures:
        print("FAIL: " + failure)
    if files == 0:
        print("FAIL: no ai-sdk corpus file found")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
