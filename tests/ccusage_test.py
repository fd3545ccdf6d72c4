#!/usr/bin/env python3
"""convo usage against ccusage itself, per day and per session.

  ccusage_test.py CONVO SOURCE_DIR corpus CORPUS_DIR   # runs ccusage (pinned, tests/ccusage)
  ccusage_test.py CONVO SOURCE_DIR golden              # the captured testdata/usage/*/ccusage-*.json

corpus: every *.jsonl below CORPUS_DIR (../shared/corpus/claude-code) is linked
into a temporary CLAUDE_CONFIG_DIR as projects/<sessionId>/<n>-<name>.jsonl
(ccusage 18 takes the directory holding a file for its session), and
`ccusage daily|session --offline --json` (TZ=UTC) is compared with `convo usage
--by day|session --format json --timezone UTC` over the same directory, in both
of convo's --split-usage modes. Token counts must be equal and costs within
1e-9 relative, except for the differences tests/ccusage_differences.txt lists
with their reason; a listed difference that no longer occurs fails too, so the
list stays true (but for those whose reason starts "[ccusage's file order]",
which come and go, with any values, with the order ccusage's glob lists files in). Exit 77 (skipped) when ccusage is not installed
(scripts/setup.sh installs it) or the corpus is absent.

golden: for each testdata/usage/CASE with ccusage-daily.json and
ccusage-session.json (captured by scripts/ccusage-recapture from the case's
.claude/), convo's numbers over the case's .claude/projects must equal them
(with --split-usage first; the same no-differences rule).
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# Differences that come and go with the order ccusage's glob lists files in: their
# values may be any, and they need not occur.
TAG = "[ccusage's file order]"
FIELDS = ["inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens"]


def convo_usage(convo, projects, by, split):
    out = subprocess.run([convo, "usage", "--by", by, "--format", "json", "--timezone", "UTC",
                          "--split-usage", split, "-q", "--on-error", "skip", str(projects)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def rows(report, by):
    if by == "day":
        return {r["date"]: r for r in report.get("daily", [])}
    return {r["sessionId"]: r for r in report.get("sessions", [])}


def compare(mode, by, convo, ccusage):
    """Differences as tuples (mode, by, key, field, convo value, ccusage value)."""
    ours, theirs = rows(convo, by), rows(ccusage, by)
    diffs = []
    for key in sorted(set(ours) | set(theirs)):
        a, b = ours.get(key), theirs.get(key)
        if a is None or b is None:
            diffs.append((mode, by, key, "row", "present" if a else "absent",
                          "present" if b else "absent"))
            continue
        for field in FIELDS:
            if a[field] != b[field]:
                diffs.append((mode, by, key, field, str(a[field]), str(b[field])))
        if abs(a["totalCost"] - b["totalCost"]) > 1e-9 * max(1.0, abs(b["totalCost"])):
            if all(a[f] == b[f] for f in FIELDS):
                diffs.append((mode, by, key, "totalCost", repr(a["totalCost"]),
                              repr(b["totalCost"])))
    equal = sum(1 for k in set(ours) & set(theirs)
                if all(ours[k][f] == theirs[k][f] for f in FIELDS))
    print(f"{mode}: {by}: {equal} of {len(set(ours) | set(theirs))} equal")
    return diffs


def read_accepted(path):
    accepted = {}
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        accepted[tuple(fields[:6])] = fields[6] if len(fields) > 6 else ""
    return accepted


def layout(corpus, root):
    projects = root / "projects"
    projects.mkdir(parents=True)
    for n, path in enumerate(sorted(Path(corpus).rglob("*.jsonl"))):
        session = None
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and isinstance(record.get("sessionId"), str):
                    session = record["sessionId"]
                    break
        folder = projects / (session or "no-session-" + path.stem)
        folder.mkdir(exist_ok=True)
        (folder / f"{n:03}-{path.name}").symlink_to(path.resolve())
    return projects


def run_corpus(convo, src, corpus):
    ccusage = Path(src) / "tests/ccusage/node_modules/.bin/ccusage"
    if not ccusage.exists():
        print("SKIPPED: ccusage is not installed (scripts/setup.sh installs it in tests/ccusage)")
        return 77
    if not Path(corpus).is_dir():
        print(f"SKIPPED: no corpus at {corpus}")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "claude"
        projects = layout(corpus, root)
        env = dict(os.environ, CLAUDE_CONFIG_DIR=str(root), TZ="UTC", NO_COLOR="1")
        theirs = {}
        for by, command in (("day", "daily"), ("session", "session")):
            out = subprocess.run([str(ccusage), command, "--offline", "--json"], env=env,
                                 check=True, capture_output=True, text=True).stdout
            theirs[by] = json.loads(out)
        diffs = []
        for split in ("first", "largest"):
            for by in ("day", "session"):
                diffs += compare(split, by, convo_usage(convo, projects, by, split), theirs[by])
    return judge(diffs, Path(src) / "tests/ccusage_differences.txt")


def judge(diffs, accepted_path):
    accepted = read_accepted(accepted_path)
    unstable = {d[:4] for d, reason in accepted.items() if reason.startswith(TAG)}
    status = 0
    for diff in diffs:
        if diff not in accepted and diff[:4] not in unstable:
            print("*** unlisted difference (mode, by, key, field, convo, ccusage):",
                  "\t".join(diff))
            status = 1
    for diff, reason in accepted.items():
        # ccusage's own order of files is not stable: such a line may not occur.
        if diff not in diffs and not reason.startswith(TAG):
            print("*** listed difference no longer occurs:", "\t".join(diff))
            status = 1
    print(f"{len(diffs)} differences, all listed with their reason" if status == 0 else
          f"{len(diffs)} differences; see above")
    return status


def run_golden(convo, src):
    diffs = []
    cases = sorted(p for p in (Path(src) / "testdata/usage").iterdir()
                   if (p / "ccusage-daily.json").exists())
    for case in cases:
        projects = case / ".claude/projects"
        for by, name in (("day", "daily"), ("session", "session")):
            captured = case / f"ccusage-{name}.json"
            if not captured.exists():
                continue
            ours = convo_usage(convo, projects, by, "first")
            diffs += compare(case.name, by, ours, json.loads(captured.read_text()))
    for diff in diffs:
        print("*** differs from captured ccusage:", "\t".join(diff))
    print(f"{len(cases)} cases")
    return 1 if diffs or not cases else 0


def main():
    convo, src, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "corpus":
        return run_corpus(convo, src, sys.argv[4])
    return run_golden(convo, src)


sys.exit(main())
