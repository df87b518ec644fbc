"""The official Python MCP client as bench/mcp's peer: CALLS `echo` calls to server-everything
over stdio, 10 at a time and one at a time (the median of REPEATS batches each), and SINGLES
single calls. Prints one JSON line.
Usage: python_client.py SERVER_EVERYTHING_JS CALLS SINGLES [REPEATS]"""

import asyncio
import json
import statistics
import sys
import time
from importlib.metadata import version

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def calls_per_second(session, calls, at_once):
    gate = asyncio.Semaphore(at_once)

    async def one(i):
        async with gate:
            result = await session.call_tool("echo", {"message": f"m{i}"})
            if result.is_error:
                raise RuntimeError(f"echo failed: {result}")

    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(calls)))
    return calls / (time.perf_counter() - start)


async def main():
    script, calls, singles = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    params = StdioServerParameters(command="node", args=[script, "stdio"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await calls_per_second(session, 20, 10)  # warm-up
            concurrent = statistics.median([await calls_per_second(session, calls, 10) for _ in range(repeats)])
            sequential = statistics.median([await calls_per_second(session, calls, 1) for _ in range(repeats)])
            times = []
            for i in range(singles):
                start = time.perf_counter()
                await session.call_tool("echo", {"message": "one"})
                times.append(time.perf_counter() - start)
    print(json.dumps({
        "version": version("mcp"),
        "concurrent": concurrent,
        "sequential": sequential,
        "single_ms": statistics.median(times) * 1000,
    }))


if __name__ == "__main__":
    asyncio.run(main())
