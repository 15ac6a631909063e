"""Against a real Mirror (`mirror up examples/clinic-network`, its api URL in MIRROR_URL): the Gymnasium loop and a
verifiers rollout each finish an episode of the clinic's relative-invoice-request scenario and get its reward, and
the client meets the API's documented errors. Selected with `-m integration`; without MIRROR_URL they fail."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from mirror_client import (
    BadRequestError,
    ForbiddenError,
    GoneError,
    MirrorClient,
    NotFoundError,
    TaskRef,
    UnauthorizedError,
)
from mirror_client.gym_env import MirrorGymEnv

from .clinic_policy import SCENARIO, next_turn
from .verifiers_rollout import rollout

pytestmark = pytest.mark.integration

ENVIRONMENT = "clinic-network"


def clinic_tasks(mirror_url: str, split: str = "train") -> list[TaskRef]:
    with MirrorClient(mirror_url) as client:
        tasks = [t for t in client.tasks(ENVIRONMENT, split, offset=0, limit=20).tasks if t.scenario == SCENARIO]
    assert tasks, f"{ENVIRONMENT} has no {SCENARIO} task in its {split} split"
    return tasks


def test_the_clinic_environment_is_served(mirror_url: str) -> None:
    with MirrorClient(mirror_url) as client:
        environments = {e.id: e for e in client.environments()}
        assert ENVIRONMENT in environments, f"environments served: {sorted(environments)}"
        assert SCENARIO in {s.id for s in environments[ENVIRONMENT].scenarios}
        page = client.tasks(ENVIRONMENT, split="test", offset=0, limit=1)
        assert len(page.tasks) <= 1 and all(t.split == "test" for t in page.tasks)
        capacity = client.capacity()
        assert capacity.max >= 1 and 0 <= capacity.available <= capacity.max


def test_a_gymnasium_loop_finishes_a_clinic_episode_with_its_reward(mirror_url: str) -> None:
    task = clinic_tasks(mirror_url)[0]
    sut = MirrorGymEnv(mirror_url, ENVIRONMENT, delete_on_reset=False)
    try:
        _, info = sut.reset(seed=1, options={"task": task.id})
        assert sut.observation_space.contains(_)
        conversation: list[dict[str, Any]] = list(info["messages"])
        tools: list[dict[str, Any]] = info["tools"]
        terminated = truncated = False
        reward = 0.0
        for turn_index in range(40):
            turn = next_turn(conversation, tools)
            assert not isinstance(turn, str), f"the agent stopped before the episode ended: {turn}"
            calls = [
                {
                    "id": f"call_{turn_index}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
                for i, (name, args) in enumerate(turn)
            ]
            conversation.append({"role": "assistant", "content": None, "tool_calls": calls})
            _, step_reward, terminated, truncated, info = sut.step(calls)
            assert "error" not in info, f"{turn}: refused: {info['error']}"
            conversation.extend(info["messages"])
            reward = float(step_reward)
            if terminated or truncated:
                break
        assert terminated and not truncated, "the episode did not end by finish_episode"
        assert sut.episode is not None
        grade = sut.episode.grade()
        assert reward == grade.reward, "the reward the last step gave is not the episode's grade"
        assert (grade.reward, grade.passed, [v.rule for v in grade.violations]) == (1.0, True, []), (
            f"{grade}\nconversation: {json.dumps(conversation, indent=1)[:6000]}"
        )
        trajectory = sut.episode.trajectory()
        played = [c["function"]["name"] for m in conversation if m["role"] == "assistant" for c in m["tool_calls"]]
        assert [s.call.name for s in trajectory.steps] == played
    finally:
        sut.close()


def test_a_verifiers_rollout_finishes_a_clinic_episode_with_its_reward(mirror_url: str) -> None:
    task = clinic_tasks(mirror_url)[-1]
    episode, model = asyncio.run(rollout(mirror_url, ENVIRONMENT, task.id, next_turn))

    assert episode.ok, episode.errors
    (trace,) = episode.traces
    assert trace.info["mirror"]["violations"] == [], trace.info
    assert trace.rewards["mirror"] is not None and trace.rewards["mirror"].score == 1.0
    assert trace.metrics["passed"] == 1.0
    assert any("finish_episode" in json.dumps(r["messages"]) for r in model.requests)


def test_the_apis_documented_errors_reach_the_caller_typed(mirror_url: str) -> None:
    task = clinic_tasks(mirror_url)[0]
    with MirrorClient(mirror_url) as client:
        with pytest.raises(NotFoundError) as unknown_task:
            client.create_episode(ENVIRONMENT, "no-such-scenario@1")
        assert unknown_task.value.code == "task_not_found"
        with (
            client.create_episode(ENVIRONMENT, task.id) as first,
            client.create_episode(ENVIRONMENT, task.id) as second,
        ):
            with pytest.raises(BadRequestError) as malformed:
                first.tool_calls([{"id": "c1", "type": "function", "function": {"name": 5, "arguments": "{}"}}])
            assert (malformed.value.code, malformed.value.episode_id) == ("body_invalid", first.id)
            # A call to an unknown tool is refused as an observation the model can read, counting no step.
            refused = first.call("no_such_tool", {})
            assert len(refused.observations) == 1 and not refused.done
            with pytest.raises(ForbiddenError):
                client.episode(first.id, second.token).status()
            with pytest.raises(UnauthorizedError):
                client.request("GET", f"/v1/episodes/{first.id}")
            assert first.status().steps == 0, "a refused call counted a step"
            assert first.ping()
            assert [s.call.name for s in first.trajectory().steps] == ["no_such_tool"]
        with pytest.raises(GoneError) as gone:
            first.status()
        assert gone.value.code == "episode_deleted"


def test_a_trl_environment_describes_every_tool_and_plays_a_clinic_episode(mirror_url: str) -> None:
    from transformers.utils import get_json_schema

    from mirror_client.trl_env import mirror_environment_factory

    task = clinic_tasks(mirror_url)[0]
    environment = mirror_environment_factory(mirror_url, ENVIRONMENT, task=task.id)()
    methods = {
        name: getattr(environment, name)
        for name in dir(type(environment))
        if not name.startswith("_") and name not in ("reset", "get_reward") and callable(getattr(environment, name))
    }
    # TRL renders each tool with transformers' get_json_schema: every one of the catalogue's must pass.
    tools = [get_json_schema(method) for method in methods.values()]
    assert {"wait_for_events", "finish_episode", "mail_me_send_mail"} <= {t["function"]["name"] for t in tools}

    prompt = environment.reset(task=task.id)
    assert "billing" in prompt
    conversation: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    for turn_index in range(40):
        turn = next_turn(conversation, tools)
        if isinstance(turn, str):
            break
        calls = []
        for i, (name, args) in enumerate(turn):
            call_id = f"call_{turn_index}_{i}"
            calls.append({"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}})
            # TRL calls the method with the model's arguments, named as the rendered schema names them, as keywords.
            text = methods[name](**args)
            conversation += [{"role": "assistant", "content": None, "tool_calls": calls[-1:]}]
            conversation.append({"role": "tool", "tool_call_id": call_id, "content": text})
    assert environment.done
    assert environment.get_reward() == 1.0
