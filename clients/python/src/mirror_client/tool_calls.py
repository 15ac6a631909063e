"""Tool calls as callers hold them (OpenAI Chat or Responses shapes, SDK objects, or plain `{name, arguments}`)
turned into the body `POST /v1/episodes/{id}/tool_calls` takes.

The API answers in the shape it was asked in, so the shape is kept: Chat calls give tool messages back, Responses
items give `function_call_output` items. Arguments given as a dict are sent as the JSON text OpenAI's shapes carry;
text that is not JSON is sent as it is, so the API (not this client) refuses it with its documented error.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .models import JsonObject

Shape = Literal["chat", "responses"]


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def _plain(value: Any) -> Any:
    """OpenAI SDK objects (pydantic models) as plain JSON values; anything else unchanged."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(exclude_none=True)
    return value


def _arguments_text(arguments: Any) -> Any:
    if arguments is None:
        return "{}"
    if isinstance(arguments, Mapping):
        return json.dumps(dict(arguments))
    return arguments


def _item_shape(item: Any, where: str) -> Shape:
    if not isinstance(item, Mapping):
        raise TypeError(f"{where}: a tool call must be a dict or an OpenAI SDK object, got {type(item).__name__}")
    if item.get("type") == "function_call":
        return "responses"
    if isinstance(item.get("function"), Mapping) or "name" in item:
        return "chat"
    raise ValueError(
        f"{where}: not a tool call (expected a Chat tool call with 'function', a Responses item of type "
        f"'function_call', or {{'name', 'arguments'}})"
    )


def _chat_call(item: Mapping[str, Any]) -> JsonObject:
    if isinstance(item.get("function"), Mapping):
        function = dict(item["function"])
        call = dict(item)
    else:
        # The plain form {name, arguments[, id]} becomes a Chat tool call.
        function = {"name": item.get("name"), "arguments": item.get("arguments")}
        call = {k: v for k, v in item.items() if k not in ("name", "arguments")}
    function["arguments"] = _arguments_text(function.get("arguments"))
    call["function"] = function
    call.setdefault("type", "function")
    if not call.get("id"):
        call["id"] = new_call_id()
    return call


def _responses_item(item: Mapping[str, Any]) -> JsonObject:
    call = dict(item)
    call["arguments"] = _arguments_text(call.get("arguments"))
    if not call.get("call_id"):
        call["call_id"] = new_call_id()
    return call


def tool_call_body(calls: Any) -> tuple[Shape, JsonObject]:
    """The request body for `calls`, and the shape the observations will come back in."""
    calls = _plain(calls)
    if isinstance(calls, Mapping):
        if "tool_calls" in calls and "role" not in calls:
            items = [_plain(c) for c in calls["tool_calls"] or []]
            return "chat", {**calls, "tool_calls": [_chat_call(_checked(c, "chat", i)) for i, c in enumerate(items)]}
        if "tool_calls" in calls:  # an assistant message
            items = [_plain(c) for c in calls["tool_calls"] or []]
            message = {**calls, "tool_calls": [_chat_call(_checked(c, "chat", i)) for i, c in enumerate(items)]}
            return "chat", {"message": message}
        if isinstance(calls.get("message"), Mapping):
            return tool_call_body(calls["message"])
        if "output" in calls:  # a whole Response: only its function calls act
            items = [_plain(c) for c in calls["output"] or []]
            functions = [i for i in items if isinstance(i, Mapping) and i.get("type") == "function_call"]
            return "responses", {"output": [_responses_item(i) for i in functions]}
        calls = [calls]
    if isinstance(calls, (str, bytes)) or not isinstance(calls, Sequence):
        raise TypeError(f"tool calls must be a list, a dict or an OpenAI SDK object, got {type(calls).__name__}")
    items = [_plain(c) for c in calls]
    if not items:
        raise ValueError("no tool calls to send")
    shape = _item_shape(items[0], "calls[0]")
    if shape == "chat":
        return "chat", {"tool_calls": [_chat_call(_checked(c, "chat", i)) for i, c in enumerate(items)]}
    return "responses", {"output": [_responses_item(_checked(c, "responses", i)) for i, c in enumerate(items)]}


def _checked(item: Any, shape: Shape, index: int) -> Mapping[str, Any]:
    found = _item_shape(item, f"calls[{index}]")
    if found != shape:
        raise ValueError(f"calls[{index}]: a {found} call among {shape} calls; send one shape at a time")
    assert isinstance(item, Mapping)
    return item


def observation_text(observation: dict[str, Any]) -> str:
    """A tool message's `content`, or a Responses item's `output`, as text."""
    value = observation.get("content", observation.get("output", ""))
    return value if isinstance(value, str) else json.dumps(value)
