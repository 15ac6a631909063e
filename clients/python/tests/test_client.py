from __future__ import annotations

import json

import httpx
import pytest
import respx

from mirror_client import (
    BadRequestError,
    CapacityExhaustedError,
    ConflictError,
    ForbiddenError,
    GoneError,
    MirrorAPIError,
    MirrorClient,
    MirrorConnectionError,
    MirrorProtocolError,
    NotFoundError,
    ServerError,
    TooManyRequestsError,
    UnauthorizedError,
    UnprocessableError,
)

from .fake_mirror import BASE, FakeMirror, error


def test_environments_and_paged_tasks(client: MirrorClient) -> None:
    (environment,) = client.environments()
    assert environment.id == "clinic"
    assert environment.splits["train"].first_seed == 1
    assert [s.id for s in environment.scenarios] == ["dispute"]

    page = client.tasks("clinic", split="train", offset=0, limit=2)
    assert [t.id for t in page.tasks] == ["dispute@1", "dispute@2"]
    assert page.next_offset == 2
    assert [t.seed for t in client.iter_tasks("clinic", "train", page_size=2)] == [1, 2, 3]


def test_create_episode_sends_the_task_and_an_idempotency_key(client: MirrorClient, fake: FakeMirror) -> None:
    episode = client.create_episode("clinic", "dispute@2", max_steps=5)

    request = fake.requests[-1]
    assert json.loads(request.content) == {"environment": "clinic", "task": "dispute@2", "max_steps": 5}
    assert request.headers["Idempotency-Key"]
    assert "Authorization" not in request.headers
    assert episode.id == "ep_1"
    assert episode.prompt.system.startswith("You are the billing desk")
    assert "übermäßig" in episode.prompt.user
    assert episode.mcp is not None and episode.mcp.headers["Authorization"] == "Bearer tok_1"
    assert episode.limits is not None and episode.limits.max_steps == 5


def test_scenario_and_seed_or_task_not_both(client: MirrorClient, fake: FakeMirror) -> None:
    client.create_episode("clinic", scenario="dispute", seed=3)
    assert json.loads(fake.requests[-1].content) == {"environment": "clinic", "scenario": "dispute", "seed": 3}
    with pytest.raises(ValueError):
        client.create_episode("clinic", "dispute@1", seed=3)
    with pytest.raises(ValueError):
        client.create_episode("clinic")


def test_episode_calls_carry_its_own_token(client: MirrorClient, fake: FakeMirror) -> None:
    episode = client.create_episode("clinic", "dispute@1")
    episode.status()
    assert fake.requests[-1].headers["Authorization"] == "Bearer tok_1"


def test_chat_tool_calls_with_dict_arguments_are_sent_as_json_text(client: MirrorClient, fake: FakeMirror) -> None:
    episode = client.create_episode("clinic", "dispute@1")
    result = episode.tool_calls(
        {
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "records_get_invoices", "arguments": {"number": "INV-1"}},
                }
            ]
        }
    )
    sent = json.loads(fake.requests[-1].content)
    assert sent["tool_calls"][0]["function"]["arguments"] == '{"number": "INV-1"}'
    assert result.messages == [{"role": "tool", "tool_call_id": "c1", "content": '[{"id": 1, "number": "INV-1"}]'}]
    assert result.output is None
    assert (result.terminated, result.truncated, result.reward) == (False, False, None)


def test_plain_calls_become_chat_calls_with_fresh_ids(client: MirrorClient, fake: FakeMirror) -> None:
    episode = client.create_episode("clinic", "dispute@1")
    episode.call("records_get_invoices", {"number": "INV-1"})
    call = json.loads(fake.requests[-1].content)["tool_calls"][0]
    assert call["type"] == "function" and call["id"].startswith("call_")
    result = episode.call("finish_episode")
    assert json.loads(fake.requests[-1].content)["tool_calls"][0]["function"]["arguments"] == "{}"
    assert result.terminated and result.reward == 1.0


