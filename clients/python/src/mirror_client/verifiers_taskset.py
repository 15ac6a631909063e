"""A Mirror environment as a verifiers v1 taskset (`verifiers>=0.4`, `import verifiers.v1 as vf`).

- `MirrorTaskset.load()` yields one `MirrorTask` per Mirror task (`<scenario>@<seed>`) of the environment's split;
- `MirrorTask.setup` starts the rollout's Mirror episode and puts its prompt (system and user messages) on the
  trace's task data, which the harness reads after setup;
- the tools are the episode's, served by `MirrorToolset` (an MCP server the harness installs);
- the reward (`mirror`) is the episode's grade, from what the twins recorded; `passed` and the number of policy
  violations are metrics. The grade ends the episode if the agent did not.

Run with verifiers' CLI: `vf-eval mirror-verifiers --env.taskset.environment clinic-network
--env.taskset.base-url $MIRROR_URL` (the `mirror_verifiers` module re-exports this taskset).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import verifiers.v1 as vf

from .client import MirrorClient
from .errors import GoneError, NotFoundError
from .verifiers_toolset import MirrorState, MirrorToolset


class MirrorTaskConfig(vf.TaskConfig):
    base_url: str = ""
    """The Mirror control plane (`mirror up`'s api URL); filled from the taskset's."""
    max_steps: int | None = None
    """A lower step limit than the scenario's, if any."""
    delete_after_grading: bool = True
    """Delete the episode once graded (frees capacity; its trajectory is then gone)."""


class MirrorTasksetConfig(vf.TasksetConfig):
    base_url: str = ""
    """The Mirror control plane; `MIRROR_URL` when empty."""
    environment: str = ""
    """The environment id (the bundle's folder name, e.g. `clinic-network`)."""
    split: str = "train"
    tasks: list[str] = []
    """Only these task ids, when given; else every task of the split."""
    tools: vf.SharedToolsetConfig = vf.SharedToolsetConfig()
    task: MirrorTaskConfig = MirrorTaskConfig()


class MirrorData(vf.TaskData):
    environment: str
    task: str


class MirrorTask(vf.Task[MirrorData, MirrorState, MirrorTaskConfig]):
    async def setup(self, trace: vf.Trace, runtime: vf.Runtime | None = None) -> None:
        client = MirrorClient(self.config.base_url)
        episode = await asyncio.to_thread(
            client.create_episode, self.data.environment, self.data.task, max_steps=self.config.max_steps
        )
        state = trace.state
        state.base_url = client.base_url
        state.episode_id, state.token = episode.id, episode.token
        # The prompt is the episode's (its policy and business context): the harness reads it after setup.
        trace.task.data = trace.task.data.model_copy(
            update={"system_prompt": episode.prompt.system or None, "prompt": episode.prompt.user}
        )
        trace.info["mirror"] = {"episode_id": episode.id, "task": self.data.task, "environment": self.data.environment}

    @vf.reward(weight=1.0)
    async def mirror(self, trace: vf.Trace) -> float:
        state = trace.state
        if not state.episode_id:
            raise RuntimeError("the rollout has no Mirror episode to grade (setup failed)")
        episode = MirrorClient(state.base_url).episode(state.episode_id, state.token)
        grade = await asyncio.to_thread(episode.grade)
        if grade.reward is None:
            # Mirror failed to judge the episode: the rollout errs rather than scoring the agent 0.
            raise RuntimeError(f"Mirror could not grade episode {episode.id} ({grade.status}): {grade.reason}")
        trace.record_metric("passed", 1.0 if grade.passed else 0.0)
        trace.record_metric("violations", float(len(grade.violations)))
        trace.info["mirror"] = {
            **trace.info.get("mirror", {}),
            "status": grade.status,
            "ended_by": grade.ended_by,
            "violations": [v.rule for v in grade.violations],
        }
        if self.config.delete_after_grading:
            try:
                await asyncio.to_thread(episode.delete)
            except (GoneError, NotFoundError):
                pass
        return grade.reward


class MirrorTaskset(vf.Taskset[MirrorTask, MirrorTasksetConfig]):
    @classmethod
    def toolsets(cls, config: MirrorTasksetConfig) -> list[vf.Toolset]:
        return [MirrorToolset(config.tools)]

    def load(self) -> Iterator[MirrorTask]:
        config = self.config
        base_url = config.base_url or os.environ.get("MIRROR_URL", "")
        if not base_url:
            raise ValueError("set --env.taskset.base-url (or MIRROR_URL) to the Mirror control plane's URL")
        if not config.environment:
            raise ValueError("set --env.taskset.environment to a Mirror environment id")
        task_config = config.task.model_copy(update={"base_url": base_url})
        with MirrorClient(base_url) as client:
            ids = config.tasks or [t.id for t in client.iter_tasks(config.environment, config.split)]
        for task_id in ids:
            # The real prompt is the episode's, put on the trace at setup; this one names the task until then.
            data = MirrorData(
                id=task_id,
                name=task_id,
                prompt=f"Mirror task {task_id} of {config.environment}",
                environment=config.environment,
                task=task_id,
            )
            yield MirrorTask(data, task_config)


__all__ = ["MirrorData", "MirrorTask", "MirrorTaskConfig", "MirrorTaskset", "MirrorTasksetConfig"]
