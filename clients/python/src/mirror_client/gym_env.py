"""A Mirror environment as a `gymnasium.Env`: one Mirror episode per `reset`, one `tool_calls` request per `step`.

Observations are a `Dict` of two `Text` spaces holding JSON (ASCII, so any text fits the space):
- `messages`: the new messages, OpenAI Chat shaped — after `reset` the system and user prompt, after `step` the tool
  messages answering the action's calls (`function_call_output` items when the action was Responses-shaped);
- `tools`: the episode's tools in the format asked (`openai_chat` by default), constant within an episode.
The same values, decoded, are in `info["messages"]` and `info["tools"]`.

An action is a tool call (`{"name", "arguments"}`, an OpenAI Chat tool call, a Responses `function_call` item, an
OpenAI SDK object), a list of them, an assistant message, or any of these as JSON text. The reward is 0 until the
episode ends, then the episode's graded reward; `terminated` and `truncated` are the API's.

Registered as `mirror/Episode-v0`: `gymnasium.make("mirror/Episode-v0", client=url, environment="clinic-network")`.
"""

from __future__ import annotations

import json
import string
from typing import Any, Literal, SupportsFloat

import gymnasium as gym
from gymnasium import spaces

from .client import Episode, MirrorClient
from .errors import BadRequestError, MirrorAPIError
from .models import JsonObject, TaskRef, ToolFormat

_JSON_TEXT = spaces.Text(max_length=1 << 24, min_length=0, charset=string.printable)


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


class MirrorGymEnv(gym.Env[dict[str, Any], Any]):
    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        client: MirrorClient | str,
        environment: str,
        *,
        split: str = "train",
        tasks: list[str] | None = None,
        tool_format: ToolFormat = "openai_chat",
        max_steps: int | None = None,
        delete_on_reset: bool = True,
        invalid_actions: Literal["observe", "raise"] = "observe",
    ) -> None:
        """`tasks` limits the draw to those task ids; otherwise `reset` draws from the split's tasks with the env's
        seeded generator. `delete_on_reset` deletes the previous episode when a new one starts (freeing capacity).
        `invalid_actions="observe"` answers an action that is not a tool call, or that the API refuses (400), with
        a message saying why (reward 0, nothing changed, `info["error"]`); `"raise"` raises instead."""
        self.client = client if isinstance(client, MirrorClient) else MirrorClient(client)
        self._own_client = not isinstance(client, MirrorClient)
        self.environment = environment
        self.split = split
        self.tool_format: ToolFormat = tool_format
        self.max_steps = max_steps
        self.delete_on_reset = delete_on_reset
        self.invalid_actions = invalid_actions
        self._tasks = list(tasks) if tasks is not None else None
        self.observation_space = spaces.Dict({"messages": _JSON_TEXT, "tools": _JSON_TEXT})
        self.action_space = _JSON_TEXT
        self.episode: Episode | None = None
        self._tools: list[JsonObject] = []
        self._done = False

    def _task_ids(self) -> list[str]:
        if self._tasks is None:
            self._tasks = [t.id for t in self.client.iter_tasks(self.environment, self.split)]
            if not self._tasks:
                raise ValueError(f"environment {self.environment!r} has no tasks in split {self.split!r}")
        return self._tasks

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a new episode: `options={"task": "<scenario>@<seed>"}` (or `scenario` and `seed`), else a task
        drawn with the env's generator (seeded by `seed`)."""
        super().reset(seed=seed)
        options = options or {}
        self._end_previous()
        task: str | TaskRef | None = options.get("task")
        if task is None and "scenario" not in options:
            ids = self._task_ids()
            task = ids[int(self.np_random.integers(len(ids)))]
        self.episode = self.client.create_episode(
            self.environment,
            task,
            scenario=options.get("scenario"),
            seed=options.get("seed"),
            max_steps=options.get("max_steps", self.max_steps),
        )
        self._done = False
        self._tools = self.episode.start.tools if self.tool_format == "mcp" else self.episode.tools(self.tool_format)
        messages = list(self.episode.prompt.messages)
        info = {
            "episode_id": self.episode.id,
            "task": self.episode.start.task,
            "messages": messages,
            "tools": self._tools,
            "policy": self.episode.prompt.policy,
            "limits": self.episode.limits,
        }
        return self._observation(messages), info

    def step(self, action: Any) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError(f"episode {self.episode.id} has ended; call reset() for a new one")
        try:
            if isinstance(action, (str, bytes)):
                action = json.loads(action)
            result = self.episode.tool_calls(action)
        except (ValueError, TypeError, BadRequestError) as error:
            # A policy's malformed action (not JSON, not a tool call, refused by the API) is something it should
            # see and correct, not a crash; the API changed nothing.
            if self.invalid_actions == "raise":
                raise
            return self._refusal(error)
        self._done = result.done
        reward = result.reward
        infrastructure_error = False
        if self._done and reward is None:
            # The ending answer carries the reward; without one, the grade says whether Mirror failed to judge it.
            grade = self.episode.grade()
            reward, infrastructure_error = grade.reward, grade.infrastructure_error
        messages = result.observations
        # The episode id is in reset's info and on `env.episode`; step infos stay equal across identical episodes.
        info: dict[str, Any] = {
            "step": result.step,
            "messages": messages,
            "tools": self._tools,
        }
        if self._done:
            info["final_reward"] = reward
            # Mirror could not judge the episode: its 0 is no score of the agent's; keep such episodes apart.
            info["infrastructure_error"] = infrastructure_error
        return self._observation(messages), float(reward or 0.0), result.terminated, result.truncated, info

    def _refusal(self, error: Exception) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        if isinstance(error, MirrorAPIError):
            detail = {"code": error.code, "message": error.message}
        else:
            detail = {"code": "invalid_action", "message": str(error)}
        messages = [{"role": "user", "content": f"Your action was refused ({detail['code']}): {detail['message']}"}]
        info = {"messages": messages, "tools": self._tools, "error": detail}
        return self._observation(messages), 0.0, False, False, info

    def close(self) -> None:
        self._end_previous()
        if self._own_client:
            self.client.close()
        super().close()

    def _observation(self, messages: list[JsonObject]) -> dict[str, str]:
        return {"messages": _json_text(messages), "tools": _json_text(self._tools)}

    def _end_previous(self) -> None:
        if self.episode is not None and self.delete_on_reset:
            self.episode.__exit__(None, None, None)
        self.episode = None


ENV_ID = "mirror/Episode-v0"
if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point=f"{__name__}:MirrorGymEnv", disable_env_checker=False)