def test_an_assistant_message_is_sent_as_message(client: MirrorClient, fake: FakeMirror) -> None:
    episode = client.create_episode("clinic", "dispute@1")
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "finish_episode", "arguments": "{}"}}],
    }
    result = episode.tool_calls(message)
    assert json.loads(fake.requests[-1].content) == {"message": message}
    assert result.terminated and result.reward == 0.0


def test_responses_items_come_back_as_function_call_outputs(client: MirrorClient, fake: FakeMirror) -> None:
    episode = client.create_episode("clinic", "dispute@1")
    response = {
        "output": [
            {"type": "reasoning", "summary": []},
            {
                "type": "function_call",
                "call_id": "r1",
                "name": "records_get_invoices",
                "arguments": '{"number":"INV-1"}',
            },
        ]
    }
    result = episode.tool_calls(response)
    assert json.loads(fake.requests[-1].content) == {"output": [response["output"][1]]}
    assert result.output == [
        {"type": "function_call_output", "call_id": "r1", "output": '[{"id": 1, "number": "INV-1"}]'}
    ]
    assert result.observations == result.output
    bare = episode.tool_calls([{"type": "function_call", "call_id": "r2", "name": "finish_episode", "arguments": {}}])
    assert bare.output is not None and bare.output[0]["call_id"] == "r2"


def test_openai_sdk_objects_are_dumped() -> None:
    from mirror_client.tool_calls import tool_call_body

    class SdkCall:
        def model_dump(self, exclude_none: bool = False) -> dict[str, object]:
            return {"id": "c9", "type": "function", "function": {"name": "finish_episode", "arguments": "{}"}}

    assert tool_call_body([SdkCall()]) == ("chat", {"tool_calls": [SdkCall().model_dump()]})


def test_mixed_shapes_and_non_calls_are_refused_before_sending() -> None:
    from mirror_client.tool_calls import tool_call_body

    with pytest.raises(ValueError, match=r"calls\[1\]"):
        tool_call_body([{"name": "a"}, {"type": "function_call", "name": "b", "call_id": "x", "arguments": "{}"}])
    with pytest.raises(ValueError, match="not a tool call"):
        tool_call_body([{"role": "user"}])
    with pytest.raises(TypeError):
        tool_call_body("finish_episode")
    with pytest.raises(ValueError, match="no tool calls"):
        tool_call_body([])


def test_text_arguments_that_are_not_json_reach_the_api_unchanged() -> None:
    from mirror_client.tool_calls import tool_call_body

    _, body = tool_call_body([{"name": "records_get_invoices", "arguments": "{not json"}])
    assert body["tool_calls"][0]["function"]["arguments"] == "{not json"


def test_tools_in_each_format(client: MirrorClient, fake: FakeMirror) -> None:
    episode = client.create_episode("clinic", "dispute@1")
    assert episode.tools("openai_chat")[0]["function"]["name"] == "records_get_invoices"
    assert fake.requests[-1].url.params["format"] == "openai_chat"
    assert episode.tools("openai_responses")[1]["name"] == "finish_episode"
    with pytest.raises(ValueError, match="format must be one of"):
        episode.tools("anthropic")  # type: ignore[arg-type]


def test_status_grade_trajectory_ping(client: MirrorClient) -> None:
    episode = client.create_episode("clinic", "dispute@1")
    episode.call("records_get_invoices", {"number": "INV-1"}, call_id="c1")
    status = episode.status()
    assert (status.status, status.steps, status.running) == ("running", 1, True)
    assert episode.ping() == "2026-12-01T21:00:00Z"
    grade = episode.grade()
    assert (grade.reward, grade.passed, grade.violations, grade.ended_by) == (1.0, True, [], "finished")
    assert not grade.infrastructure_error
    trajectory = episode.trajectory()
    assert [(s.index, s.call.id, s.call.name) for s in trajectory.steps] == [(0, "c1", "records_get_invoices")]


