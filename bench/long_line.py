#!/usr/bin/env python3
"""Writes a transcript whose middle record is one long line (issue 15: "a 500 MB line
in at most 2x its size"), for bench.py --big and by hand:

  bench/long_line.py --mb 500 > line500.jsonl

The file is a Claude Code session of three lines: a tool call, its result (the long
line: a tool_result whose content is `--mb` MB of command output, JSON-escaped, with
a newline every 60-odd bytes, as `cat` of a big log gives), and a closing answer.
Deterministic; written in 1 MB pieces, so the script itself stays small.
"""
import argparse
import json
import sys

SESSION = "5b0c7c0e-2c1e-4d8e-9c55-4a3c6b1e0f00"


def record(kind, uuid, parent, message):
    return {"parentUuid": parent, "isSidechain": False, "userType": "external",
            "cwd": "/home/dev/convo", "sessionId": SESSION, "version": "1.0.98",
            "type": kind, "message": message, "uuid": uuid,
            "timestamp": "2025-06-01T09:00:17.063Z"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=500, help="size of the long line, in MB")
    args = parser.parse_args()
    out = sys.stdout.buffer
    call = record("assistant", "u1", None, {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-opus-4-1",
        "content": [{"type": "tool_use", "id": "toolu_01", "name": "Bash",
                     "input": {"command": "cat build.log"}}],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5}})
    out.write(json.dumps(call, separators=(",", ":")).encode() + b"\n")

    head = json.dumps(record("user", "u2", "u1", {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "@@"}]}),
        separators=(",", ":")).encode()
    before, after = head.split(b"@@")
    target = int(args.mb * 1e6) - len(before) - len(after)
    # One piece of output: lines of a build log with a tab, a quote and a path.
    lines = []
    for i in range(16384):
        lines.append(f"[{i % 997:3}/997] Building CXX object src/\"part_{i % 131}\".cc.o\t"
                     f"ok {i * 7919 % 100003}\n")
    piece = json.dumps("".join(lines))[1:-1].encode()
    out.write(before)
    written = 0
    while written < target:
        chunk = piece[:target - written]
        # Never end on half an escape.
        while chunk.endswith(b"\\") and not chunk.endswith(b"\\\\"):
            chunk = chunk[:-1]
        if not chunk:
            chunk = b"x"
        out.write(chunk)
        written += len(chunk)
    out.write(after + b"\n")

    answer = record("assistant", "u3", "u2", {
        "id": "msg_02", "type": "message", "role": "assistant", "model": "claude-opus-4-1",
        "content": [{"type": "text", "text": "The build log is long."}],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5}})
    out.write(json.dumps(answer, separators=(",", ":")).encode() + b"\n")


if __name__ == "__main__":
    main()
