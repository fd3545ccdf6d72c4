// The official SDKs read the streams convo writes: each response body is written
// as a stream by `convo stream --to anthropic|openai`, served from a loopback HTTP
// server, and read by the SDK's own stream accumulator (Anthropic's MessageStream
// via client.messages.stream, OpenAI's ChatCompletionStream via
// client.chat.completions.stream, and its ResponseStream via client.responses.stream
// for `--to openai-responses`); the SDK's final message must equal the body
// convo started from. Then the same across protocols: the body's stream translated
// live by a second `convo stream --to OTHER`, read by the other SDK. And an error
// event or a cut-off stream, written by convo, makes each SDK raise the error.
//
//   node sdk_streams.mjs --convo BINARY [--corpus DIR]
//
// Bodies: bodies/*.json here, and every *response.json under DIR/anthropic-api and
// DIR/openai-chat and DIR/openai-responses of the corpus when it is there. Blocks convo does not stream
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
  bodies.push(...files(path.join(corpus, "anthropic-api")), ...files(path.join(corpus, "openai-chat")),
              ...files(path.join(corpus, "openai-responses")));
}

function protocol(body) {
  if (body?.type === "message" && Array.isArray(body.content)) return "anthropic";
  if (body?.object === "chat.completion" && Array.isArray(body.choices) && body.choices.length > 0) return "openai";
  if (body?.object === "response" && Array.isArray(body.output) && body.output.length > 0) return "openai-responses";
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

// --- OpenAI Responses ---

// A reasoning item's text as convo reads it: its summary parts, else its content,
// joined by blank lines.
const reasoningText = (item) =>
  [item.summary, item.content].map((list) => (list ?? []).filter((p) => typeof p?.text === "string").map((p) => p.text))
    .find((texts) => texts.length > 0)?.join("\n\n") ?? "";

// A Responses body as comparable: its items with their ids (`ids`), text,
// reasoning, calls, and the usage. Items convo passes whole (built-in tools) are
// compared whole.
function responsesView(response, losses, ids = true) {
  const output = [];
  for (const item of response.output ?? []) {
    const id = ids ? item.id : undefined;
    if (item.type === "message") {
      output.push({ type: "message", id, role: item.role, content: item.content.map((p) => ({ type: p.type, text: p.text ?? p.refusal, annotations: p.annotations ?? [] })) });
    } else if (item.type === "reasoning" && reasoningText(item) !== "") {
      output.push({ type: "reasoning", id, text: reasoningText(item), encrypted_content: ids ? item.encrypted_content : undefined });
    } else if (item.type === "function_call") {
      output.push({ type: "function_call", id, call_id: item.call_id, name: item.name, input: parsed(item.arguments) });
    } else if (ids) {
      output.push(item);
    } else {
      losses.push(`${item.type} items`);
    }
  }
  const u = response.usage ?? {};
  return {
    id: response.id, model: response.model, output,
    usage: {
      input_tokens: u.input_tokens ?? 0, cached_tokens: u.input_tokens_details?.cached_tokens ?? 0,
      output_tokens: u.output_tokens ?? 0,
    },
  };
}

// A Responses body as the Anthropic SDK should see it after live translation.
function responsesAsAnthropic(response, losses) {
  const view = responsesView(response, losses, false);
  const content = [];
  for (const item of view.output) {
    if (item.type === "reasoning") content.push({ type: "thinking", thinking: item.text, signature: "" });
    else if (item.type === "message") for (const p of item.content) content.push({ type: "text", text: p.text });
    else content.push({ type: "tool_use", id: item.call_id, name: item.name, input: item.input });
  }
  if (response.output.some((item) => item.encrypted_content)) losses.push("encrypted reasoning");
  const u = view.usage;
  return {
    id: view.id, model: view.model, role: "assistant", content,
    stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn", stop_sequence: null,
    usage: {
      input_tokens: u.input_tokens - u.cached_tokens, output_tokens: u.output_tokens,
      cache_creation_input_tokens: 0, cache_read_input_tokens: u.cached_tokens,
    },
  };
}

// An Anthropic message as the OpenAI SDK's Responses stream should see it after
// translation: items without ids (convo makes them).
function anthropicAsResponses(message, losses) {
  const view = anthropicView(message, losses);
  const output = [];
  for (const b of view.content) {
    if (b.type === "thinking") {
      if (b.signature) losses.push("thinking signatures");
      output.push({ type: "reasoning", id: undefined, text: b.thinking, encrypted_content: undefined });
    } else if (b.type === "text") {
      const last = output.at(-1);
      const part = { type: "output_text", text: b.text, annotations: [] };
      if (last?.type === "message") last.content.push(part);
      else output.push({ type: "message", id: undefined, role: "assistant", content: [part] });
    } else if (b.type === "tool_use") {
      output.push({ type: "function_call", id: undefined, call_id: b.id, name: b.name, input: b.input });
    } else {
      losses.push(`${b.type} blocks`);
    }
  }
  const u = view.usage;
  return {
    id: view.id, model: view.model,
    output: output.filter((item) => item.type !== "reasoning" || item.text !== ""),
    usage: {
      input_tokens: u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens,
      cached_tokens: u.cache_read_input_tokens, output_tokens: u.output_tokens,
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

// The Responses stream through the SDK's accumulator (responses.stream), `ids`:
// whether item ids are compared.
async function responsesReads(sse, ids = true) {
  serving = sse;
  const stream = openai.responses.stream({ model: "m", input: "hi" });
  return responsesView(await stream.finalResponse(), [], ids);
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
    const responsesLosses = [];
    await check("anthropic body -> anthropic stream -> convo -> openai-responses stream -> OpenAI SDK", file,
                anthropicAsResponses(body, responsesLosses), responsesLosses, (sse) => responsesReads(sse, false),
                `${q} stream --to anthropic --chunk-size 5 "$1" 2>/dev/null | ${q} stream --to openai-responses 2>/dev/null`);
  } else if (p === "openai-responses") {
    const losses = [];
    await check("openai-responses body -> openai-responses stream -> OpenAI SDK", file,
                responsesView(body, losses), losses, responsesReads,
                `${q} stream --to openai-responses --chunk-size 7 "$1" 2>/dev/null`);
    const crossLosses = [];
    await check("openai-responses body -> openai-responses stream -> convo -> anthropic stream -> Anthropic SDK", file,
                responsesAsAnthropic(body, crossLosses), crossLosses, anthropicReads,
                `${q} stream --to openai-responses --chunk-size 5 "$1" 2>/dev/null | ${q} stream --to anthropic 2>/dev/null`);
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
  for (const [target, read] of [["anthropic", anthropicReads], ["openai", openaiReads], ["openai-responses", responsesReads]]) {
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
