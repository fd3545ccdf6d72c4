#!/usr/bin/env python3
"""Every recorded stream of the corpus (Anthropic, OpenAI Chat and OpenAI Responses
SSE, Responses `.chunks.txt` event lines, Gemini SSE and chunk lines) translated by
`convo stream` to each protocol, and assembled again, spells the response the
stream spelled: the same text, thinking, tool calls (id, name, input), stop reason
and token counts. Differences that the target protocol cannot say are left out
(an Anthropic thinking signature or server tool block in OpenAI chunks, text
blocks run together in OpenAI's one content string), as convo's warning counts
them. And every Responses response body of the corpus, written as a Responses
stream and assembled, gives its items back (assemble(write-stream(M)) == M). Exit
77 without the corpus.

    stream_corpus_test.py CONVO_BINARY CORPUS_DIR
"""
import json
import os
import subprocess
import sys

convo, corpus = sys.argv[1], sys.argv[2]
dirs = [os.path.join(corpus, d) for d in ("anthropic-api", "openai-chat", "openai-responses", "gemini")]
streams = sorted(os.path.join(root, name) for d in dirs if os.path.isdir(d)
                 for root, _, names in os.walk(d) for name in names
                 if name.endswith(".sse") or (d.endswith("openai-responses") and name.endswith(".chunks.txt"))
                 or (d.endswith("gemini") and name.endswith(".txt")))
TARGETS = ("anthropic", "openai", "openai-responses", "gemini")
if not streams:
    print("SKIPPED: no corpus streams (../shared/corpus)")
    sys.exit(77)

STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use",
        "function_call": "tool_use", "content_filter": "refusal", "stop_sequence": "end_turn",
        "pause_turn": "end_turn"}


def protocol(doc):
    if doc.get("type") == "message":
        return "anthropic"
    if "candidates" in doc:
        return "gemini"
    return "openai-responses" if doc.get("object") == "response" else "openai"


def reasoning_text(item):
    for key in ("summary", "content"):
        texts = [p.get("text") for p in item.get(key) or [] if isinstance(p, dict) and isinstance(p.get("text"), str)]
        if texts:
            return "\n\n".join(texts)
    return ""


GEMINI_STOP = {"STOP": "end_turn", "MAX_TOKENS": "max_tokens", "SAFETY": "refusal",
               "RECITATION": "refusal", "BLOCKLIST": "refusal", "PROHIBITED_CONTENT": "refusal",
               "SPII": "refusal", "IMAGE_SAFETY": "refusal"}


def gemini_view(doc, coarse, blocks):
    """A Gemini GenerateContentResponse's blocks, stop reason and token counts. Ids
    convo made up for calls without one (gemini-call-N) are no ids."""
    candidate = (doc.get("candidates") or [{}])[0]
    for p in (candidate.get("content") or {}).get("parts") or []:
        if isinstance(p.get("text"), str):
            if p.get("thought"):
                blocks.append(("thinking", p["text"], None if coarse else p.get("thoughtSignature")))
            elif p["text"]:
                blocks.append(("text", p["text"]))
        elif "functionCall" in p:
            c = p["functionCall"]
            cid = c.get("id")
            blocks.append(("tool_use", None if (cid or "").startswith("gemini-call-") else cid,
                           c.get("name"), c.get("args", {})))
        elif not coarse:
            blocks.append((next(iter(p), ""), json.dumps(p, sort_keys=True)))
    reason = candidate.get("finishReason")
    stop = GEMINI_STOP.get(reason, reason)
    if stop == "end_turn" and any(b[0] == "tool_use" for b in blocks):
        stop = "tool_use"
    u = doc.get("usageMetadata") or {}
    cached = u.get("cachedContentTokenCount", 0) or 0
    return stop, (u.get("promptTokenCount", 0) - cached, u.get("candidatesTokenCount", 0), cached)


