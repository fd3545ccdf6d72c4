// The openai SDK's TypeScript types accept what convo writes: every item `convo
// convert --to openai-responses` writes must be a `ResponseInputItem`, and every
// message `--to openai` writes a `ChatCompletionMessageParam` (the items and
// messages of request bodies too; a response body's output items are input items
// as well). Each is a fresh object literal assigned to the type in a generated
// .ts file, which `tsc --noEmit --strict` (the pinned typescript) must accept:
// excess members are errors there, as they are in an SDK user's code.
//
// What is written: the `out` of every golden case converting to either format,
// and convo's conversion to each of every golden input under testdata/convert and
// of a sample of the corpus (the first files of each format directory).
//
//   node sdk_types.mjs --convo BINARY --source-dir DIR [--corpus DIR]
//
// The types are the SDK's input params (what a client sends), not its output types
// (what the API returns, with ids and status the API assigns): convo's items are
// history to send back, as Codex CLI sends its own, without ids or status.
// A rejection whose message sdk_types_differences.txt lists (with its reason) is
// counted, not failed. Exit 0 pass, 1 fail, 77 (SKIPPED) without the npm packages.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const convo = path.resolve(option("--convo") ?? "convo");
const source = option("--source-dir");
const corpus = option("--corpus");
const tsc = path.join(here, "node_modules", ".bin", "tsc");
if (!existsSync(path.join(here, "node_modules", "openai")) || !existsSync(tsc)) {
  console.log("SKIPPED: the openai SDK or typescript is not installed (scripts/setup.sh runs npm ci in tests/sdk-streams)");
  process.exit(77);
}

// --- What convo writes ---

const written = { "openai-responses": [], openai: [] };  // [where, JSON text of a line]

function addLines(format, where, text) {
  text.split("\n").forEach((line, i) => {
    if (line.trim() !== "") written[format].push([`${where}:${i + 1}`, line]);
  });
}

function convert(format, dir, file) {
  const result = spawnSync(convo, ["convert", "-q", "--to", format, file], { cwd: dir, encoding: "utf8", maxBuffer: 1 << 28 });
  return result.status === 0 ? result.stdout : "";
}

const convertCases = path.join(source, "testdata", "convert");
for (const name of readdirSync(convertCases).sort()) {
  const dir = path.join(convertCases, name);
  // A case of one command line (comments aside): its `out` is that command's.
  const lines = existsSync(path.join(dir, "cmd"))
    ? readFileSync(path.join(dir, "cmd"), "utf8").split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"))
    : [];
  const cmd = lines.length === 1 ? lines[0] : "";
  const exit = existsSync(path.join(dir, "exit")) ? readFileSync(path.join(dir, "exit"), "utf8").trim() : "0";
  for (const format of Object.keys(written)) {
    // The golden outputs of `convo convert --to FORMAT` (no pipe, no other output file).
    if (exit === "0" && new RegExp(`^convo convert .*--to ${format}( |$)`).test(cmd) && !/[|>&]| -o /.test(cmd)) {
      addLines(format, `testdata/convert/${name}/out`, readFileSync(path.join(dir, "out"), "utf8"));
    }
  }
  for (const file of readdirSync(dir).sort()) {
    if (!/\.(jsonl|json)$/.test(file)) continue;
    for (const format of Object.keys(written)) {
      addLines(format, `convert --to ${format} testdata/convert/${name}/${file}`, convert(format, dir, file));
    }
  }
}

// A sample of the corpus: the first files (sorted) of each format's directory.
const perFormat = Number(option("--corpus-sample") ?? 25);
function transcripts(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) transcripts(full, out);
    else if (/\.(jsonl|json)$/.test(name) && statSync(full).size < 2_000_000) out.push(full);
  }
  return out;
}
if (corpus && existsSync(corpus)) {
  for (const name of readdirSync(corpus).sort()) {
    const dir = path.join(corpus, name);
    if (!statSync(dir).isDirectory()) continue;
    for (const file of transcripts(dir).slice(0, perFormat)) {
      for (const format of Object.keys(written)) {
        addLines(format, `convert --to ${format} ${path.relative(corpus, file)}`, convert(format, path.dirname(file), file));
      }
    }
  }
}

// --- The values to check, by the type they must have ---

const values = [];  // [type, where, value]
// An API error body, `{"error": {...}}` (convert writes one for an error body read
// with --from): its `error` is the SDK's ErrorObject, as both OpenAI APIs send it.
const isErrorBody = (doc) =>
  doc && typeof doc === "object" && !Array.isArray(doc) && Object.keys(doc).length === 1 &&
  doc.error && typeof doc.error === "object";
