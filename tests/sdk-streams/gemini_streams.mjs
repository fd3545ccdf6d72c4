// @google/genai reads the Gemini streams convo writes: each Gemini response body
// is written as a stream by `convo stream --to gemini`, served from a loopback HTTP
// server, and read by the SDK's `models.generateContentStream`; the chunks it
// yields, merged, must equal the body convo started from. The SDK itself merges
// nothing (it yields chunks; a Chat keeps each chunk's Content in its history; the
// usageMetadata of a chunk is the running total, so the last stands), so the test
// merges as convo's assemble does (lib/formats/gemini_stream.h): text parts with the
// same `thought` flag concatenate until one is signed, empty text adds nothing,
// other parts come whole. Then across protocols: Anthropic bodies streamed by
// convo, translated live to Gemini by a second `convo stream --to gemini`, read by
// the Gemini SDK; and Gemini bodies translated to Anthropic, read by the Anthropic
// SDK; and Gemini streams saved as a JSON array (REST without alt=sse), translated
// by convo back to SSE for the Gemini SDK. Last, an error event and a cut-off
// stream make the Gemini SDK raise.
//
//   node gemini_streams.mjs --convo BINARY [--corpus DIR]
//
// Bodies: bodies/*.json here, and every *response.json under DIR/gemini and
// DIR/anthropic-api. Parts convo does not stream from a body (code execution,
// media) and finish reasons other than STOP, MAX_TOKENS and SAFETY are counted as
// losses and left out of the comparison. Exit 77 (SKIPPED) without the packages.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const convo = option("--convo");
const corpus = option("--corpus");
if (!existsSync(path.join(here, "node_modules", "@google", "genai")) ||
    !existsSync(path.join(here, "node_modules", "@anthropic-ai", "sdk"))) {
  console.log("SKIPPED: @google/genai is not installed (scripts/setup.sh runs npm ci in tests/sdk-streams)");
  process.exit(77);
}
const { GoogleGenAI } = await import("@google/genai");
const { default: Anthropic } = await import("@anthropic-ai/sdk");

function files(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...files(full));
    else if (name.endsWith("response.json") || (dir.endsWith("bodies") && name.endsWith(".json"))) out.push(full);
  }
  return out;
}

const bodies = files(path.join(here, "bodies"));
if (corpus) bodies.push(...files(path.join(corpus, "gemini")), ...files(path.join(corpus, "anthropic-api")));

// --- Views ---

const streamedFinish = new Set(["STOP", "MAX_TOKENS", "SAFETY"]);
const isText = (p) => typeof p?.text === "string" &&
  Object.keys(p).every((k) => k === "text" || k === "thought" || k === "thoughtSignature");

// The parts compared: text, thoughts and calls. Others (code execution, server
// tool calls, media) are counted as losses: convo's message path drops them,
// while a compact one-line body, read as a stream of one chunk, passes them.
const compared = (p) => isText(p) || (p?.functionCall !== undefined && p.functionCall !== null);

// Parts merged as convo's assemble merges chunks.
function mergeParts(parts, into = []) {
  for (const p of parts) {
    const last = into[into.length - 1];
    if (isText(p)) {
      if (last && isText(last) && !last.thoughtSignature && Boolean(last.thought) === Boolean(p.thought)) {
        last.text += p.text;
        if (p.thoughtSignature) last.thoughtSignature = p.thoughtSignature;
        continue;
      }
      if (p.text === "" && !p.thoughtSignature) continue;
      into.push({ ...p });
    } else {
      into.push(structuredClone(p));
    }
  }
  return into;
}

// A part as comparable: ids convo made up are no ids.
function partView(p) {
  if (isText(p)) {
    const out = { text: p.text };
    if (p.thought) out.thought = true;
    if (p.thoughtSignature) out.thoughtSignature = p.thoughtSignature;
    return out;
  }
  const c = p.functionCall;
  const call = { name: c.name, args: c.args ?? {} };
  if (c.id && !c.id.startsWith("gemini-call-")) call.id = c.id;
  const out = { functionCall: call };
  if (p.thoughtSignature) out.thoughtSignature = p.thoughtSignature;
  return out;
}

function usageView(u = {}) {
  return {
    promptTokenCount: u.promptTokenCount ?? 0, candidatesTokenCount: u.candidatesTokenCount ?? 0,
    thoughtsTokenCount: u.thoughtsTokenCount ?? 0, cachedContentTokenCount: u.cachedContentTokenCount ?? 0,
  };
}

