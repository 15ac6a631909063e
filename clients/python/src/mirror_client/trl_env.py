"""Mirror episodes for TRL's `GRPOTrainer(environment_factory=...)`, duck-typed: importing this needs neither TRL nor
torch.

TRL's contract (trl 1.16, `GRPOTrainer.environment_factory`): the factory returns a fresh environment per rollout;
`reset(**row)` gets the dataset row and returns text appended to the last user message; every public method of the
environment's class is a tool, described to the model from its signature and Google-style docstring
(`transformers.utils.get_json_schema`) and called with the model's arguments as keywords; `get_reward()` scores the
finished rollout. Mirror's tools are the episode's, so the class is built from the tool catalogue: one method per
tool, with a Python signature and docstring made from its JSON Schema.

    factory = mirror_environment_factory("http://127.0.0.1:4000", "clinic-network")
    trainer = GRPOTrainer(model=..., environment_factory=factory, args=GRPOConfig(max_steps=...))

A dataset row with a `task` column (`<scenario>@<seed>`) picks the task; without one, tasks of the split are taken
in turn. The reward is the episode's grade.
"""

from __future__ import annotations

import inspect
import itertools
import keyword
import re
import threading
from collections.abc import Callable
from typing import Any, Literal, Optional

from .client import Episode, MirrorClient
from .errors import GoneError, NotFoundError
from .models import JsonObject
from .tool_calls import observation_text

_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}


class MirrorToolEnvironment:
    """One rollout's Mirror episode. Subclassed per tool catalogue by `mirror_environment_factory`; public methods
    other than `reset` and `get_reward` are tools, so this class defines no other public function."""

    _tool_names: dict[str, str] = {}

    def __init__(
        self,
        client: MirrorClient,
        environment: str,
        next_task: Callable[[], str],
        *,
        max_steps: int | None = None,
        delete_after_reward: bool = True,
    ) -> None:
        self._client = client
        self._environment = environment
        self._next_task = next_task
        self._max_steps = max_steps
        self._delete_after_reward = delete_after_reward
        self.episode: Episode | None = None
        self.reward: float | None = None
        self.done = False

    def reset(self, **row: Any) -> str:
        """Start the rollout's episode (the row's `task`, or `scenario` and `seed`, else the next task of the
        split); returns its prompt, appended by TRL to the last user message."""
        self._end()
        self.reward, self.done = None, False
        task = row.get("task")
        if task is None and row.get("scenario") is not None and row.get("seed") is not None:
            task = f"{row['scenario']}@{row['seed']}"
        self.episode = self._client.create_episode(
            self._environment, task or self._next_task(), max_steps=self._max_steps
        )
        prompt = self.episode.prompt
        return "\n\n".join(part for part in (prompt.system, prompt.user) if part)

    def get_reward(self) -> float | None:
        """The episode's graded reward (grading ends it if the model did not); None when Mirror could not judge the
        episode (an infrastructure error), which TRL leaves out of the rollout's reward."""
        episode = self._live()
        if self.reward is None:
            self.reward = episode.grade().reward
            self.done = True
        reward = self.reward
        if self._delete_after_reward:
            self._end()
        return reward

    def _call(self, tool: str, arguments: dict[str, Any]) -> str:
        episode = self._live()
        result = episode.call(tool, {k: v for k, v in arguments.items() if v is not None})
        self.done = result.done
        if result.reward is not None:
            self.reward = result.reward
        return "\n".join(observation_text(o) for o in result.observations)

    def _live(self) -> Episode:
        if self.episode is None:
            raise RuntimeError("reset() starts the episode; call it first")
        return self.episode

    def _end(self) -> None:
        if self.episode is not None:
            try:
                self.episode.delete()
            except (GoneError, NotFoundError):
                pass
        self.episode = None


def mirror_environment_factory(
    base_url: str | MirrorClient,
    environment: str,
    *,
    split: str = "train",
    task: str | None = None,
    max_steps: int | None = None,
    delete_after_reward: bool = True,
) -> Callable[[], MirrorToolEnvironment]:
    """A zero-argument factory of environments for `GRPOTrainer(environment_factory=...)`.

    The tool catalogue is read once, from a probe episode of `task` (default: the split's first task), which is then
    deleted; TRL describes the same tools for every rollout, so tasks whose scenarios curate other tools need a
    factory of their own (pass `task=`)."""
    client = base_url if isinstance(base_url, MirrorClient) else MirrorClient(base_url)
    ids = [t.id for t in client.iter_tasks(environment, split)] if task is None else [task]
    if not ids:
        raise ValueError(f"environment {environment!r} has no tasks in split {split!r}")
    tasks = itertools.cycle(ids)
    probe_task = ids[0]
    with client.create_episode(environment, probe_task) as probe:
        catalogue = probe.start.tools
    cls = environment_class(catalogue, name=f"Mirror_{_identifier(environment)}")
    lock = threading.Lock()

    def next_task() -> str:
        if task is not None:
            return task
        with lock:
            return next(tasks)

    def factory() -> MirrorToolEnvironment:
        return cls(client, environment, next_task, max_steps=max_steps, delete_after_reward=delete_after_reward)

    return factory