for (const [where, line] of written["openai-responses"]) {
  let doc;
  try {
    doc = JSON.parse(line);
  } catch {
    continue;  // not JSON: the convert test's concern
  }
  if (isErrorBody(doc)) {
    values.push(["ErrorObject", `${where} error`, doc.error]);
  } else if (doc?.object === "response" && Array.isArray(doc.output)) {
    doc.output.forEach((item, i) => values.push(["ResponseInputItem", `${where} output[${i}]`, item]));
  } else if (Array.isArray(doc?.input)) {
    doc.input.forEach((item, i) => values.push(["ResponseInputItem", `${where} input[${i}]`, item]));
  } else if (doc && typeof doc === "object" && !("input" in doc)) {
    values.push(["ResponseInputItem", where, doc]);
  }
}
for (const [where, line] of written.openai) {
  let doc;
  try {
    doc = JSON.parse(line);
  } catch {
    continue;
  }
  if (isErrorBody(doc)) {
    values.push(["ErrorObject", `${where} error`, doc.error]);
  } else if (Array.isArray(doc?.messages)) {
    doc.messages.forEach((m, i) => values.push(["ChatCompletionMessageParam", `${where} messages[${i}]`, m]));
  } else if (doc?.object === "chat.completion") {
    continue;  // a response body: its messages are no params
  } else if (doc && typeof doc === "object") {
    values.push(["ChatCompletionMessageParam", where, doc]);
  }
}

// --- tsc ---

const work = mkdtempSync(path.join(tmpdir(), "convo-sdk-types-"));
let source_ts = `import type { ResponseInputItem } from "openai/resources/responses/responses";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ErrorObject } from "openai/resources/shared";
`;
values.forEach(([type, , value], i) => {
  source_ts += `export const v${i}: ${type} = ${JSON.stringify(value)};\n`;
});
writeFileSync(path.join(work, "written.ts"), source_ts);
writeFileSync(path.join(work, "tsconfig.json"), JSON.stringify({
  compilerOptions: {
    strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext",
    skipLibCheck: true, types: [], typeRoots: [path.join(here, "node_modules", "@types")],
    paths: { "openai/*": [path.join(here, "node_modules", "openai", "*")] },
  },
  files: ["written.ts"],
}));
const result = spawnSync(tsc, ["-p", path.join(work, "tsconfig.json")], { cwd: here, encoding: "utf8", maxBuffer: 1 << 28 });
const lines = (result.stdout + result.stderr).split("\n").filter((l) => l.trim() !== "");
const bad = new Map();  // value index -> first message
for (const l of lines) {
  const m = /written\.ts\((\d+),\d+\): (.*)/.exec(l);
  if (m) {
    const index = Number(m[1]) - 4;  // after the three import lines
    if (!bad.has(index)) bad.set(index, m[2]);
  }
}
// The rejections known and explained (sdk_types_differences.txt), by tsc's message.
const known = new Map(readFileSync(path.join(here, "sdk_types_differences.txt"), "utf8").split("\n")
  .filter((l) => l.trim() !== "" && !l.startsWith("#"))
  .map((l) => [l.slice(0, l.indexOf("  ")), 0]));
let unknown = 0;
for (const [index, full] of bad) {
  const message = full.replace(/^error TS\d+: /, "");
  const [type, where, value] = values[index] ?? ["?", "?", null];
  if (known.has(message)) {
    known.set(message, known.get(message) + 1);
    continue;
  }
  unknown++;
  console.log(`*** ${where}: not a ${type}: ${full}\n  ${JSON.stringify(value).slice(0, 400)}`);
}
if (result.status !== 0 && bad.size === 0) {
  unknown++;
  console.log(`*** tsc failed: ${lines.slice(0, 10).join("\n")}`);
}
rmSync(work, { recursive: true, force: true });
const count = (type) => values.filter(([t]) => t === type).length;
const fails = (type) => [...bad.keys()].filter((i) => values[i]?.[0] === type).length;
for (const type of ["ResponseInputItem", "ChatCompletionMessageParam", "ErrorObject"]) {
  console.log(`${type}: ${count(type) - fails(type)} of ${count(type)} written values accepted by the openai SDK's types`);
}
for (const [message, n] of known) {
  if (n > 0) console.log(`  rejected, known (sdk_types_differences.txt): ${n} x ${message}`);
}
process.exit(unknown === 0 && values.length > 0 ? 0 : 1);
