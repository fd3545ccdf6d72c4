#!/usr/bin/env python3
"""The AI SDK messages held in vitest snapshot files, as JSONL convo reads.

A `.snap` file is JavaScript, not JSON: `exports[`NAME`] = `VALUE`;` where VALUE is
the pretty-format of an array of messages (keys quoted, trailing commas, members
whose value is `undefined`). This writes, for each snapshot file, one message a
line (compact JSON, members in their order, `undefined` members left out, as
`JSON.stringify` leaves them out), every export's messages in file order.

  ai_sdk_snapshots.py FILE.snap... --out DIR   writes DIR/<name>.jsonl for each
"""

import argparse
import json
import os
import re
import sys

EXPORT = re.compile(r"^exports\[`((?:[^`\\]|\\.)*)`\] = `((?:[^`\\]|\\.)*)`;$", re.M | re.S)


def js_to_json(text):
    """pretty-format's output as JSON text."""
    text = re.sub(r'^\s*"[^"\n]*": undefined,\n', "", text, flags=re.M)
    text = re.sub(r",(\s*[\]}])", r"\1", text)
    return text


def unescape_template(text):
    """A template literal's text: `\\`` and `\\\\` as vitest escapes them."""
    return re.sub(r"\\([`\\$])", r"\1", text)


def messages(path):
    """The messages of every export of the snapshot file at `path`, in order."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = []
    for match in EXPORT.finditer(text):
        value = json.loads(js_to_json(unescape_template(match.group(2))))
        out.extend(value if isinstance(value, list) else [value])
    return out


def to_jsonl(items):
    return "".join(json.dumps(m, ensure_ascii=False, separators=(",", ":")) + "\n" for m in items)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for path in args.files:
        name = os.path.basename(path)
        name = name[: -len(".snap")] if name.endswith(".snap") else name
        with open(os.path.join(args.out, name + ".jsonl"), "w", encoding="utf-8") as f:
            f.write(to_jsonl(messages(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
