#!/usr/bin/env python3
"""Claude Code itself runs a tool from a stream convo translated (issue 17).

For each recorded stream (any protocol `convo stream` reads; by default every .sse and
.jsonl file of testdata/cc-tool-run/): `convo stream --to anthropic FILE` translates it, and a
loopback stand-in for the Messages API answers Claude Code's first request with that
translation. The real `claude` (../shared/cc-oracle's pinned Claude Code, run with -p in
a throw-away HOME and working directory, talking only to 127.0.0.1) must then run every
tool_use of it: its next request must carry, for each tool_use id, a tool_result that is
not an error and holds the tool's real output -- a nonce written to proof.txt in the
working directory for this run only, which no stream holds. The stand-in then answers
with plain text, and the run must end with that text.

The tools are Claude Code's own: Bash `echo "ran: $(cat proof.txt)"` and Read of
@@CWD@@/proof.txt (@@CWD@@ in a stream is replaced by the working directory before it
is translated).

Negative controls: the first stream's translation, broken (its content_block_stop
events left out; its last input_json_delta left out), is given to Claude Code the same
way, and the same checks must fail (Claude Code retries the request and never runs the
tool; the tool fails on input that is not JSON): the test can tell a stream Claude Code
acts on from one it does not.

A stream of any other protocol convo stream reads is one more input file (.sse or
.jsonl): put it in testdata/cc-tool-run/ or name it on the command line.
The inputs are two OpenAI Chat streams and an OpenAI Responses stream (text, then a
Bash call with its arguments in several deltas).

    cc_tool_run_test.py CONVO_BINARY SOURCE_DIR [STREAM_FILE...]
    env: CC_ORACLE (harness directory), CLAUDE (binary), CC_TOOL_RUN_KEEP (a directory
         to keep each run's requests, streams and Claude Code output in)

Exit 0 when every stream passes and every control fails; 1 otherwise; 77 (SKIPPED) when
Claude Code is not installed.
"""
import glob
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

convo = os.path.realpath(sys.argv[1])
source_dir = os.path.realpath(sys.argv[2])
oracle = os.environ.get("CC_ORACLE", os.path.join(source_dir, "..", "shared", "cc-oracle"))
claude = os.path.realpath(os.environ.get("CLAUDE", os.path.join(oracle, "node_modules", "@anthropic-ai",
                                               "claude-code-linux-x64", "claude")))
keep = os.environ.get("CC_TOOL_RUN_KEEP")
if not os.access(claude, os.X_OK):
    print(f"SKIPPED: Claude Code is not installed ({claude}; scripts/setup.sh "
          "convo_install_cc_oracle installs it)")
    sys.exit(77)

streams = [os.path.realpath(f) for f in sys.argv[3:]] or sorted(
    f for ext in ("sse", "jsonl") for f in glob.glob(os.path.join(source_dir, "testdata", "cc-tool-run", "*." + ext)))
if not streams:
    print("no input streams")
    sys.exit(1)

# What compare.py gives Claude Code: no traffic but the API, no updates, an API key.
ENV_FIXED = dict(ANTHROPIC_API_KEY="sk-ant-cc-tool-run", DISABLE_TELEMETRY="1",
                 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
                 DISABLE_AUTO_COMPACT="1", DISABLE_ERROR_REPORTING="1", DISABLE_BUG_COMMAND="1",
                 CLAUDE_CODE_DISABLE_TERMINAL_TITLE="1")
PROMPT = "Show me what proof.txt says."
FINAL_TEXT = "The proof file has been read."
TIMEOUT = 60


def sse(events):
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def final_stream(model):
    """The plain text answer to the request that carries the tool results."""
    return sse([
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_cctool_final", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": FINAL_TEXT}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                           "usage": {"output_tokens": 7}}),
        ("message_stop", {"type": "message_stop"}),
    ])