def test_api_errors_are_typed_and_carry_code_message_and_episode(client: MirrorClient) -> None:
    episode = client.create_episode("clinic", "dispute@1")
    with pytest.raises(BadRequestError) as bad:
        episode.tool_calls([{"id": "c1", "type": "function", "function": {"name": 5, "arguments": "{}"}}])
    assert (bad.value.status, bad.value.code, bad.value.episode_id) == (400, "body_invalid", "ep_1")
    assert "tool_calls/function" in bad.value.message
    refused = episode.call("no_such_tool")  # a refused call is the model's to read, not an HTTP error
    assert refused.observations[0]["content"] == "unknown tool no_such_tool" and refused.step == 0

    episode.call("finish_episode")
    with pytest.raises(ConflictError) as ended:
        episode.call("finish_episode")
    assert ended.value.code == "episode_ended"

    with pytest.raises(NotFoundError) as missing:
        client.create_episode("clinic", "other@1")
    assert missing.value.code == "task_not_found" and missing.value.episode_id is None


def test_tokens_open_only_their_own_episode(client: MirrorClient) -> None:
    first = client.create_episode("clinic", "dispute@1")
    second = client.create_episode("clinic", "dispute@1")
    with pytest.raises(ForbiddenError) as forbidden:
        client.episode(first.id, second.token).status()
    assert forbidden.value.code == "token_invalid"
    with pytest.raises(UnauthorizedError):
        client.request("GET", f"/v1/episodes/{first.id}")


def test_a_deleted_episode_is_gone(client: MirrorClient) -> None:
    episode = client.create_episode("clinic", "dispute@1")
    episode.delete()
    with pytest.raises(GoneError) as gone:
        episode.status()
    assert gone.value.code == "episode_deleted"
    with client.create_episode("clinic", "dispute@1") as scoped:
        pass
    with pytest.raises(GoneError):
        scoped.status()


def test_capacity_exhausted_carries_retry_after() -> None:
    with respx.mock() as router:
        FakeMirror(router, capacity=1)
        with MirrorClient(BASE) as client:
            client.create_episode("clinic", "dispute@1")
            assert client.capacity().available == 0
            with pytest.raises(CapacityExhaustedError) as full:
                client.create_episode("clinic", "dispute@1")
    assert (full.value.status, full.value.code, full.value.retry_after) == (429, "capacity_exhausted", 0.0)


def test_capacity_wait_retries_with_the_same_key() -> None:
    with respx.mock() as router:
        fake = FakeMirror(router, capacity=1)
        with MirrorClient(BASE) as client:
            first = client.create_episode("clinic", "dispute@1")
            calls = []

            def free_a_slot(request: httpx.Request) -> httpx.Response:
                calls.append(request.headers["Idempotency-Key"])
                if len(calls) == 2:
                    fake.episodes[first.id].deleted = True
                return fake.handle(request)

            router.routes.clear()
            router.route(host="mirror.test").mock(side_effect=free_a_slot)
            second = client.create_episode("clinic", "dispute@1", capacity_wait=5)
    assert second.id == "ep_2"
    assert len(calls) == 2 and calls[1] == calls[0]


def test_group_of_identical_starts(client: MirrorClient, fake: FakeMirror) -> None:
    group = client.create_group("clinic", "dispute@1", n=3)
    assert json.loads(fake.requests[-1].content)["n"] == 3
    assert len(group) == 3 and len({e.id for e in group}) == 3
    assert {e.start.task for e in group} == {"dispute@1"}
    group.delete()
    assert fake.live() == 0


def test_reused_idempotency_key_with_another_body_is_refused(client: MirrorClient) -> None:
    first = client.create_episode("clinic", "dispute@1", idempotency_key="k1")
    again = client.create_episode("clinic", "dispute@1", idempotency_key="k1")
    assert again.id == first.id
    with pytest.raises(UnprocessableError) as reused:
        client.create_episode("clinic", "dispute@2", idempotency_key="k1")
    assert reused.value.code == "idempotency_key_reused"


