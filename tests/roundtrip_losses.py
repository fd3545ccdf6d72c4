#!/usr/bin/env python3
"""Every difference a round trip makes must be one the warnings named.

For each file of ../shared/corpus in a format convo reads, and each other target
format: `convert --to SOURCE` (the input as convo writes it in its own format) is
compared, record by record as JSON, with `convert --to TARGET | convert --from
TARGET --to SOURCE` (the round trip; a file of AI SDK UIMessages is written back
with `--ai-sdk-shape ui`). Each differing JSON path, normalised (array
indices dropped; an array element present on one side only is named by its "type",
e.g. `message.content.thinking`, and so is each block of a content list present on
one side only, e.g. `content.content.tool_reference`, a Gemini media part by the kind of block its
media type makes, `parts.video`; a whole record present on one side only is
`<record>.TYPE`, and `<record>.TYPE.KIND` when its content is media alone (it
goes with them), a body member present on one side only by its members or its
elements' kinds; changed elements are paired by kind before position, or by what
they say (kind and content) first when that names fewer differences; members
that are null, [] or {} count as absent, as do `"is_error": false`, the API's
default, a LangChain message's `"example": false` (its default), an empty content
string and a Chat tool call's `"type": "function"`; a content of one plain text block
as its string, and a content string
against a list of blocks as one text block; an AI SDK version 4 tool-invocation part
as the tool-NAME part it stands for, and a UIMessage file part by the kind of block
its media type makes; a request or response body's messages
as records of their own, and so are a JSON array's messages; a document pretty-printed over many lines as one record),
is excused only by a loss that one of the two conversions
printed on stderr ("openai cannot hold thinking blocks (3), ...") and that covers
it: a loss name covers a path component spelled like the name without its generic
noun ("thinking blocks" covers `thinking`, "tools of request bodies" covers
`tools`), or one listed in COVERS below.

The test passes when the unexcused differences (counted as distinct FILE TARGET
PATH triples) are at most the figure on the first line of the expectation file
(tests/roundtrip_losses.expected, a ratchet: lower it as losses get named; the
goal is 0; its other lines count them by SOURCE -> TARGET PATH, largest first). Skipped (exit 77) without the corpus.

  roundtrip_losses.py CONVO SOURCE_DIR [--update] [--jobs N] [--report] [--summary]
                      [--source FORMAT]... [--match TEXT]
"""

import argparse
import collections
import concurrent.futures
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ai_sdk_snapshots  # noqa: E402  (vitest snapshots hold the ai-sdk corpus)

# Corpus folder -> the format convo reads it as.
SOURCES = {
    "claude-code": "claude-code",
    "anthropic-api": "anthropic",
    "openai-chat": "openai",
    "langchain": "langchain",
    "opencode": "opencode",
    "openai-responses": "openai-responses",
    "codex": "codex",
    "gemini": "gemini",
    "gemini-cli": "gemini-cli",
    "ai-sdk": "ai-sdk",
}
TARGETS = ["claude-code", "anthropic", "openai", "langchain", "agentscope", "opencode", "synaptic",
           "openai-responses", "codex", "gemini", "gemini-cli", "ai-sdk"]