def has_tool_result(req):
    for m in req.get("messages", []):
        if isinstance(m.get("content"), list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"]):
            return True
    return False


def is_main_turn(req):
    """The agent's own turn (tools offered, the prompt in a user message), not a side
    request such as a title or a quota probe. (Claude Code may put `role: "system"`
    messages after the prompt.)"""
    if not req.get("tools"):
        return False
    for m in req.get("messages", []):
        content = m.get("content")
        texts = [content] if isinstance(content, str) else [
            b.get("text", "") for b in content or [] if isinstance(b, dict)]
        if m.get("role") == "user" and any(PROMPT in t for t in texts):
            return True
    return False


class StandIn:
    """A loopback Messages API: the main turn gets `first`, a request carrying tool
    results gets the final text, anything else a short 'ok'."""

    def __init__(self, first):
        self.first = first
        self.requests = []
        self.served_first = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, ctype, body):
                self.send_response(200)
                self.send_header("content-type", ctype)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                self.reply("application/json", b"{}")

            def do_HEAD(self):
                self.send_response(200)
                self.end_headers()

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                if "/v1/messages" not in self.path or "count_tokens" in self.path:
                    self.reply("application/json", b'{"input_tokens": 10}')
                    return
                try:
                    req = json.loads(body)
                except ValueError:
                    req = {}
                outer.requests.append(req)
                model = req.get("model", "claude")
                if has_tool_result(req):
                    answer = final_stream(model)
                elif is_main_turn(req) and not outer.served_first:
                    outer.served_first += 1
                    answer = outer.first
                else:
                    answer = sse([
                        ("message_start", {"type": "message_start", "message": {
                            "id": "msg_cctool_side", "type": "message", "role": "assistant", "model": model,
                            "content": [], "stop_reason": None, "stop_sequence": None,
                            "usage": {"input_tokens": 1, "output_tokens": 1}}}),
                        ("content_block_start", {"type": "content_block_start", "index": 0,
                                                 "content_block": {"type": "text", "text": ""}}),
                        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                 "delta": {"type": "text_delta", "text": "ok"}}),
                        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                        ("message_delta", {"type": "message_delta",
                                           "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                           "usage": {"output_tokens": 1}}),
                        ("message_stop", {"type": "message_stop"})])
                if req.get("stream"):
                    self.reply("text/event-stream", answer)
                else:
                    self.reply("application/json", json.dumps(assembled_or_ok(answer, model)).encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def assembled_or_ok(stream, model):
    """A non-streaming request's answer: the stream put back together by convo."""
    p = subprocess.run([convo, "assemble", "-"], input=stream, capture_output=True)
    if p.returncode == 0 and p.stdout.strip():
        return json.loads(p.stdout.splitlines()[0])
    return {"id": "msg_cctool_ok", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


def assembled_content(anthropic_stream):
    """The content blocks of a translated stream's message, from convo assemble."""
    p = subprocess.run([convo, "assemble", "-"], input=anthropic_stream, capture_output=True)
    return [b for line in p.stdout.splitlines() for b in json.loads(line).get("content", [])]


def strip_cache_control(x):
    if isinstance(x, dict):
        return {k: strip_cache_control(v) for k, v in x.items() if k != "cache_control"}
    if isinstance(x, list):
        return [strip_cache_control(v) for v in x]
    return x


def without_block_stops(stream):
    """A control: the stream with its content_block_stop events left out."""
    return b"\n\n".join(e for e in stream.split(b"\n\n") if b"content_block_stop" not in e)


def without_last_input_piece(stream):
    """A control: the stream without its last input_json_delta, so that a tool's
    input is not whole JSON."""
    events = stream.split(b"\n\n")
    last = max(i for i, e in enumerate(events) if b'"input_json_delta"' in e)
    return b"\n\n".join(events[:last] + events[last + 1:])


# Broken streams Claude Code must not act on. (Measured with 2.1.330: it still runs
# the tools of a stream whose stop_reason is end_turn, or that lacks message_delta or
# message_stop, so those are not controls.)
CONTROLS = [("without content_block_stop", without_block_stops),
            ("without its last input_json_delta", without_last_input_piece)]


def run_claude(name, anthropic_stream, work):
    """Claude Code on PROMPT against the stand-in; returns (requests, stdout, stderr, rc, seconds)."""
    home = os.path.join(work, "home")
    os.makedirs(home, exist_ok=True)
    stand_in = StandIn(anthropic_stream)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    env.update(ENV_FIXED, HOME=home, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{stand_in.port}")
    start = time.monotonic()
    p = subprocess.Popen([claude, "-p", PROMPT, "--allowedTools", "Bash", "Read", "--max-turns", "3"],
                         cwd=os.path.join(work, "proj"), env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)  # only the process group this test started
        out, err = p.communicate()
        rc = "timeout"
    seconds = time.monotonic() - start
    stand_in.close()
    if keep:
        d = os.path.join(keep, name)
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "anthropic.sse"), "wb").write(anthropic_stream)
        open(os.path.join(d, "claude.out"), "wb").write(out + b"\n--- stderr ---\n" + err + f"\n--- rc {rc}\n".encode())
        for i, r in enumerate(stand_in.requests):
            json.dump(r, open(os.path.join(d, f"req-{i:03d}.json"), "w"), indent=1)
    return stand_in.requests, out.decode(errors="replace"), err.decode(errors="replace"), rc, seconds


def result_text(block):
    c = block.get("content")
    if isinstance(c, str):
        return c
    return "".join(b.get("text", "") for b in c or [] if isinstance(b, dict))


def check(content, requests, out, rc, nonce):
    """What went wrong (an empty list when Claude Code ran every tool and finished)."""
    problems = []
    uses = [b for b in content if b.get("type") == "tool_use"]
    if not uses:
        return ["the translated stream has no tool_use (convo assemble found none)"]
    follow = [r for r in requests if has_tool_result(r)]
    if not follow:
        main = sum(is_main_turn(r) and not has_tool_result(r) for r in requests)
        return [f"Claude Code sent no request with a tool_result ({len(requests)} requests, {main} of "
                f"them the turn itself; rc {rc}; its output: {out.strip()[-300:]!r})"]
    messages = follow[0]["messages"]
    results = {}
    for m in messages:
        for b in m.get("content") if isinstance(m.get("content"), list) else []:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                results[b.get("tool_use_id")] = b
    for u in uses:
        r = results.get(u["id"])
        if r is None:
            problems.append(f"no tool_result for {u['name']} {u['id']} (results for {sorted(results)})")
        elif r.get("is_error"):
            problems.append(f"{u['name']} {u['id']} failed: {result_text(r)[:300]!r}")
        elif nonce not in result_text(r):
            problems.append(f"{u['name']} {u['id']}'s result lacks the proof file's text: {result_text(r)[:300]!r}")
    # The assistant turn Claude Code sends back is the message the stream spelled:
    # its text and each tool_use with its id, name and input.
    sent = [strip_cache_control(m["content"]) for m in messages if m.get("role") == "assistant"]
    if not sent or sent[-1] != content:
        problems.append(f"the assistant turn Claude Code sent back is not the stream's message: "
                        f"{json.dumps(sent[-1] if sent else None)[:300]} vs {json.dumps(content)[:300]}")
    if rc != 0:
        problems.append(f"claude exited with {rc}")
    if FINAL_TEXT not in out:
        problems.append(f"the run did not end with the final text (output {out.strip()[-300:]!r})")
    return problems


def run_case(name, stream_file, mutate=None):
    work = tempfile.mkdtemp(prefix="cctool-")
    try:
        proj = os.path.join(work, "proj")
        os.makedirs(proj)
        nonce = "proof-" + secrets.token_hex(8)
        open(os.path.join(proj, "proof.txt"), "w").write(nonce + "\n")
        recorded = open(stream_file, "rb").read().replace(b"@@CWD@@", proj.encode())
        p = subprocess.run([convo, "stream", "--to", "anthropic"], input=recorded, capture_output=True)
        if p.returncode != 0:
            return [f"convo stream --to anthropic failed ({p.returncode}): {p.stderr.decode()[-300:]}"], 0.0
        translated = p.stdout
        content = assembled_content(translated)
        if mutate:
            translated = mutate(translated)
        requests, out, err, rc, seconds = run_claude(name, translated, work)
        return check(content, requests, out, rc, nonce), seconds
    finally:
        shutil.rmtree(work, ignore_errors=True)


failures = 0
total_start = time.monotonic()
for f in streams:
    name = os.path.basename(f)
    problems, seconds = run_case(name, f)
    print(f"{'PASS' if not problems else 'FAIL'} {name} ({seconds:.1f} s)")
    for pr in problems:
        print(f"    {pr}")
    failures += bool(problems)

# The controls: the first stream, broken, must not make Claude Code run its tools, and
# the checks must say so.
for what, mutate in CONTROLS:
    name = f"control: {os.path.basename(streams[0])} {what}"
    problems, seconds = run_case("control " + what.replace(" ", "-"), streams[0], mutate)
    if problems:
        print(f"PASS {name} ({seconds:.1f} s): the checks fail as they must: {problems[0][:200]}")
    else:
        print(f"FAIL {name} ({seconds:.1f} s): Claude Code ran the tools of a broken stream")
        failures += 1
print(f"{len(streams)} streams, {failures} failed, {time.monotonic() - total_start:.1f} s in all")
sys.exit(1 if failures else 0)
