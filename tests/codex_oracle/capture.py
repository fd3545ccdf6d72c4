#!/usr/bin/env python3
"""Loopback stand-in for the OpenAI Responses API: saves each request body, streams
back a one-message response saying 'ok'.

  capture.py PORT OUT_DIR
"""
import itertools
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OUT = sys.argv[2]
os.makedirs(OUT, exist_ok=True)
counter = itertools.count()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def log(self, line):
        with open(os.path.join(OUT, "log.txt"), "a", encoding="utf-8") as f:
            f.write(line + "\n")

    def reply(self, status, body, content_type="application/json"):
        data = body.encode()
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.log(f"GET {self.path}")
        self.reply(200, json.dumps({"object": "list", "data": [], "models": []}))

    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        body = self.rfile.read(n)
        self.log(f"POST {self.path} {n}")
        if not self.path.rstrip("/").endswith("/responses"):
            self.reply(404, "{}")
            return
        i = next(counter)
        with open(os.path.join(OUT, f"req-{i:03d}.json"), "wb") as f:
            f.write(body)
        try:
            req = json.loads(body)
        except ValueError:
            req = {}
        rid = f"resp_cap{i}"
        item = {"type": "message", "id": f"msg_cap{i}", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}]}
        response = {"id": rid, "object": "response", "created_at": 0, "status": "completed",
                    "model": req.get("model", "x"), "output": [item],
                    "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                              "output_tokens": 1,
                              "output_tokens_details": {"reasoning_tokens": 0},
                              "total_tokens": 11}}
        events = [
            ("response.created", {"type": "response.created",
                                  "response": dict(response, status="in_progress", output=[])}),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                            "item": dict(item, status="in_progress", content=[])}),
            ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item["id"],
                                            "output_index": 0, "content_index": 0, "delta": "ok"}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                           "item": item}),
            ("response.completed", {"type": "response.completed", "response": response}),
        ]
        text = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
        self.reply(200, text, "text/event-stream")


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