# Loss names whose paths cannot be derived from the name itself: name -> the path
# components (normalised: snake_case, lower) it covers. Small on purpose.
COVERS = {
    "timestamps": {"timestamp", "created", "created_at", "time", "updated_at",
                   "start_time", "last_updated"},  # a Gemini CLI chat's own
    "claude code record envelopes": {
        "uuid", "parent_uuid", "logical_parent_uuid", "session_id", "timestamp", "cwd",
        "git_branch", "version", "user_type", "is_sidechain", "request_id", "slug",
        "is_meta", "is_compact_summary", "is_visible_in_transcript_only", "agent_id",
        "permission_mode", "thinking_metadata", "todos", "level", "subtype",
        "tool_use_result", "is_api_error_message", "source_tool_use_id",
        "source_tool_assistant_uuid", "is_snapshot_update", "leaf_uuid",
        "mcp_meta", "planning_mode",
        # Claude Code 2.x's: the client that ran the session, the prompt a record answers,
        # where a user record came from (a task notification), an agent team's name.
        "entrypoint", "prompt_id", "origin", "team_name"},
    "message ids": {"id", "message_id"},
    # A call with an empty id (an OpenAI-compatible API's) has none in Gemini, whose
    # reader makes one up to link its response by.
    "tool calls without ids": {"id"},
    # A Claude Code record holding its blocks otherwise than Claude Code cuts a response
    # (one record per block, one user record per tool result): written elsewhere as a
    # turn, it comes back cut as Claude Code cuts it, its blocks in other records.
    # Parallel tool results in the order they finished, held by the target in the calls
    # they answer: they come back in the calls' order.
    "order of tool results": {"user", "tool_use_id"},
    "claude code record splits": {"assistant", "user", "text", "thinking", "tool_use",
                                  "tool_result", "image", "document"},
    "usage": {"usage", "cache_creation", "cache_read_input_tokens",
              "cache_creation_input_tokens", "service_tier", "server_tool_use",
              "tokens", "usage_metadata"},  # Gemini CLI's and Gemini's spellings
    "model names": {"model", "model_id"},  # OpenCode's modelID
    "stop reasons": {"stop_reason", "stop_sequence", "finish_reason"},
    "cache control": {"cache_control"},
    "cache_control markers": {"cache_control"},
    "signatures": {"signature"},
    # OpenAI's filename is an Anthropic document's title (and a Vertex part's displayName).
    "file names": {"filename", "title", "display_name"},
    "thinking signatures": {"signature"},  # a thinking block's
    "thought signatures": {"signature", "thought_signature"},  # the same, as Gemini calls it
    # A record with no type that names its kind (the comparison calls it `object`).
    "unknown records": {"object"},
    # A Gemini response without candidates (a blocked prompt: promptFeedback, usage),
    # a record of several members and no type.
    "candidate-less response records": {"object"},
    "session records": {"object"},  # an OpenCode session file's record (no type either)
    # A Responses body with no output items (a background request's queued response):
    # the whole record, named by its `object` (kind()).
    "empty response body records": {"response"},
    # A Claude Code subagent's agent-<id>.meta.json record: the comparison names a record
    # of no type by its one member (`agentType`), one of several members `object`.
    "subagent meta records": {"agent_type", "object"},
    # An assistant message that held nothing but thinking, in a format without thinking:
    # the message goes with its thinking (a Claude Code record of one thinking block).
    "thinking-only assistant messages": {"assistant"},
    # An assistant message left with nothing (an empty text; what else it held was
    # counted by name) is dropped whole, and its record with it.
    "empty assistant messages": {"assistant"},
    # A tool result whose call the target has no message for is dropped; the user record
    # that held only it goes with it. (A Responses function_call_output item is such a
    # result on its own.)
    "tool results without calls": {"tool_result", "tool_use_id", "user", "function_call_output"},
    # Calls made in separate messages (Claude Code's parallel calls, one a record) and
    # answered after them all: Gemini CLI answers each record's calls right after it,
    # so the record of a result moves before the calls made after its own. A move is a
    # record on one side only in either place: the result's (user, tool) or, as the
    # records pair up, that of a call it moved past (assistant, Gemini's model).
    "tool results after later calls": {"user", "tool", "assistant", "model"},
    # OpenAI-compatible providers' thinking is the message's `reasoning` member; a
    # Gemini CLI chat's, a `gemini` record's `thoughts`.
    "thinking blocks": {"thinking", "reasoning", "reasoning_content", "thoughts", "thought"},
    # Gemini spells an error result {"error": TEXT}, a result {"output": TEXT}; a Gemini
    # CLI tool call says it again in its "status" ("error", "success").
    "tool error flags": {"is_error", "error", "output", "status"},
    "system message roles": {"role"},
    # The Responses API's developer message is its system message (convo reads both as
    # the system prompt, and counts them so where a format has none).
    "system messages": {"system", "developer"},
    # An assistant turn written as Responses items right after another, which a reader
    # of the items joins (no boundary between them): the turn's record is gone and the
    # one before holds its calls (a Gemini model turn's functionCall, a Gemini CLI
    # message's toolCalls).
    "consecutive assistant turns": {"assistant", "model", "gemini", "function_call", "tool_use",
                                    "tool_calls"},
    # Several output_text parts of a Responses request's assistant message are one text.
    "text block boundaries in assistant messages": {"text"},
    # A system message after a turn, in an API whose one system prompt comes before the
    # turns (Gemini's systemInstruction): the record is gone.
    "mid-conversation system messages": {"system"},
    # A Gemini functionResponse holds one text (its `response`) before its media: the
    # text blocks of a tool result are joined there, in front of the media.
    "text block boundaries in tool results": {"text"},
    # A Responses request takes an assistant message without an id as one text (an
    # EasyInputMessage): its text blocks are joined there, as paragraphs.
    "text block boundaries in assistant messages": {"text"},
    "encrypted reasoning": {"encrypted_content"},
    "item ids": {"id"},
    # An OpenCode part's own id and its message's (`messageID`).
    "part ids": {"id", "message_id"},
    # An OpenCode assistant message's time.completed.
    "completion times": {"completed"},
    # A Responses custom tool call (free-text input) and its output, elsewhere a
    # function call with the input {"input": TEXT} and its result.
    "custom tool calls": {"custom_tool_call", "custom_tool_call_output"},
    # A Responses body's `instructions` is compared as the system message it leads with.
    "instructions of response bodies": {"system"},
    "instructions of request bodies": {"system"},
    # A Codex rollout's token_count events hold the usage of the responses before them.
    "event_msg records": {"usage", "cache_read_input_tokens", "cache_creation_input_tokens",
                          "usage_metadata", "tokens"},
    "thought timestamps": {"timestamp"},
    # Bodies translated whole (lib/formats/api_body.h).
    # The Responses API and Gemini count a prompt's cache writes in its input tokens (there
    # is no count of their own): Anthropic's input_tokens comes back with them in it. Chat
    # carries them as OpenRouter reports them (cache_write_tokens).
    "cache write token counts": {"cache_creation_input_tokens", "cache_creation", "input_tokens",
                                 "cache_write_tokens"},
    "reasoning token counts": {"reasoning_tokens", "thoughts_token_count", "candidates_token_count",
                               "completion_tokens_details", "output_tokens_details"},
    # A Responses reasoning item is a thinking block (as "thinking blocks" says), and so
    # is an OpenAI-compatible provider's reasoning_content.
    "thinking blocks without signatures": {"thinking", "thought", "reasoning", "reasoning_content"},
    # A Responses reasoning item's reasoning_text parts (its `content`) are elsewhere
    # thinking, which comes back as its `summary`: the record (kind reasoning) changed.
    "reasoning_text parts": {"reasoning"},
    "tool token counts": {"tool"},
    "vertex part spellings": {"function_call", "function_response", "inline_data", "file_data",
                              "thought_signature", "mime_type", "file_uri"},
    # A function declaration's parameters_json_schema, written back as parametersJsonSchema
    # (the same component once normalised). Not function_declarations: that is also how
    # functionDeclarations normalises, and would cover every difference in the tools.
    "vertex tool spellings": {"parameters_json_schema"},
    # A Gemini Schema (`parameters`, upper-case types) is JSON Schema in the other APIs,
    # and comes back to Gemini as parametersJsonSchema.
    "gemini schemas of tools": {"parameters", "parameters_json_schema"},
    # The Messages API requires max_tokens: a request without one gets a default, which
    # comes back under the source API's name for its limit.
    "request bodies without a token limit": {"max_tokens", "max_completion_tokens",
                                             "max_output_tokens"},
    # OpenAI Chat's deprecated max_tokens comes back as max_completion_tokens.
    "max_tokens of request bodies": {"max_tokens", "max_completion_tokens"},
    # An effort (OpenAI) says one of three budgets (api_body.h): another comes back as it.
    "thinking budgets": {"budget_tokens", "thinking_budget"},
    # Anthropic's adaptive thinking, Gemini's dynamic budget: written as an effort (medium)
    # that comes back as a budget of its own (thinking.type enabled, budget_tokens).
    "dynamic thinking": {"thinking", "budget_tokens", "thinking_budget"},
    # Gemini's VALIDATED function calling mode is read as AUTO.
    "validated function calling of request bodies": {"mode"},
    # A total the Messages API has no place for, that the others' sum does not give back.
    "total token counts": {"total_tokens", "total_token_count"},
    # A call's arguments as JSON text (OpenAI's `arguments` string), spelled otherwise
    # than compactly, that a format holding them as an object gives back compact.
    "tool call argument text": {"arguments"},
    # Tool calls held apart from the content (Chat's tool_calls) come after it: a text
    # that followed a call comes back before it, one block moved past the other.
    "text after tool calls": {"text", "tool_use"},
    # An AI SDK UIMessage tool part's output that is not a string (a JSON value the
    # tool returned) is the text of a tool result elsewhere, and comes back as that text.
    "json tool outputs": {"output"},
    # OpenAI Chat's `modalities` is Gemini's generationConfig.responseModalities.
    "modalities of request bodies": {"modalities", "response_modalities"},
}
# Gemini parts have no "type": one present on one side only is named by its member.
GEMINI_PART_KEYS = ("functionCall", "functionResponse", "inlineData", "fileData", "executableCode",
                    "codeExecutionResult", "function_call", "function_response", "inline_data",
                    "file_data", "text")
