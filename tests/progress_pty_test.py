#!/usr/bin/env python3
"""The progress line on a terminal, run under a pseudo-terminal:

  progress_pty_test.py CONVO_BINARY

With standard output going elsewhere, the line is drawn on stderr in place, each
warning is printed on a line of its own (the progress line erased first), and the
line is erased at the end. With standard output on the same terminal, no line is
drawn at all: the output would break into it.
"""
import os
import pty
import subprocess
import sys
import tempfile
import threading
import time

CONVO = sys.argv[1]
ERASE = b"\r\x1b[K"
RECORD = b'{"role":"user","content":"hi"}\n'


def run(stdout_on_terminal):
    """Runs convert on a slow standard input; returns what the terminal showed."""
    master, slave = pty.openpty()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(
            [CONVO, "convert", "--to", "anthropic", "--on-error", "skip"],
            stdin=subprocess.PIPE, stdout=slave if stdout_on_terminal else out, stderr=slave)
        os.close(slave)
        shown = bytearray()

        def read():
            while True:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the terminal's other end is closed
                    return
                if not data:
                    return
                shown.extend(data)

        reader = threading.Thread(target=read)
        reader.start()
        proc.stdin.write(RECORD * 2000 + b"not json\n")
        proc.stdin.flush()
        time.sleep(1.5)  # the line appears after half a second, then every 250 ms
        proc.stdin.write(b"not json either\n" + RECORD * 2000)
        proc.stdin.close()
        code = proc.wait(timeout=60)
        reader.join(timeout=10)
        os.close(master)
        if code != 0:
            sys.exit(f"convo exited {code}: {bytes(shown)!r}")
    return bytes(shown)


def lines(shown):
    """What each line of the terminal finally shows: the text after its last erase."""
    return [line.rstrip(b"\r").split(ERASE)[-1] for line in shown.split(b"\n")]


failures = []

shown = run(stdout_on_terminal=False)
if ERASE + b"convo: 0/1 files" not in shown and ERASE + b"convo: 1/1 files" not in shown:
    failures.append(f"stdout elsewhere: no progress line drawn: {shown!r}")
warnings = [line for line in lines(shown) if b"warning:" in line]
if len(warnings) != 3:
    failures.append(f"stdout elsewhere: expected 3 warnings, got {warnings!r}")
for line in warnings:
    if not line.startswith(b"convo: ") or b"records/s" in line:
        failures.append(f"stdout elsewhere: a warning shares its line: {line!r}")
if not shown.endswith(ERASE) and b"records/s" in lines(shown)[-1]:
    failures.append(f"stdout elsewhere: the line is not erased at the end: {shown!r}")

shown = run(stdout_on_terminal=True)
if b"records/s" in shown or ERASE in shown:
    failures.append(f"stdout on the terminal: a progress line was drawn: {shown[-300:]!r}")
if shown.count(b"warning:") != 3:
    failures.append(f"stdout on the terminal: expected 3 warnings: {shown[-300:]!r}")

for failure in failures:
    print("***", failure, file=sys.stderr)
sys.exit(1 if failures else 0)
