#!/usr/bin/env python3
"""Benchmarks: convo's subcommands against a RapidJSON parse-only loop and jq on the
same ~200 MB synthetic transcripts, run alternately, reported as median ratios.

  bench/bench.py [--runs 5] [--only NAME ...] [--memory] [--big] [--langchain] [--convo build/convo]

The parse-only baseline (bench/parse_only.cc) is built here with the same compiler
flags and allocator settings as convo. Corpora come from ../shared/bench/gen-corpus
(deterministic) and are cached in bench/out/. Timings are wall-clock medians over
--runs rounds; each round runs every benchmark once, in turn, so that a noisy
neighbour slows all of them alike. A row measured against parse-only gets that
ratio for its median CPU time (user + system) too, the steadier figure on a shared
machine. Peak RSS is the largest seen for a benchmark.
--memory also runs the streaming benchmarks on a 1 GB input (the 200 MB one five
times) to show that peak memory does not grow with input size.
--big runs the BIG rows once instead (issue 15): 5 million short lines and a 1 GB
Claude Code log held as one conversation, through the whole-conversation
subcommands, with a streaming one beside them for peak RSS, and a 500 MB line
(bench/long_line.py) through filter, convert and check; each run is limited to
--limit-gb of address space, and a run that reaches it shows as "out of memory".

Add a benchmark by adding a row to BENCHMARKS.
"""
import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
GNU_TIME = "/usr/bin/time"  # Debian package "time"
GEN = Path(os.environ.get("CONVO_GEN_CORPUS", ROOT.parent / "shared" / "bench" / "gen-corpus"))

# Corpora: name -> (gen-corpus format, messages). ~200 MB each.
CORPORA = {
    "cc": ("claude-code", 53000),
    "oa": ("openai", 83000),
    "oa50k": ("openai", 50000),  # ~120 MB, one 50,000-message conversation (trim)
}

# Corpora made by a shell command rather than gen-corpus: name -> command.
SHELL_CORPORA = {
    # 5 million lines of 31-34 bytes (167 MB): per-record overhead, not bytes.
    "short5m": "yes '{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\","
               "\"content\":\"yo\"}' | head -n 5000000",
    # ~200 MB of the ai-sdk corpus's messages (ModelMessages and UIMessages, pulled
    # out of its vitest snapshots), repeated.
    "ai": f"python3 {ROOT}/tests/ai_sdk_snapshots.py --out {OUT}/ai-snap "
          f"{ROOT.parent}/shared/corpus/ai-sdk/vercel__ai/packages/ai/src/ui/__snapshots__/*.snap"
          f" && python3 -c \"import glob, sys; d = ''.join(open(f).read() for f in "
          f"sorted(glob.glob('{OUT}/ai-snap/*.jsonl'))); [sys.stdout.write(d) for _ in "
          f"range(26500)]\"",
}
# Real Codex rollouts (../shared/corpus/codex) repeated to ~200 MB, and their
# response_item payloads as Responses items, one per line (~200 MB).
_CODEX = " ".join(shlex.quote(str(ROOT.parent / "shared" / "corpus" / "codex" / p)) for p in (
    "jerometremblay__codex_log_viewer/codex_sessions/"
    "20260213134203_redacted_current_codex_session_jsonl_export.jsonl",
    "jerometremblay__codex_log_viewer/codex_sessions/"
    "20260219184701_user-actions-should-display-their-cost-which-includes-the-total.jsonl",
    "yoavf__ai-sessions/examples/codex-pomodor-timer.jsonl"))
SHELL_CORPORA["codex"] = f"for i in $(seq 100); do cat {_CODEX}; done"
SHELL_CORPORA["responses"] = (f"for i in $(seq 240); do cat {_CODEX}; done"
                              " | jq -c 'select(.type == \"response_item\") | .payload'")
# Gemini contents (issue 16): the request contents of the corpus, one per line,
# repeated to ~200 MB; a Gemini CLI session of the corpus's messages repeated to
# ~180 MB, one document on one line (as the parse-only loop reads it).
GEMINI_CORPUS = ROOT.parent / "shared" / "corpus"
SHELL_CORPORA["gm"] = (
    f"find {GEMINI_CORPUS}/gemini -name '*.request.json' | sort | xargs cat "
    f"| jq -c '.contents[]' > {ROOT}/bench/out/gm-once.jsonl && "
    f"for i in $(seq 85); do cat {ROOT}/bench/out/gm-once.jsonl; done")
