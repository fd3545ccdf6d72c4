#!/usr/bin/env node
// Copied from ../shared/langchain-oracle/oracle.mjs (the team's oracle); keep the two in step.
// langchain-oracle: run ONE LangChain.js message utility over a JSONL transcript.
//
//   node oracle.mjs <op> [options] < in.jsonl > out
//
// Input: one message per line, OpenAI chat style
//   {"role":"system|developer|user|assistant|tool","content":..., "name"?, "tool_calls"?, "tool_call_id"?, "id"?}
// or LangChain stored style {"type":"human|ai|system|tool|...","data":{...}}.
// Blank lines are skipped. Lines are converted with LangChain's own converters
// (coerceMessageLikeToMessage / mapStoredMessageToChatMessage).
//
// Ops (see --help): filter, trim, merge-runs, buffer-string, normalize-for-api, count-tokens.
// Message output is OpenAI-style JSONL produced by @langchain/openai's
// convertMessagesToCompletionsMessageParams (the JS package has no
// convertToOpenAIMessages); the oracle appends "id" when the message has one.
//
// Parts that are NOT LangChain.js code (ports of the Python reference, clearly marked):
//   * the approximate token counter (port of Python count_tokens_approximately),
//   * filter --exclude-tool-calls (port of Python filter_messages(exclude_tool_calls=...)).

import { readFileSync } from "node:fs";
import {
  coerceMessageLikeToMessage,
  mapStoredMessageToChatMessage,
  filterMessages,
  trimMessages,
  mergeMessageRuns,
  getBufferString,
  AIMessage,
} from "@langchain/core/messages";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";

const HELP = `usage: node oracle.mjs <op> [options] < in.jsonl

ops:
  filter            --include-names a,b --exclude-names a,b --include-types human,ai
                    --exclude-types t --include-ids i --exclude-ids i
                    --exclude-tool-calls all|id1,id2   (Python semantics, ported; JS lacks it)
  trim              --max-tokens N (required) --strategy first|last (default last)
                    --allow-partial --start-on human[,ai] --end-on ai[,tool] --include-system
                    --token-counter approx|len (default approx)
                    --text-splitter newline|char|space (default newline = LangChain default)
                    approx counter knobs: --chars-per-token 4 --extra-tokens-per-message 3
                    --tokens-per-image 85 --no-count-name --no-cache
  merge-runs        (LangChain.js has no chunk_separator; it is always "\\n")
  buffer-string     --human-prefix Human --ai-prefix AI  [--exact: no trailing newline]
  normalize-for-api [--model NAME]  (input -> LangChain -> OpenAI chat params)
  count-tokens      [--per-message] approx counter (same knobs as trim)

common:
  --out openai|lc   output shape (default openai; lc = LangChain toDict {"type","data"})
  --no-id           do not append "id" to OpenAI-style output
  --raw-null-content  keep JS behaviour for "content": null (becomes []); default maps null -> ""
                      like Python convert_to_messages
types are LangChain type names: human, ai, system, tool, function, generic, remove
(developer messages are type "system").`;

// ---------------------------------------------------------------- arg parsing
const BOOL_FLAGS = new Set([
  "allow-partial", "include-system", "no-count-name", "no-cache", "exact",
  "per-message", "no-id", "raw-null-content", "help",
]);
function parseArgs(argv) {
  const op = argv[0];
  const opts = {};
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) die(`unexpected argument: ${a}`);
    let key = a.slice(2);
    let val;
    const eq = key.indexOf("=");
    if (eq >= 0) { val = key.slice(eq + 1); key = key.slice(0, eq); }
    else if (BOOL_FLAGS.has(key)) val = true;
    else { if (i + 1 >= argv.length) die(`missing value for --${key}`); val = argv[++i]; }
    opts[key] = val;
  }
  return { op, opts };
}
function die(msg, code = 2) {
  process.stderr.write(`oracle: ${msg}\n`);
  process.exit(code);
}
const list = (v) => (v === undefined || v === true ? undefined : String(v).split(",").map((s) => s.trim()).filter(Boolean));
const num = (v, d) => (v === undefined ? d : Number(v));

// ---------------------------------------------------------------- input
function readMessages(opts) {
  const text = readFileSync(0, "utf8");
  const lines = text.split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, "");
    if (line.trim() === "") continue;
    let obj;
    try { obj = JSON.parse(line); } catch (e) { die(`line ${i + 1}: invalid JSON: ${e.message}`); }
    try {
      out.push(toMessage(obj, opts));
    } catch (e) {
      die(`line ${i + 1}: ${String(e.message).split("\n")[0]}`);
    }
  }
  return out;
}
function toMessage(obj, opts) {
  if (obj && typeof obj === "object" && !Array.isArray(obj) && !("role" in obj) && "type" in obj && "data" in obj) {
    return mapStoredMessageToChatMessage(obj);
  }
  if (obj && typeof obj === "object" && !Array.isArray(obj) && !opts["raw-null-content"] && obj.content == null) {
    obj = { ...obj, content: "" };
  }
  return coerceMessageLikeToMessage(obj);
}

