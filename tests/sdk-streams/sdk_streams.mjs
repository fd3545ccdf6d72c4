// The official SDKs read the streams convo writes: each response body is written
// as a stream by `convo stream --to anthropic|openai`, served from a loopback HTTP
// server, and read by the SDK's own stream accumulator (Anthropic's MessageStream
// via client.messages.stream, OpenAI's ChatCompletionStream via
// client.chat.completions.stream); the SDK's final message must equal the body
// convo started from. Then the same across protocols: the body's stream translated
// live by a second `convo stream --to OTHER`, read by the other SDK. And an error
// event or a cut-off stream, written by convo, makes each SDK raise the error.
//
//   node sdk_streams.mjs --convo BINARY [--corpus DIR]
//
// Bodies: bodies/*.json here, and every *response.json under DIR/anthropic-api and
// DIR/openai-chat of the corpus when it is there. Blocks convo does not stream
// (server tools' blocks, citations) are counted as losses, as convo's warning
// counts them, and left out of the comparison. Exit 77 (SKIPPED) without the npm
// packages (scripts/setup.sh installs them).
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
if (!existsSync(path.join(here, "node_modules", "@anthropic-ai", "sdk")) ||
    !existsSync(path.join(here, "node_modules", "openai"))) {
  console.log("SKIPPED: the SDKs are not installed (scripts/setup.sh runs npm ci in tests/sdk-streams)");
  process.exit(77);
}
const { default: Anthropic } = await import("@anthropic-ai/sdk");
const { default: OpenAI } = await import("openai");

// --- The bodies ---

function files(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...files(full));
    else if (name.endsWith("response.json") || dir.endsWith("bodies")) out.push(full);
  }
  return out;
}

const bodies = files(path.join(here, "bodies"));
if (corpus) {
  bodies.push(...files(path.join(corpus, "anthropic-api")), ...files(path.join(corpus, "openai-chat")));
}

function protocol(body) {
  if (body?.type === "message" && Array.isArray(body.content)) return "anthropic";
  if (body?.object === "chat.completion" && Array.isArray(body.choices) && body.choices.length > 0) return "openai";
  return null;
}

// --- What each SDK should end with ---

const streamed = new Set(["text", "thinking", "redacted_thinking", "tool_use"]);

// An Anthropic message as comparable: the members a stream carries.
function anthropicView(message, losses) {
  const content = [];
  for (const block of message.content) {
    if (!streamed.has(block.type)) {
      losses.push(`${block.type} blocks`);
      continue;
    }
    if (block.type === "text") {
      if (block.citations?.length) losses.push("citations");
      content.push({ type: "text", text: block.text });
    } else if (block.type === "thinking") {
      content.push({ type: "thinking", thinking: block.thinking, signature: block.signature ?? "" });
    } else if (block.type === "redacted_thinking") {
      content.push({ type: "redacted_thinking", data: block.data });
    } else {
      content.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
    }
  }
  const u = message.usage ?? {};
  return {
    id: message.id, model: message.model, role: message.role, content,
    stop_reason: message.stop_reason ?? null, stop_sequence: message.stop_sequence ?? null,
    usage: {
      input_tokens: u.input_tokens ?? 0, output_tokens: u.output_tokens ?? 0,
      cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
    },
  };
}

function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// A message's text: its content string, or (Mistral) the text of its list of
// parts, the other parts being losses.
function openaiText(content, losses) {
  if (!Array.isArray(content)) return content === "" ? null : content ?? null;
  const text = content.filter((p) => p?.type === "text").map((p) => p.text).join("");
  for (const p of content) if (p?.type !== "text") losses.push(`${p?.type} content parts`);
  return text === "" ? null : text;
}

// An OpenAI chat.completion as comparable.
function openaiView(completion, losses = []) {
  const choice = completion.choices[0];
  const m = choice.message;
  const u = completion.usage ?? {};
  return {
    id: completion.id, model: completion.model, finish_reason: choice.finish_reason,
    content: openaiText(m.content, losses),
    tool_calls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, input: parsed(c.function.arguments) })),
    usage: { prompt_tokens: u.prompt_tokens ?? 0, completion_tokens: u.completion_tokens ?? 0 },
  };
}

const toFinish = { end_turn: "stop", stop_sequence: "stop", pause_turn: "stop", max_tokens: "length", tool_use: "tool_calls", refusal: "content_filter" };
const toStop = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use", function_call: "tool_use", content_filter: "refusal" };

