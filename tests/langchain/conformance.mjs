// Runs convo and LangChain.js (through oracle.mjs) on the same conversation and
// compares what they return. One case per line of cases.txt:
//
//   name | input | convo arguments | oracle arguments [| differs: reason]
//
// input is a file in inputs/, `gen:<options>` (see gen.mjs) or `via:<format>:<input>`. Message outputs are
// compared as OpenAI chat messages (role, content, name, tool calls with parsed
// arguments, tool_call_id, id); buffer-string output is compared byte for byte.
// A case marked `differs: reason` is a known LangChain bug convo does not copy: it
// passes when the two disagree, and fails when they agree (drop the note then).
//
//   node conformance.mjs --convo PATH [--case NAME]...    exit 0 pass, 1 fail, 77 skipped
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { generate } from "./gen.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const SKIP = 77;

function parseArgs(argv) {
  const args = { convo: null, cases: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--convo") args.convo = argv[++i];
    else if (argv[i] === "--case") args.cases.push(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!args.convo) throw new Error("--convo PATH is required");
  return args;
}

export function readCases(file = join(here, "cases.txt")) {
  const cases = [];
  for (const raw of readFileSync(file, "utf8").split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const fields = line.split("|").map((f) => f.trim());
    if (fields.length < 4) throw new Error(`cases.txt: too few fields: ${line}`);
    const [name, input, convo, oracle, expect = ""] = fields;
    const differs = expect.startsWith("differs:") ? expect.slice("differs:".length).trim() : null;
    cases.push({ name, input, convo: words(convo), oracle: words(oracle), differs });
  }
  return cases;
}

// Splits arguments on spaces; '...' quotes a value that holds spaces or is empty.
function words(s) {
  const out = [];
  const re = /'([^']*)'|(\S+)/g;
  let m;
  while ((m = re.exec(s)) !== null) out.push(m[1] ?? m[2]);
  return out;
}

// input: a file in inputs/, `gen:<options>`, or `via:<format>:<input>`, which is
// what `convo convert --to <format>` makes of <input> (to test what convo writes).
function inputText(input, convo, scratch) {
  if (input.startsWith("gen:")) return generate(input.slice(4));
  if (input.startsWith("via:")) {
    const [, format, ...rest] = input.split(":");
    const source = join(scratch, `via-source-${format}.jsonl`);
    writeFileSync(source, inputText(rest.join(":"), convo, scratch));
    const made = run(convo, ["convert", "--to", format, source]);
    if (made.code !== 0) throw new Error(`convo convert --to ${format} failed: ${made.stderr}`);
    return made.stdout;
  }
  return readFileSync(join(here, "inputs", input), "utf8");
}

function run(command, args, stdinFile) {
  try {
    const stdout = execFileSync(command, args, {
      input: stdinFile ? readFileSync(stdinFile) : undefined,
      stdio: ["pipe", "pipe", "pipe"],
      maxBuffer: 1 << 28,
    });
    return { code: 0, stdout: stdout.toString("utf8"), stderr: "" };
  } catch (e) {
    return { code: e.status ?? 1, stdout: String(e.stdout ?? ""), stderr: String(e.stderr ?? "") };
  }
}

function normalizeMessage(m) {
  const out = { role: m.role };
  let content = m.content ?? "";
  if (Array.isArray(content)) content = content.map((p) => (typeof p === "string" ? { type: "text", text: p } : p));
  // One text part and its text are the same content to OpenAI; convo writes the
  // string when the source was another format's one-block list.
  if (Array.isArray(content) && content.length === 1 && content[0]?.type === "text" && Object.keys(content[0]).length === 2) {
    content = content[0].text;
  }
  out.content = content;
  if (m.name) out.name = m.name;
  if (m.tool_calls?.length) {
    out.tool_calls = m.tool_calls.map((tc) => {
      const a = tc.function?.arguments;
      return { id: tc.id, name: tc.function?.name, args: a === undefined || a === "" ? {} : JSON.parse(a) };
    });
  }
  if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
  // OpenAI's tool message has no name; LangChain.js writes the tool's name there
  // (a ToolMessage's name), convo does not.
  if (m.role === "tool") delete out.name;
  if (m.id) out.id = m.id;
  return out;
}

function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]));
  }
  return v;
}

function messages(text) {
  return text.split("\n").filter((l) => l.trim()).map((l) => canonical(normalizeMessage(JSON.parse(l))));
}

// The first difference between two outputs, or null when they agree.
function compare(kind, convoOut, oracleOut) {
  if (kind === "text") {
    if (convoOut === oracleOut) return null;
    const a = convoOut.split("\n");
    const b = oracleOut.split("\n");
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (a[i] !== b[i]) return `line ${i + 1}:\n  convo:     ${JSON.stringify(a[i])}\n  langchain: ${JSON.stringify(b[i])}`;
    }
    return "outputs differ";
  }
  const a = messages(convoOut);
  const b = messages(oracleOut);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = JSON.stringify(a[i]);
    const y = JSON.stringify(b[i]);
    if (x !== y) return `message ${i + 1} of ${a.length} (convo) / ${b.length} (langchain):\n  convo:     ${x}\n  langchain: ${y}`;
  }
  return null;
}

function runCase(convo, c, scratch) {
  const input = join(scratch, `${c.name}.jsonl`);
  writeFileSync(input, inputText(c.input, convo, scratch));
  const ours = run(convo, [...c.convo, input]);
  const theirs = run(process.execPath, [join(here, "oracle.mjs"), ...c.oracle], input);
  const where = `  convo ${c.convo.join(" ")} ${c.input}\n  node oracle.mjs ${c.oracle.join(" ")} < ${c.input}`;
  if (ours.code !== 0) return `convo failed (exit ${ours.code}):\n${where}\n${ours.stderr}`;
  if (theirs.code !== 0) {
    // A LangChain bug may be a crash (trimMessages returning [undefined]).
    if (c.differs) {
      console.log(`${c.name}: differs as expected (LangChain failed): ${c.differs}`);
      return null;
    }
    return `LangChain failed (exit ${theirs.code}):\n${where}\n${theirs.stderr}`;
  }
  const kind = c.oracle[0] === "buffer-string" ? "text" : "messages";
  const difference = compare(kind, ours.stdout, theirs.stdout);
  if (c.differs) {
    if (difference === null) return `expected convo to differ from LangChain (${c.differs}), but they agree:\n${where}`;
    console.log(`${c.name}: differs as expected: ${c.differs}`);
    return null;
  }
  return difference === null ? null : `convo and LangChain disagree at ${difference}\n${where}`;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 20) {
    console.log(`SKIPPED: LangChain.js conformance needs node 20+, this is ${process.versions.node}`);
    process.exit(SKIP);
  }
  if (!existsSync(join(here, "node_modules", "@langchain", "core"))) {
    console.log("SKIPPED: LangChain.js is not installed; run `npm ci` in tests/langchain (scripts/test does)");
    process.exit(SKIP);
  }
  const all = readCases();
  const chosen = args.cases.length ? all.filter((c) => args.cases.includes(c.name)) : all;
  if (args.cases.length && chosen.length !== args.cases.length) throw new Error(`unknown case in ${args.cases}`);
  const scratch = mkdtempSync(join(tmpdir(), "convo-langchain-"));
  let failed = 0;
  try {
    for (const c of chosen) {
      const problem = runCase(args.convo, c, scratch);
      if (problem) {
        failed++;
        console.log(`*** ${c.name}: ${problem}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  console.log(`${chosen.length - failed} of ${chosen.length} cases agree with LangChain.js`);
  process.exit(failed ? 1 : 0);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