SHELL_CORPORA["gcli"] = (
    f"find {GEMINI_CORPUS}/gemini-cli -name '*.json' | sort | xargs jq -c '.messages[]' "
    f"> {ROOT}/bench/out/gcli-once.jsonl && "
    "{ { printf '{\"sessionId\":\"s\",\"projectHash\":\"p\",\"startTime\":\"\",'; "
    "printf '\"lastUpdated\":\"\",\"messages\":['; "
    f"for i in $(seq 80); do sed '$!s/$/,/' {ROOT}/bench/out/gcli-once.jsonl; "
    "[ $i -lt 80 ] && printf ','; done; printf ']}'; } | tr -d '\\n'; echo; }")
CORPORA["cc1g"] = ("claude-code", 265000)  # ~1 GB
# One record of 500 MB on one line (a Claude Code tool result; bench/long_line.py).
SHELL_CORPORA["line500"] = f"{sys.executable} {ROOT}/bench/long_line.py --mb 500"

# --big (issue 15): whole-conversation subcommands on big inputs, one run each, with
# a streaming subcommand on the same input for its peak RSS. cc1g is held as one
# conversation (--group-by file): gen-corpus starts a session every few hundred lines.
BIG = [
    ("filter human,ai (streaming)", "short5m", "{convo} filter --include-types human,ai {input}"),
    ("check", "short5m", "{convo} check {input} || [ $? -eq 1 ]"),
    ("normalize-for-api", "short5m", "{convo} normalize-for-api {input}"),
    ("trim last, budget 1000", "short5m", "{convo} trim --max-tokens 1000 {input}"),
    ("filter human,ai (streaming)", "cc1g", "{convo} filter --include-types human,ai {input}"),
    ("check --group-by file", "cc1g", "{convo} check --group-by file {input} || [ $? -eq 1 ]"),
    ("normalize-for-api --group-by file", "cc1g",
     "{convo} normalize-for-api --group-by file {input}"),
    ("trim --group-by file, budget 100000", "cc1g",
     "{convo} trim --group-by file --max-tokens 100000 {input}"),
    # Issue 15: a 500 MB line in at most 2x its size.
    ("filter human,ai (streaming)", "line500", "{convo} filter --include-types human,ai {input}"),
    ("convert --to openai", "line500", "{convo} convert --to openai {input}"),
    ("check", "line500", "{convo} check {input} || [ $? -eq 1 ]"),
]

