// Compares convo's approx token counter with the oracle's port of LangChain Python's
// count_tokens_approximately, message by message, on every file in inputs/ and on
// generated conversations (with tool calls, names, text parts, empty contents,
// non-ASCII text), at two --chars-per-token.
//
//   node count_tokens.mjs --counts PATH/convo_token_counts     exit 0 pass, 1 fail, 77 skipped
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { generate } from "./gen.mjs";

const here = dirname(fileURLToPath(import.meta.url));

const GENERATED = [
  "seed=1,messages=200",
  "seed=2,messages=300,parts=1,empty=1",
  "seed=3,messages=300,names=1,system=0",
  "seed=4,messages=500,parts=1,multiline=1",
];
// Inputs whose Python repr the oracle's JavaScript port cannot know: buffer.jsonl holds
// 2.5E+3 (a float to Python, 2500 to JSON.parse) and an integer beyond 2^53 (exact to
// Python, rounded by JSON.parse). tests/python_repr_test.cc checks those cases
// against CPython's own repr instead.
const ORACLE_MISREADS = new Set(["buffer.jsonl"]);
// The files in inputs/ at the default only; generated ones at a fraction too.
const CHARS_PER_TOKEN = ["4", "3.3"];

function main() {
  const at = process.argv.indexOf("--counts");
  if (at < 0) throw new Error("--counts PATH is required");
  const counts = process.argv[at + 1];
  if (!existsSync(join(here, "node_modules", "@langchain", "core"))) {
    console.log("SKIPPED: LangChain.js is not installed; run `npm ci` in tests/langchain");
    process.exit(77);
  }
  const inputs = readdirSync(join(here, "inputs"))
    .filter((f) => f.endsWith(".jsonl") && !ORACLE_MISREADS.has(f))
    .map((f) => [f, readFileSync(join(here, "inputs", f), "utf8"), ["4"]]);
  for (const spec of GENERATED) inputs.push([`gen:${spec}`, generate(spec), CHARS_PER_TOKEN]);
  const scratch = mkdtempSync(join(tmpdir(), "convo-counts-"));
  let failed = 0;
  let compared = 0;
  try {
    for (const [name, text, charsPerToken] of inputs) {
      const file = join(scratch, "in.jsonl");
      writeFileSync(file, text);
      for (const cpt of charsPerToken) {
        const ours = execFileSync(counts, ["--chars-per-token", cpt, file]).toString().split("\n");
        const theirs = execFileSync(process.execPath,
          [join(here, "oracle.mjs"), "count-tokens", "--per-message", "--chars-per-token", cpt],
          { input: text }).toString().split("\n");
        compared += theirs.length - 1;
        const i = ours.findIndex((n, k) => n !== theirs[k]);
        if (i >= 0 || ours.length !== theirs.length) {
          failed++;
          console.log(`*** ${name} --chars-per-token ${cpt}: message ${i + 1}: convo ${ours[i]}, ` +
                      `LangChain ${theirs[i]}`);
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  console.log(`${compared} message counts compared, ${failed} runs disagree`);
  process.exit(failed ? 1 : 0);
}

main();
