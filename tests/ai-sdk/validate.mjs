// The AI SDK's own schemas check what convo writes as ai-sdk: every message convo
// converts to ai-sdk from each format's golden input must pass `modelMessageSchema`
// (a ModelMessage) or `validateUIMessages` (a UIMessage), and the UIMessages must go
// through `convertToModelMessages`. UIMessages come from the ai-sdk golden inputs, a
// redacted (re-encoded) UIMessage and an assembled UI message stream. And what
// --ai-sdk-shape ui writes from other formats (checkUiShape, below).
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
  const shaped = await checkUiShape(args, convert);
  failures += shaped.failures;
  console.log(`${model} ModelMessages and ${ui.length} UIMessages checked, ` +
              `${shaped.inputs} inputs written with --ai-sdk-shape ui, ${failures} failed`);
  return failures === 0 ? 0 : 1;
}

// --ai-sdk-shape ui: what convo writes from each input of the golden cases
// *-to-ai-sdk-ui-messages (Claude Code, OpenAI Chat, OpenAI Responses, Gemini) and
// ai-sdk-model-messages-to-ui-shape is one conversation the SDK's
// `validateUIMessages` accepts, and `convertToModelMessages` of it gives the
// ModelMessages that plain `--to ai-sdk` writes from the same input, but for
// spellings (normalised by `comparable`, each said there).
async function checkUiShape(args, convert) {
  const { validateUIMessages, convertToModelMessages } = await import("ai");
  let failures = 0;
  let inputs = 0;
  for (const name of readdirSync(convert).sort()) {
    if (!name.endsWith("-to-ai-sdk-ui-messages") && name !== "ai-sdk-model-messages-to-ui-shape") continue;
    const dir = join(convert, name);
    for (const file of readdirSync(dir).sort()) {
      if (!/\.(jsonl|json)$/.test(file)) continue;
      inputs++;
      const where = `${name}/${file}`;
      const lines = (text) => text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
      const ui = lines(convo(args.convo, ["convert", "-q", "--to", "ai-sdk", "--ai-sdk-shape", "ui", file], dir));
      const model = lines(convo(args.convo, ["convert", "-q", "--to", "ai-sdk", file], dir));
      let converted;
      try {
        converted = await convertToModelMessages(await validateUIMessages({ messages: ui }));
      } catch (error) {
        failures++;
        console.log(`FAIL: ${where}: not UIMessages: ${String(error.message).slice(0, 400)}`);
        continue;
      }
      const want = JSON.stringify(comparable(model), null, 1);
      const got = JSON.stringify(comparable(JSON.parse(JSON.stringify(converted))), null, 1);
      if (want !== got) {
        failures++;
        console.log(`FAIL: ${where}: convertToModelMessages of --ai-sdk-shape ui differs from --to ai-sdk:\n` +
                    `--- --to ai-sdk\n${want}\n--- convertToModelMessages\n${got}`);
      }
    }
  }
  return { failures, inputs };
}

// ModelMessages with the differences of spelling between what convo's ModelMessage
// writer and the SDK's convertToModelMessages write taken out:
// - content: a string is one text part (the SDK makes parts of a UIMessage's);
// - media: an image part (`image`) and a file part (`data`, in this SDK
//   `{type: "url", url}`) are one media part of a URL, base64 data being its data:
//   URL; an image without a media type is image/* (a UI file part must have one);
// - tool results: the tool messages in a row are one (the SDK writes one per step;
//   convo one per result where the source has one per result, as Claude Code does);
// - a tool result's providerOptions that are its call's: the SDK gives a result its
//   call's callProviderMetadata (a Gemini thought signature), convo's writer gives
//   them to the call only.
function comparable(messages) {
  const out = [];
  const callOptions = new Map();
  for (const message of messages) {
    for (const part of Array.isArray(message.content) ? message.content : []) {
      if (part.type === "tool-call" && part.providerOptions) {
        callOptions.set(part.toolCallId, JSON.stringify(part.providerOptions));
      }
    }
  }
  const ownOptions = (part) => {
    if (part.type !== "tool-result" || !part.providerOptions ||
        callOptions.get(part.toolCallId) !== JSON.stringify(part.providerOptions)) return part;
    const { providerOptions, ...rest } = part;
    return rest;
  };
  for (const message of messages) {
    const content = typeof message.content === "string"
      ? (message.role === "system" ? message.content : [{ type: "text", text: message.content }])
      : message.content.map(media).map(ownOptions);
    const last = out[out.length - 1];
    if (message.role === "tool" && last && last.role === "tool") {
      last.content.push(...content);
      continue;
    }
    out.push({ ...message, content });
  }
  return out;
}

function media(part) {
  if (part.type !== "image" && part.type !== "file") return part;
  let url = part.type === "image" ? part.image : part.data;
  if (url && typeof url === "object") url = url.url;
  const mediaType = part.mediaType ?? "image/*";
  if (typeof url === "string" && !/^(https?|data):/.test(url)) url = `data:${mediaType};base64,${url}`;
  const { image, data, type, filename, ...rest } = part;
  return { type: "media", url, mediaType, ...(filename != null ? { filename } : {}), ...rest };
}

main().then((code) => process.exit(code), (error) => {
  console.error(error);
  process.exit(1);
});