def test_lost_requests_are_retried_with_the_same_key(fake: FakeMirror) -> None:
    keys: list[str] = []

    def flaky(request: httpx.Request) -> httpx.Response:
        keys.append(request.headers["Idempotency-Key"])
        if len(keys) == 1:
            raise httpx.ConnectError("connection reset")
        if len(keys) == 2:
            return httpx.Response(503, text="upstream unavailable")
        return fake.handle(request)

    assert fake.router is not None
    fake.router.routes.clear()
    fake.router.route(host="mirror.test").mock(side_effect=flaky)
    with MirrorClient(BASE, retries=2) as client:
        episode = client.create_episode("clinic", "dispute@1")
    assert episode.id == "ep_1" and len(keys) == 3 and len(set(keys)) == 1


def test_a_request_still_in_flight_under_the_key_is_awaited_and_replayed(fake: FakeMirror) -> None:
    answers = iter([error(429, "idempotency_key_in_flight", "still answering", **{"Retry-After": "0"})])

    def busy_once(request: httpx.Request) -> httpx.Response:
        return next(answers, None) or fake.handle(request)

    assert fake.router is not None
    fake.router.routes.clear()
    fake.router.route(host="mirror.test").mock(side_effect=busy_once)
    with MirrorClient(BASE) as client:
        assert client.create_episode("clinic", "dispute@1").id == "ep_1"


def test_other_429s_are_not_capacity_errors() -> None:
    with respx.mock() as router:
        router.get(f"{BASE}/v1/capacity").mock(return_value=error(429, "idempotency_key_in_flight", "busy"))
        with MirrorClient(BASE, retries=0) as client, pytest.raises(TooManyRequestsError) as busy:
            client.capacity()
    assert not isinstance(busy.value, CapacityExhaustedError)


def test_unreachable_mirror_is_a_connection_error() -> None:
    with respx.mock() as router:
        router.route().mock(side_effect=httpx.ConnectError("refused"))
        with MirrorClient(BASE, retries=1) as client, pytest.raises(MirrorConnectionError, match="refused"):
            client.environments()


def test_error_bodies_outside_the_contract_still_give_typed_errors() -> None:
    with respx.mock() as router:
        router.get(f"{BASE}/v1/capacity").mock(return_value=httpx.Response(500, text="<html>boom</html>"))
        with MirrorClient(BASE, retries=0) as client, pytest.raises(ServerError) as failed:
            client.capacity()
    assert (failed.value.code, failed.value.message) == ("http_500", "<html>boom</html>")
    assert isinstance(failed.value, MirrorAPIError)


def test_answers_missing_contract_fields_are_protocol_errors() -> None:
    with respx.mock() as router:
        router.get(f"{BASE}/v1/capacity").mock(return_value=httpx.Response(200, json={"live": 1, "max": True}))
        router.get(f"{BASE}/v1/environments").mock(return_value=httpx.Response(200, text="not json"))
        with MirrorClient(BASE) as client:
            with pytest.raises(MirrorProtocolError, match=r"capacity.max: expected int, got bool"):
                client.capacity()
            with pytest.raises(MirrorProtocolError, match="not JSON"):
                client.environments()


def test_base_url_may_name_v1() -> None:
    assert MirrorClient("http://h:1/v1/").base_url == "http://h:1"


def test_a_grade_mirror_could_not_give_has_no_reward(client: MirrorClient, fake: FakeMirror) -> None:
    episode = client.create_episode("clinic", "dispute@1")
    fake.episodes[episode.id].unjudgeable = True
    grade = episode.grade()
    assert (grade.reward, grade.passed, grade.status, grade.reason) == (
        None,
        None,
        "infrastructure_error",
        "the worker died",
    )
    assert grade.infrastructure_error
