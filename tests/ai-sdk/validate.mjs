// The AI SDK's own schemas check what convo writes as ai-sdk: every message convo
// converts to ai-sdk from each format's golden input must pass `modelMessageSchema`
// (a ModelMessage) or `validateUIMessages` (a UIMessage), and the UIMessages must go
// through `convertToModelMessages`. UIMessages come from the ai-sdk golden inputs, a
// redacted (re-encoded) UIMessage and an assembled UI message stream.
//
//   node validate.mjs --convo PATH --source-dir DIR     exit 0 pass, 1 fail, 77 skipped
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const SKIP = 77;

function parseArgs(argv) {
  const args = { convo: null, sourceDir: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--convo") args.convo = argv[++i];
    else if (argv[i] === "--source-dir") args.sourceDir = argv[++i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!args.convo || !args.sourceDir) throw new Error("--convo and --source-dir are required");
  return args;
}

function convo(binary, args, cwd) {
  return execFileSync(binary, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(join(here, "node_modules", "ai"))) {
    console.log("SKIPPED: the AI SDK is not installed (scripts/setup.sh installs it in tests/ai-sdk)");
    return SKIP;
  }
  const { modelMessageSchema, validateUIMessages, convertToModelMessages } = await import("ai");
  const convert = join(args.sourceDir, "testdata", "convert");
  const written = [];  // [where, line]
  for (const name of readdirSync(convert).sort()) {
    const dir = join(convert, name);
    if (!name.endsWith("-to-ai-sdk") && !name.startsWith("ai-sdk-")) continue;
    // Version 4 UIMessages are passed through as they were read: today's SDK
    // rejects them, rightly.
    if (name.includes("-v4-")) continue;
    for (const file of readdirSync(dir).sort()) {
      if (!/\.(jsonl|json)$/.test(file)) continue;
      const out = convo(args.convo, ["convert", "-q", "--to", "ai-sdk", file], dir);
      if (out.trimStart().startsWith("[")) {
        // A JSON array of messages, written back whole.
        JSON.parse(out).forEach((m, i) => written.push([`${name}/${file} -> [${i}]`, JSON.stringify(m)]));
        continue;
      }
      out.split("\n").filter(Boolean).forEach((line, i) => written.push([`${name}/${file} -> line ${i + 1}`, line]));
    }
  }
  const redact = join(args.sourceDir, "testdata", "redact", "ai-sdk-ui-message-stays-one-message");
  convo(args.convo, ["redact", "-q", "chat.jsonl"], redact).split("\n").filter(Boolean)
    .forEach((line, i) => written.push([`redact of ${redact} line ${i + 1}`, line]));
  const stream = join(args.sourceDir, "testdata", "assemble", "ai-sdk-ui-message-stream");
  convo(args.convo, ["assemble", "stream.sse"], stream).split("\n").filter(Boolean)
    .forEach((line, i) => written.push([`assemble of ${stream} line ${i + 1}`, line]));

  let failures = 0;
  let model = 0;
  const ui = [];
  for (const [where, line] of written) {
    const message = JSON.parse(line);
    if (Array.isArray(message.parts)) {
      ui.push([where, message]);
      continue;
    }
    model++;
    const result = modelMessageSchema.safeParse(message);
    if (!result.success) {
      failures++;
      console.log(`FAIL: ${where}: not a ModelMessage: ${JSON.stringify(result.error.issues).slice(0, 400)}\n  ${line}`);
    }
  }
  for (const [where, message] of ui) {
    try {
      await validateUIMessages({ messages: [message] });
      await convertToModelMessages([message]);
    } catch (error) {
      failures++;
      console.log(`FAIL: ${where}: not a UIMessage: ${String(error.message).slice(0, 400)}\n  ${JSON.stringify(message)}`);
    }
  }
  console.log(`${model} ModelMessages and ${ui.length} UIMessages checked, ${failures} failed`);
  return failures === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (error) => {
  console.error(error);
  process.exit(1);
});
