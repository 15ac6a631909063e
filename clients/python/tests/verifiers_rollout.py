"""One verifiers rollout of a Mirror task, as `vf-eval` runs it: the taskset loaded by its plugin id, the `null`
harness (verifiers' own chat loop with MCP tools) in the subprocess runtime, the model a scripted policy."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import verifiers.v1 as vf

from .scripted_model import Policy, ScriptedModel, scripted_model


async def rollout(base_url: str, environment: str, task: str, policy: Policy) -> tuple[vf.Episode, ScriptedModel]:
    os.environ.setdefault("SCRIPTED_MODEL_KEY", "unused")
    # The harness runs its chat loop with uv: this environment's (a test dependency), not one it installs itself.
    scripts = str(Path(sys.executable).parent)
    if not os.environ.get("PATH", "").startswith(scripts):
        os.environ["PATH"] = f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}"
    config = vf.SingleAgentEnvConfig(
        taskset={"id": "mirror-verifiers", "base_url": base_url, "environment": environment, "tasks": [task]},
        agent={"harness": {"id": "null"}, "runtime": {"type": "subprocess"}},
    )
    env = vf.load_environment(config)
    (mirror_task,) = list(env.taskset)
    with scripted_model(policy) as model:
        context = vf.ModelContext(
            model="scripted", client=vf.EvalClientConfig(base_url=model.url, api_key_var="SCRIPTED_MODEL_KEY")
        )
        async with env.serving():
            episode = await env.run_episode(mirror_task, context)
    return episode, model


def tool_names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]
