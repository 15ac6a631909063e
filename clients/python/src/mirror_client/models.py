"""The episode API's answers as typed, immutable values.

Each value is read from the JSON the API sends (`from_json`), refusing an answer that lacks a field the contract
promises (`MirrorProtocolError` naming it) and keeping the whole body in `raw` so fields added later stay reachable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, cast

from .errors import MirrorProtocolError

JsonObject = dict[str, Any]
ToolFormat = Literal["mcp", "openai_chat", "openai_responses"]
TOOL_FORMATS: tuple[ToolFormat, ...] = ("mcp", "openai_chat", "openai_responses")

T = TypeVar("T")


def _field(body: Any, name: str, kind: type[T] | tuple[type, ...], where: str) -> T:
    if not isinstance(body, dict):
        raise MirrorProtocolError(f"{where}: expected a JSON object, got {type(body).__name__}")
    if name not in body:
        raise MirrorProtocolError(f"{where}: missing field '{name}'")
    value = body[name]
    # bool is an int in Python; the contract never sends one for a number.
    bool_allowed = kind is bool or (isinstance(kind, tuple) and bool in kind)
    if not isinstance(value, kind) or (isinstance(value, bool) and not bool_allowed):
        raise MirrorProtocolError(f"{where}.{name}: expected {_kind_name(kind)}, got {type(value).__name__}")
    return cast(T, value)


def _optional(body: JsonObject, name: str, kind: type[T] | tuple[type, ...], where: str) -> T | None:
    if body.get(name) is None:
        return None
    return _field(body, name, kind, where)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    if isinstance(kind, tuple):
        return " or ".join(k.__name__ for k in kind)
    return kind.__name__


def _number(body: JsonObject, name: str, where: str) -> float:
    return float(_field(body, name, (int, float), where))


@dataclass(frozen=True)
class ScenarioSummary:
    id: str
    title: str


@dataclass(frozen=True)
class SeedRange:
    first_seed: int
    last_seed: int


@dataclass(frozen=True)
class Environment:
    """A bundle `mirror up` serves; its id is the bundle's folder name."""

    id: str
    title: str
    stack_version: str
    scenarios: list[ScenarioSummary]
    splits: dict[str, SeedRange]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, body: Any, where: str = "environment") -> Environment:
        scenarios = [
            ScenarioSummary(_field(s, "id", str, f"{where}.scenarios[{i}]"), str(s.get("title", "")))
            for i, s in enumerate(_field(body, "scenarios", list, where))
        ]
        splits = {
            name: SeedRange(
                _field(split, "first_seed", int, f"{where}.splits.{name}"),
                _field(split, "last_seed", int, f"{where}.splits.{name}"),
            )
            for name, split in _field(body, "splits", dict, where).items()
        }
        return cls(
            id=_field(body, "id", str, where),
            title=str(body.get("title", "")),
            stack_version=str(body.get("stack_version", "")),
            scenarios=scenarios,
            splits=splits,
            raw=body,
        )


@dataclass(frozen=True)
class TaskRef:
    """One task of an environment: a scenario at a seed, `<scenario>@<seed>`."""

    id: str
    scenario: str
    seed: int
    split: str

    @classmethod
    def from_json(cls, body: Any, where: str = "task") -> TaskRef:
        return cls(
            id=_field(body, "id", str, where),
            scenario=_field(body, "scenario", str, where),
            seed=_field(body, "seed", int, where),
            split=_field(body, "split", str, where),
        )


@dataclass(frozen=True)
class TaskPage:
    tasks: list[TaskRef]
    total: int
    offset: int
    limit: int
    next_offset: int | None

    @classmethod
    def from_json(cls, body: Any) -> TaskPage:
        where = "tasks page"
        return cls(
            tasks=[TaskRef.from_json(t, f"tasks[{i}]") for i, t in enumerate(_field(body, "tasks", list, where))],
            total=_field(body, "total", int, where),
            offset=_field(body, "offset", int, where),
            limit=_field(body, "limit", int, where),
            next_offset=_optional(body, "next_offset", int, where),
        )


