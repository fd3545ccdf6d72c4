#!/usr/bin/env python3
"""convo render --format html, opened in a real browser (headless Chromium).

    render_browser_test.py CONVO SESSION.jsonl OUT_DIR

Renders SESSION (a Claude Code session; its subagent files beside it are nested in
the page), opens the page in headless Chromium with the network off (a proxy to
nowhere, and the page's own Content-Security-Policy), and checks:
  - no console errors (Chromium's log on stderr: CONSOLE lines, CSP refusals);
  - every message is in the DOM: as many <article class="msg"> as the session and
    its subagents have user and assistant records (interrupts are marks, not
    messages), and each record's text, thinking and tool result text present;
  - hostile text stayed text: no <script> element, no on* attribute anywhere,
    only data: images;
and writes screenshots at a phone (390 px) and a desktop (1280 px) width to OUT_DIR,
naming them in its output. Exit 77 (CTest: skipped) when chromium is not installed.
"""
import glob
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import time


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def expected_records(session):
    """The user/assistant records of the session and its subagent files."""
    files = [session]
    stem = session[: -len(".jsonl")]
    files += sorted(glob.glob(os.path.join(stem, "subagents", "**", "*.jsonl"), recursive=True))
    records = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                if record.get("type") in ("user", "assistant"):
                    records.append(record)
    return records


def texts_of(record):
    content = record["message"]["content"]
    if isinstance(content, str):
        return [content]
    texts = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            texts.append(block["text"])
        elif kind == "thinking":
            texts.append(block["thinking"])
        elif kind == "tool_result":
            result = block.get("content")
            if isinstance(result, str):
                texts.append(result)
            elif isinstance(result, list):
                texts.append("".join(b.get("text", "") for b in result if b.get("type") == "text"))
    return [t for t in texts if t]


def is_interrupt(record):
    texts = texts_of(record)
    return record["type"] == "user" and len(texts) == 1 and texts[0].startswith(
        "[Request interrupted by user")


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = []
        self.articles = 0
        self.scripts = 0
        self.handlers = []
        self.images = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "article" and "msg" in (attrs.get("class") or "").split():
            self.articles += 1
        if tag == "img":
            self.images.append(attrs.get("src") or "")
        for name in attrs:
            if name.startswith("on"):
                self.handlers.append((tag, name))

    def handle_data(self, data):
        self.text.append(data)


def run_chromium(binary, args, timeout=40):
    base = [binary, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
            "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
            "--enable-logging=stderr", "--v=0", "--user-data-dir=" + PROFILE]
    return subprocess.run(base + args, capture_output=True, text=True, timeout=timeout)


def console_errors(stderr):
    bad = []
    for line in stderr.splitlines():
        if "CONSOLE" in line or "Refused to" in line or "Uncaught" in line:
            bad.append(line)
    return bad


def main():
    convo, session, out_dir = sys.argv[1:4]
    binary = chromium_binary()
    if binary is None:
        print("SKIPPED: chromium is not installed (Debian package chromium; "
              "scripts/setup.sh installs it)")
        return 77
    os.makedirs(out_dir, exist_ok=True)
    global PROFILE
    PROFILE = os.path.join(out_dir, "chromium-profile")
    shutil.rmtree(PROFILE, ignore_errors=True)
    page = os.path.abspath(os.path.join(out_dir, "session.html"))
    subprocess.run([convo, "render", "-o", page, session], check=True)
    url = "file://" + page
    failures = []

    started = time.monotonic()
    dump = run_chromium(binary, ["--virtual-time-budget=3000", "--dump-dom", url])
    load_seconds = time.monotonic() - started
    if dump.returncode != 0:
        failures.append(f"chromium --dump-dom exited {dump.returncode}: {dump.stderr[-2000:]}")
    errors = console_errors(dump.stderr)
    if errors:
        failures.append("console errors:\n  " + "\n  ".join(errors))

    dom = Dom()
    dom.feed(dump.stdout)
    text = "".join(dom.text)
    records = expected_records(session)
    messages = [r for r in records if not is_interrupt(r)]
    if dom.articles != len(messages):
        failures.append(f"{dom.articles} messages in the DOM, expected {len(messages)}")
    missing = 0
    checked = 0
    for record in records:
        for t in texts_of(record):
            checked += 1
            if t not in text:
                missing += 1
                failures.append(f"text of {record.get('uuid')} not in the DOM: {t[:80]!r}")
    if dom.scripts:
        failures.append(f"{dom.scripts} <script> elements in the DOM")
    if dom.handlers:
        failures.append(f"event handler attributes in the DOM: {dom.handlers}")
    if any(not src.startswith("data:image/") for src in dom.images):
        failures.append(f"an image not from a data: URI: {dom.images}")

    shots = []
    for name, width, height in (("phone", 390, 844), ("desktop", 1280, 800)):
        shot = os.path.abspath(os.path.join(out_dir, f"render-{name}-{width}.png"))
        if os.path.exists(shot):
            os.remove(shot)
        result = run_chromium(binary, [f"--window-size={width},{height}",
                                       "--hide-scrollbars", "--virtual-time-budget=3000",
                                       f"--screenshot={shot}", url])
        errors = console_errors(result.stderr)
        if errors:
            failures.append(f"console errors ({name}):\n  " + "\n  ".join(errors))
        if not os.path.exists(shot) or os.path.getsize(shot) == 0:
            failures.append(f"no {name} screenshot: {result.stderr[-1000:]}")
        else:
            shots.append(shot)

    print(f"page: {page} ({os.path.getsize(page)} bytes), loaded in {load_seconds:.1f} s")
    print(f"messages in the DOM: {dom.articles} of {len(messages)} expected; "
          f"texts checked: {checked - missing} of {checked} present; "
          f"images: {len(dom.images)}; script elements: {dom.scripts}; "
          f"handler attributes: {len(dom.handlers)}")
    for shot in shots:
        print(f"screenshot: {shot}")
    if failures:
        print("FAILED:\n" + "\n".join(failures))
        return 1
    print("ok: no console errors, every message in the DOM, network off")
    return 0


PROFILE = ""

if __name__ == "__main__":
    sys.exit(main())
