#!/usr/bin/env python3
"""Gemini CLI itself as the oracle for the gemini-cli format.

Each session is resumed by the real `gemini` program (npm @google/gemini-cli,
`--session-file FILE -p continue`) against a loopback stand-in for the Gemini API,
and the `contents` of the chat request it sends are compared with `convo convert
--to gemini` of the same session: what convo reads from a Gemini CLI chat must be
what Gemini CLI sends for it. Sessions of other formats are first converted with
`convo convert --to gemini-cli` (the chat convo writes must resume), and compared
with `convo convert --to gemini` of the original.

Ignored, each counted by name and never silently: the <session_context> part Gemini
CLI puts before the first user text; the prompt "continue" it appends; the model
turn it splices in after an interrupted response; its thoughtSignature sentinel on
calls that had none; the thoughts it saved (Gemini CLI does not send them back),
written by convo as `thought` parts; a tool result it sends twice when it resumes
session lines (its history checkpoint holds the result as a turn of its own, beside
the call's copy, which convo reads); for sessions of other formats, what
`convert --to gemini-cli` counted as lost (thought signatures) and the ids it gave
calls that had none (`gemini-call-N`, which Gemini CLI then sends); and the layout of runs: Gemini CLI sends
consecutive contents of one role as one (convo writes them apart, as recorded;
`convo merge-runs` joins them), so both sides are compared with runs joined.

  gemini_cli_oracle.py CONVO GEMINI FILE...     (exit 1 on any other difference)
"""
import collections
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading

SENTINEL = "skip_thought_signature_validator"
INTERRUPTED = "[The previous response was interrupted before it completed.]"


def join_runs(contents, ignored):
    """Consecutive contents of one role as one, as Gemini CLI sends them."""
    out = []
    for content in contents:
        if out and out[-1].get("role") == content.get("role"):
            out[-1] = {**out[-1], "parts": out[-1].get("parts", []) + content.get("parts", [])}
            ignored["runs of one role joined"] += 1
        else:
            out.append(content)
    return out


class Capture(http.server.BaseHTTPRequestHandler):
    bodies = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        Capture.bodies.append((self.path, json.loads(body or b"null")))
        if ":countTokens" in self.path:
            reply = {"totalTokens": 10}
        else:
            # The router and the next-speaker check ask for JSON: one object says all.
            text = "ok" if "stream" in self.path.lower() else json.dumps(
                {"reasoning": "ok", "model_choice": "flash", "next_speaker": "user",
                 "complexity_reasoning": "ok", "complexity_score": 1})
            reply = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                     "finishReason": "STOP", "index": 0}],
                     "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1,
                                       "totalTokenCount": 11}}
        if "alt=sse" in self.path:
            data, kind = ("data: " + json.dumps(reply) + "\r\n\r\n").encode(), "text/event-stream"
        else:
            data, kind = json.dumps(reply).encode(), "application/json"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=180, **kw)