def environment_class(catalogue: list[JsonObject], name: str = "MirrorEnvironment") -> type[MirrorToolEnvironment]:
    """A `MirrorToolEnvironment` subclass with one method per tool of `catalogue` (tools in MCP's shape)."""
    methods: dict[str, Any] = {}
    for tool in catalogue:
        method_name = _identifier(tool["name"])
        if method_name.startswith("_"):  # TRL takes only public methods as tools
            method_name = f"tool{method_name}"
        if method_name in methods or method_name in ("reset", "get_reward"):
            raise ValueError(f"tool {tool['name']!r} clashes with another method as {method_name!r}")
        methods[method_name] = _tool_method(tool, method_name)
    return type(name, (MirrorToolEnvironment,), methods)


def _tool_method(tool: JsonObject, method_name: str) -> Callable[..., str]:
    schema = tool.get("inputSchema") or {}
    properties: dict[str, JsonObject] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    # Python names for the arguments, mapped back to the tool's own names when called.
    names: dict[str, str] = {}
    for argument in properties:
        python_name = _identifier(argument)
        while python_name in names or python_name == "self":
            python_name += "_"
        names[python_name] = argument
    ordered = sorted(names, key=lambda n: names[n] not in required)  # required first: Python's rule for defaults
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    for python_name in ordered:
        argument = names[python_name]
        hint = _type_hint(properties[argument])
        optional = argument not in required
        if optional:
            hint = Optional[hint]  # a hint transformers reads at run time
        annotations[python_name] = hint
        parameters.append(
            inspect.Parameter(
                python_name,
                inspect.Parameter.KEYWORD_ONLY,
                default=None if optional else inspect.Parameter.empty,
                annotation=hint,
            )
        )
    tool_name = str(tool["name"])

    def call(self: MirrorToolEnvironment, **arguments: Any) -> str:
        return self._call(tool_name, {names.get(k, k): v for k, v in arguments.items()})

    call.__name__ = call.__qualname__ = method_name
    call.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
    call.__annotations__ = annotations
    call.__doc__ = _docstring(tool, names, properties)
    return call


def _type_hint(schema: JsonObject) -> Any:
    if (
        isinstance(schema.get("enum"), list)
        and schema["enum"]
        and all(isinstance(v, (str, int, float, bool)) for v in schema["enum"])
    ):
        return Literal[tuple(schema["enum"])]
    kind = schema.get("type")
    if isinstance(kind, list):
        hints = [_JSON_TYPES[k] for k in kind if k in _JSON_TYPES]
        nullable = "null" in kind
        if not hints:
            return Any
        hint: Any = hints[0]
        for other in hints[1:]:
            hint = hint | other
        return Optional[hint] if nullable else hint
    if isinstance(kind, str) and kind in _JSON_TYPES:
        return _JSON_TYPES[kind]
    return Any


def _one_line(text: Any) -> str:
    return re.sub(r"\s+", " ", str(text or "")).strip()


def _docstring(tool: JsonObject, names: dict[str, str], properties: dict[str, JsonObject]) -> str:
    lines = [_one_line(tool.get("description")) or f"The {tool['name']} tool."]
    if names:
        lines += ["", "Args:"]
        for python_name, argument in names.items():
            description = _one_line(properties[argument].get("description")) or f"the {argument} argument"
            if python_name != argument:
                description += f" (`{argument}`)"
            lines.append(f"    {python_name}: {description}")
    lines += ["", "Returns:", "    What the tool answered, as text."]
    return "\n".join(lines)


def _identifier(name: str) -> str:
    """A Python identifier for a tool or argument name (`$filter` → `filter`, `2fa` → `_2fa`)."""
    text = re.sub(r"\W+", "_", name).strip("_") or "argument"
    if text[0].isdigit():
        text = f"_{text}"
    return f"{text}_" if keyword.iskeyword(text) else text
