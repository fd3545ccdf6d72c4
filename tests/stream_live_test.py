#!/usr/bin/env python3
"""convo stream translates a live stream event by event: events are fed through a
pipe one at a time, and each one's translation must come out before the next is
written (the pipe stays open, so convo cannot be waiting for the end). Then a
stream cut off mid-block must end with the target's error event and exit 3.

    stream_live_test.py CONVO_BINARY
"""
import os
import select
import subprocess
import sys
import time

convo = sys.argv[1]

ANTHROPIC = [
    ('message_start', '{"type":"message_start","message":{"id":"msg_live","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}'),
    ('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'),
    ('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking"}}'),
    ('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" now."}}'),
    ('content_block_stop', '{"type":"content_block_stop","index":0}'),
    ('content_block_start', '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_live","name":"get_weather","input":{}}}'),
    ('content_block_delta', '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\": "}}'),
    ('content_block_delta', '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\\"Paris\\"}"}}'),
    ('content_block_stop', '{"type":"content_block_stop","index":1}'),
    ('message_delta', '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}'),
    ('message_stop', '{"type":"message_stop"}'),
]

# What each event must bring out, translated to OpenAI (None: nothing, as
# content_block_stop says nothing in Chat chunks).
EXPECT = ['"role":"assistant"', None, '"content":"Checking"', '"content":" now."', None,
          '"name":"get_weather"', '"arguments":"{\\"city\\": "}', '"arguments":"\\"Paris\\"}"', None,
          '"finish_reason":"tool_calls"', '[DONE]']


def read_available(fd, wait):
    """What the pipe holds after up to `wait` seconds (returns once data came and
    then paused briefly)."""
    out = b""
    first = None
    deadline = time.monotonic() + wait
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return out, first
        ready, _, _ = select.select([fd], [], [], left if not out else min(left, 0.1))
        if not ready:
            if out:
                return out, first
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return out, first
        if first is None:
            first = time.monotonic()
        out += chunk


def live(target):
    proc = subprocess.Popen([convo, "stream", "--to", target], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    failures = 0
    latencies = []
    for (name, data), expect in zip(ANTHROPIC, EXPECT if target == "openai" else [None] * len(ANTHROPIC)):
        sent = time.monotonic()
        proc.stdin.write(f"event: {name}\ndata: {data}\n\n".encode())
        proc.stdin.flush()
        wanted = expect if target == "openai" else f"event: {name}"
        got, first = read_available(proc.stdout.fileno(), 0.3 if wanted is None else 5.0)
        got = got.decode()
        if wanted is None:
            if got:
                print(f"*** {target}: {name} should bring nothing, brought {got!r}")
                failures += 1
        elif wanted not in got:
            print(f"*** {target}: {name} was written, its translation {wanted!r} did not come out "
                  f"before the next event (got {got!r})")
            failures += 1
        else:
            latencies.append(first - sent)
        time.sleep(0.2)  # a pause between events, as a model's tokens come
    proc.stdin.close()
    rest = proc.stdout.read().decode()
    code = proc.wait()
    if code != 0 or rest:
        print(f"*** {target}: after the last event: exit {code}, more output {rest!r}")
        failures += 1
    if latencies:
        print(f"{target}: {len(latencies)} events came out before the next went in; "
              f"slowest {max(latencies) * 1000:.1f} ms after its event was written")
    return failures


def cut_off(target, error_text):
    stream = "".join(f"event: {n}\ndata: {d}\n\n" for n, d in ANTHROPIC[:7])
    proc = subprocess.run([convo, "stream", "--to", target], input=stream.encode(),
                          capture_output=True)
    out = proc.stdout.decode()
    last = [block for block in out.split("\n\n") if block.strip()][-1]
    if proc.returncode != 3 or error_text not in last:
        print(f"*** {target}: a cut-off stream should end with {error_text!r} and exit 3; "
              f"exit {proc.returncode}, last event {last!r}")
        return 1
    print(f"{target}: a cut-off stream ends with the error event, exit 3")
    return 0


failures = live("openai") + live("anthropic")
failures += cut_off("openai", 'data: {"error":') + cut_off("anthropic", "event: error")
sys.exit(1 if failures else 0)