GEMINI_MEDIA_KEYS = ("inlineData", "fileData", "inline_data", "file_data")
# The kinds of media blocks (and content parts) across the formats.
MEDIA_KINDS = {"image", "audio", "video", "document", "file", "image_url", "input_audio",
               "input_image", "input_file"}


def media_kind(mime):
    """The kind of block a Gemini part of media type `mime` is (convo's media_type_of)."""
    for major in ("image", "audio", "video"):
        if mime.startswith(major + "/"):
            return major
    if mime == "application/pdf" or mime.startswith("text/"):
        return "document"
    return "file"


# Nouns that name the kind of thing, not the thing: "thinking blocks" -> thinking.
GENERIC = re.compile(r"\s+(blocks?|records?|parts?|fields?|members?|items?|messages?|"
                     r"of request bodies|of response bodies|of response messages|of messages|of records|of items|"
                     r"of chat sessions|of tool calls|of contents|of system instructions|"
                     r"of tools|of usage|of error bodies|of reasoning settings|tools|of [a-z_]+ blocks|in tool results|in [a-z]+ messages|"
                     r"given by file id)$")  # "file blocks given by file id" -> file


def snake(name):
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return name.replace("-", "_").replace(" ", "_").lower()


def covered(loss, path):
    """True when the loss named `loss` covers the normalised JSON path `path`."""
    parts = {snake(p) for p in path.split(".")}
    parts |= {p[:-1] for p in parts if p.endswith("s")}
    # Responses content parts: input_file, input_image, output_text are file, image
    # and text blocks.
    parts |= {p.split("_", 1)[1] for p in parts
              if p in ("input_text", "input_image", "input_file", "input_audio", "output_text")}
    name = loss.lower()
    if parts & COVERS.get(name, set()):
        return True
    stem = loss  # its case kept: "usageMetadata of response bodies" -> usage_metadata
    while True:
        shorter = GENERIC.sub("", stem)
        if shorter == stem:
            break
        stem = shorter
    stem = snake(stem)
    return stem in parts or stem.rstrip("s") in parts


LOSS_LINE = re.compile(r"(\S+) cannot hold (.*?)(?=;\s*\S+ cannot hold|$)")
LOSS_ITEM = re.compile(r"\s*([^,;]+?) \((\d+)\)")


def losses(stderr):
    """The loss names a conversion printed: 'openai cannot hold thinking blocks (3)'."""
    return set(loss_counts(stderr))


def loss_counts(stderr):
    """Each loss name a conversion printed with its count: {'thinking blocks': 3}."""
    counts = {}
    for line in stderr.splitlines():
        for match in LOSS_LINE.finditer(line):
            for item in LOSS_ITEM.finditer(match.group(2)):
                name = item.group(1).strip()
                counts[name] = counts.get(name, 0) + int(item.group(2))
    return counts


def records(text):
    """The JSON values of `text`, one after another: JSONL, or a document
    pretty-printed over many lines (a request body written back as its own bytes).
    A line that is not JSON is a string of its own."""
    out = []
    decoder = json.JSONDecoder()
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        try:
            value, pos = decoder.raw_decode(text, pos)
            out.append(value)
        except ValueError:
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            out.append(text[pos:end].strip())
            pos = end