# name, corpus, command ({convo}, {parse_only}, {input} are filled in), baseline.
# A row whose baseline is "parse-only" is reported as a ratio to the parse-only
# time on the same corpus; "jq:" rows are reported as how many times slower jq is
# than the named convo row ("jq:A|B": than each of them, one line each).
BENCHMARKS = [
    ("parse-only", "cc", "{parse_only} {input}", None),
    ("parse-only", "oa", "{parse_only} {input}", None),
    # Issue 20: every decoded string searched for credentials, on top of check; at
    # 1 GB too (--only 'check --secrets' runs both).
    ("check --secrets", "cc", "{convo} check --secrets {input} || [ $? -eq 1 ]", "parse-only"),
    ("convert to own format", "cc", "{convo} convert --to claude-code {input}", "parse-only"),
    ("convert to own format", "oa", "{convo} convert --to openai {input}", "parse-only"),
    ("convert claude-code to openai", "cc", "{convo} convert --to openai {input}", "parse-only"),
    ("normalize-for-api", "cc", "{convo} normalize-for-api {input}", "parse-only"),
    # check exits 1 when it finds problems (the synthetic log ends mid-tool-call).
    ("check", "cc", "{convo} check {input} || [ $? -eq 1 ]", "parse-only"),
    ("filter human,ai", "cc", "{convo} filter --include-types human,ai {input}", "parse-only"),
    ("filter human,ai", "oa", "{convo} filter --include-types human,ai {input}", "parse-only"),
    ("jq select human,ai", "cc",
     "jq -c 'select(.type == \"assistant\" or (.type == \"user\" and (.message.content"
     " | type == \"string\" or any(.[]; .type != \"tool_result\"))))' {input}",
     "jq:filter human,ai|buffer-string"),
    ("jq select human,ai", "oa",
     "jq -c 'select(.role == \"user\" or .role == \"assistant\")' {input}",
     "jq:filter human,ai|buffer-string"),
    ("filter --exclude-tool-calls", "cc", "{convo} filter --exclude-tool-calls {input}",
     "parse-only"),
    ("buffer-string", "cc", "{convo} buffer-string {input}", "parse-only"),
    ("buffer-string", "oa", "{convo} buffer-string {input}", "parse-only"),
    ("jq -r prefix lines", "cc",
     "jq -r 'select(.type == \"user\" or .type == \"assistant\") | .message.content as $c"
     " | (if .type == \"user\" then \"Human\" else \"AI\" end) + \": \" + (if ($c | type)"
     " == \"string\" then $c else ([$c[] | select(.type == \"text\") | .text] | join(\"\"))"
     " end)' {input}",
     "jq:buffer-string"),
    ("jq -r prefix lines", "oa",
     "jq -r '(if .role == \"user\" then \"Human\" elif .role == \"assistant\" then \"AI\""
     " elif .role == \"tool\" then \"Tool\" else \"System\" end) + \": \" + (.content"
     " | if type == \"string\" then . elif type == \"array\" then ([.[] | select(.type =="
     " \"text\") | .text] | join(\"\")) else \"\" end)' {input}",
     "jq:buffer-string"),
    # render streams a 200 MB session to one page; issue 18 bounds it at 3x parse-only.
    ("render html", "cc", "{convo} render {input}", "parse-only"),
    ("render markdown", "cc", "{convo} render --format markdown {input}", "parse-only"),
    ("merge-runs", "cc", "{convo} merge-runs {input}", "parse-only"),
    # Issue 18: reports over every record (usage keeps a small entry per response,
    # sessions one summary per session).
    ("usage by day", "cc", "{convo} usage {input}", "parse-only"),
    ("usage by session", "cc", "{convo} usage --by session --format json {input}", "parse-only"),
    ("sessions", "cc", "{convo} sessions {input}", "parse-only"),
    ("merge-runs", "oa", "{convo} merge-runs {input}", "parse-only"),
    ("convert openai to langchain", "oa", "{convo} convert --to langchain {input}", "parse-only"),
    ("convert openai to synaptic", "oa", "{convo} convert --to synaptic {input}", "parse-only"),
    ("convert openai to agentscope", "oa", "{convo} convert --to agentscope {input}", "parse-only"),
    ("convert openai to opencode", "oa", "{convo} convert --to opencode {input}", "parse-only"),
    ("convert claude-code to opencode", "cc", "{convo} convert --to opencode {input}", "parse-only"),
    ("parse-only", "codex", "{parse_only} {input}", None),
    ("convert to own format", "codex", "{convo} convert --to codex {input}", "parse-only"),
    ("convert codex to openai-responses", "codex",
     "{convo} convert --to openai-responses {input}", "parse-only"),
    ("convert codex to claude-code", "codex", "{convo} convert --to claude-code {input}",
     "parse-only"),
    ("convert codex to anthropic", "codex", "{convo} convert --to anthropic {input}",
     "parse-only"),
    ("convert codex to openai", "codex", "{convo} convert --to openai {input}", "parse-only"),
    ("parse-only", "responses", "{parse_only} {input}", None),
    ("convert to own format", "responses", "{convo} convert --to openai-responses {input}",
     "parse-only"),
    ("convert openai-responses to codex", "responses", "{convo} convert --to codex {input}",
     "parse-only"),
    ("convert openai-responses to anthropic", "responses",
     "{convo} convert --to anthropic {input}", "parse-only"),
    ("convert openai-responses to openai", "responses", "{convo} convert --to openai {input}",
     "parse-only"),
    ("parse-only", "gm", "{parse_only} {input}", None),
    ("convert to own format", "gm", "{convo} convert --to gemini {input}", "parse-only"),
    ("convert gemini to anthropic", "gm", "{convo} convert --to anthropic {input}", "parse-only"),
    ("parse-only", "gcli", "{parse_only} {input}", None),
    ("convert gemini-cli to anthropic", "gcli", "{convo} convert --to anthropic {input}",
     "parse-only"),
    ("parse-only", "ai", "{parse_only} {input}", None),
    ("convert to own format", "ai", "{convo} convert --to ai-sdk {input}", "parse-only"),
    ("convert ai-sdk to anthropic", "ai", "{convo} convert --to anthropic {input}", "parse-only"),
    ("convert openai to ai-sdk", "oa", "{convo} convert --to ai-sdk {input}", "parse-only"),
    # trim holds a whole conversation: oa50k is one of 50,000 messages (27.3M approx
    # tokens; the budget is half of them), cc is Claude Code sessions of a few hundred.
    ("parse-only", "cc1g", "{parse_only} {input}", None),
    ("check --secrets", "cc1g", "{convo} check --secrets {input} || [ $? -eq 1 ]",
     "parse-only"),
    ("parse-only", "oa50k", "{parse_only} {input}", None),
    ("trim last, half the tokens", "oa50k", "{convo} trim --max-tokens 13673322 {input}",
     "parse-only"),
    ("trim first --allow-partial, half", "oa50k",
     "{convo} trim --max-tokens 13673322 --strategy first --allow-partial {input}", "parse-only"),
    ("trim last --include-system --start-on human", "cc",
     "{convo} trim --max-tokens 20000 --include-system --start-on human {input}", "parse-only"),
    # Big inputs (issue 7): compressed input, and one corpus cut into 40 files, -j 1 and 2.
    ("convert own format, gzip input", "cc.gz", "{convo} convert --to claude-code {input}", None),
    ("convert own format, zstd input", "cc.zst", "{convo} convert --to claude-code {input}", None),
    ("convert own format, 40 files -j 1", "cc-dir", "{convo} convert --to claude-code -j 1 {input}", None),
    ("convert own format, 40 files -j 2", "cc-dir", "{convo} convert --to claude-code -j 2 {input}", None),
]