// An Anthropic message as the OpenAI SDK should see it after translation.
function anthropicAsOpenai(message, losses) {
  const view = anthropicView(message, losses);
  const text = view.content.filter((b) => b.type === "text").map((b) => b.text).join("");
  if (view.content.some((b) => b.type === "redacted_thinking")) losses.push("redacted_thinking blocks");
  const u = view.usage;
  return {
    id: view.id, model: view.model, finish_reason: toFinish[view.stop_reason] ?? null,
    content: text === "" ? null : text,
    tool_calls: view.content.filter((b) => b.type === "tool_use").map((b) => ({ id: b.id, name: b.name, input: b.input })),
    usage: {
      prompt_tokens: u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens,
      completion_tokens: u.output_tokens,
    },
  };
}

// An OpenAI completion as the Anthropic SDK should see it after translation.
function openaiAsAnthropic(completion, losses) {
  const choice = completion.choices[0];
  const m = choice.message;
  const u = completion.usage ?? {};
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  const content = [];
  const reasoning = m.reasoning_content ?? m.reasoning;
  if (typeof reasoning === "string" && reasoning !== "") content.push({ type: "thinking", thinking: reasoning, signature: "" });
  const text = openaiText(m.content, losses);
  if (text !== null) content.push({ type: "text", text });
  for (const c of m.tool_calls ?? []) content.push({ type: "tool_use", id: c.id, name: c.function.name, input: parsed(c.function.arguments) });
  return {
    id: completion.id, model: completion.model, role: "assistant", content,
    stop_reason: toStop[choice.finish_reason] ?? null, stop_sequence: null,
    usage: {
      input_tokens: (u.prompt_tokens ?? 0) - cached, output_tokens: u.completion_tokens ?? 0,
      cache_creation_input_tokens: 0, cache_read_input_tokens: cached,
    },
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
const anthropic = new Anthropic({ apiKey: "test", baseURL: base, maxRetries: 0, timeout: 20000 });
const openai = new OpenAI({ apiKey: "test", baseURL: `${base}/v1`, maxRetries: 0, timeout: 20000 });

async function anthropicReads(sse) {
  serving = sse;
  const stream = anthropic.messages.stream({ model: "m", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
  return anthropicView(await stream.finalMessage(), []);
}

async function openaiReads(sse) {
  serving = sse;
  const stream = openai.chat.completions.stream({
    model: "m", messages: [{ role: "user", content: "hi" }], stream_options: { include_usage: true },
  });
  return openaiView(await stream.finalChatCompletion());
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
  // A tool call that came without an id is given one by convo (as `convert` does).
  const calls = (view) => view?.tool_calls ?? view?.content?.filter?.((b) => b.type === "tool_use") ?? [];
  calls(expected).forEach((call, i) => {
    const given = calls(got)[i];
    if (call.id === "" && given?.id) {
      call.id = given.id;
      losses.push("tool call ids (none given)");
    }
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

for (const file of bodies) {
  let body;
  try {
    body = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    continue;
  }
  const p = protocol(body);
  if (p === "anthropic") {
    const losses = [];
    const expected = anthropicView(body, losses);
    await check("anthropic body -> anthropic stream -> Anthropic SDK", file, expected, losses, anthropicReads,
                `${q} stream --to anthropic --chunk-size 7 "$1" 2>/dev/null`);
    const crossLosses = [];
    await check("anthropic body -> anthropic stream -> convo -> openai stream -> OpenAI SDK", file,
                anthropicAsOpenai(body, crossLosses), crossLosses, openaiReads,
                `${q} stream --to anthropic --chunk-size 5 "$1" 2>/dev/null | ${q} stream --to openai --include-usage 2>/dev/null`);
  } else if (p === "openai") {
    if (body.choices.length > 1) continue;  // one stream a choice: not one SDK response
    const losses = [];
    const expected = openaiView(body, losses);
    const crossLosses = [];
    await check("openai body -> openai stream -> OpenAI SDK", file, expected, losses, openaiReads,
                `${q} stream --to openai --include-usage --chunk-size 7 "$1" 2>/dev/null`);
    await check("openai body -> openai stream -> convo -> anthropic stream -> Anthropic SDK", file,
                openaiAsAnthropic(body, crossLosses), crossLosses, anthropicReads,
                `${q} stream --to openai --include-usage --chunk-size 5 "$1" 2>/dev/null | ${q} stream --to anthropic 2>/dev/null`);
  }
}
// Error and cut-off streams: each SDK must raise the error convo's error event
// carries, not end with a message.
const errorStream =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_e","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n';
const failing = [
  ["an error event", errorStream + 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n', /Overloaded/],
  ["a cut-off stream", errorStream, /incomplete/],
];
for (const [what, stream, message] of failing) {
  for (const [target, read] of [["anthropic", anthropicReads], ["openai", openaiReads]]) {
    const name = `${what} -> ${target} stream -> its SDK raises the error`;
    const t = (tally[name] ??= { agree: 0, lossy: 0, differ: 0 });
    const result = spawnSync(convo, ["stream", "--to", target], { input: stream, encoding: "utf8" });
    let raised = "";
    try {
      await read(result.stdout);
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
