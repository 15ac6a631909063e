"""A stand-in for Mirror's episode API at the HTTP boundary (respx), written from the contract in ISSUE-13-PLAN.md.

It is for the unit tests of the client and its adapters only; the integration tests meet the real Mirror. Its one
scenario: tools `records_get_invoices` and `finish_episode`; the episode ends on `finish_episode` with reward 1.0 if
the invoice was looked up first, else 0.0.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import respx

BASE = "http://mirror.test"

TOOLS_MCP: list[dict[str, Any]] = [
    {
        "name": "records_get_invoices",
        "description": "List invoices.",
        "inputSchema": {
            "type": "object",
            "properties": {"number": {"type": "string", "description": "the invoice number"}},
            "required": ["number"],
        },
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    },
    {
        "name": "finish_episode",
        "description": "End the episode.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": False,
            "openWorldHint": False,
        },
    },
]


def tools_as(format: str) -> list[dict[str, Any]]:
    if format == "mcp":
        return TOOLS_MCP
    if format == "openai_chat":
        return [
            {
                "type": "function",
                "function": {"name": t["name"], "description": t["description"], "parameters": t["inputSchema"]},
            }
            for t in TOOLS_MCP
        ]
    return [
        {"type": "function", "name": t["name"], "description": t["description"], "parameters": t["inputSchema"]}
        for t in TOOLS_MCP
    ]


def error(status: int, code: str, message: str, episode_id: str | None = None, **headers: str) -> httpx.Response:
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    if episode_id:
        body["error"]["episode_id"] = episode_id
    return httpx.Response(status, json=body, headers=headers)


@dataclass
class FakeEpisode:
    id: str
    token: str
    task: str
    steps: int = 0
    looked_up: bool = False
    ended: bool = False
    deleted: bool = False
    reward: float | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    #: Mirror failed to judge it: the grade's reward and passed are null.
    unjudgeable: bool = False


class FakeMirror:
    def __init__(self, router: respx.MockRouter | None = None, *, capacity: int = 10, base: str = BASE) -> None:
        self.router = router
        self.capacity = capacity
        self.base = base
        self.episodes: dict[str, FakeEpisode] = {}
        self.requests: list[httpx.Request] = []
        self.replays: dict[str, tuple[str, httpx.Response]] = {}
        self.lock = threading.Lock()
        if router is not None:
            router.route(host="mirror.test").mock(side_effect=self.handle)

    def start_json(self, episode: FakeEpisode) -> dict[str, Any]:
        return {
            "episode_id": episode.id,
            "token": episode.token,
            "environment": "clinic",
            "task": episode.task,
            "prompt": {
                "messages": [
                    {"role": "system", "content": "You are the billing desk's assistant. Policy: §1 privacy."},
                    {"role": "user", "content": "Resolve the dispute of INV-1 — übermäßig."},
                ],
                "policy": "§1 privacy",
            },
            "tools": TOOLS_MCP,
            "mcp": {
                "url": f"{self.base}/v1/episodes/{episode.id}/mcp",
                "headers": {"Authorization": f"Bearer {episode.token}"},
            },
            "limits": {"max_steps": 5, "ttl_seconds": 900, "horizon_business_days": 5},
        }

    def new_episode(self, task: str) -> FakeEpisode:
        n = len(self.episodes) + 1
        episode = FakeEpisode(id=f"ep_{n}", token=f"tok_{n}", task=task)
        self.episodes[episode.id] = episode
        return episode

    def live(self) -> int:
        return sum(1 for e in self.episodes.values() if not e.deleted)

    def handle(self, request: httpx.Request) -> httpx.Response:
        with self.lock:
            return self._handle(request)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        key = request.headers.get("Idempotency-Key")
        if key is not None and key in self.replays:
            body, response = self.replays[key]
            if body != request.content.decode():
                return error(422, "idempotency_key_reused", "the key came with another body")
            return response
        response = self.route(request)
        # As Mirror does: a request that failed keeps no key.
        if key is not None and response.status_code < 400:
            self.replays[key] = (request.content.decode(), response)
        return response

    def route(self, request: httpx.Request) -> httpx.Response:
        path, method = request.url.path, request.method
        if method == "GET" and path == "/v1/environments":
            return httpx.Response(
                200,
                json={
                    "environments": [
                        {
                            "id": "clinic",
                            "title": "Clinic",
                            "stack_version": "abc",
                            "scenarios": [{"id": "dispute", "title": "Dispute"}],
                            "splits": {
                                "train": {"first_seed": 1, "last_seed": 3},
                                "test": {"first_seed": 4, "last_seed": 4},
                            },
                        }
                    ]
                },
            )
        if method == "GET" and (m := re.fullmatch(r"/v1/environments/([^/]+)/tasks", path)):
            if m.group(1) != "clinic":
                return error(404, "environment_not_found", f"no environment {m.group(1)}")
            split = request.url.params.get("split", "train")
            seeds = [1, 2, 3] if split == "train" else [4]
            offset = int(request.url.params.get("offset", 0))
            limit = int(request.url.params.get("limit", 2))
            tasks = [{"id": f"dispute@{s}", "scenario": "dispute", "seed": s, "split": split} for s in seeds]
            page = tasks[offset : offset + limit]
            nxt = offset + limit if offset + limit < len(tasks) else None
            return httpx.Response(
                200, json={"tasks": page, "total": len(tasks), "offset": offset, "limit": limit, "next_offset": nxt}
            )
        if method == "GET" and path == "/v1/capacity":
            return httpx.Response(
                200, json={"live": self.live(), "max": self.capacity, "available": self.capacity - self.live()}
            )
        if method == "POST" and path in ("/v1/episodes", "/v1/episodes:group"):
            body = json.loads(request.content)
            n = body.get("n", 1) if path.endswith(":group") else 1
            if self.live() + n > self.capacity:
                return error(429, "capacity_exhausted", "no room", **{"Retry-After": "0"})
            task = body.get("task") or f"{body.get('scenario')}@{body.get('seed')}"
            if not task.startswith("dispute@"):
                return error(404, "task_not_found", f"no task {task}")
            if path.endswith(":group"):
                episodes = [self.start_json(self.new_episode(task)) for _ in range(n)]
                return httpx.Response(201, json={"group_id": "grp_1", "episodes": episodes})
            return httpx.Response(201, json=self.start_json(self.new_episode(task)))
        if m := re.fullmatch(r"/v1/episodes/([^/]+?)(/[a-z_]+)?", path):
            return self.episode_route(request, m.group(1), m.group(2) or "")
        return error(404, "route_not_found", f"{method} {path}")

    def episode_route(self, request: httpx.Request, episode_id: str, suffix: str) -> httpx.Response:
        episode = self.episodes.get(episode_id)
        if episode is None:
            return error(404, "episode_not_found", "no such episode", episode_id)
        auth = request.headers.get("Authorization")
        if auth is None:
            return error(401, "token_invalid", "no token", episode_id)
        if auth != f"Bearer {episode.token}":
            return error(403, "token_invalid", "another episode's token", episode_id)
        if episode.deleted:
            return error(410, "episode_deleted", "deleted", episode_id)
        method = request.method
        if method == "DELETE" and suffix == "":
            episode.deleted = True
            return httpx.Response(200, json={"episode_id": episode_id, "status": "deleted"})
        if method == "GET" and suffix == "":
            return httpx.Response(
                200,
                json={
                    "episode_id": episode_id,
                    "status": "ended" if episode.ended else "running",
                    "steps": episode.steps,
                    "business_time": "2026-09-14T09:00:00Z",
                    "expires_at": "2026-12-01T20:00:00Z",
                },
            )
        if method == "GET" and suffix == "/tools":
            return httpx.Response(
                200,
                json={
                    "episode_id": episode_id,
                    "format": request.url.params["format"],
                    "tools": tools_as(request.url.params["format"]),
                },
            )
        if method == "POST" and suffix == "/ping":
            return httpx.Response(200, json={"episode_id": episode_id, "expires_at": "2026-12-01T21:00:00Z"})
        if method == "POST" and suffix == "/grade":
            episode.ended = True
            if episode.unjudgeable:
                return httpx.Response(
                    200,
                    json={
                        "episode_id": episode_id,
                        "reward": None,
                        "passed": None,
                        "status": "infrastructure_error",
                        "reason": "the worker died",
                        "ended_by": "finished",
                        "violations": [],
                    },
                )
            reward = 1.0 if episode.looked_up else 0.0
            violations = [] if episode.looked_up else [{"rule": "answered", "severity": "major", "evidence": {}}]
            return httpx.Response(
                200,
                json={
                    "episode_id": episode_id,
                    "reward": reward,
                    "passed": reward == 1.0,
                    "status": "succeeded" if reward else "failed",
                    "reason": "",
                    "ended_by": "finished",
                    "violations": violations,
                },
            )
        if method == "GET" and suffix == "/trajectory":
            steps = [
                {
                    "index": i,
                    "at": "2026-12-01T18:00:00Z",
                    "business_time": "2026-09-14T09:00:00Z",
                    "call": {"id": c["id"], "name": c["name"], "arguments": c["arguments"]},
                    "observation": {"is_error": False, "structured": {}, "text": "ok"},
                }
                for i, c in enumerate(episode.calls)
            ]
            return httpx.Response(200, json={"episode_id": episode_id, "steps": steps, "events": []})
        if method == "POST" and suffix == "/tool_calls":
            return self.tool_calls(request, episode)
        return error(404, "route_not_found", f"{method} {suffix}")

    @staticmethod
    def parse_calls(body: Any) -> tuple[list[dict[str, Any]], str]:
        if isinstance(body, list) or "output" in body:
            items = body if isinstance(body, list) else body["output"]
            return [{"id": i["call_id"], "name": i["name"], "arguments": i["arguments"]} for i in items], "responses"
        raw = body["tool_calls"] if "tool_calls" in body else body["message"]["tool_calls"]
        calls = [{"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in raw]
        if not all(isinstance(c["name"], str) and isinstance(c["arguments"], str) for c in calls):
            raise ValueError("tool_calls/function: name and arguments must be strings")
        return calls, "chat"

    def tool_calls(self, request: httpx.Request, episode: FakeEpisode) -> httpx.Response:
        if episode.ended:
            return error(409, "episode_ended", "the episode has ended", episode.id)
        try:
            calls, shape = self.parse_calls(json.loads(request.content))
        except (ValueError, KeyError, TypeError) as problem:
            return error(400, "body_invalid", f"body: {problem}", episode.id)
        names = {t["name"] for t in TOOLS_MCP}
        observations = []
        for call in calls:
            # As Mirror does: a refused call is an error observation the model can read, not an HTTP error; it
            # reaches no twin and counts no step.
            if call["name"] not in names:
                observations.append((call["id"], f"unknown tool {call['name']}"))
                continue
            episode.steps += 1
            episode.calls.append(call)
            if call["name"] == "records_get_invoices":
                episode.looked_up = True
                text = json.dumps([{"id": 1, "number": json.loads(call["arguments"]).get("number")}])
            else:
                episode.ended = True
                episode.reward = None if episode.unjudgeable else 1.0 if episode.looked_up else 0.0
                text = json.dumps({"finished": True})
            observations.append((call["id"], text))
        answer: dict[str, Any] = {
            "episode_id": episode.id,
            "step": episode.steps,
            "terminated": episode.ended,
            "truncated": False,
        }
        if shape == "chat":
            answer["messages"] = [{"role": "tool", "tool_call_id": i, "content": t} for i, t in observations]
        else:
            answer["output"] = [{"type": "function_call_output", "call_id": i, "output": t} for i, t in observations]
        if episode.ended:
            answer["reward"] = episode.reward  # null when Mirror could not judge it
        return httpx.Response(200, json=answer)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeMirror

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        request = httpx.Request(self.command, f"{self.fake.base}{self.path}", headers=dict(self.headers), content=body)
        response = self.fake.handle(request)
        payload = response.content
        self.send_response(response.status_code)
        for name, value in response.headers.items():
            if name.lower() not in ("content-length", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def served_over_http(**options: Any) -> Iterator[FakeMirror]:
    """The same stand-in on a loopback port, for code in other processes (verifiers' tool server)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    fake = FakeMirror(base=f"http://127.0.0.1:{server.server_address[1]}", **options)
    handler = type("Handler", (_Handler,), {"fake": fake})
    server.RequestHandlerClass = handler
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