@dataclass(frozen=True)
class Prompt:
    """What the agent is told: the system and user messages, and the policy it works under."""

    messages: list[JsonObject]
    policy: str | None

    def _content(self, role: str) -> str:
        return "\n\n".join(str(m.get("content", "")) for m in self.messages if m.get("role") == role)

    @property
    def system(self) -> str:
        return self._content("system")

    @property
    def user(self) -> str:
        return self._content("user")

    @classmethod
    def from_json(cls, body: Any, where: str = "prompt") -> Prompt:
        messages = _field(body, "messages", list, where)
        for i, message in enumerate(messages):
            _field(message, "role", str, f"{where}.messages[{i}]")
        return cls(messages=messages, policy=_optional(body, "policy", str, where))


@dataclass(frozen=True)
class McpEndpoint:
    """The episode's own MCP server (Streamable HTTP): its URL and the headers that open it."""

    url: str
    headers: dict[str, str]


@dataclass(frozen=True)
class Limits:
    max_steps: int
    ttl_seconds: int
    horizon_business_days: float


@dataclass(frozen=True)
class EpisodeStart:
    """`POST /v1/episodes`' answer: everything an agent needs to start acting."""

    episode_id: str
    token: str
    environment: str
    task: str
    prompt: Prompt
    #: The tools in MCP's shape (`name`, `description`, `inputSchema`, `annotations`).
    tools: list[JsonObject]
    mcp: McpEndpoint | None
    limits: Limits | None
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, body: Any, where: str = "episode") -> EpisodeStart:
        mcp_body = body.get("mcp") if isinstance(body, dict) else None
        mcp = (
            McpEndpoint(_field(mcp_body, "url", str, f"{where}.mcp"), dict(mcp_body.get("headers") or {}))
            if isinstance(mcp_body, dict)
            else None
        )
        limits_body = body.get("limits") if isinstance(body, dict) else None
        limits = (
            Limits(
                max_steps=_field(limits_body, "max_steps", int, f"{where}.limits"),
                ttl_seconds=_field(limits_body, "ttl_seconds", int, f"{where}.limits"),
                horizon_business_days=_number(limits_body, "horizon_business_days", f"{where}.limits"),
            )
            if isinstance(limits_body, dict)
            else None
        )
        return cls(
            episode_id=_field(body, "episode_id", str, where),
            token=_field(body, "token", str, where),
            environment=str(body.get("environment", "")),
            task=str(body.get("task", "")),
            prompt=Prompt.from_json(_field(body, "prompt", dict, where), f"{where}.prompt"),
            tools=_field(body, "tools", list, where),
            mcp=mcp,
            limits=limits,
            raw=body,
        )


@dataclass(frozen=True)
class ToolCallResult:
    """What `POST …/tool_calls` answered: the observations in the shape the calls came in."""

    episode_id: str
    step: int
    #: Chat shape: one `{"role": "tool", "tool_call_id", "content"}` message per call.
    messages: list[JsonObject] | None
    #: Responses shape: one `{"type": "function_call_output", "call_id", "output"}` item per call.
    output: list[JsonObject] | None
    terminated: bool
    truncated: bool
    #: The episode's reward, once it has ended and been graded.
    reward: float | None
    raw: JsonObject = field(repr=False, compare=False)

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    @property
    def observations(self) -> list[JsonObject]:
        """The tool messages or output items, whichever shape was asked."""
        return list(self.messages if self.messages is not None else self.output or [])

    @classmethod
    def from_json(cls, body: Any) -> ToolCallResult:
        where = "tool_calls answer"
        messages = _optional(body, "messages", list, where)
        output = _optional(body, "output", list, where)
        if messages is None and output is None:
            raise MirrorProtocolError(f"{where}: neither 'messages' nor 'output'")
        reward = body.get("reward")
        return cls(
            episode_id=_field(body, "episode_id", str, where),
            step=_field(body, "step", int, where),
            messages=messages,
            output=output,
            terminated=_field(body, "terminated", bool, where),
            truncated=_field(body, "truncated", bool, where),
            reward=None if reward is None else _number(body, "reward", where),
            raw=body,
        )


EpisodeState = Literal["running", "ended", "expired"]


@dataclass(frozen=True)
class EpisodeStatus:
    episode_id: str
    status: str
    steps: int
    business_time: str | None
    expires_at: str | None
    outcome: JsonObject | None
    raw: JsonObject = field(repr=False, compare=False)

    @property
    def running(self) -> bool:
        return self.status == "running"

    @classmethod
    def from_json(cls, body: Any) -> EpisodeStatus:
        where = "episode status"
        return cls(
            episode_id=_field(body, "episode_id", str, where),
            status=_field(body, "status", str, where),
            steps=_field(body, "steps", int, where),
            business_time=_optional(body, "business_time", str, where),
            expires_at=_optional(body, "expires_at", str, where),
            outcome=_optional(body, "outcome", dict, where),
            raw=body,
        )


