from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .fake_mirror import served_over_http
from .scripted_model import Turn, assistant_turns
from .verifiers_rollout import rollout, tool_names


def looks_up_then_finishes(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Turn:
    turn = assistant_turns(messages)
    if turn == 0:
        return [("records_get_invoices", {"number": "INV-1"})]
    if turn == 1:
        return [("finish_episode", {})]
    return "Done."


def finishes_at_once(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Turn:
    return [("finish_episode", {})] if assistant_turns(messages) == 0 else "Done."


def test_a_rollout_plays_the_episode_with_its_prompt_and_tools_and_is_rewarded_by_the_grade() -> None:
    with served_over_http() as fake:
        episode, model = asyncio.run(rollout(fake.base, "clinic", "dispute@1", looks_up_then_finishes))

    assert episode.ok, episode.errors
    (trace,) = episode.traces
    assert trace.rewards["mirror"] is not None and trace.rewards["mirror"].score == 1.0
    assert trace.metrics == {"passed": 1.0, "violations": 0.0}
    # The model saw the episode's own prompt (not the taskset's placeholder) and the episode's tools.
    first = model.requests[0]
    assert first["messages"][0] == {
        "role": "system",
        "content": "You are the billing desk's assistant. Policy: §1 privacy.",
    }
    assert "INV-1" in first["messages"][1]["content"]
    assert {"records_get_invoices", "finish_episode"} <= set(tool_names(first))
    # The calls reached the episode, in order, and the graded episode was deleted.
    (played,) = fake.episodes.values()
    assert [c["name"] for c in played.calls] == ["records_get_invoices", "finish_episode"]
    assert played.deleted


def test_the_reward_is_the_grade_not_the_agents_word() -> None:
    with served_over_http() as fake:
        episode, _ = asyncio.run(rollout(fake.base, "clinic", "dispute@2", finishes_at_once))

    (trace,) = episode.traces
    assert trace.rewards["mirror"] is not None and trace.rewards["mirror"].score == 0.0
    assert trace.info["mirror"]["violations"] == ["answered"]


def test_loading_needs_a_mirror_and_an_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from mirror_client.verifiers_taskset import MirrorTaskset, MirrorTasksetConfig

    monkeypatch.delenv("MIRROR_URL", raising=False)
    with pytest.raises(ValueError, match="base-url"):
        list(MirrorTaskset(MirrorTasksetConfig(id="mirror-verifiers", environment="clinic")).load())
    with pytest.raises(ValueError, match="environment"):
        list(MirrorTaskset(MirrorTasksetConfig(id="mirror-verifiers", base_url="http://x")).load())


def test_the_taskset_lists_the_splits_tasks() -> None:
    from mirror_client.verifiers_taskset import MirrorTaskset, MirrorTasksetConfig

    with served_over_http() as fake:
        config = MirrorTasksetConfig(id="mirror-verifiers", base_url=fake.base, environment="clinic", split="train")
        tasks = list(MirrorTaskset(config))
    assert [t.data.task for t in tasks] == ["dispute@1", "dispute@2", "dispute@3"]
    assert {t.config.base_url for t in tasks} == {fake.base}
