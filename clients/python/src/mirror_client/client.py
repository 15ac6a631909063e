"""`MirrorClient`: Mirror's REST episode API over httpx, and `Episode`, one live episode with its own token."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping
from types import TracebackType
from typing import Any
from urllib.parse import quote

import httpx

from .errors import (
    CapacityExhaustedError,
    GoneError,
    MirrorConnectionError,
    MirrorProtocolError,
    NotFoundError,
    api_error,
    retry_after_seconds,
)
from .models import (
    TOOL_FORMATS,
    Capacity,
    Environment,
    EpisodeStart,
    EpisodeStatus,
    Grade,
    JsonObject,
    Limits,
    McpEndpoint,
    Prompt,
    TaskPage,
    TaskRef,
    ToolCallResult,
    ToolFormat,
    Trajectory,
)
from .tool_calls import new_call_id, tool_call_body

# Answers worth a second try with the same Idempotency-Key: the gateway or server was briefly unavailable.
_RETRIED_STATUSES = frozenset({502, 503, 504})


class MirrorClient:
    """A client of one Mirror control plane (`base_url` as `mirror up` prints it, e.g. `http://127.0.0.1:4000`).

    Every mutation carries an `Idempotency-Key` (yours, or a fresh one per call), so a request lost to the network
    or answered 502/503/504 is retried with the same key (`retries` times) and never takes effect twice.
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 120.0,
        retries: int = 2,
        http: httpx.Client | None = None,
    ) -> None:
        root = base_url.rstrip("/")
        if root.endswith("/v1"):
            root = root[: -len("/v1")]
        self.base_url = root
        self.retries = retries
        self._own_http = http is None
        self._http = http or httpx.Client(timeout=timeout)

    # --- transport ---------------------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        token: str | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """One API call; the decoded JSON answer, or a `MirrorAPIError` subclass carrying the API's error code."""
        headers = {"Accept": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        mutation = method.upper() not in ("GET", "HEAD")
        if mutation:
            headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        url = f"{self.base_url}{path}"
        query = {k: v for k, v in (params or {}).items() if v is not None}
        attempt = 0
        while True:
            try:
                response = self._http.request(method, url, json=json, params=query, headers=headers)
            except httpx.TransportError as error:
                if attempt < self.retries:
                    attempt += 1
                    time.sleep(0.2 * 2**attempt)
                    continue
                raise MirrorConnectionError(f"{method} {url}: {error}") from error
            if attempt < self.retries and _worth_retrying(response):
                attempt += 1
                retry_after = retry_after_seconds(response.headers.get("Retry-After"))
                time.sleep(min(retry_after, 10.0) if retry_after is not None else 0.2 * 2**attempt)
                continue
            return _decoded(response, f"{method} {path}")

    def close(self) -> None:
        if self._own_http:
            self._http.close()

    def __enter__(self) -> MirrorClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- environments and tasks --------------------------------------------------------------------------------

    def environments(self) -> list[Environment]:
        body = self.request("GET", "/v1/environments")
        items = body.get("environments") if isinstance(body, dict) else None
        if not isinstance(items, list):
            raise MirrorProtocolError("GET /v1/environments: missing 'environments' list")
        return [Environment.from_json(e, f"environments[{i}]") for i, e in enumerate(items)]

    def tasks(
        self, environment: str, split: str | None = None, offset: int | None = None, limit: int | None = None
    ) -> TaskPage:
        """One page of an environment's tasks (scenarios × seeds of the split)."""
        body = self.request(
            "GET",
            f"/v1/environments/{_segment(environment)}/tasks",
            params={"split": split, "offset": offset, "limit": limit},
        )
        return TaskPage.from_json(body)

    def iter_tasks(self, environment: str, split: str | None = None, page_size: int = 100) -> Iterator[TaskRef]:
        """Every task of the split, page by page."""
        offset: int | None = 0
        while offset is not None:
            page = self.tasks(environment, split, offset, page_size)
            yield from page.tasks
            offset = page.next_offset

    def capacity(self) -> Capacity:
        return Capacity.from_json(self.request("GET", "/v1/capacity"))

    def openapi(self) -> JsonObject:
        body = self.request("GET", "/openapi.json")
        if not isinstance(body, dict):
            raise MirrorProtocolError("GET /openapi.json: not a JSON object")
        return body

    # --- episodes ----------------------------------------------------------------------------------------------

    def create_episode(
        self,
        environment: str,
        task: str | TaskRef | None = None,
        *,
        scenario: str | None = None,
        seed: int | None = None,
        max_steps: int | None = None,
        idempotency_key: str | None = None,
        capacity_wait: float = 0.0,
    ) -> Episode:
        """Start one episode of `task` (`<scenario>@<seed>`, or `scenario=` and `seed=`).

        Past capacity the API answers 429: with `capacity_wait` seconds to spare, the client waits as `Retry-After`
        says and tries again (same Idempotency-Key); else `CapacityExhaustedError` with `retry_after`.
        """
        body = _start_body(environment, task, scenario, seed, max_steps)
        answer = self._create("/v1/episodes", body, idempotency_key, capacity_wait)
        return Episode(self, EpisodeStart.from_json(answer))

    def create_group(
        self,
        environment: str,
        task: str | TaskRef | None = None,
        n: int = 2,
        *,
        scenario: str | None = None,
        seed: int | None = None,
        max_steps: int | None = None,
        idempotency_key: str | None = None,
        capacity_wait: float = 0.0,
    ) -> EpisodeGroup:
        """`n` episodes of one task with identical starts (a GRPO group)."""
        if n < 1:
            raise ValueError("a group needs n >= 1 episodes")
        body = {**_start_body(environment, task, scenario, seed, max_steps), "n": n}
        answer = self._create("/v1/episodes:group", body, idempotency_key, capacity_wait)
        if not isinstance(answer, dict) or not isinstance(answer.get("episodes"), list):
            raise MirrorProtocolError("POST /v1/episodes:group: missing 'episodes' list")
        episodes = [
            Episode(self, EpisodeStart.from_json(e, f"episodes[{i}]")) for i, e in enumerate(answer["episodes"])
        ]
        return EpisodeGroup(str(answer.get("group_id", "")), episodes)

    def episode(self, episode_id: str, token: str) -> Episode:
        """An episode started elsewhere (its id and token), e.g. handed over by another process."""
        start = EpisodeStart(
            episode_id=episode_id,
            token=token,
            environment="",
            task="",
            prompt=Prompt(messages=[], policy=None),
            tools=[],
            mcp=None,
            limits=None,
            raw={},
        )
        return Episode(self, start)

    def _create(self, path: str, body: JsonObject, idempotency_key: str | None, capacity_wait: float) -> Any:
        key = idempotency_key or str(uuid.uuid4())
        deadline = time.monotonic() + capacity_wait
        while True:
            # A refused request keeps no key on the server, so trying again under the same key is safe.
            try:
                return self.request("POST", path, json=body, idempotency_key=key)
            except CapacityExhaustedError as error:
                pause = error.retry_after if error.retry_after is not None else 1.0
                if time.monotonic() + pause > deadline:
                    raise
                time.sleep(pause)


class Episode:
    """One live episode. Its bearer token is sent for you on every call; the episode id is on every answer."""

    def __init__(self, client: MirrorClient, start: EpisodeStart) -> None:
        self.client = client
        self.start = start
        self.last_result: ToolCallResult | None = None

    @property
    def id(self) -> str:
        return self.start.episode_id

    @property
    def token(self) -> str:
        return self.start.token

    @property
    def prompt(self) -> Prompt:
        return self.start.prompt

    @property
    def mcp(self) -> McpEndpoint | None:
        return self.start.mcp

    @property
    def limits(self) -> Limits | None:
        return self.start.limits

    def __repr__(self) -> str:
        return f"Episode({self.id!r}, task={self.start.task!r})"

    def _call(self, method: str, suffix: str = "", **kwargs: Any) -> Any:
        return self.client.request(method, f"/v1/episodes/{_segment(self.id)}{suffix}", token=self.token, **kwargs)

    def tool_calls(self, calls: Any, *, idempotency_key: str | None = None) -> ToolCallResult:
        """Perform tool calls: a Chat assistant message or its `tool_calls`, Responses `function_call` items or a
        whole Response, OpenAI SDK objects, or plain `{"name", "arguments"}` dicts. Observations come back in the
        shape the calls came in (`messages` for Chat, `output` for Responses)."""
        _, body = tool_call_body(calls)
        result = ToolCallResult.from_json(self._call("POST", "/tool_calls", json=body, idempotency_key=idempotency_key))
        self.last_result = result
        return result

    def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        call_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> ToolCallResult:
        """One tool call by name (Chat shape)."""
        call = {"id": call_id or new_call_id(), "name": name, "arguments": dict(arguments or {})}
        return self.tool_calls([call], idempotency_key=idempotency_key)

    def tools(self, format: ToolFormat = "mcp") -> list[JsonObject]:
        """The episode's tools in `mcp`, `openai_chat` or `openai_responses` form."""
        if format not in TOOL_FORMATS:
            raise ValueError(f"format must be one of {', '.join(TOOL_FORMATS)}, not {format!r}")
        body = self._call("GET", "/tools", params={"format": format})
        tools = body.get("tools") if isinstance(body, dict) else None
        if not isinstance(tools, list):
            raise MirrorProtocolError("GET …/tools: missing 'tools' list")
        return tools

    def status(self) -> EpisodeStatus:
        return EpisodeStatus.from_json(self._call("GET"))

    def grade(self, *, idempotency_key: str | None = None) -> Grade:
        """Grade the episode (ending it first if it still runs) from what the twins recorded."""
        return Grade.from_json(self._call("POST", "/grade", idempotency_key=idempotency_key))

    def trajectory(self) -> Trajectory:
        return Trajectory.from_json(self._call("GET", "/trajectory"))

    def ping(self, *, idempotency_key: str | None = None) -> str | None:
        """Keep an idle episode alive; returns the new `expires_at`."""
        body = self._call("POST", "/ping", idempotency_key=idempotency_key)
        expires = body.get("expires_at") if isinstance(body, dict) else None
        return expires if isinstance(expires, str) else None

    def delete(self, *, idempotency_key: str | None = None) -> None:
        """Delete the episode; later calls get 410 `episode_deleted`."""
        self._call("DELETE", idempotency_key=idempotency_key)

    def __enter__(self) -> Episode:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        try:
            self.delete()
        except (GoneError, NotFoundError):
            pass


class EpisodeGroup:
    """Episodes of one task with identical starts."""

    def __init__(self, group_id: str, episodes: list[Episode]) -> None:
        self.group_id = group_id
        self.episodes = episodes

    def __iter__(self) -> Iterator[Episode]:
        return iter(self.episodes)

    def __len__(self) -> int:
        return len(self.episodes)

    def __getitem__(self, index: int) -> Episode:
        return self.episodes[index]

    def delete(self) -> None:
        for episode in self.episodes:
            try:
                episode.delete()
            except (GoneError, NotFoundError):
                pass


def _segment(value: str) -> str:
    """A path segment, percent-encoded so an id can never reach another route."""
    return quote(value, safe="@:")


def _start_body(
    environment: str,
    task: str | TaskRef | None,
    scenario: str | None,
    seed: int | None,
    max_steps: int | None,
) -> JsonObject:
    body: JsonObject = {"environment": environment}
    if task is not None:
        if scenario is not None or seed is not None:
            raise ValueError("give either task or scenario and seed, not both")
        body["task"] = task.id if isinstance(task, TaskRef) else task
    elif scenario is not None and seed is not None:
        body["scenario"] = scenario
        body["seed"] = seed
    else:
        raise ValueError("give task ('<scenario>@<seed>') or both scenario and seed")
    if max_steps is not None:
        body["max_steps"] = max_steps
    return body


def _worth_retrying(response: httpx.Response) -> bool:
    """Gateway trouble, or the same key's first request still being answered (its answer will be replayed)."""
    if response.status_code in _RETRIED_STATUSES:
        return True
    if response.status_code != 429:
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, dict) and error.get("code") == "idempotency_key_in_flight"


def _decoded(response: httpx.Response, what: str) -> Any:
    try:
        body = response.json() if response.content else None
    except ValueError:
        body = None
        if response.is_success:
            raise MirrorProtocolError(f"{what}: answer is not JSON ({response.status_code})") from None
    if not response.is_success:
        raise api_error(
            response.status_code,
            body,
            retry_after_header=response.headers.get("Retry-After"),
            fallback_text=response.text,
        )
    return body