@dataclass(frozen=True)
class Violation:
    rule: str
    severity: str
    evidence: Any


@dataclass(frozen=True)
class Grade:
    """The episode's grade, from what the twins recorded (never the agent's own say-so).

    `reward` and `passed` are None when the episode could not be judged as the agent's doing (`status`
    `infrastructure_error`): such an episode is Mirror's failure, to be kept apart from the agent's scores."""

    episode_id: str
    reward: float | None
    passed: bool | None
    status: str
    reason: str
    #: What ended it: `finished`, `horizon`, `truncated` or `expired`.
    ended_by: str | None
    violations: list[Violation]
    raw: JsonObject = field(repr=False, compare=False)

    @property
    def infrastructure_error(self) -> bool:
        return self.reward is None

    @classmethod
    def from_json(cls, body: Any) -> Grade:
        where = "grade"
        violations = [
            Violation(
                rule=_field(v, "rule", str, f"{where}.violations[{i}]"),
                severity=str(v.get("severity", "")),
                evidence=v.get("evidence"),
            )
            for i, v in enumerate(body.get("violations") or [] if isinstance(body, dict) else [])
        ]
        reward: float | None = _field(body, "reward", (int, float, type(None)), where)
        return cls(
            episode_id=_field(body, "episode_id", str, where),
            reward=None if reward is None else float(reward),
            passed=cast("bool | None", _field(body, "passed", (bool, type(None)), where)),
            status=str(body.get("status", "")),
            reason=str(body.get("reason", "")),
            ended_by=_optional(body, "ended_by", str, where),
            violations=violations,
            raw=body,
        )


@dataclass(frozen=True)
class RecordedCall:
    id: str
    name: str
    arguments: Any


@dataclass(frozen=True)
class RecordedObservation:
    is_error: bool
    structured: Any
    text: str


@dataclass(frozen=True)
class TrajectoryStep:
    index: int
    at: str | None
    business_time: str | None
    call: RecordedCall
    observation: RecordedObservation
    #: The episode's reward, on the final step once it ended (sparse).
    reward: float | None
    #: The grader's per-step reward credited to this call (milestones, rules broken), when Mirror sends one.
    process_reward: float | None
    #: False for a refused call (unknown tool, arguments breaking the schema): kept, but no step.
    counted: bool

    @classmethod
    def from_json(cls, body: Any, where: str) -> TrajectoryStep:
        call = _field(body, "call", dict, where)
        observation = _field(body, "observation", dict, where)
        reward = body.get("reward")
        return cls(
            index=_field(body, "index", int, where),
            at=_optional(body, "at", str, where),
            business_time=_optional(body, "business_time", str, where),
            call=RecordedCall(
                id=str(call.get("id", "")),
                name=_field(call, "name", str, f"{where}.call"),
                arguments=call.get("arguments"),
            ),
            observation=RecordedObservation(
                is_error=bool(observation.get("is_error", observation.get("isError", False))),
                structured=observation.get("structured"),
                text=str(observation.get("text", "")),
            ),
            reward=None if reward is None else _number(body, "reward", where),
            process_reward=None if body.get("process_reward") is None else _number(body, "process_reward", where),
            counted=bool(body.get("counted", True)),
        )


@dataclass(frozen=True)
class Trajectory:
    """Every tool call, its arguments, what it returned and when, in order, beside the domain events."""

    episode_id: str
    steps: list[TrajectoryStep]
    events: list[Any]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, body: Any) -> Trajectory:
        where = "trajectory"
        return cls(
            episode_id=_field(body, "episode_id", str, where),
            steps=[
                TrajectoryStep.from_json(s, f"{where}.steps[{i}]")
                for i, s in enumerate(_field(body, "steps", list, where))
            ],
            events=list(body.get("events") or []),
            raw=body,
        )


@dataclass(frozen=True)
class Capacity:
    live: int
    max: int
    available: int

    @classmethod
    def from_json(cls, body: Any) -> Capacity:
        where = "capacity"
        return cls(
            live=_field(body, "live", int, where),
            max=_field(body, "max", int, where),
            available=_field(body, "available", int, where),
        )
