"""The scripted clinic agent of the integration tests, on a made-up conversation: it must reach the end it is meant
to, so that an integration failure points at Mirror or the client, not at the script."""

from __future__ import annotations

import json
from typing import Any

from .clinic_policy import fit, invoice_lookup, next_turn

TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": p}}
    for n, p in [
        ("mail_me_list_messages", {"type": "object", "properties": {"orderby": {"type": "string"}}}),
        (
            "mail_me_send_mail",
            {
                "type": "object",
                "properties": {"message": {"type": "object"}, "saveToSentItems": {"type": "boolean"}},
                "required": ["message"],
            },
        ),
        ("mail_users_send_mail", {"type": "object", "properties": {}}),
        (
            "records_list_invoices",
            {
                "type": "object",
                "properties": {"filters": {"type": "object", "properties": {"number": {"type": "string"}}}},
            },
        ),
        ("records_update_invoices", {"type": "object", "properties": {}}),
        (
            "wait_for_events",
            {"type": "object", "properties": {"hours": {"type": "number", "minimum": 0.5}}, "required": ["hours"]},
        ),
        ("finish_episode", {"type": "object", "properties": {}}),
    ]
]
MAILBOX = {
    "value": [
        {
            "subject": "My mother's invoice INV-204512",
            "from": {"emailAddress": {"name": "P", "address": "p.q@mailbox.example"}},
        }
    ]
}


def play(results: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    conversation: list[dict[str, Any]] = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    played = []
    for i in range(20):
        turn = next_turn(conversation, TOOLS)
        if isinstance(turn, str):
            return played
        ((name, args),) = turn
        played.append((name, args))
        conversation.append(
            {
                "role": "assistant",
                "tool_calls": [{"id": f"c{i}", "function": {"name": name, "arguments": json.dumps(args)}}],
            }
        )
        result = results.pop(0) if results else {}
        content = result if isinstance(result, str) else json.dumps(result)
        conversation.append({"role": "tool", "tool_call_id": f"c{i}", "content": content})
    raise AssertionError("the script did not end")


def test_it_waits_for_the_mail_then_answers_the_sender_and_finishes() -> None:
    played = play([{"value": []}, {}, MAILBOX, [], {}, {}])
    assert [n for n, _ in played] == [
        "mail_me_list_messages",
        "wait_for_events",
        "mail_me_list_messages",
        "records_list_invoices",
        "mail_me_send_mail",
        "finish_episode",
    ]
    assert played[0][1] == {"orderby": "receivedDateTime desc"}
    assert play([{"value": []}, {}, "(note)\n" + json.dumps(MAILBOX), [], {}, {}])[3][0] == "records_list_invoices"
    assert played[1][1] == {"hours": 0.5}
    assert played[3][1] == {"filters": {"number": "eq.INV-204512"}}
    message = played[4][1]["message"]
    assert message["toRecipients"] == [{"emailAddress": {"address": "p.q@mailbox.example"}}]
    assert "204512" in message["subject"] and "EUR" not in message["body"]["content"]


def test_it_gives_up_after_waiting_long_enough() -> None:
    played = play([{"value": []}, {}] * 20)
    assert played[-1][0] == "finish_episode"


def test_bodies_and_filters_follow_the_tools_schema() -> None:
    body = {"message": {"subject": "s"}, "saveToSentItems": True}
    assert fit({"properties": {"message": {}}}, body) == {"message": {"subject": "s"}}
    assert fit({"properties": {"body": {"type": "object", "properties": {"message": {}}}}}, body) == {"body": body}
    assert invoice_lookup({"properties": {"query": {"type": "string"}}}, "INV-1") == {"query": "number=eq.INV-1"}
    assert invoice_lookup({"properties": {"filters": {"type": "object"}}}, "INV-1") == {
        "filters": {"number": "eq.INV-1"}
    }
