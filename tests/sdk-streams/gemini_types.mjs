// @google/genai's TypeScript types accept what `convo convert --to gemini` writes:
// every value of the golden cases whose command writes gemini, and of a sample of
// corpus files of other formats converted to gemini, is written into a .ts file as
// an object literal assigned to the SDK's type for its shape, and `tsc --noEmit`
// (strict, so that excess members are errors) must pass:
//
//   {role, parts}              Content
//   {systemInstruction}        { systemInstruction: Content }
//   {contents, ...} (request)  the REST body (contents: Content[], systemInstruction,
//                              tools: Tool[], toolConfig, generationConfig, safetySettings),
//                              and its members put into GenerateContentParameters
//   {candidates, ...}          the REST response (candidates: Candidate[], usageMetadata)
//
// The SDK's enums (FinishReason, Type, ...) are TypeScript string enums, which no
// JSON string literal is assignable to: the types are checked with each enum
// widened to the union of its values (`${E}`), which is what the JSON API takes.
//
//   node gemini_types.mjs --convo BINARY --testdata DIR [--corpus DIR] [--sample N]
//
// Exit 77 (SKIPPED) without typescript and @google/genai (scripts/setup.sh).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const convo = option("--convo");
const testdata = option("--testdata");
const corpus = option("--corpus");
const sample = Number(option("--sample") ?? 20);
const tsc = path.join(here, "node_modules", ".bin", "tsc");
if (!existsSync(tsc) || !existsSync(path.join(here, "node_modules", "@google", "genai"))) {
  console.log("SKIPPED: typescript and @google/genai are not installed (scripts/setup.sh runs npm ci in tests/sdk-streams)");
  process.exit(77);
}

// --- The values convo writes ---

const values = [];  // [where, value]
function take(where, text) {
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      values.push([`${where}:${i + 1}`, JSON.parse(line)]);
    } catch {
      // not JSON (a report): nothing to type
    }
  });
}

// Golden cases whose command writes gemini: their expected output.
function goldens(dir) {
  if (!existsSync(dir)) return;
  for (const sub of readdirSync(dir).sort()) {
    for (const name of readdirSync(path.join(dir, sub)).sort()) {
      const kase = path.join(dir, sub, name);
      const cmd = path.join(kase, "cmd");
      const out = path.join(kase, "out");
      if (!existsSync(cmd) || !existsSync(out)) continue;
      const command = readFileSync(cmd, "utf8");
      if (!/--to[ =]gemini(\s|$)/.test(command) || /\bstream\b/.test(command.split(/\s+/).slice(0, 3).join(" "))) continue;
      take(`${sub}/${name}/out`, readFileSync(out, "utf8"));
    }
  }
}
goldens(testdata);
const fromGoldens = values.length;

// A sample of the corpus of other formats, converted.
function corpusFiles(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...corpusFiles(full));
    else if (/\.(jsonl|json)$/.test(name) && statSync(full).size < 2_000_000) out.push(full);
  }
  return out;
}
let converted = 0;
if (corpus && existsSync(corpus)) {
  for (const format of ["anthropic-api", "openai-chat", "openai-responses", "claude-code", "codex", "ai-sdk", "gemini-cli", "langchain", "opencode"]) {
    const all = corpusFiles(path.join(corpus, format));
    const step = Math.max(1, Math.floor(all.length / sample));
    for (let i = 0; i < all.length && i / step < sample; i += step) {
      const result = spawnSync(convo, ["convert", "--to", "gemini", "--on-error", "skip", all[i]], { encoding: "utf8", maxBuffer: 1 << 28 });
      if (result.status !== 0 || result.stdout.trim() === "") continue;
      converted++;
      take(path.relative(corpus, all[i]), result.stdout);
    }
  }
}

// --- The .ts ---

function shape(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  if ("contents" in value) return "Request";
  if ("candidates" in value) return "Response";
  if ("systemInstruction" in value && Object.keys(value).length === 1) return "System";
  if ("parts" in value) return "G.Content";
  return null;
}

const lines = [
  'import type * as G from "@google/genai";',
  "// Enums widened to their values, as JSON spells them; everything else as the SDK declares it.",
  "type J<T> = T extends string ? `${T}` : T extends (infer U)[] ? J<U>[] : T extends Function ? never : T extends object ? { [K in keyof T]: J<T[K]> } : T;",
  "type Content = J<G.Content>;",
  "type Request = { contents: Content[]; systemInstruction?: Content; tools?: J<G.Tool>[]; toolConfig?: J<G.ToolConfig>;",
  "  generationConfig?: J<G.GenerationConfig>; safetySettings?: J<G.SafetySetting>[]; cachedContent?: string; labels?: Record<string, string> };",
  "type Response = { candidates?: J<G.Candidate>[]; usageMetadata?: J<G.GenerateContentResponseUsageMetadata>; modelVersion?: string;",
  "  responseId?: string; createTime?: string; promptFeedback?: J<G.GenerateContentResponsePromptFeedback> };",
  "type System = { systemInstruction: Content };",
  "function asParameters(r: Request): J<G.GenerateContentParameters> {",
  "  return { model: 'm', contents: r.contents, config: { systemInstruction: r.systemInstruction, tools: r.tools, toolConfig: r.toolConfig,",
  "    safetySettings: r.safetySettings, cachedContent: r.cachedContent, labels: r.labels, ...r.generationConfig } };",
  "}",
  "void asParameters;",
];
const where = [];
let checked = 0;
let skipped = 0;
for (const [from, value] of values) {
  const type = shape(value);
  if (type === null) {
    skipped++;
    continue;
  }
  const name = `v${checked++}`;
  where[lines.length] = from;
  lines.push(`const ${name}: ${type === "G.Content" ? "Content" : type} = ${JSON.stringify(value)};`);
  if (type === "Request") lines.push(`void asParameters(${name});`);
  else lines.push(`void ${name};`);
}

const dir = mkdtempSync(path.join(os.tmpdir(), "convo-gemini-types-"));
writeFileSync(path.join(dir, "check.ts"), lines.join("\n") + "\n");
writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({
  compilerOptions: {
    strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext",
    skipLibCheck: true, types: [], typeRoots: [path.join(here, "node_modules", "@types")],
    paths: { "@google/genai": [path.join(here, "node_modules", "@google", "genai", "dist", "genai.d.ts")] },
  },
  files: ["check.ts"],
}));
const result = spawnSync(tsc, ["-p", path.join(dir, "tsconfig.json")], { encoding: "utf8", maxBuffer: 1 << 28 });
const errors = (result.stdout + result.stderr).split("\n").filter((l) => /error TS/.test(l));
for (const e of errors.slice(0, 20)) {
  const m = /check\.ts\((\d+),/.exec(e) ?? /check\.ts:(\d+):/.exec(e);
  const line = m ? Number(m[1]) - 1 : -1;
  console.log(`*** ${where[line] ?? "?"}: ${e.slice(0, 600)}`);
}
if (result.status !== 0 && errors.length === 0) console.log(`*** tsc: exit ${result.status}\n${(result.stdout + result.stderr).slice(0, 2000)}`);
console.log(`@google/genai types: ${checked - new Set(errors.map((e) => e.split("(")[0] + e.split("(")[1]?.split(",")[0])).size} of ${checked} values accepted ` +
            `(${values.length} written: ${fromGoldens} by golden cases, ${values.length - fromGoldens} by ${converted} corpus files converted; ` +
            `${skipped} records of no Gemini shape)`);
if (result.status === 0) rmSync(dir, { recursive: true, force: true });
process.exit(result.status === 0 && checked > 0 ? 0 : 1);
