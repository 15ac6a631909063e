"""The episode API's errors as exceptions: one class per HTTP status, each carrying the API's own `error.code`."""

from __future__ import annotations

from typing import Any


class MirrorError(Exception):
    """Anything that went wrong talking to Mirror."""


class MirrorConnectionError(MirrorError):
    """Mirror could not be reached, or did not answer in time (nothing is known about the request's effect)."""


class MirrorProtocolError(MirrorError):
    """Mirror answered something the episode API contract does not allow (a bug on one side or a version skew)."""


class MirrorAPIError(MirrorError):
    """A 4xx/5xx answer: `{"error": {"code", "message", "episode_id"?}}`."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        episode_id: str | None = None,
        retry_after: float | None = None,
        body: Any = None,
    ) -> None:
        where = f" (episode {episode_id})" if episode_id else ""
        super().__init__(f"{status} {code}: {message}{where}")
        self.status = status
        self.code = code
        self.message = message
        self.episode_id = episode_id
        #: Seconds to wait before trying again, from the `Retry-After` header (429, sometimes 503).
        self.retry_after = retry_after
        #: The decoded response body, as sent.
        self.body = body


class BadRequestError(MirrorAPIError):
    """400: the request is malformed (unknown tool, arguments that are not JSON or break the schema, …)."""


class UnauthorizedError(MirrorAPIError):
    """401: no episode token, or not a valid one."""


class ForbiddenError(MirrorAPIError):
    """403: the token opens another episode, not this one."""


class NotFoundError(MirrorAPIError):
    """404: no such environment, task or episode."""


class ConflictError(MirrorAPIError):
    """409: the episode's state forbids it (e.g. a call after the episode ended)."""


class GoneError(MirrorAPIError):
    """410: the episode was deleted or has expired."""


class UnprocessableError(MirrorAPIError):
    """422: well-formed but refused (e.g. `idempotency_key_reused`: the same key with another body)."""


class TooManyRequestsError(MirrorAPIError):
    """429: try again after `retry_after` seconds (e.g. `idempotency_key_in_flight`: the first request with this
    key is still being answered)."""


class CapacityExhaustedError(TooManyRequestsError):
    """429 `capacity_exhausted`: no room for another live episode; `retry_after` says when to try again."""


class ServerError(MirrorAPIError):
    """5xx: Mirror failed; the request may or may not have taken effect (retry with the same Idempotency-Key)."""


_BY_STATUS: dict[int, type[MirrorAPIError]] = {
    400: BadRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    422: UnprocessableError,
    429: TooManyRequestsError,
}
_BY_CODE: dict[str, type[MirrorAPIError]] = {"capacity_exhausted": CapacityExhaustedError}


def error_class(status: int, code: str = "") -> type[MirrorAPIError]:
    by_code = _BY_CODE.get(code)
    if by_code is not None and issubclass(by_code, _BY_STATUS.get(status, MirrorAPIError)):
        return by_code
    if status >= 500:
        return ServerError
    return _BY_STATUS.get(status, MirrorAPIError)


def retry_after_seconds(header: str | None) -> float | None:
    """`Retry-After` as seconds; HTTP dates are not sent by Mirror and read as unknown."""
    if header is None:
        return None
    try:
        seconds = float(header.strip())
    except ValueError:
        return None
    return max(seconds, 0.0)


def api_error(status: int, body: Any, *, retry_after_header: str | None, fallback_text: str) -> MirrorAPIError:
    """The exception for an error answer. A body outside the contract still gives a typed error, coded by status."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("code"), str):
        code = error["code"]
        text = error.get("message")
        message = text if isinstance(text, str) else code
        episode_id = error.get("episode_id")
    else:
        code = f"http_{status}"
        message = fallback_text.strip()[:500] or f"HTTP {status}"
        episode_id = None
    if episode_id is None and isinstance(body, dict) and isinstance(body.get("episode_id"), str):
        episode_id = body["episode_id"]
    return error_class(status, code)(
        status,
        code,
        message,
        episode_id=episode_id if isinstance(episode_id, str) else None,
        retry_after=retry_after_seconds(retry_after_header),
        body=body,
    )
