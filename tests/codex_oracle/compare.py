#!/usr/bin/env python3
"""Codex CLI itself as the reference for `convo convert --to codex`.

For each transcript: `convo convert --to codex FILE` (a Codex rollout is used as it
is), the rollout put where Codex keeps sessions, `codex exec resume ID continue` run
against a loopback stand-in for the Responses API (capture.py), and the `input` Codex
sent compared, item by item, with `convo convert --to openai-responses ROLLOUT`: the
conversation Codex resumed must be exactly the items convo says the rollout holds.
What resuming itself adds (its instructions ahead of the history, the environment
context, skills and the prompt "continue" after it) is set apart, not compared.

  CONVO=build/convo CODEX=.../bin/codex compare.py [--out DIR] [--json FILE] FILE...

Prints per file SAME, DIFF (the first differing item), SKIP (nothing to resume) or
FAIL (convo or Codex failed); exits 1 when any file is DIFF or FAIL.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, timeout=kw.pop("timeout", 120), **kw)


def tidy(value):
    """Codex writes every member of an item it knows, absent ones as null: a null
    member says what an absent one does."""
    if isinstance(value, dict):
        return {k: tidy(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [tidy(v) for v in value]
    return value


def lines(text):
    return [tidy(json.loads(line)) for line in text.splitlines() if line.strip()]


def compare(convo, codex, path, work):
    """(status, why) for one transcript."""
    own = run([convo, "convert", "-q", "--to", "codex", path])
    if own.returncode != 0:
        return "FAIL", "convo convert --to codex: " + own.stderr.decode(errors="replace").strip()
    records = lines(own.stdout.decode())
    meta = next((r for r in records if r.get("type") == "session_meta"), None)
    if meta is None or not any(r.get("type") == "response_item" for r in records):
        return "SKIP", "no session_meta or no response_item"
    session = meta.get("payload", {}).get("id")
    if not isinstance(session, str):
        return "SKIP", "its session_meta has no id (Codex resumes a session by id)"
    home = os.path.join(work, "home")
    shutil.rmtree(home, ignore_errors=True)
    day = os.path.join(home, "sessions", "2025", "01", "01")
    os.makedirs(day)
    rollout = os.path.join(day, f"rollout-2025-01-01T00-00-00-{session}.jsonl")
    # The copy given to Codex names the loopback provider: Codex does not resume a
    # session under another provider than the one its session_meta names.
    with open(rollout, "w", encoding="utf-8") as f:
        for line in own.stdout.decode().splitlines():
            record = json.loads(line) if line.strip() else None
            if (isinstance(record, dict) and record.get("type") == "session_meta" and
                    isinstance(record.get("payload"), dict) and
                    "model_provider" in record["payload"]):
                record["payload"]["model_provider"] = "loop"
                line = json.dumps(record, ensure_ascii=False)
            f.write(line + "\n")
    expected = run([convo, "convert", "-q", "--from", "codex", "--to", "openai-responses", rollout])
    if expected.returncode != 0:
        return "FAIL", "convo convert --to openai-responses: " + expected.stderr.decode().strip()
    expected_items = lines(expected.stdout.decode())
    # What Codex itself rewrites when it resumes, named in the result: it sends a
    # remote image (an https URL; it takes only data: URLs) as a note in its place.
    rewrites = 0
    for item in expected_items:
        for i, part in enumerate(item.get("content") or []):
            if (isinstance(part, dict) and part.get("type") == "input_image" and
                    str(part.get("image_url", "")).startswith(("http://", "https://"))):
                item["content"][i] = {"type": "input_text", "text": "image content omitted "
                                      "because remote image URLs are not supported"}
                rewrites += 1
    # Members Codex keeps in its rollouts but does not send to the API.
    internal = 0
    for item in expected_items:
        for key in [k for k in item if k.startswith("internal_")]:
            del item[key]
            internal += 1
    notes = []
    if rewrites:
        notes.append(f"{rewrites} remote image URLs Codex omits")
    if internal:
        notes.append(f"{internal} internal_* members Codex does not send")

    port = free_port()
    captured = os.path.join(work, "captured")
    shutil.rmtree(captured, ignore_errors=True)
    with open(os.path.join(home, "config.toml"), "w", encoding="utf-8") as f:
        f.write(f'model = "gpt-5-codex"\nmodel_provider = "loop"\n'
                f'[model_providers.loop]\nname = "loop"\n'
                f'base_url = "http://127.0.0.1:{port}/v1"\nwire_api = "responses"\n'
                f'env_key = "LOOP_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n')
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "capture.py"), str(port), captured])
    try:
        for _ in range(50):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        cwd = os.path.join(work, "cwd")
        os.makedirs(cwd, exist_ok=True)
        env = dict(os.environ, CODEX_HOME=home, LOOP_KEY="x", HOME=work)
        result = run([codex, "exec", "--skip-git-repo-check", "resume", session, "continue"],
                     cwd=cwd, env=env, stdin=subprocess.DEVNULL, timeout=90)
    finally:
        server.terminate()
        server.wait()
    request = os.path.join(captured, "req-000.json")
    if not os.path.exists(request):
        why = result.stderr.decode(errors="replace")
        why = next((line for line in why.splitlines() if "rror" in line), why[-300:])
        with open(path, "rb") as f:
            own_file = f.read() == own.stdout
        # A rollout Codex wrote (convert --to codex kept it as it is) that this Codex
        # does not read: a question for the file, not for convo.
        return ("SKIP" if own_file else "FAIL"), "Codex did not resume it: " + why.strip()[:300]
    sent = tidy(json.load(open(request, encoding="utf-8"))["input"])
    # Codex answers a call left without output ("aborted") when it resumes.
    answered = {item.get("call_id") for item in expected_items
                if str(item.get("type", "")).endswith("_output")}
    synthetic = [item for item in sent if str(item.get("type", "")).endswith("_output") and
                 item.get("call_id") not in answered]
    if synthetic:
        sent = [item for item in sent if item not in synthetic]
        notes.append(f"{len(synthetic)} outputs Codex adds for calls left unanswered")
    note = "".join("; " + n for n in notes)
    # Codex puts its instructions (developer messages) ahead of the history and its
    # context and the prompt after it: the history is the run that matches.
    n = len(expected_items)
    for start in range(len(sent) - n + 1):
        if sent[start:start + n] == expected_items:
            added = sent[:start] + sent[start + n:]
            if all(item.get("type") == "message" and item.get("role") in ("developer", "user")
                   for item in added):
                return "SAME", f"{n} items; {len(added)} added by resuming{note}"
    # The first item of ours that Codex did not send as it is.
    for i, item in enumerate(expected_items):
        if item not in sent:
            near = next((s for s in sent if s.get("type") == item.get("type")), None)
            return "DIFF", (f"item {i} of {n}: ours {json.dumps(item)[:300]}; "
                            f"Codex's nearest {json.dumps(near)[:300]}")
    return "DIFF", "the same items in another order or interleaved"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--out", help="keep each file's work here")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    convo = os.environ.get("CONVO", "convo")
    codex = os.environ["CODEX"]
    results = []
    for path in args.files:
        work = tempfile.mkdtemp(prefix="codex-oracle-", dir=args.out) if args.out else tempfile.mkdtemp()
        try:
            status, why = compare(convo, codex, path, work)
        except subprocess.TimeoutExpired as e:
            status, why = "FAIL", f"timed out: {e.cmd[:3]}"
        finally:
            if not args.out:
                shutil.rmtree(work, ignore_errors=True)
        print(f"{status} {path}: {why}", flush=True)
        results.append({"file": path, "status": status, "why": why})
    counts = {s: sum(r["status"] == s for r in results) for s in ("SAME", "DIFF", "SKIP", "FAIL")}
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 1 if counts["DIFF"] or counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