def sent_contents(gemini, session, home, port, ignored):
    """The contents of the chat request Gemini CLI sends when resuming `session`."""
    Capture.bodies = []
    env = dict(os.environ, HOME=home, GEMINI_API_KEY="loopback", GEMINI_CLI_TRUST_WORKSPACE="true",
               GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{port}", NO_COLOR="1")
    result = run([gemini, "--session-file", session, "-p", "continue", "--output-format", "json"],
                 env=env, cwd=home)
    chats = [b for p, b in Capture.bodies if ":streamGenerateContent" in p]
    if result.returncode != 0 or not chats:
        return None, result.stderr[-400:]
    contents = json.loads(json.dumps(chats[0]["contents"]))
    if contents and contents[-1].get("role") == "user" and \
            contents[-1].get("parts", [])[-1:] == [{"text": "continue"}]:
        contents[-1]["parts"].pop()
        ignored["the prompt it appends"] += 1
        if not contents[-1]["parts"]:
            contents.pop()
    interrupted = [{"text": INTERRUPTED}]
    kept = [c for c in contents if not (c.get("role") == "model" and c.get("parts") == interrupted)]
    ignored["the model turn it splices in after an interrupted response"] += len(contents) - len(kept)
    contents = kept
    if contents and contents[0].get("parts"):
        first = contents[0]["parts"][0]
        if str(first.get("text", "")).startswith("<session_context>"):
            contents[0]["parts"].pop(0)
            ignored["its <session_context> part"] += 1
            if not contents[0]["parts"]:
                contents.pop(0)
    for content in contents:
        for part in content.get("parts", []):
            if part.get("thoughtSignature") == SENTINEL:
                del part["thoughtSignature"]
                ignored["its thoughtSignature sentinel"] += 1
            for key in ("functionCall", "functionResponse"):
                if re.fullmatch(r"gemini-call-\d+", str(part.get(key, {}).get("id", ""))):
                    del part[key]["id"]
                    ignored["ids convo gave calls that had none"] += 1
    contents = join_runs(contents, collections.Counter())
    # Resuming session lines (session-*.jsonl), Gemini CLI loads its history
    # checkpoint, where a call's result is also a turn of its own, and sends that
    # result twice: its call's copy and the turn's.
    for content in contents:
        seen, parts = [], []
        for part in content.get("parts", []):
            if "functionResponse" in part and part in seen:
                ignored["a result it sends twice (its history checkpoint's copy)"] += 1
                continue
            seen.append(part)
            parts.append(part)
        content["parts"] = parts
    return contents, ""


def convo_contents(convo, path, fmt, ignored, own=True):
    args = [convo, "convert", "-q", "--to", "gemini", path] + (["--from", fmt] if fmt else [])
    result = run(args)
    contents = []
    for line in result.stdout.splitlines():
        record = json.loads(line)
        if "parts" not in record:
            continue  # a systemInstruction line: Gemini CLI sends its own
        parts = []
        for part in record["parts"]:
            if part.get("thought"):
                ignored["saved thoughts (not sent back)"] += 1
                continue
            if not own and "thoughtSignature" in part:
                del part["thoughtSignature"]
                ignored["thought signatures gemini-cli cannot hold (counted)"] += 1
            parts.append(part)
        if parts:
            contents.append({"role": record["role"], "parts": parts})
    return join_runs(contents, ignored)


def canon(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def main():
    convo, gemini, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Capture)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    ignored = collections.Counter()
    same = differ = 0
    with tempfile.TemporaryDirectory() as home:
        os.makedirs(os.path.join(home, ".gemini"))
        with open(os.path.join(home, ".gemini", "settings.json"), "w") as f:
            json.dump({"security": {"auth": {"selectedType": "gemini-api-key"}},
                       "general": {"disableAutoUpdate": True},
                       "privacy": {"usageStatisticsEnabled": False}}, f)
        for path in map(os.path.abspath, files):
            session = path
            # A Gemini CLI chat: a session document (.json) or session lines (.jsonl).
            own = path.endswith((".json", ".jsonl")) and \
                '"projectHash"' in open(path, errors="replace").read(4096)
            if not own:
                session = os.path.join(home, "converted.json")
                with open(session, "w") as out:
                    subprocess.run([convo, "convert", "-q", "--to", "gemini-cli", path], stdout=out,
                                   check=True)
            sent, why = sent_contents(gemini, session, home, port, ignored)
            if sent is None:
                print(f"FAIL {path}: gemini did not send a chat request: {why}")
                differ += 1
                continue
            ours = convo_contents(convo, path, None, ignored, own)
            if canon(sent) == canon(ours):
                print(f"SAME {path}")
                same += 1
            else:
                differ += 1
                print(f"DIFF {path}")
                for i, (a, b) in enumerate(zip(sent + [None] * len(ours), ours + [None] * len(sent))):
                    if canon(a) != canon(b):
                        print(f"  content {i}: gemini sent {canon(a)[:300]}")
                        print(f"  content {i}: convo wrote {canon(b)[:300]}")
                        break
    server.shutdown()
    print(f"{same} same, {differ} different; ignored: " +
          ", ".join(f"{k} ({v})" for k, v in sorted(ignored.items())))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