// A Gemini response body as the SDK should end with it.
function geminiView(body, losses) {
  const candidate = body.candidates[0];
  const parts = [];
  for (const p of candidate.content?.parts ?? []) {
    if (compared(p)) parts.push(p);
    else losses.push(`${Object.keys(p).find((k) => k !== "thoughtSignature")} parts`);
  }
  let finishReason = candidate.finishReason ?? null;
  if (finishReason !== null && !streamedFinish.has(finishReason)) {
    losses.push(`finishReason ${finishReason}`);
    finishReason = "STOP";
  }
  return {
    responseId: body.responseId ?? null, modelVersion: body.modelVersion ?? null,
    parts: mergeParts(parts).map(partView), finishReason, usage: usageView(body.usageMetadata),
  };
}

// An Anthropic message as the Gemini SDK should see it after translation.
function anthropicAsGemini(message, losses) {
  const parts = [];
  for (const b of message.content) {
    if (b.type === "text") parts.push({ text: b.text });
    else if (b.type === "thinking") parts.push({ text: b.thinking, thought: true, ...(b.signature ? { thoughtSignature: b.signature } : {}) });
    else if (b.type === "tool_use") parts.push({ functionCall: { id: b.id, name: b.name, args: b.input } });
    else losses.push(`${b.type} blocks`);
  }
  const u = message.usage ?? {};
  const finish = { max_tokens: "MAX_TOKENS", refusal: "SAFETY" }[message.stop_reason] ?? "STOP";
  return {
    responseId: message.id, modelVersion: message.model, parts: mergeParts(parts).map(partView), finishReason: finish,
    usage: usageView({
      promptTokenCount: (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
      candidatesTokenCount: u.output_tokens ?? 0, cachedContentTokenCount: u.cache_read_input_tokens ?? undefined,
    }),
  };
}

// A Gemini body as the Anthropic SDK should see it after translation.
function geminiAsAnthropic(body, losses) {
  const view = geminiView(body, losses);
  const content = [];
  for (const p of view.parts) {
    if (p.functionCall) {
      if (p.thoughtSignature) losses.push("thought signatures of text and tool calls");
      content.push({ type: "tool_use", name: p.functionCall.name, input: p.functionCall.args, id: p.functionCall.id ?? "" });
    } else if (p.thought) {
      content.push({ type: "thinking", thinking: p.text, signature: p.thoughtSignature ?? "" });
    } else {
      if (p.thoughtSignature) losses.push("thought signatures of text and tool calls");
      content.push({ type: "text", text: p.text });
    }
  }
  const u = view.usage;
  const calls = content.some((b) => b.type === "tool_use");
  return {
    id: view.responseId ?? "", model: view.modelVersion ?? "", content: joinText(content),
    stop_reason: { STOP: calls ? "tool_use" : "end_turn", MAX_TOKENS: "max_tokens", SAFETY: "refusal" }[view.finishReason] ?? null,
    usage: {
      input_tokens: u.promptTokenCount - u.cachedContentTokenCount, output_tokens: u.candidatesTokenCount,
      cache_read_input_tokens: u.cachedContentTokenCount,
    },
  };
}

// Adjacent text blocks joined: a Gemini part Anthropic cannot hold (code
// execution, counted) splits the text around it into blocks.
function joinText(content) {
  const out = [];
  for (const b of content) {
    const last = out[out.length - 1];
    if (b.type === "text" && last?.type === "text") last.text += b.text;
    else out.push(b);
  }
  return out;
}

function anthropicSdkView(message) {
  const u = message.usage ?? {};
  return {
    id: message.id, model: message.model,
    content: joinText(message.content.map((b) => b.type === "tool_use" ? { type: b.type, name: b.name, input: b.input, id: b.id }
      : b.type === "thinking" ? { type: b.type, thinking: b.thinking, signature: b.signature ?? "" } : { type: b.type, text: b.text })),
    stop_reason: message.stop_reason ?? null,
    usage: { input_tokens: u.input_tokens ?? 0, output_tokens: u.output_tokens ?? 0, cache_read_input_tokens: u.cache_read_input_tokens ?? 0 },
  };
}

// --- The loopback server and the SDKs ---

let serving = "";
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.end(serving);
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;
const gemini = new GoogleGenAI({ apiKey: "x", httpOptions: { baseUrl: base } });
const anthropic = new Anthropic({ apiKey: "test", baseURL: base, maxRetries: 0, timeout: 20000 });

// What the Gemini SDK yields, merged.
async function geminiReads(sse) {
  serving = sse;
  const stream = await gemini.models.generateContentStream({ model: "gemini-test", contents: "hi" });
  const parts = [];
  let last = {};
  let finishReason = null;
  let usage;
  for await (const chunk of stream) {
    const candidate = chunk.candidates?.[0];
    mergeParts((candidate?.content?.parts ?? []).filter(compared), parts);
    if (candidate?.finishReason !== undefined) finishReason = candidate.finishReason;
    if (chunk.usageMetadata) usage = chunk.usageMetadata;
    last = chunk;
  }
  return {
    responseId: last.responseId ?? null, modelVersion: last.modelVersion ?? null,
    parts: parts.map(partView), finishReason, usage: usageView(usage),
  };
}

async function anthropicReads(sse) {
  serving = sse;
  const stream = anthropic.messages.stream({ model: "m", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
  return anthropicSdkView(await stream.finalMessage());
}

function run(command, file) {
  const result = spawnSync("sh", ["-c", command, "sh", file], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (result.status !== 0) throw new Error(`${command} ${file}: exit ${result.status}: ${result.stderr}`);
  return result.stdout;
}

// --- The comparisons ---

const q = JSON.stringify(convo);
const tally = {};
let failures = 0;
async function check(name, file, expected, losses, read, command) {
  const t = (tally[name] ??= { agree: 0, lossy: 0, differ: 0 });
  let got;
  try {
    got = await read(run(command, file));
  } catch (error) {
    got = { error: String(error.message ?? error).slice(0, 400) };
  }
  // A call that came without an id is given one by convo (as `convert` does).
  (expected.content ?? []).forEach((block, i) => {
    const given = got?.content?.[i];
    if (block.type === "tool_use" && block.id === "" && given?.id) block.id = given.id;
  });
  if (isDeepStrictEqual(got, expected)) {
    if (losses.length > 0) t.lossy++;
    else t.agree++;
    return;
  }
  t.differ++;
  failures++;
  console.log(`*** ${name}: ${file}\n  expected ${JSON.stringify(expected).slice(0, 1500)}\n  SDK gave  ${JSON.stringify(got).slice(0, 1500)}`);
}

// SSE `data:` lines to the JSON array streamGenerateContent returns without
// alt=sse: `[{...}\n,\r\n{...}]`.
const asArray = String.raw`awk 'BEGIN { printf "[" } /^data: / { if (n++) printf "\n,\r\n"; printf "%s", substr($0, 7) } END { print "]" }'`;
for (const file of bodies) {
  let body;
  try {
    body = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    continue;
  }
  if (Array.isArray(body?.candidates) && body.candidates.length === 1 && body.candidates[0]?.content) {
    const losses = [];
    await check("gemini body -> gemini stream -> @google/genai", file, geminiView(body, losses), losses, geminiReads,
                `${q} stream --to gemini --chunk-size 7 "$1" 2>/dev/null`);
    const crossLosses = [];
    await check("gemini body -> gemini stream -> convo -> anthropic stream -> Anthropic SDK", file,
                geminiAsAnthropic(body, crossLosses), crossLosses, anthropicReads,
                `${q} stream --to gemini --chunk-size 5 "$1" 2>/dev/null | ${q} stream --to anthropic 2>/dev/null`);
    // The same chunks as REST sends them without alt=sse: one JSON array.
    const arrayLosses = [];
    await check("gemini body -> gemini stream as a JSON array -> convo -> gemini stream -> @google/genai", file,
                geminiView(body, arrayLosses), arrayLosses, geminiReads,
                `${q} stream --to gemini --chunk-size 7 "$1" 2>/dev/null | ${asArray} | ${q} stream --to gemini 2>/dev/null`);
  } else if (body?.type === "message" && Array.isArray(body.content)) {
    const losses = [];
    await check("anthropic body -> anthropic stream -> convo -> gemini stream -> @google/genai", file,
                anthropicAsGemini(body, losses), losses, geminiReads,
                `${q} stream --to anthropic --chunk-size 5 "$1" 2>/dev/null | ${q} stream --to gemini 2>/dev/null`);
  }
}

// Error and cut-off streams: the SDK must raise the error convo's error event
// carries, not end with a response.
const begun =
  'data: {"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}],"modelVersion":"g","responseId":"r1"}\n\n';
const failing = [
  ["an error event", begun + 'data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\n\n', /overloaded/],
  ["a cut-off stream", begun, /incomplete/],
];
for (const [what, stream, message] of failing) {
  const name = `${what} -> gemini stream -> @google/genai raises the error`;
  const t = (tally[name] ??= { agree: 0, lossy: 0, differ: 0 });
  const result = spawnSync(convo, ["stream", "--to", "gemini"], { input: stream, encoding: "utf8" });
  let raised = "";
  try {
    await geminiReads(result.stdout);
  } catch (error) {
    raised = String(error?.message ?? error);
  }
  if (result.status === 3 && message.test(raised)) {
    t.agree++;
  } else {
    t.differ++;
    failures++;
    console.log(`*** ${name}: exit ${result.status}, the SDK raised ${JSON.stringify(raised)}`);
  }
}

server.close();
for (const [name, t] of Object.entries(tally)) {
  console.log(`${name}: ${t.agree + t.lossy} of ${t.agree + t.lossy + t.differ} agree (${t.lossy} with counted losses)`);
}
if (Object.keys(tally).length === 0) {
  console.log("*** no bodies to check");
  process.exit(1);
}
process.exit(failures > 0 ? 1 : 0);
