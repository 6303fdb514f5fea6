"""A webhook receiver for the benchmarks: an HTTP/1.1 server on the loopback, in the load generator's event loop,
that answers every POST 204 at once and notes when each arrived (``time.perf_counter_ns``, the clock the load
generator times its requests by) with its body, read later: nothing is parsed while the load runs."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field


@dataclass
class Receiver:
    got: list[tuple[int, bytes]] = field(default_factory=list)
    """(arrival, body) of each POST, in arrival order."""
    port: int = 0
    _server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    async def start(self) -> Receiver:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request_line = await reader.readline()
                if not request_line:
                    return
                length = 0
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                body = await reader.readexactly(length) if length else b""
                self.got.append((time.perf_counter_ns(), body))
                writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            return
        finally:
            writer.close()
