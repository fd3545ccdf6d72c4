// The official SDKs' types accept the request bodies `convo convert` writes: every
// request body of the golden cases (testdata/convert/body-*) and of the corpus
// (DIR/anthropic-api, openai-chat, openai-responses, gemini) is converted to each
// other API's body, and each result is assigned, as an object literal (so unknown
// members are errors too), to the SDK's request type: Anthropic's
// MessageCreateParams, OpenAI's ChatCompletionCreateParams and ResponseCreateParams,
// and for Gemini (whose SDK takes its own shape, not the REST body) a REST body
// typed member by member with @google/genai's Content, Tool, ToolConfig,
// GenerationConfig and SafetySetting. `tsc --noEmit` must pass.
//
//   node sdk_bodies.mjs --convo BINARY --source-dir DIR [--corpus DIR]
//
// Exit 77 (SKIPPED) without the npm packages (scripts/setup.sh installs them).
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
const sourceDir = option("--source-dir");
const corpus = option("--corpus");
const modules = path.join(here, "node_modules");
for (const pkg of ["@anthropic-ai/sdk", "openai", "@google/genai", "typescript"]) {
  if (!existsSync(path.join(modules, pkg))) {
    console.log(`SKIPPED: ${pkg} is not installed (scripts/setup.sh runs npm ci in tests/sdk-streams)`);
    process.exit(77);
  }
}

const FOLDERS = { "anthropic-api": "anthropic", "openai-chat": "openai",
                  "openai-responses": "openai-responses", gemini: "gemini" };
const TARGETS = ["anthropic", "openai", "openai-responses", "gemini"];

function files(dir, test) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...files(full, test));
    else if (test(name)) out.push(full);
  }
  return out;
}

// [file, its API]
const inputs = [];
const goldens = path.join(sourceDir, "testdata", "convert");
for (const dir of readdirSync(goldens).filter((d) => d.startsWith("body-")).sort()) {
  for (const name of readdirSync(path.join(goldens, dir))) {
    const m = name.match(/^(anthropic|openai|openai-responses|gemini)-request\.json$/);
    if (m) inputs.push([path.join(goldens, dir, name), m[1]]);
  }
}
if (corpus) {
  for (const [folder, api] of Object.entries(FOLDERS)) {
    for (const file of files(path.join(corpus, folder), (n) => n.endsWith("request.json"))) {
      inputs.push([file, api]);
    }
  }
}

const seen = new Set();
const bodies = { anthropic: [], openai: [], "openai-responses": [], gemini: [] };
let refused = 0;
for (const [file, api] of inputs) {
  for (const target of TARGETS) {
    if (target === api) continue;
    const run = spawnSync(convo, ["convert", "-q", "--from", api, "--to", target, file], { encoding: "utf8" });
    if (run.status !== 0) {
      refused++;  // not a body convo reads (an error body, a count_tokens request)
      continue;
    }
    for (let line of run.stdout.split("\n")) {
      if (!line.trim()) continue;
      const body = JSON.parse(line);
      if (body.messages === undefined && body.input === undefined && body.contents === undefined) continue;
      // A Gemini request names its model in its URL: convo writes none, and whoever
      // sends the body adds one.
      if (target !== "gemini" && body.model === undefined) line = JSON.stringify({ model: "MODEL", ...body });
      const key = target + line;
      if (seen.has(key)) continue;
      seen.add(key);
      bodies[target].push([file, line]);
    }
  }
}

const HEADER = {
  anthropic: `import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";\ntype Body = MessageCreateParams;`,
  openai: `import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";\ntype Body = ChatCompletionCreateParams;`,
  "openai-responses": `import type { ResponseCreateParams } from "openai/resources/responses/responses";\ntype Body = ResponseCreateParams;`,
  gemini: `import type { Content, GenerationConfig, SafetySetting, Tool, ToolConfig } from "@google/genai";
// The SDK's enums (Type, FunctionCallingConfigMode, ...) as the strings JSON carries.
type Wire<T> = T extends string ? \`\${T}\` : T extends (infer U)[] ? Wire<U>[] :
  T extends object ? { [K in keyof T]: Wire<T[K]> } : T;
// The REST body of models.generateContent (the SDK's GenerateContentParameters puts
// these under \`config\`), member by member in the SDK's types.
type Body = Wire<{ contents: Content[]; systemInstruction?: Content; tools?: Tool[]; toolConfig?: ToolConfig;
  generationConfig?: GenerationConfig; safetySettings?: SafetySetting[]; cachedContent?: string }>;`,
};

const work = mkdtempSync(path.join(os.tmpdir(), "convo-sdk-bodies-"));
const names = [];
for (const target of TARGETS) {
  const lines = [HEADER[target]];
  bodies[target].forEach(([file, json], i) => {
    lines.push(`// ${path.relative(sourceDir, file)}`);
    lines.push(`export const body${i}: Body = ${json};`);
  });
  const name = `${target}.ts`;
  writeFileSync(path.join(work, name), lines.join("\n") + "\n");
  names.push(name);
}
writeFileSync(path.join(work, "tsconfig.json"), JSON.stringify({
  compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext",
                     target: "es2022", skipLibCheck: true, types: [], typeRoots: [modules] },
  files: names,
}));
// The packages resolve from the temporary directory through a link to node_modules.
spawnSync("ln", ["-s", modules, path.join(work, "node_modules")]);
const tsc = path.join(modules, ".bin", "tsc");
const check = spawnSync(tsc, ["-p", path.join(work, "tsconfig.json")], { encoding: "utf8" });
const counts = TARGETS.map((t) => `${bodies[t].length} ${t}`).join(", ");
if (check.status !== 0) {
  console.log(check.stdout + check.stderr);
  console.log(`FAIL: tsc rejects bodies convo wrote (${counts}); the .ts files are in ${work}`);
  process.exit(1);
}
rmSync(work, { recursive: true, force: true });
console.log(`ok: the SDK types accept ${counts} request bodies (${inputs.length} inputs, ${refused} conversions refused)`);