# LangChain.js (through tests/langchain/oracle.mjs, `npm ci` there first) on the same
# input as a convo row, run once with --langchain (it takes about 30 s per 50,000
# messages): (convo row name, corpus, oracle arguments).
LANGCHAIN = [
    ("trim last, half the tokens", "oa50k", "trim --max-tokens 13673322"),
]

# Corpora whose rows run only when --only names them (1 GB: a run takes a while).
ASKED_ONLY = {"cc1g"}

# Streaming benchmarks whose peak memory must not grow with the input (--memory).
STREAMING = ["convert to own format", "filter human,ai", "buffer-string", "merge-runs",
             "usage by day", "sessions"]


def build_parse_only():
    binary = OUT / "parse_only"
    source = ROOT / "bench" / "parse_only.cc"
    if not binary.exists() or binary.stat().st_mtime < source.stat().st_mtime:
        subprocess.run(["g++", "-O3", "-DNDEBUG", "-std=c++20", str(source), "-o", str(binary)],
                       check=True)
    return binary


def derived_corpus(name):
    """cc.gz, cc.zst: the corpus compressed; cc-dir: the corpus cut into 40 files."""
    base = corpus(name.split(".")[0].split("-")[0])
    if name.endswith(".gz") or name.endswith(".zst"):
        path = Path(str(base) + name[name.index("."):])
        if not path.exists():
            print(f"generating {path.name} ...", file=sys.stderr)
            tool = ["gzip", "-6", "-c"] if name.endswith(".gz") else ["zstd", "-3", "-q", "-c"]
            with open(path, "wb") as f:
                subprocess.run(tool + [str(base)], stdout=f, check=True)
        return path
    folder = Path(str(base) + ".d")
    if not folder.exists():
        print(f"generating {folder.name} ...", file=sys.stderr)
        folder.mkdir()
        lines = base.read_bytes().splitlines(keepends=True)
        step = (len(lines) + 39) // 40
        for i in range(40):
            (folder / f"part{i:02}.jsonl").write_bytes(b"".join(lines[i * step:(i + 1) * step]))
    return folder


