"""The TRL adapter, checked against TRL's environment_factory contract without installing TRL (it needs torch):
tools are found as TRL finds them (public functions of the environment's class, less `reset` and `get_reward`) and
described as TRL describes them (transformers' `get_json_schema`, installed here as a dependency of verifiers)."""

from __future__ import annotations

import inspect
import subprocess
import sys
from typing import Any

import pytest

from mirror_client import MirrorClient
from mirror_client.trl_env import MirrorToolEnvironment, environment_class, mirror_environment_factory

from .fake_mirror import FakeMirror


def tools_as_trl_sees_them(environment: object) -> dict[str, Any]:
    return {
        name: getattr(environment, name)
        for name, _ in inspect.getmembers(type(environment), predicate=inspect.isfunction)
        if name not in ("reset", "get_reward") and not name.startswith("_")
    }


def json_schema(method: Any) -> dict[str, Any]:
    from transformers.utils import get_json_schema

    schema: dict[str, Any] = get_json_schema(method)
    return schema


def test_importing_the_adapter_needs_no_torch_trl_or_transformers() -> None:
    blocked = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'trl', 'transformers'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import mirror_client.trl_env\n"
    )
    subprocess.run([sys.executable, "-c", blocked], check=True)


def test_a_rollout_as_grpo_trainer_plays_it(client: MirrorClient, fake: FakeMirror) -> None:
    factory = mirror_environment_factory(client, "clinic")
    assert fake.live() == 0  # the probe episode that gave the catalogue is gone

    environment = factory()
    tools = tools_as_trl_sees_them(environment)
    assert sorted(tools) == ["finish_episode", "records_get_invoices"]
    assert json_schema(tools["records_get_invoices"])["function"] == {
        "name": "records_get_invoices",
        "description": "List invoices.",
        "parameters": {
            "type": "object",
            "properties": {"number": {"type": "string", "description": "the invoice number"}},
            "required": ["number"],
        },
        "return": {"type": "string", "description": "What the tool answered, as text."},
    }

    prompt = environment.reset(prompt=[{"role": "user", "content": ""}], task="dispute@3")
    assert prompt.startswith("You are the billing desk's assistant.") and "INV-1" in prompt
    assert fake.episodes["ep_2"].task == "dispute@3"

    # TRL calls tools with the parsed arguments as keywords.
    assert '"number": "INV-1"' in tools["records_get_invoices"](**{"number": "INV-1"})
    tools["finish_episode"]()
    assert environment.done
    assert environment.get_reward() == 1.0
    assert fake.episodes["ep_2"].deleted


def test_without_a_task_column_the_splits_tasks_are_taken_in_turn(client: MirrorClient, fake: FakeMirror) -> None:
    factory = mirror_environment_factory(client, "clinic")
    for _ in range(4):
        factory().reset(prompt=[])
    # The first episode is the probe that read the tool catalogue.
    assert [e.task for e in fake.episodes.values()] == ["dispute@1", "dispute@1", "dispute@2", "dispute@3", "dispute@1"]


def test_an_unfinished_rollout_is_graded(client: MirrorClient, fake: FakeMirror) -> None:
    environment = mirror_environment_factory(client, "clinic")()
    environment.reset(task="dispute@1")
    assert environment.get_reward() == 0.0


def test_refused_calls_raise_for_trl_to_report(client: MirrorClient) -> None:
    environment = mirror_environment_factory(client, "clinic")()
    environment.reset(task="dispute@1")
    environment.finish_episode()  # type: ignore[attr-defined]
    with pytest.raises(Exception, match="episode_ended"):
        environment.finish_episode()  # type: ignore[attr-defined]


def test_any_json_schema_becomes_a_describable_signature() -> None:
    catalogue = [
        {
            "name": "mail_me_list_messages",
            "description": "List messages\n  in the mailbox.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "$filter": {"type": "string", "description": "OData filter"},
                    "class": {"type": "string", "enum": ["a", "b"]},
                    "top": {"type": ["integer", "null"]},
                    "body": {"type": "object", "description": "the message"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "anything": {},
                },
                "required": ["class"],
            },
        }
    ]
    cls = environment_class(catalogue)
    assert issubclass(cls, MirrorToolEnvironment)
    environment = cls(MirrorClient("http://unused"), "e", lambda: "t")
    calls: list[tuple[str, dict[str, Any]]] = []
    environment._call = lambda tool, arguments: calls.append((tool, arguments)) or "ok"  # type: ignore[method-assign]

    method = tools_as_trl_sees_them(environment)["mail_me_list_messages"]
    schema = json_schema(method)["function"]
    assert schema["description"] == "List messages in the mailbox."
    parameters = schema["parameters"]
    assert parameters["required"] == ["class_"]
    assert parameters["properties"]["class_"] == {
        "type": "string",
        "enum": ["a", "b"],
        "description": "the class argument (`class`)",
    }
    assert parameters["properties"]["filter"]["description"] == "OData filter (`$filter`)"
    assert parameters["properties"]["top"]["type"] == "integer" and parameters["properties"]["top"].get("nullable")
    assert parameters["properties"]["body"]["type"] == "object"
    assert parameters["properties"]["tags"]["type"] == "array"

    method(class_="a", filter="isRead eq false", top=None)
    assert calls == [("mail_me_list_messages", {"class": "a", "$filter": "isRead eq false", "top": None})]


def test_tool_names_that_clash_with_the_environments_own_are_refused() -> None:
    with pytest.raises(ValueError, match="clashes"):
        environment_class([{"name": "reset", "inputSchema": {"type": "object"}}])


def test_an_episode_mirror_could_not_judge_gives_trl_no_reward(client: MirrorClient, fake: FakeMirror) -> None:
    environment = mirror_environment_factory(client, "clinic")()
    environment.reset(task="dispute@1")
    assert environment.episode is not None
    fake.episodes[environment.episode.id].unjudgeable = True
    assert environment.get_reward() is None