def flatten(recs):
    """A request or response body's messages as records of their own, and the
    body's other members (`model`, `usage`, `choices.finish_reason`, ...) apart:
    a round trip through a message-per-line format writes messages one per line,
    a change of layout, not of content. So is a document that is one JSON array of
    messages (LangChain's messages_to_dict dumped with json.dump): its messages are
    records too, and so are a `{"loglines": [...]}` document's (the wrapper of
    claude-code-transcripts' .json sessions, which reads the same records as JSONL
    lines)."""
    messages, body = [], {}
    listed = []
    for rec in recs:
        if isinstance(rec, list) and rec and all(isinstance(x, dict) for x in rec):
            listed.extend(rec)
        elif (isinstance(rec, dict) and set(rec) == {"loglines"} and
              isinstance(rec["loglines"], list)):
            listed.extend(rec["loglines"])
        else:
            listed.append(rec)
    for rec in listed:
        if isinstance(rec, dict) and isinstance(rec.get("messages"), list):
            if "system" in rec:  # an Anthropic request's system prompt leads the turns
                messages.append({"role": "system", "content": rec["system"]})
            messages.extend(rec["messages"])
            body.update({k: v for k, v in rec.items() if k not in ("messages", "system")})
        elif (isinstance(rec, dict) and "type" not in rec and "role" not in rec and
              (isinstance(rec.get("input"), (list, str)) or
               (isinstance(rec.get("output"), list) and
                (rec.get("object") == "response" or "usage" in rec or "status" in rec)))):
            # An OpenAI Responses request or response body: its items are records
            # (a string input one user message), `instructions` the system prompt.
            key = "input" if "input" in rec else "output"
            if isinstance(rec.get("instructions"), str):
                messages.append({"role": "system", "content": rec["instructions"]})
            items = rec[key]
            messages.extend([{"role": "user", "content": items}] if isinstance(items, str)
                            else items)
            body.update({k: v for k, v in rec.items() if k not in (key, "instructions")})
        elif isinstance(rec, dict) and ("contents" in rec or "systemInstruction" in rec):
            # A Gemini request: its systemInstruction is a line of its own per line.
            if "systemInstruction" in rec:
                messages.append({"systemInstruction": rec["systemInstruction"]})
            if isinstance(rec.get("contents"), list):
                messages.extend(rec["contents"])
            body.update({k: v for k, v in rec.items() if k not in ("contents", "systemInstruction")})
        elif isinstance(rec, dict) and isinstance(rec.get("candidates"), list):
            for candidate in rec["candidates"]:
                if isinstance(candidate, dict) and "content" in candidate:
                    messages.append(candidate["content"])
                    # Proto3 JSON leaves out a field at its default (Vertex AI writes no
                    # `index` for the first candidate): an index of 0 and none are the
                    # same candidate to every reader of the API.
                    body.update({k: v for k, v in candidate.items()
                                 if k != "content" and not (k == "index" and v == 0)})
            body.update({k: v for k, v in rec.items() if k != "candidates"})
        elif isinstance(rec, dict) and isinstance(rec.get("choices"), list):
            for choice in rec["choices"]:
                if isinstance(choice, dict) and "message" in choice:
                    messages.append(choice["message"])
                    body.update({k: v for k, v in choice.items() if k != "message"})
            body.update({k: v for k, v in rec.items() if k != "choices"})
        else:
            messages.append(rec)
    return messages, body


def says_something(record):
    """False for a system (or developer) message with no content: an empty system
    prompt instructs nothing, as none does, to every API (a Responses body's
    `"instructions": ""`, which formats without a place for an empty one leave out);
    nor an assistant message with no content and nothing else (a Responses `""`
    message item before the reply's function call, which formats holding a reply as
    one turn join with that call; an empty message the way back writes for a reply
    whose every item the target had no place for); nor a Gemini Content with no parts
    or only empty texts (`{}`, a candidate the API blocked, or a model turn of nothing:
    the same empty reply in Gemini's spelling)."""
    if isinstance(record, dict) and set(record) <= {"role", "parts"} and \
            record.get("role", "model") == "model" and \
            all(part == {"text": ""} for part in record.get("parts") or []):
        return False
    return not (isinstance(record, dict) and
                record.get("role") in ("system", "developer", "assistant") and
                not record.get("content") and set(record) <= {"role", "content"})


# The members of a Claude Code record's envelope that convo's claude-code writer makes
# when the record it writes had none: Claude Code loads no session without them
# (../shared/cc-oracle), and the ids and times are derived, not read.
CLAUDE_CODE_ENVELOPE = ("uuid", "parentUuid", "sessionId", "cwd", "version", "userType",
                        "isSidechain", "timestamp", "requestId")


def without_invented_envelope(own_records, back_records):
    """The way back's records without the envelope members that no record of the
    source file had (a fixture of bare `{"type", "message"}` records): what the
    claude-code writer adds so that Claude Code loads the file holds nothing the
    source said, so nothing of the source is lost or changed by it. A member that
    any source record has is compared as usual. Likewise a message `id` where no
    source message had one, and a message `role` that says the record's type where no
    source message had a role (ccusage's fixtures: `{"type": "user", "message": {}}`):
    the type says it, and is compared."""
    def has(key, inner=False):
        for r in own_records:
            if not isinstance(r, dict):
                continue
            target = r.get("message") if inner else r
            if isinstance(target, dict) and key in target:
                return True
        return False
    if not any(isinstance(r, dict) and "message" in r and "type" in r for r in own_records):
        return back_records  # not Claude Code records
    drop = [k for k in CLAUDE_CODE_ENVELOPE if not has(k)]
    drop_message_id = not has("id", inner=True)
    drop_role = not has("role", inner=True)
    out = []
    for r in back_records:
        if isinstance(r, dict) and "message" in r and "type" in r:
            r = {k: v for k, v in r.items() if k not in drop}
            message = r.get("message")
            if isinstance(message, dict):
                message = {k: v for k, v in message.items()
                           if not (k == "id" and drop_message_id) and
                           not (k == "role" and drop_role and v == r["type"])}
                if message:
                    r["message"] = message
                else:
                    del r["message"]  # {} counts as absent (tidy)
        out.append(r)
    return out


def is_session_meta(record):
    return (isinstance(record, dict) and record.get("type") == "session_meta" and
            isinstance(record.get("payload"), dict))


V4_TOOL_STATES = {"partial-call": "input-streaming", "call": "input-available",
                  "result": "output-available"}


def v5_tool_part(part):
    """An AI SDK version 4 UIMessage's tool-invocation part as the tool-NAME part it
    stands for today (the SDK's own migration; convo writes that, and names the
    change "version 4 tool invocations"): `toolInvocation`'s call id, state, input
    (`args`) and output (`result`) at the part's top level. Its `step` is what the
    step-start parts say."""
    invocation = part.get("toolInvocation") if isinstance(part, dict) else None
    if part.get("type") != "tool-invocation" or not isinstance(invocation, dict) or \
            not isinstance(invocation.get("toolName"), str):
        return part
    out = {"type": "tool-" + invocation["toolName"], "toolCallId": invocation.get("toolCallId"),
           "state": V4_TOOL_STATES.get(invocation.get("state"), invocation.get("state")),
           "input": invocation.get("input", invocation.get("args"))}
    if "result" in invocation:
        out["output"] = invocation["result"]
    return out


