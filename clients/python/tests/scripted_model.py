"""An OpenAI-compatible Chat Completions endpoint on a loopback port whose "model" is a scripted policy: a function
from the conversation so far to the next tool calls (or a final text). It stands in for an LLM so that a trainer's
rollout loop (verifiers' harness) can be driven end to end, deterministically, without weights.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# The next assistant turn: tool calls as (name, arguments) pairs, or the final text.
Turn = list[tuple[str, dict[str, Any]]] | str
# The policy sees the conversation and the tools offered (OpenAI Chat form).
Policy = Callable[[list[dict[str, Any]], list[dict[str, Any]]], Turn]


class ScriptedModel:
    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.requests: list[dict[str, Any]] = []
        self.url = ""

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(body)
        turn = self.policy(body.get("messages") or [], body.get("tools") or [])
        if isinstance(turn, str):
            message: dict[str, Any] = {"role": "assistant", "content": turn}
            finish = "stop"
        else:
            calls = [
                {
                    "id": f"call_{uuid.uuid4().hex[:12]}",
                    "type": "function",
                    "function": {"name": n, "arguments": json.dumps(a)},
                }
                for n, a in turn
            ]
            message = {"role": "assistant", "content": None, "tool_calls": calls}
            finish = "tool_calls"
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


def _chunks(completion: dict[str, Any]) -> Iterator[dict[str, Any]]:
    choice = completion["choices"][0]
    message = choice["message"]
    base = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    delta: dict[str, Any] = {"role": "assistant"}
    if message.get("content") is not None:
        delta["content"] = message["content"]
    if message.get("tool_calls"):
        delta["tool_calls"] = [dict(call, index=i) for i, call in enumerate(message["tool_calls"])]
    yield base | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    yield base | {"choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}
    yield base | {"choices": [], "usage": completion["usage"]}


class _Handler(BaseHTTPRequestHandler):
    model: ScriptedModel
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "only chat completions"}}', "application/json")
            return
        completion = self.model.completion(body)
        if body.get("stream"):
            events = "".join(f"data: {json.dumps(c)}\n\n" for c in _chunks(completion)) + "data: [DONE]\n\n"
            self._send(200, events.encode(), "text/event-stream")
        else:
            self._send(200, json.dumps(completion).encode(), "application/json")

    def do_GET(self) -> None:
        self._send(200, b'{"object": "list", "data": [{"id": "scripted", "object": "model"}]}', "application/json")

    def _send(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def scripted_model(policy: Policy) -> Iterator[ScriptedModel]:
    model = ScriptedModel(policy)
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Handler,), {"model": model}))
    model.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()


def assistant_turns(messages: list[dict[str, Any]]) -> int:
    return sum(1 for m in messages if m.get("role") == "assistant")