def view(doc, coarse):
    """The response as comparable: blocks (coarse: text and thinking joined, as
    OpenAI Chat holds them; no item ids), stop reason, token counts."""
    blocks, usage = [], {}
    if "candidates" in doc:
        stop, usage = gemini_view(doc, coarse, blocks)
    elif protocol(doc) == "openai-responses":
        calls = False
        for item in doc.get("output") or []:
            t, iid = item.get("type"), None if coarse else item.get("id")
            if t == "message":
                for p in item.get("content") or []:
                    blocks.append(("text", p.get("text", p.get("refusal", ""))) + (() if coarse else (iid,)))
            elif t == "reasoning" and reasoning_text(item):
                blocks.append(("thinking", reasoning_text(item), None if coarse else (iid, item.get("encrypted_content"))))
            elif t in ("function_call", "custom_tool_call"):
                calls = True
                args = item.get("arguments", "")
                try:
                    args = json.loads(args) if t == "function_call" else {"input": item.get("input", "")}
                except ValueError:
                    pass
                cid = item.get("call_id")
                made_up = (cid or "").startswith("gemini-call-")  # as for the other protocols
                blocks.append(("tool_use", None if made_up else cid, item.get("name"), args))
            elif not coarse:
                blocks.append((t, json.dumps(item, sort_keys=True)))
        details = doc.get("incomplete_details") or {}
        stop = ("max_tokens" if details.get("reason") != "content_filter" else "refusal") \
            if doc.get("status") == "incomplete" else ("tool_use" if calls else "end_turn")
        u = doc.get("usage") or {}
        cached = (u.get("input_tokens_details") or {}).get("cached_tokens", 0) or 0
        usage = (u.get("input_tokens", 0) - cached, u.get("output_tokens", 0), cached)
    elif doc.get("type") == "message":
        for b in doc.get("content", []):
            t = b.get("type")
            if t == "text":
                blocks.append(("text", b.get("text", "")))
            elif t == "thinking":
                blocks.append(("thinking", b.get("thinking", ""), None if coarse else b.get("signature")))
            elif t == "tool_use":
                made_up = (b.get("id") or "").startswith("gemini-call-")
                blocks.append(("tool_use", None if made_up else b.get("id"), b.get("name"), b.get("input")))
            elif not coarse:
                blocks.append((t, json.dumps(b, sort_keys=True)))
        stop = doc.get("stop_reason")
        u = doc.get("usage") or {}
        usage = (u.get("input_tokens", 0), u.get("output_tokens", 0), u.get("cache_read_input_tokens", 0) or 0)
    else:
        choice = (doc.get("choices") or [{}])[0]
        m = choice.get("message", {})
        reasoning = m.get("reasoning_content") or m.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            blocks.append(("thinking", reasoning, None))
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
        if content:
            blocks.append(("text", content))
        for c in m.get("tool_calls") or []:
            args = c.get("function", {}).get("arguments", "")
            try:
                args = json.loads(args)
            except ValueError:
                pass
            made_up = (c.get("id") or "").startswith("gemini-call-")
            blocks.append(("tool_use", None if made_up else c.get("id"), c.get("function", {}).get("name"), args))
        stop = STOP.get(choice.get("finish_reason"), choice.get("finish_reason"))
        u = doc.get("usage") or {}
        cached = (u.get("prompt_tokens_details") or {}).get("cached_tokens", 0) or 0
        usage = (u.get("prompt_tokens", 0) - cached, u.get("completion_tokens", 0), cached)
    if coarse:
        joined = []
        for b in blocks:
            if joined and b[0] in ("text", "thinking") and joined[-1][0] == b[0]:
                joined[-1] = (b[0], joined[-1][1] + b[1]) + joined[-1][2:]
            else:
                joined.append(b)
        thinking = [b for b in joined if b[0] == "thinking"]
        text = [b for b in joined if b[0] == "text"]
        tools = [b for b in joined if b[0] == "tool_use"]
        blocks = [("thinking", "".join(b[1] for b in thinking)), ("text", "".join(b[1] for b in text))] + tools
        stop = STOP.get(stop, stop)
    return {"blocks": blocks, "stop": stop, "usage": usage}


def run(command):
    return subprocess.run(["sh", "-c", command], capture_output=True, text=True)


def responses(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


tally = {}
failures = 0
for path in streams:
    q = f"'{path}'"
    original = run(f"{convo} assemble --on-error skip {q}")
    wanted = responses(original.stdout)
    if not wanted:
        continue
    incomplete = original.returncode != 0 or "incomplete" in original.stderr or "error" in original.stderr
    for target in TARGETS:
        key = f"-> {target}"
        t = tally.setdefault(key, [0, 0, 0])
        out = run(f"{convo} stream --to {target} --include-usage {q} 2>/dev/null | {convo} assemble --on-error skip 2>/dev/null")
        got = responses(out.stdout)
        own = protocol(wanted[0]) == target
        coarse = not own
        a = [view(d, coarse) for d in wanted]
        b = [view(d, coarse) for d in got]
        if incomplete:
            # An error or cut-off stream: what arrived, then the target's error event.
            a, b = a[:len(b)], b
            for x in a + b:
                x["stop"] = None
                x["usage"] = None
        if a == b:
            t[0] += 1
            if incomplete:
                t[2] += 1
        else:
            t[1] += 1
            failures += 1
            print(f"*** {path} {key}:\n  assembled  {json.dumps(a)[:800]}\n  translated {json.dumps(b)[:800]}")

# assemble(write-stream(M)) == M: each Responses response body, written as a
# Responses stream and assembled again, has the same items.
bodies = sorted(os.path.join(root, name) for root, _, names in os.walk(os.path.join(corpus, "openai-responses"))
                for name in names if name.endswith("response.json"))
t = tally.setdefault("Responses bodies -> openai-responses stream -> assemble", [0, 0, 0])
for path in bodies:
    try:
        with open(path) as f:
            body = json.load(f)
    except ValueError:
        continue
    if not isinstance(body, dict) or body.get("object") != "response" or not body.get("output"):
        continue
    out = run(f"{convo} stream --to openai-responses '{path}' 2>/dev/null | {convo} assemble 2>/dev/null")
    got = responses(out.stdout)
    a, b = [view(body, False)], [view(d, False) for d in got]
    a[0]["stop"] = b[0]["stop"] if b and body.get("status") != "incomplete" else a[0]["stop"]
    if a == b:
        t[0] += 1
    else:
        t[1] += 1
        failures += 1
        print(f"*** {path} written and assembled:\n  body      {json.dumps(a)[:800]}\n  assembled {json.dumps(b)[:800]}")
for key, (same, differ, incomplete) in tally.items():
    print(f"corpus streams {key}: {same} of {same + differ} spell the same response "
          f"({incomplete} of them cut off or ending in an error, compared as far as they came)")
sys.exit(1 if failures else 0)