// ---------------------------------------------------------------- output
function writeMessages(msgs, opts) {
  const shape = opts.out ?? "openai";
  const chunks = [];
  if (shape === "lc") {
    for (const m of msgs) chunks.push(JSON.stringify(m.toDict()));
  } else if (shape === "openai") {
    for (const m of msgs) {
      if (m == null) throw new Error("LangChain returned an undefined message (library bug)");
      const params = convertMessagesToCompletionsMessageParams({ messages: [m], model: opts.model });
      for (const p of params) {
        if (!opts["no-id"] && m.id != null && p.role !== undefined && !("id" in p)) p.id = m.id;
        chunks.push(JSON.stringify(p));
      }
    }
  } else die(`unknown --out ${shape}`);
  process.stdout.write(chunks.length ? chunks.join("\n") + "\n" : "");
}

// ---------------------------------------------------------------- approx token counter
// Port of Python langchain_core.messages.utils.count_tokens_approximately
// (langchain-core 1.x: tokens_per_image, text blocks counted by text length,
// other blocks by len(repr(block)), AI tool_calls by len(repr(tool_calls)) only
// when content is a str, ToolMessage adds len(tool_call_id), role = OpenAI role,
// name if count_name; per message ceil(chars/cpt) + extra; final ceil).
// Python len() counts code points; repr() is emulated below.
function pyLen(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
const NONPRINT = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
function pyReprStr(s) {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += "\\" + quote;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp < 0x7f) out += ch;
    else if (ch !== " " && NONPRINT.test(ch)) {
      if (cp < 0x100) out += "\\x" + cp.toString(16).padStart(2, "0");
      else if (cp < 0x10000) out += "\\u" + cp.toString(16).padStart(4, "0");
      else out += "\\U" + cp.toString(16).padStart(8, "0");
    } else out += ch;
  }
  return out + quote;
}
function pyReprFloat(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const [mant, expStr] = x.toExponential().split("e"); // shortest round-trip digits
  const exp = Number(expStr);
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  let body;
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
      const frac = digits.slice(exp + 1);
      body = intPart + "." + (frac || "0");
    } else {
      body = "0." + "0".repeat(-exp - 1) + digits;
    }
  } else {
    const m = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    body = m + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
  }
  return (neg ? "-" : "") + body;
}
function pyRepr(v) {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 1e16 ? String(v) : pyReprFloat(v);
  if (typeof v === "string") return pyReprStr(v);
  if (Array.isArray(v)) return "[" + v.map(pyRepr).join(", ") + "]";
  if (typeof v === "object") {
    return "{" + Object.entries(v).map(([k, x]) => pyReprStr(k) + ": " + pyRepr(x)).join(", ") + "}";
  }
  return String(v);
}
function openaiRole(m) {
  const t = m.getType();
  if (t === "ai") return "assistant";
  if (t === "human") return "user";
  if (t === "tool") return "tool";
  if (t === "system") return m.additional_kwargs?.__openai_role__ ?? "system";
  if (t === "function") return "function";
  if (t === "generic") return m.role;
  throw new Error(`Unknown message type ${t}`);
}
function makeApproxCounter(opts) {
  const cpt = num(opts["chars-per-token"], 4);
  const extra = num(opts["extra-tokens-per-message"], 3);
  const perImage = num(opts["tokens-per-image"], 85);
  const countName = !opts["no-count-name"];
  const useCache = !opts["no-cache"];
  const cache = new WeakMap();
  function one(m) {
    if (useCache) {
      const c = cache.get(m);
      if (c && c.content === m.content && c.tool_calls === m.tool_calls && c.name === m.name) return c.n;
    }
    let chars = 0;
    let imageTokens = 0;
    const content = m.content;
    if (typeof content === "string") chars += pyLen(content);
    else if (Array.isArray(content)) {
      for (const block of content) {
        if (typeof block === "string") chars += pyLen(block);
        else if (block && typeof block === "object") {
          const bt = block.type ?? "";
          if (bt === "image" || bt === "image_url") imageTokens += perImage;
          else if (bt === "text") chars += pyLen(String(block.text ?? ""));
          else chars += pyLen(pyRepr(block));
        } else chars += pyLen(pyRepr(block));
      }
    } else chars += pyLen(pyRepr(content));
    const t = m.getType();
    if (t === "ai" && !Array.isArray(content) && m.tool_calls?.length) {
      // Python ToolCall TypedDict order: name, args, id, type
      const tcs = m.tool_calls.map((tc) => ({ name: tc.name, args: tc.args, id: tc.id ?? null, type: "tool_call" }));
      chars += pyLen(pyRepr(tcs));
    }
    if (t === "tool") chars += pyLen(String(m.tool_call_id ?? ""));
    chars += pyLen(openaiRole(m));
    if (m.name && countName) chars += pyLen(m.name);
    const n = imageTokens + Math.ceil(chars / cpt) + extra; // may be fractional if extra is
    if (useCache) cache.set(m, { content: m.content, tool_calls: m.tool_calls, name: m.name, n });
    return n;
  }
  const counter = (msgs) => {
    let total = 0;
    for (const m of msgs) total += one(m);
    return Math.ceil(total);
  };
  counter.one = one;
  return counter;
}

