"""The episode's tools as a verifiers v1 `Toolset`: an MCP server the harness installs, bridging each call to the
rollout's own Mirror episode over the REST episode API.

One server serves every rollout (a taskset-level toolset); which episode a call acts on comes from the rollout's
state (`MirrorState`), which verifiers syncs to the server per call. verifiers starts the server as
`python -m mirror_client.verifiers_toolset`.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import verifiers.v1 as vf
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, Tool, ToolAnnotations

from .client import Episode, MirrorClient
from .errors import BadRequestError, ConflictError, GoneError
from .tool_calls import observation_text


class MirrorState(vf.State):
    """What a rollout's tool calls need to reach its episode, and how the episode ended."""

    base_url: str = ""
    episode_id: str = ""
    token: str = ""
    terminated: bool = False
    truncated: bool = False
    reward: float | None = None


class MirrorToolset(vf.Toolset[vf.SharedToolsetConfig, MirrorState]):
    # Mirror's tool names are already namespaced (`{service}_{operation}`): advertise them bare.
    TOOL_PREFIX = None

    def __init__(self, config: vf.SharedToolsetConfig) -> None:
        super().__init__(config)
        self._clients: dict[str, MirrorClient] = {}

    def register(self, mcp: MCPServer) -> None:
        # The catalogue is the episode's, known only per rollout: the protocol handlers are replaced, as verifiers'
        # own NeMo Gym bridge does, instead of registering a static tool list.
        server = cast(Any, mcp)
        server.list_tools = self._with_state(self.list_tools)
        server.call_tool = self._with_state(self.call_tool)

    def _episode(self) -> Episode:
        state = self.state
        if not state.episode_id:
            raise RuntimeError("no Mirror episode in this rollout's state: MirrorTask.setup did not run")
        client = self._clients.get(state.base_url)
        if client is None:
            client = self._clients[state.base_url] = MirrorClient(state.base_url)
        return client.episode(state.episode_id, state.token)

    async def list_tools(self) -> list[Tool]:
        episode = self._episode()
        tools = await asyncio.to_thread(episode.tools, "mcp")
        return [mcp_tool(tool) for tool in tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> CallToolResult:
        episode = self._episode()
        try:
            result = await asyncio.to_thread(episode.call, name, arguments)
        except (BadRequestError, ConflictError, GoneError) as error:
            # Refused calls (unknown tool, arguments breaking the schema, after the end) are the model's to see.
            return CallToolResult(
                content=[TextContent(type="text", text=f"{error.code}: {error.message}")], is_error=True
            )
        state = self.state
        state.terminated, state.truncated = result.terminated, result.truncated
        if result.reward is not None:
            state.reward = result.reward
        text = "\n".join(observation_text(o) for o in result.observations)
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=False)


def mcp_tool(tool: dict[str, Any]) -> Tool:
    hints = tool.get("annotations") or {}
    return Tool(
        name=tool["name"],
        description=tool.get("description") or None,
        input_schema=tool.get("inputSchema") or {"type": "object"},
        annotations=ToolAnnotations(
            title=hints.get("title"),
            read_only_hint=hints.get("readOnlyHint"),
            destructive_hint=hints.get("destructiveHint"),
            idempotent_hint=hints.get("idempotentHint"),
            open_world_hint=hints.get("openWorldHint"),
        ),
    )


if __name__ == "__main__":
    MirrorToolset.run()
