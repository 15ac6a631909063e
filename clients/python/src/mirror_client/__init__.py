"""Python client for Mirror's episode API: environments, tasks, episodes, tool calls, grades and trajectories.

Adapters live in their own modules so that importing the client needs only httpx:
`mirror_client.gym` (Gymnasium), `mirror_client.verifiers` (verifiers v1 taskset), `mirror_client.trl` (TRL's
`environment_factory`).
"""

from .client import Episode, EpisodeGroup, MirrorClient
from .errors import (
    BadRequestError,
    CapacityExhaustedError,
    ConflictError,
    ForbiddenError,
    GoneError,
    MirrorAPIError,
    MirrorConnectionError,
    MirrorError,
    MirrorProtocolError,
    NotFoundError,
    ServerError,
    TooManyRequestsError,
    UnauthorizedError,
    UnprocessableError,
)
from .models import (
    Capacity,
    Environment,
    EpisodeStart,
    EpisodeStatus,
    Grade,
    Limits,
    McpEndpoint,
    Prompt,
    TaskPage,
    TaskRef,
    ToolCallResult,
    ToolFormat,
    Trajectory,
    TrajectoryStep,
    Violation,
)

__all__ = [
    "BadRequestError",
    "Capacity",
    "CapacityExhaustedError",
    "ConflictError",
    "Environment",
    "Episode",
    "EpisodeGroup",
    "EpisodeStart",
    "EpisodeStatus",
    "ForbiddenError",
    "GoneError",
    "Grade",
    "Limits",
    "McpEndpoint",
    "MirrorAPIError",
    "MirrorClient",
    "MirrorConnectionError",
    "MirrorError",
    "MirrorProtocolError",
    "NotFoundError",
    "Prompt",
    "ServerError",
    "TaskPage",
    "TaskRef",
    "TooManyRequestsError",
    "ToolCallResult",
    "ToolFormat",
    "Trajectory",
    "TrajectoryStep",
    "UnauthorizedError",
    "UnprocessableError",
    "Violation",
]
