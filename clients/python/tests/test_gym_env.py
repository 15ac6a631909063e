from __future__ import annotations

import json

import pytest
from gymnasium.utils.env_checker import check_env

from mirror_client import MirrorClient
from mirror_client.gym_env import MirrorGymEnv

from .fake_mirror import FakeMirror


def test_reset_observes_the_prompt_and_tools(client: MirrorClient) -> None:
    sut = MirrorGymEnv(client, "clinic")
    observation, info = sut.reset(seed=7, options={"task": "dispute@2"})

    assert sut.observation_space.contains(observation)
    messages = json.loads(observation["messages"])
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "übermäßig" in messages[1]["content"]  # non-ASCII survives the ASCII JSON text
    assert [t["function"]["name"] for t in json.loads(observation["tools"])] == [
        "records_get_invoices",
        "finish_episode",
    ]
    assert info["task"] == "dispute@2" and info["episode_id"] == "ep_1"


def test_a_loop_ends_with_the_graded_reward(client: MirrorClient) -> None:
    sut = MirrorGymEnv(client, "clinic")
    sut.reset(options={"task": "dispute@1"})

    observation, reward, terminated, truncated, info = sut.step(
        {"name": "records_get_invoices", "arguments": {"number": "INV-1"}}
    )
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert json.loads(observation["messages"])[0]["role"] == "tool"

    openai_call = {"id": "c2", "type": "function", "function": {"name": "finish_episode", "arguments": "{}"}}
    _, reward, terminated, truncated, info = sut.step(json.dumps([openai_call]))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["final_reward"] == 1.0
    with pytest.raises(RuntimeError, match="has ended"):
        sut.step({"name": "finish_episode"})


def test_seeded_resets_draw_the_same_tasks(client: MirrorClient) -> None:
    first = MirrorGymEnv(client, "clinic")
    second = MirrorGymEnv(client, "clinic")
    drawn = [first.reset(seed=3)[1]["task"], first.reset()[1]["task"], first.reset()[1]["task"]]
    again = [second.reset(seed=3)[1]["task"], second.reset()[1]["task"], second.reset()[1]["task"]]
    assert drawn == again
    assert set(drawn) <= {"dispute@1", "dispute@2", "dispute@3"}


def test_reset_deletes_the_previous_episode(client: MirrorClient, fake: FakeMirror) -> None:
    sut = MirrorGymEnv(client, "clinic", tasks=["dispute@1"])
    sut.reset()
    sut.reset()
    assert fake.live() == 1
    sut.close()
    assert fake.live() == 0


def test_passes_gymnasiums_env_checker(client: MirrorClient) -> None:
    sut = MirrorGymEnv(client, "clinic", tasks=["dispute@1", "dispute@2"])
    # The checker samples random actions; Mirror's actions are tool calls, so only the reset and spaces are checked.
    check_env(sut, skip_render_check=True, skip_close_check=True)


def test_malformed_actions_are_observed_not_raised(client: MirrorClient, fake: FakeMirror) -> None:
    sut = MirrorGymEnv(client, "clinic", tasks=["dispute@1"])
    sut.reset()
    observation, reward, terminated, truncated, info = sut.step("{not json")
    assert (reward, terminated, truncated, info["error"]["code"]) == (0.0, False, False, "invalid_action")
    _, _, _, _, info = sut.step([{"id": "c1", "type": "function", "function": {"name": 5, "arguments": "{}"}}])
    assert info["error"]["code"] == "body_invalid"
    observation, *_ = sut.step({"name": "no_such_tool", "arguments": {}})
    assert json.loads(observation["messages"])[0]["content"] == "unknown tool no_such_tool"
    assert fake.episodes["ep_1"].steps == 0

    strict = MirrorGymEnv(client, "clinic", tasks=["dispute@1"], invalid_actions="raise")
    strict.reset()
    with pytest.raises(ValueError):
        strict.step("{not json")


def test_step_before_reset_is_refused(client: MirrorClient) -> None:
    with pytest.raises(RuntimeError, match="reset"):
        MirrorGymEnv(client, "clinic").step({"name": "finish_episode"})


def test_an_episode_mirror_could_not_judge_is_flagged_not_scored(client: MirrorClient, fake: FakeMirror) -> None:
    sut = MirrorGymEnv(client, "clinic", tasks=["dispute@1"])
    sut.reset()
    fake.episodes["ep_1"].unjudgeable = True
    _, reward, terminated, _, info = sut.step({"name": "finish_episode"})
    assert (reward, terminated, info["final_reward"], info["infrastructure_error"]) == (0.0, True, None, True)


def test_gymnasium_make_builds_it_by_id(client: MirrorClient) -> None:
    import gymnasium

    sut = gymnasium.make("mirror/Episode-v0", client=client, environment="clinic", tasks=["dispute@1"])
    observation, info = sut.reset(seed=0)
    assert info["task"] == "dispute@1"
    *_, terminated, _, _ = sut.step({"name": "finish_episode"})
    assert terminated
    sut.close()