def corpus(name, copies=1):
    if name in SHELL_CORPORA:
        path = OUT / f"{name}.jsonl"
        if not path.exists():
            print(f"generating {path.name} ...", file=sys.stderr)
            with open(path, "wb") as f:
                subprocess.run(["sh", "-c", SHELL_CORPORA[name]], stdout=f, check=True)
        return path
    if name not in CORPORA:
        return derived_corpus(name)
    fmt, messages = CORPORA[name]
    path = OUT / f"{name}-{messages}.jsonl"
    if not path.exists():
        print(f"generating {path.name} ...", file=sys.stderr)
        with open(path, "wb") as f:
            subprocess.run([sys.executable, str(GEN), "--format", fmt, "--messages", str(messages),
                            "--seed", "1"], stdout=f, check=True)
    if copies == 1:
        return path
    big = OUT / f"{name}-{messages}x{copies}.jsonl"
    if not big.exists():
        print(f"generating {big.name} ...", file=sys.stderr)
        with open(big, "wb") as out:
            for _ in range(copies):
                with open(path, "rb") as f:
                    while chunk := f.read(1 << 24):
                        out.write(chunk)
    return big


def cpu_of_children():
    """User + system seconds of the children this process has waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(command):
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of one run;
    output goes to /dev/null.

    Peak RSS comes from GNU time: Linux carries a process's peak RSS across fork
    and exec, so measuring a child of this (large) Python process would report
    Python's own size. CPU time is the children's, to the microsecond (GNU time's
    %U and %S round to 10 ms, a tenth of a parse-only run of 200 MB on a fast
    machine); it includes the shell's and GNU time's, about a millisecond."""
    start = time.perf_counter()
    cpu_start = cpu_of_children()
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.run([GNU_TIME, "-f", "%M", "sh", "-c", command], stdout=devnull,
                              stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    cpu = cpu_of_children() - cpu_start
    err = proc.stderr.decode(errors="replace").strip().split("\n")
    if proc.returncode != 0:
        sys.exit(f"bench: failed ({proc.returncode}): {command}\n" + "\n".join(err))
    return elapsed, cpu, int(err[-1]) / 1024


def run_big(command, limit_gb):
    """Wall seconds and peak RSS (MB) of one run under an address-space limit, or
    None for the time when the run failed (out of memory: exit 5)."""
    limited = f"ulimit -v {int(limit_gb * 1024 * 1024)}; {command}"
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.run([GNU_TIME, "-f", "%M", "sh", "-c", limited], stdout=devnull,
                              stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    err = proc.stderr.decode(errors="replace").strip().split("\n")
    peak = int(err[-1]) / 1024 if err[-1].isdigit() else 0.0
    if proc.returncode != 0:
        print(f"bench: failed ({proc.returncode}): {command}\n  " + "\n  ".join(err[-3:-1]),
              file=sys.stderr)
        return None, peak
    return elapsed, peak


def measure(rows, runs):
    """Median wall and CPU seconds of each row, and its largest peak RSS."""
    times = {key: [] for key in rows}
    cpus = {key: [] for key in rows}
    rss = {key: 0.0 for key in rows}
    for _ in range(runs):
        for key, command in rows.items():
            elapsed, cpu, peak = run_once(command)
            times[key].append(elapsed)
            cpus[key].append(cpu)
            rss[key] = max(rss[key], peak)
    return ({key: statistics.median(v) for key, v in times.items()},
            {key: statistics.median(v) for key, v in cpus.items()}, rss)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", nargs="*", help="benchmark names to run (plus their baselines)")
    parser.add_argument("--memory", action="store_true", help="also compare peak RSS at 1 GB")
    parser.add_argument("--convo", default=str(ROOT / "build" / "convo"))
    parser.add_argument("--langchain", action="store_true",
                        help="also time LangChain.js once on the LANGCHAIN rows")
    parser.add_argument("--big", action="store_true",
                        help="run only the BIG rows (whole conversations of big inputs), once")
    parser.add_argument("--limit-gb", type=float, default=8.0,
                        help="address-space limit of each --big run (default 8)")
    args = parser.parse_args()
    if not os.path.exists(GNU_TIME):
        sys.exit("bench: needs GNU time (apt-get install time)")
    OUT.mkdir(parents=True, exist_ok=True)
    if args.big:
        print(f"{'benchmark':40} {'corpus':8} {'MB in':>7} {'seconds':>8} {'peak RSS MB':>12} "
              f"{'RSS/input':>9}")
        for name, corpus_name, command in BIG:
            if args.only and name not in args.only:
                continue
            path = corpus(corpus_name)
            size_mb = path.stat().st_size / 1e6
            elapsed, peak = run_big(command.format(convo=shlex.quote(args.convo),
                                                   input=shlex.quote(str(path))), args.limit_gb)
            shown = f"{elapsed:8.1f}" if elapsed is not None else f"{'OOM':>8}"
            note = "" if elapsed is not None else f"  (out of memory under {args.limit_gb:g} GB)"
            print(f"{name:40} {corpus_name:8} {size_mb:7.0f} {shown} {peak:12.0f} "
                  f"{peak / size_mb:8.1f}x{note}", flush=True)
        return
    parse_only = build_parse_only()

    # The 1 GB rows run only when --only names them; a row's baselines (parse-only,
    # or the convo row a jq row is compared with) run on its corpus only.
    chosen = [b for b in BENCHMARKS if b[0] in args.only] if args.only else \
        [b for b in BENCHMARKS if b[1] not in ASKED_ONLY]
    needed = {"parse-only"}
    for b in chosen:
        if b[3] and b[3].startswith("jq:"):
            needed.update(b[3][3:].split("|"))
    corpora = {b[1] for b in chosen}
    chosen = [b for b in BENCHMARKS
              if b in chosen or (b[0] in needed and b[1] in corpora)]
    rows = {}
    for name, corpus_name, command, _ in chosen:
        rows[(name, corpus_name)] = command.format(
            convo=shlex.quote(args.convo), parse_only=shlex.quote(str(parse_only)),
            input=shlex.quote(str(corpus(corpus_name))))
    medians, cpu_medians, rss = measure(rows, args.runs)

    # A parse-only row's ratio is given for wall time and for CPU time (user +
    # system): on a shared machine the wall moves with the load, CPU time less.
    print(f"{'benchmark':44} {'corpus':6} {'median s':>9} {'ratio':>22} {'peak RSS MB':>12} "
          f"{'CPU ratio':>10}")
    for name, corpus_name, _, baseline in chosen:
        key = (name, corpus_name)
        ratio = ""
        cpu_ratio = ""
        if baseline == "parse-only":
            ratio = f"{medians[key] / medians[('parse-only', corpus_name)]:.2f}x parse-only"
            cpu_ratio = f"{cpu_medians[key] / cpu_medians[('parse-only', corpus_name)]:.2f}x"
        elif baseline and baseline.startswith("jq:"):
            others = baseline[3:].split("|")
            for other in others[1:]:
                ours = (other, corpus_name)
                extra = f"jq {medians[key] / medians[ours]:.1f}x slower"
                print(f"{name + ' vs ' + other:44} {corpus_name:6} {medians[key]:9.3f} {extra:>22}")
            ours = (others[0], corpus_name)
            ratio = f"jq {medians[key] / medians[ours]:.1f}x slower"
            name = f"{name} vs {others[0]}"
        print(f"{name:44} {corpus_name:6} {medians[key]:9.3f} {ratio:>22} {rss[key]:12.1f} "
              f"{cpu_ratio:>10}")

    if args.langchain:
        print("\nLangChain.js, one run (node tests/langchain/oracle.mjs, input on stdin):")
        oracle = ROOT / "tests" / "langchain" / "oracle.mjs"
        for name, corpus_name, oracle_args in LANGCHAIN:
            key = (name, corpus_name)
            if key not in medians:
                continue
            command = (f"node --max-old-space-size=8000 {shlex.quote(str(oracle))} {oracle_args} "
                       f"< {shlex.quote(str(corpus(corpus_name)))}")
            elapsed, _, peak = run_once(command)
            print(f"{name:44} {corpus_name:6} {elapsed:9.3f} "
                  f"{f'{elapsed / medians[key]:.0f}x convo':>22} {peak:12.1f}")

    if args.memory:
        print("\npeak RSS at 200 MB and 1 GB (streaming subcommands):")
        for name, corpus_name, command, _ in chosen:
            if name not in STREAMING:
                continue
            small = command.format(convo=shlex.quote(args.convo), parse_only=str(parse_only),
                                   input=shlex.quote(str(corpus(corpus_name))))
            big = command.format(convo=shlex.quote(args.convo), parse_only=str(parse_only),
                                 input=shlex.quote(str(corpus(corpus_name, 5))))
            _, _, rss_small = run_once(small)
            _, _, rss_big = run_once(big)
            print(f"{name:44} {corpus_name:6} {rss_small:8.1f} MB  {rss_big:8.1f} MB")


if __name__ == "__main__":
    main()