def tidy(value):
    """Drops what carries nothing: members that are null, [] or {} (not the one member
    of an array element: that names it), the
    `"type": "message"` marker of Anthropic response messages (a layout), and a
    content of one plain text block, the same as its text as a string."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = tidy(v)
            if v is None or v == [] or v == {}:
                continue
            if k == "type" and v == "message" and "role" in value:
                continue
            if k == "is_error" and v is False:
                continue  # the Messages API's default: a result is not an error unless told
            if k == "example" and v is False and "additional_kwargs" in value:
                continue  # a LangChain message's default: not an example unless told
            if k == "type" and v == "function" and "function" in value:
                continue  # the one type of a Chat tool call with a `function` (Mistral omits it)
            if (k == "content" and isinstance(v, list) and len(v) == 1 and
                    isinstance(v[0], dict) and set(v[0]) == {"type", "text"} and
                    v[0]["type"] in ("text", "input_text", "output_text")):
                v = v[0]["text"]  # one plain text block says what the string does
            if k == "content" and v == "":
                continue  # no text, as null or absent says (an assistant turn of tool calls),
                # also when spelled as one empty text block (the rule above)
            if k == "parts" and isinstance(v, list) and "role" in value:
                v = [v5_tool_part(p) for p in v]  # an AI SDK UIMessage's
            out[k] = v
        return out
    if isinstance(value, list):
        # An element that is one member holding {} says its member's name: a Gemini
        # tool switched on by naming it ({"googleSearch": {}}) is not an empty object.
        return [v if isinstance(v, dict) and len(v) == 1 and next(iter(v.values())) == {}
                else tidy(v) for v in value]
    return value


def canon(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def kind(value):
    if isinstance(value, dict):
        if value.get("type") == "file" and isinstance(value.get("url"), str) and \
                isinstance(value.get("mediaType"), str):
            # An AI SDK UIMessage's file part: the kind of block its media type makes,
            # as a Gemini media part's ("image blocks").
            return media_kind(value["mediaType"])
        for key in ("type", "role", "kind"):
            if isinstance(value.get(key), str):
                return value[key]
        if "systemInstruction" in value:
            return "system"  # a Gemini system instruction on a line of its own
        if value.get("object") == "response":
            return "response"  # a Responses body with no output items, not a `text` part
        if value.get("thought") is True and "text" in value:
            return "thought"  # a Gemini thought part: a thinking block, not a text part
        for key in GEMINI_PART_KEYS:
            if key in value:
                data = value[key]
                if key in GEMINI_MEDIA_KEYS and isinstance(data, dict):
                    mime = data.get("mimeType", data.get("mime_type"))
                    if isinstance(mime, str):
                        return media_kind(mime)  # as convo reads it: "video blocks"
                return key
        data = [k for k in value if k not in ("thought", "thoughtSignature", "thought_signature",
                                              "partMetadata", "videoMetadata")]
        if len(data) == 1:
            return data[0]  # a Gemini part of another kind (toolCall, toolResponse, ...)
        return "object"
    return type(value).__name__


def untimed(value):
    """`value` without its own time (a record's top-level "timestamp")."""
    if isinstance(value, dict) and "timestamp" in value:
        return {k: v for k, v in value.items() if k != "timestamp"}
    return value


def missing_name(path, value):
    """`path`.KIND for an element present on one side only; a record whose content is
    media alone is named by their kinds too (`<record>.user.audio`): it went with them;
    a Codex rollout line by its payload's type too."""
    name = join(path, kind(value))
    payload = value.get("payload") if isinstance(value, dict) else None
    if path == "<record>" and isinstance(payload, dict) and \
            isinstance(payload.get("type", payload.get("role")), str):
        # A Codex rollout line is of its payload's kind (every item line is a
        # `response_item`): `<record>.response_item.reasoning`; a message item (its
        # `"type": "message"` tidied away) of its role, `<record>.response_item.developer`.
        return f"{name}.{payload.get('type', payload.get('role'))}"
    if path == "<record>" and isinstance(value, dict):
        inner = value.get("message") if isinstance(value.get("message"), dict) else value
        for key in ("content", "parts"):
            items = inner.get(key)
            if isinstance(items, list) and items:
                kinds = {kind(item) for item in items}
                if kinds <= MEDIA_KINDS:
                    name += "." + ".".join(sorted(kinds))
                break
    return name


def pair_kind(value):
    """The kind changed elements are paired by first: kind(), a Codex rollout line's
    refined by its payload's call id or else type (every item line is a
    `response_item`), so that a function_call is compared with the call it came
    back as, not with the message or the next call after it; a Gemini content's by
    the ids of its functionCall parts."""
    payload = value.get("payload") if isinstance(value, dict) else None
    if isinstance(payload, dict) and isinstance(payload.get("call_id"), str):
        return f"{kind(value)}/{payload['call_id']}"
    # A Gemini content's calls by their ids likewise: a model turn that lost its thought
    # signatures is compared with the turn of the same calls, not with the turn before.
    parts = value.get("parts") if isinstance(value, dict) else None
    calls = [p["functionCall"]["id"] for p in parts or []
             if isinstance(p, dict) and isinstance(p.get("functionCall"), dict) and
             isinstance(p["functionCall"].get("id"), str)]
    if calls:
        return f"{kind(value)}/{','.join(calls)}"
    return "/".join(record_kinds(value))


def record_kinds(value):
    """A record's kinds: kind(), and a Codex rollout line's payload type (every item
    line is a `response_item`; its payload says which)."""
    payload = value.get("payload") if isinstance(value, dict) else None
    if isinstance(payload, dict) and isinstance(payload.get("type"), str):
        return (kind(value), payload["type"])
    return (kind(value),)


def text_type(blocks):
    """The type of the first text block of `blocks` ("text", "input_text", "output_text")."""
    for block in blocks:
        if isinstance(block, dict) and block.get("type") in ("text", "input_text", "output_text"):
            return block["type"]
    return "text"


def join(path, key):
    return f"{path}.{key}" if path else key


def diff(a, b, path, out):
    """Adds to `out` the normalised paths where JSON values `a` and `b` differ."""
    # A content string against a list of blocks: the string is one text block (as in
    # tidy), so that what the list has beside it is named (`content.thinking`).
    # Its type is the other side's text type, as tidy reads any of them as the string.
    # A Responses function_call_output's `output` is content too (a string or parts),
    # and an empty string no part at all.
    if path.split(".")[-1] in ("content", "output"):
        if isinstance(a, str) and isinstance(b, list):
            a = [{"type": text_type(b), "text": a}] if a else []
        elif isinstance(b, str) and isinstance(a, list):
            b = [{"type": text_type(a), "text": b}] if b else []
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() | b.keys():
            if key not in a or key not in b:
                value = a[key] if key in a else b[key]
                if key == "content" and isinstance(value, list) and value:
                    # Blocks on one side only, as an element on one side only is: by
                    # kind (a tool result whose every block was dropped, its content
                    # then empty, is `content.content.tool_reference`).
                    out.update(join(join(path, key), kind(v)) for v in value)
                elif key == "message" and isinstance(value, dict) and value:
                    # A Claude Code record's message on one side only (all that it
                    # held lost, as `{}` counts as absent) is named by its members,
                    # as a body member is (`message.usage`).
                    out.update(join(join(path, key), k) for k in value)
                else:
                    out.add(join(path, key))
            elif a[key] != b[key]:
                diff(a[key], b[key], join(path, key), out)
    elif isinstance(a, list) and isinstance(b, list):
        diff_sequences(a, b, path, out)
    elif a != b:
        out.add(path or "<value>")


def diff_body(a, b, out):
    """Adds to `out` the paths where the body members `a` and `b` differ. A member on
    one side only is named by what it holds, as an array element is by its kind: an
    object by its members (`generationConfig.responseModalities`), an array by its
    elements' kinds (`tools.web_search_20250305`), so that a settings object or a
    tools list whose every entry the target has no place for is named entry by entry."""
    for key in a.keys() | b.keys():
        if key in a and key in b:
            if a[key] != b[key]:
                diff(a[key], b[key], key, out)
            continue
        value = a[key] if key in a else b[key]
        if isinstance(value, dict) and value:
            out.update(join(key, k) for k in value)
        elif isinstance(value, list) and value:
            out.update(join(key, kind(v)) for v in value)
        else:
            out.add(key)


def diff_sequences(a, b, path, out, missing_at=None, within=None, gone=None):
    """Diffs two lists element by element, aligned as difflib aligns them; an element
    on one side only is named by its kind under `missing_at` (default: `path`). With
    `within` (a dict), each path found in a pair of elements also maps to the kinds
    of the left element of each pair it was found in (record_kinds; none when the
    two are of different kinds). With `gone` (a dict), each path that names an element
    on one side only maps to those elements."""
    # Aligned on what the elements hold but their times: a trip through a format
    # without times changes the time of every record, which must not leave the
    # records unaligned (they are still compared whole, their times too).
    matcher = difflib.SequenceMatcher(None, [canon(untimed(x)) for x in a],
                                      [canon(untimed(y)) for y in b], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for x, y in zip(a[i1:i2], b[j1:j2]):
                if x != y:
                    diff(x, y, path, out)
            continue
        left, right = a[i1:i2], b[j1:j2]
        # Elements of kinds the other side has none of (an info record dropped between
        # two turns; a system message that came back a developer one) are paired among
        # themselves, in order, so that they do not shift the pairing of the kinds both
        # sides have; what is left of them is named.
        left_kinds, right_kinds = {kind(x) for x in left}, {kind(y) for y in right}
        left_x = [x for x in left if kind(x) not in right_kinds]
        right_x = [y for y in right if kind(y) not in left_kinds]
        for x, y in zip(left_x, right_x):
            diff(x, y, path, out)
        for extra in left_x[len(right_x):] + right_x[len(left_x):]:
            missing(extra, path, out, missing_at, gone)
        left = [x for x in left if kind(x) in right_kinds]
        right = [y for y in right if kind(y) in left_kinds]
        # Two pairings, and the one that names fewer differences (a diff is the smallest
        # one): by kind alone (pair_changed), or elements that say the same thing (kind
        # and content) first, whatever changed around them. In a long run of user and
        # assistant records that all lost their envelopes, pairing by kind alone pairs a
        # record with its neighbour once one record is dropped, and names every member
        # of both; anchoring on content can split a run of items of other kinds badly.
        track = within is not None
        by_kind, anchored = set(), set()
        within_kind, within_anchored = {}, {}
        pair_changed(left, right, path, by_kind, missing_at, within_kind if track else None, gone)
        anchors = difflib.SequenceMatcher(None, [anchor(x) for x in left],
                                          [anchor(y) for y in right], autojunk=False)
        for aop, m1, m2, n1, n2 in anchors.get_opcodes():
            if aop == "equal":
                for x, y in zip(left[m1:m2], right[n1:n2]):
                    diff_pair(x, y, path, anchored, within_anchored if track else None)
            else:
                pair_changed(left[m1:m2], right[n1:n2], path, anchored, missing_at,
                             within_anchored if track else None, gone)
        chosen, chosen_within = ((anchored, within_anchored)
                                 if len(anchored - out) < len(by_kind - out)
                                 else (by_kind, within_kind))
        out |= chosen
        if track:
            for p, kinds in chosen_within.items():
                within.setdefault(p, set()).update(kinds)


def anchor(value):
    """What an element says apart from its envelope: its kind and its content (a
    record's `message.content`, a message's `content` or Gemini `parts`); for an
    element without content, all of it."""
    if isinstance(value, dict):
        inner = value.get("message") if isinstance(value.get("message"), dict) else value
        for key in ("content", "parts"):
            if key in inner:
                return canon([kind(value), inner[key]])
    return canon(value)


def diff_pair(x, y, path, out, within):
    """Diffs one pair; with `within`, notes the kinds of the record each path was
    found in. Only a pair of one kind stands for a record and what came back in its
    place."""
    if within is None:
        diff(x, y, path, out)
        return
    found = set()
    diff(x, y, path, found)
    out |= found
    for p in found:
        within.setdefault(p, set()).add((record_kinds(x) if kind(x) == kind(y) else (), id(x)))


def missing(extra, path, out, missing_at, gone):
    """Names `extra`, an element on one side only, by its kind; notes it in `gone`."""
    p = missing_name(path if missing_at is None else missing_at, extra)
    out.add(p)
    if gone is not None:
        gone.setdefault(p, []).append(extra)


def pair_changed(left, right, path, out, missing_at, within, gone=None, by=None):
    """Diffs changed elements, paired by kind first: a system prompt dropped before a
    changed function_call must not be compared with that function_call (it would
    name every member of both as a difference). Kinds are tried finest first
    (pair_kind, then kind); what is left is paired in order."""
    by = by or [pair_kind, kind]
    kinds = difflib.SequenceMatcher(None, [by[0](x) for x in left], [by[0](y) for y in right],
                                    autojunk=False)
    for kop, k1, k2, l1, l2 in kinds.get_opcodes():
        sub_left, sub_right = left[k1:k2], right[l1:l2]
        if kop == "replace" and len(by) > 1:
            pair_changed(sub_left, sub_right, path, out, missing_at, within, gone, by[1:])
            continue
        for x, y in zip(sub_left, sub_right):
            diff_pair(x, y, path, out, within)
        for extra in sub_left[len(sub_right):] + sub_right[len(sub_left):]:
            missing(extra, path, out, missing_at, gone)


def convo(binary, *args, stdin=None):
    result = subprocess.run([binary, *args], input=stdin, capture_output=True, timeout=120)
    return (result.returncode, result.stdout.decode("utf-8", "replace"),
            result.stderr.decode("utf-8", "replace"))


def check_file(binary, source, path):
    """[(target, path, excused_by or None)] for one corpus file."""
    rc, own, _ = convo(binary, "convert", "-q", "--from", source, "--to", source, path)
    if rc != 0:
        return []
    own_records, own_body = flatten(tidy(records(own)))
    own_records = [r for r in own_records if says_something(r)]
    # A file of AI SDK UIMessages is written back as UIMessages (the writer's default
    # for messages of other formats is ModelMessages).
    shape_args = []
    if source == "ai-sdk" and own_records and all(
            isinstance(r, dict) and isinstance(r.get("parts"), list) for r in own_records):
        shape_args = ["--ai-sdk-shape", "ui"]
    found = []
    for target in TARGETS:
        if target == source:
            continue
        rc, there, err1 = convo(binary, "convert", "--from", source, "--to", target, path)
        if rc != 0:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8") as tmp:
            tmp.write(there)
            tmp.flush()
            rc, back, err2 = convo(binary, "convert", "--from", target, "--to", source,
                                   *shape_args, tmp.name)
        if rc != 0:
            found.append((target, "<cannot read back>", None))
            continue
        paths = set()
        back_records, back_body = flatten(tidy(records(back)))
        back_records = [r for r in back_records if says_something(r)]
        back_records = without_invented_envelope(own_records, back_records)
        if not any(is_session_meta(r) for r in own_records):
            # A rollout without its session_meta line (an export) comes back with the
            # one convo writes, as Codex resumes no rollout without one
            # (tests/codex_oracle_test.sh): made of nothing the file said (an id
            # derived from the input's name, cwd "/", originator "convo").
            back_records = [r for r in back_records
                            if not (is_session_meta(r) and
                                    r["payload"].get("originator") == "convo")]
        within, gone = {}, {}
        diff_sequences(own_records, back_records, "", paths, missing_at="<record>", within=within,
                       gone=gone)
        body_paths = set()
        diff_body(own_body, back_body, body_paths)
        paths |= body_paths
        counts1, counts2 = loss_counts(err1), loss_counts(err2)
        named = set(counts1) | set(counts2)
        # A loss excuses the differences inside records of its kind ("session_meta
        # records (1)") only for as many records as it counted: the records of that
        # kind that differ, over every path, are at most its count (the larger of the
        # two conversions': both count the same records when both drop them), counting
        # only the records whose differences nothing else names. A record of a named
        # kind that changed beyond that count is a difference of its own.
        record_excuse, excused_records = {}, {}
        for p, entries in within.items():
            if any(covered(n, p) for n in named):
                continue  # excused by its own name: not by its record's kind
            for kinds, rid in entries:
                loss = next((n for n in sorted(named) for k in kinds if covered(n, k)), None)
                record_excuse[(kinds, rid)] = loss
                if loss is not None:
                    excused_records.setdefault(loss, set()).add(rid)
        over = {loss for loss, rids in excused_records.items()
                if len(rids) > max(counts1.get(loss, 0), counts2.get(loss, 0))}
        for p in sorted(paths):
            excuse = next((n for n in sorted(named) if covered(n, p)), None)
            if excuse is None and p in within and p not in body_paths:
                # Found only in records of kinds whose loss is named ("session_meta
                # records", "custom tool calls"): such a record did not make the trip
                # as it was, and what the way back wrote in its place is a new record,
                # so all its differences are that loss.
                excuses = [record_excuse[entry] for entry in sorted(within[p])]
                if all(excuses) and not over.intersection(excuses):
                    excuse = excuses[0]
            if excuse is None and p in gone and p not in body_paths:
                # Records on one side only, each a message whose every block is of a
                # kind a named loss covers ("tool_addition blocks"): with its blocks
                # dropped the message had nothing left to say, and went with them.
                excuses = [blocks_excuse(rec, named) for rec in gone[p]]
                if all(excuses):
                    excuse = excuses[0]
            found.append((target, p, excuse))
    return found


def blocks_excuse(record, named):
    """The loss that covers the kind of every block of `record`'s content (a message's
    `content`, a Claude Code record's `message.content`), or None: also when it has no
    list of blocks, unless it has no content at all (see below)."""
    inner = record.get("message") if isinstance(record, dict) else None
    inner = inner if isinstance(inner, dict) else record
    blocks = inner.get("content") if isinstance(inner, dict) else None
    if blocks is None and isinstance(inner, dict) and isinstance(inner.get("parts"), list):
        blocks = inner["parts"]  # an AI SDK UIMessage's
    if inner is record and isinstance(record, dict) and not blocks:
        # A message with no content (a refused reply: `"content": []`, a stop reason,
        # usage) whose every other member is a named loss: what came back is its role
        # alone, a message that says nothing (says_something), so it went with them.
        members = [k for k in record if k not in ("role", "type", "content")]
        excuses = [next((n for n in sorted(named) if covered(n, k)), None) for k in members]
        return excuses[0] if members and all(excuses) else None
    if not isinstance(blocks, list) or not blocks:
        return None
    excuses = [next((n for n in sorted(named) if covered(n, kind(b))), None) for b in blocks]
    return excuses[0] if all(excuses) else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("convo")
    parser.add_argument("source_dir")
    parser.add_argument("--update", action="store_true",
                        help="write the expectation file from this run")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--report", action="store_true",
                        help="list every unexcused difference: SOURCE -> TARGET PATH FILE")
    parser.add_argument("--summary", action="store_true",
                        help="count the unexcused differences by SOURCE -> TARGET and by "
                             "SOURCE PATH (over every target), largest first")
    parser.add_argument("--source", action="append", default=[], metavar="FORMAT",
                        help="only the corpus files of this source format (repeatable); "
                             "--update then rewrites only its rows")
    parser.add_argument("--match", metavar="TEXT",
                        help="only corpus files whose path contains TEXT (no --update)")
    args = parser.parse_args()
    if args.match and args.update:
        parser.error("--match checks part of a source's files: it cannot --update")
    corpus = os.path.join(args.source_dir, "..", "shared", "corpus")
    expected_file = os.path.join(args.source_dir, "tests", "roundtrip_losses.expected")
    if not os.path.isdir(corpus):
        print(f"SKIPPED: no corpus at {corpus}")
        return 77
    work = []
    shown = {}  # path read -> the corpus file it comes from
    snapshots = tempfile.TemporaryDirectory()
    for folder, source in SOURCES.items():
        root = os.path.join(corpus, folder)
        for dirpath, _, names in os.walk(root):
            for name in names:
                path = os.path.join(dirpath, name)
                if name.endswith((".json", ".jsonl")):
                    work.append((source, path))
                elif name.endswith(".snap"):
                    # A vitest snapshot is JavaScript: its messages, as JSONL.
                    jsonl = os.path.join(snapshots.name, f"{len(shown)}-{name}.jsonl")
                    with open(jsonl, "w", encoding="utf-8") as f:
                        f.write(ai_sdk_snapshots.to_jsonl(ai_sdk_snapshots.messages(path)))
                    shown[jsonl] = path
                    work.append((source, jsonl))
    if args.source:
        unknown = set(args.source) - set(SOURCES.values())
        if unknown:
            parser.error(f"unknown --source {', '.join(sorted(unknown))}")
        work = [w for w in work if w[0] in args.source]
    if args.match:
        work = [w for w in work if args.match in shown.get(w[1], w[1])]
    work.sort(key=lambda w: w[1])
    unexcused = []
    excused = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(check_file, args.convo, s, p): (s, p) for s, p in work}
        for future in concurrent.futures.as_completed(futures):
            source, path = futures[future]
            rel = os.path.relpath(shown.get(path, path), corpus)
            for target, p, excuse in future.result():
                if excuse is None:
                    unexcused.append(f"{source} -> {target} {p} {rel}")
                else:
                    excused += 1
    unexcused.sort()
    classes = collections.Counter(" ".join(u.split(" ")[:4]) for u in unexcused)
    print(f"{len(work)} files, {excused} differences excused by a named loss, "
          f"{len(unexcused)} unexcused")
    if args.report:
        for u in unexcused:
            print("  " + u)
    if args.summary:
        pairs = collections.Counter(" ".join(u.split(" ")[:3]) for u in unexcused)
        paths = collections.Counter(f"{u.split(' ')[0]} {u.split(' ')[3]}" for u in unexcused)
        print("by SOURCE -> TARGET:")
        for pair, count in sorted(pairs.items(), key=lambda c: (-c[1], c[0])):
            print(f"  {count} {pair}")
        print("by SOURCE PATH:")
        for cls, count in sorted(paths.items(), key=lambda c: (-c[1], c[0])):
            print(f"  {count} {cls}")
    def ours(cls):
        # With --source, only that source's rows are this run's to judge or rewrite.
        return not args.source or cls.split(" ", 1)[0] in args.source

    if args.update:
        kept = {}
        if args.source:
            with open(expected_file, encoding="utf-8") as f:
                f.readline()
                for line in f:
                    count, cls = line.rstrip("\n").split(" ", 1)
                    if not ours(cls):
                        kept[cls] = int(count)
        rows = {**kept, **classes}
        with open(expected_file, "w", encoding="utf-8") as f:
            f.write(f"{sum(rows.values())}\n")
            for cls, count in sorted(rows.items(), key=lambda c: (-c[1], c[0])):
                f.write(f"{count} {cls}\n")
        print(f"wrote {expected_file}")
        return 0
    with open(expected_file, encoding="utf-8") as f:
        limit = int(f.readline())
        listed = {}
        for line in f:
            count, cls = line.rstrip("\n").split(" ", 1)
            if ours(cls):
                listed[cls] = int(count)
    if args.source or args.match:
        limit = sum(listed.values())
    grown = [(cls, count) for cls, count in classes.items() if count > listed.get(cls, 0)]
    if len(unexcused) > limit:
        print(f"FAIL: {len(unexcused)} unexcused differences, more than the {limit} of "
              f"{expected_file}; classes that grew (SOURCE -> TARGET PATH):")
        for cls, count in sorted(grown, key=lambda c: -c[1])[:50]:
            print(f"  {cls}: {listed.get(cls, 0)} -> {count}")
        return 1
    if len(unexcused) < limit:
        print(f"fewer than the {limit} expected: lower the ratchet with --update")
    return 0


if __name__ == "__main__":
    sys.exit(main())
