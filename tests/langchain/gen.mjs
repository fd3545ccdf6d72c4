// Deterministic synthetic conversations in OpenAI chat JSONL, for the LangChain.js
// conformance tests. Same options, same output.
//
//   node gen.mjs seed=3,messages=40,tools=1,names=1,ids=1,system=1,runs=1,multiline=1
//
// Options (all optional): seed (0), messages (about how many lines, 30), tools
// (assistant tool calls with tool results, 1), names (some user messages carry a
// name, 1), ids (every message has an id, 1), system (a system message first, 1),
// runs (consecutive messages of one role, 1), multiline (texts with newlines, 1),
// parts (some user contents as text parts, 0), empty (some empty contents, 0),
// calltext (assistant messages with tool calls sometimes have text, 1; 0: never).

export function parseSpec(spec) {
  const opts = { seed: 0, messages: 30, tools: 1, names: 1, ids: 1, system: 1, runs: 1, multiline: 1, parts: 0, empty: 0, calltext: 1 };
  for (const kv of String(spec || "").split(",").filter(Boolean)) {
    const [k, v] = kv.split("=");
    if (!(k in opts)) throw new Error(`gen: unknown option ${k}`);
    opts[k] = Number(v);
  }
  return opts;
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ("the a to of and in is for that this with on it be as we function file error test " +
  "build parse stream token message buffer value return string should can will need let me check " +
  "config update fix handle case line json output input role user assistant tool result call run").split(" ");
const EXOTIC = ["café", "naïve", "日本語", "👍", "“quoted”", "back\\slash", "tab\there", "Ωmega"];
const TOOLS = ["get_weather", "read_file", "run_shell", "search_code"];
const NAMES = ["alice", "bob"];

export function generate(spec) {
  const o = parseSpec(spec);
  const rand = mulberry32(o.seed * 7919 + 17);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const chance = (p) => rand() < p;
  let nextId = 0;
  let nextCall = 0;
  const words = (n) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(chance(0.05) ? pick(EXOTIC) : pick(WORDS));
    return out.join(" ");
  };
  const text = () => {
    if (o.empty && chance(0.05)) return "";
    const lines = o.multiline && chance(0.3) ? 2 + Math.floor(rand() * 4) : 1;
    const out = [];
    for (let i = 0; i < lines; i++) out.push(words(3 + Math.floor(rand() * 20)));
    return out.join("\n");
  };
  const lines = [];
  const push = (m) => {
    if (o.ids) m.id = `m${nextId++}`;
    lines.push(JSON.stringify(m));
  };
  if (o.system) push({ role: "system", content: "You are a helpful assistant. " + words(8) });
  while (lines.length < o.messages) {
    const user = { role: "user", content: text() };
    if (o.parts && chance(0.2)) user.content = [{ type: "text", text: user.content }, { type: "text", text: words(4) }];
    if (o.names && chance(0.3)) user.name = pick(NAMES);
    push(user);
    if (o.runs && chance(0.15)) push({ role: "user", content: text() });
    if (o.tools && chance(0.4)) {
      const n = 1 + (chance(0.3) ? 1 : 0);
      const calls = [];
      for (let i = 0; i < n; i++) {
        const args = { query: words(2), limit: Math.floor(rand() * 10) };
        calls.push({ id: `call_${nextCall++}`, type: "function", function: { name: pick(TOOLS), arguments: JSON.stringify(args) } });
      }
      push({ role: "assistant", content: o.calltext && chance(0.5) ? words(6) : null, tool_calls: calls });
      for (const call of calls) push({ role: "tool", tool_call_id: call.id, content: text() });
    }
    push({ role: "assistant", content: text() });
    if (o.runs && chance(0.15)) push({ role: "assistant", content: text() });
  }
  return lines.join("\n") + "\n";
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(generate(process.argv[2] ?? ""));
}