function textSplitterFor(name) {
  if (name === undefined || name === "newline") return undefined; // LangChain default (split on "\n", keep separators)
  if (name === "char") return async (t) => [...t];
  if (name === "space") return async (t) => { const s = t.split(" "); return [...s.slice(0, -1).map((x) => x + " "), s[s.length - 1]]; };
  die(`unknown --text-splitter ${name}`);
}

// ---------------------------------------------------------------- ops
// Python filter_messages(exclude_tool_calls=...) semantics (ported; not in LangChain.js).
function excludeToolCalls(msgs, spec) {
  if (spec === undefined) return msgs;
  const all = spec === "all" || spec === true;
  const ids = all ? null : new Set(list(spec));
  const out = [];
  for (const m of msgs) {
    const t = m.getType();
    if (all) {
      if ((t === "ai" && m.tool_calls?.length) || t === "tool") continue;
      out.push(m);
      continue;
    }
    if (t === "ai" && m.tool_calls?.length) {
      const keep = m.tool_calls.filter((tc) => !ids.has(tc.id));
      if (keep.length === 0) continue;
      let content = m.content;
      if (Array.isArray(content)) {
        content = content.filter((b) => !(b && typeof b === "object" && b.type === "tool_use" && ids.has(b.id)));
      }
      out.push(new AIMessage({
        content, tool_calls: keep, invalid_tool_calls: m.invalid_tool_calls, id: m.id, name: m.name,
        additional_kwargs: m.additional_kwargs, response_metadata: m.response_metadata, usage_metadata: m.usage_metadata,
      }));
      continue;
    }
    if (t === "tool" && ids.has(m.tool_call_id)) continue;
    out.push(m);
  }
  return out;
}

async function main() {
  const { op, opts } = parseArgs(process.argv.slice(2));
  if (!op || op === "--help" || op === "-h" || opts.help) { process.stdout.write(HELP + "\n"); return; }
  const msgs = readMessages(opts);
  switch (op) {
    case "filter": {
      const pre = excludeToolCalls(msgs, opts["exclude-tool-calls"]);
      const res = filterMessages(pre, {
        includeNames: list(opts["include-names"]),
        excludeNames: list(opts["exclude-names"]),
        includeTypes: list(opts["include-types"]),
        excludeTypes: list(opts["exclude-types"]),
        includeIds: list(opts["include-ids"]),
        excludeIds: list(opts["exclude-ids"]),
      });
      writeMessages(res, opts);
      break;
    }
    case "trim": {
      if (opts["max-tokens"] === undefined) die("trim needs --max-tokens N");
      const tc = opts["token-counter"] ?? "approx";
      let tokenCounter;
      if (tc === "approx") tokenCounter = makeApproxCounter(opts);
      else if (tc === "len") tokenCounter = (ms) => ms.length;
      else die(`unknown --token-counter ${tc}`);
      const res = await trimMessages(msgs, {
        maxTokens: Number(opts["max-tokens"]),
        tokenCounter,
        strategy: opts.strategy ?? "last",
        allowPartial: !!opts["allow-partial"],
        startOn: list(opts["start-on"]),
        endOn: list(opts["end-on"]),
        includeSystem: !!opts["include-system"],
        textSplitter: textSplitterFor(opts["text-splitter"]),
      });
      writeMessages(res, opts);
      break;
    }
    case "merge-runs": {
      if (opts["chunk-separator"] !== undefined) die("LangChain.js mergeMessageRuns has no chunk separator option (always \"\\n\")");
      writeMessages(mergeMessageRuns(msgs), opts);
      break;
    }
    case "buffer-string": {
      const s = getBufferString(msgs, opts["human-prefix"] ?? "Human", opts["ai-prefix"] ?? "AI");
      process.stdout.write(opts.exact ? s : s + "\n");
      break;
    }
    case "normalize-for-api": {
      writeMessages(msgs, opts);
      break;
    }
    case "count-tokens": {
      const counter = makeApproxCounter(opts);
      if (opts["per-message"]) process.stdout.write(msgs.map((m) => String(counter.one(m))).join("\n") + (msgs.length ? "\n" : ""));
      else process.stdout.write(String(counter(msgs)) + "\n");
      break;
    }
    default:
      die(`unknown op '${op}' (try --help)`);
  }
}

main().catch((e) => die(`error: ${String(e && e.message ? e.message : e).split("\n")[0]}`, 1));
