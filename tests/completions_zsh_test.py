#!/usr/bin/env python3
"""The zsh completion script, loaded by compinit in an interactive zsh under a
pseudo-terminal, completes a subcommand, a flag and a value of --to. Skipped
(exit 77) where zsh is not installed.

  completions_zsh_test.py CONVO_BINARY
"""
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time

if shutil.which("zsh") is None:
    print("SKIPPED: zsh is not installed")
    sys.exit(77)

convo = os.path.realpath(sys.argv[1])
functions = tempfile.mkdtemp()
with open(os.path.join(functions, "_convo"), "wb") as script:
    script.write(subprocess.run([convo, "completions", "zsh"], check=True,
                                capture_output=True).stdout)
os.symlink(convo, os.path.join(functions, "convo"))

pid, fd = pty.fork()
if pid == 0:
    os.environ["PATH"] = functions + ":" + os.environ["PATH"]
    os.environ["TERM"] = "dumb"
    os.execvp("zsh", ["zsh", "-f", "-i"])


def read_until(expected, seconds=10.0):
    shown = b""
    end = time.time() + seconds
    while time.time() < end and expected not in shown:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                shown += os.read(fd, 65536)
            except OSError:
                break
    return shown


os.write(fd, f"fpath=({functions} $fpath); autoload -U compinit; compinit -u; PS1='ready> '\n"
         .encode())
read_until(b"ready> ")
failures = []
for typed, expected in [("convo conv", b"convo convert "),
                        ("convo convert --st", b"convo convert --strict "),
                        ("convo convert --to openc", b"convo convert --to opencode "),
                        ("convo trim --strategy ", b"first  last")]:
    os.write(fd, typed.encode() + b"\t")
    shown = read_until(expected)
    if expected not in shown:
        failures.append(f"completing {typed!r}: expected {expected!r}, the terminal shows {shown[-200:]!r}")
    os.write(fd, b"\x15")  # erase the line
    time.sleep(0.2)
os.write(fd, b"exit\n")
os.waitpid(pid, 0)
shutil.rmtree(functions)
for failure in failures:
    print("***", failure, file=sys.stderr)
sys.exit(1 if failures else 0)
