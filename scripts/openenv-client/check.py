"""An unchanged OpenEnv client (the `openenv` package from PyPI) resets and steps a Mirror environment.

Usage: python check.py <openenv base url, e.g. http://127.0.0.1:3000/openenv/acme>
Exits non-zero on the first thing that does not hold. The tools it calls are the episode's own verbs (wait_for_events,
finish_episode), which every Mirror environment has, so what must hold is the round trip, not a twin's answer.
"""

import asyncio
import sys

from openenv.core.generic_client import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient


def check(condition: bool, what: str) -> None:
    if not condition:
        print(f"openenv-client-check: FAILED: {what}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {what}")


def generic(base_url: str) -> None:
    with GenericEnvClient(base_url=base_url).sync() as env:
        result = env.reset()
        check(result.done is False, "GenericEnvClient.reset() starts an episode (done is False)")
        tools = result.observation.get("tools", [])
        check(len(tools) > 0, f"the reset observation lists the episode's tools ({len(tools)})")
        episode_id = result.metadata["episode_id"]
        listed = env.step({"type": "list_tools"})
        check(len(listed.observation["tools"]) == len(tools), "a list_tools step lists the same tools")
        called = env.step({"type": "call_tool", "tool_name": "wait_for_events", "arguments": {}})
        check(called.observation.get("tool_name") == "wait_for_events", "a call_tool step answers for that tool")
        check("is_error" in called.observation["result"], "the tool result says whether it is an error")
        state = env.state()
        check(state["episode_id"] == episode_id and state["step_count"] == 1, "state() counts the step")
        finished = env.step({"type": "call_tool", "tool_name": "finish_episode", "arguments": {}})
        check(finished.done is True, "finish_episode ends the episode (done is True)")
        check(isinstance(finished.reward, (int, float)), f"the ended episode has a reward ({finished.reward})")


async def mcp_tools(base_url: str) -> None:
    async with MCPToolClient(base_url=base_url) as env:
        await env.reset()
        tools = await env.list_tools()
        names = [tool.name for tool in tools]
        check("finish_episode" in names, "MCPToolClient.list_tools() lists finish_episode")
        result = await env.call_tool("finish_episode")
        check(isinstance(result, dict), f"MCPToolClient.call_tool() returns the structured result ({result})")


if __name__ == "__main__":
    url = sys.argv[1]
    generic(url)
    asyncio.run(mcp_tools(url))
    print("openenv-client-check: passed")
