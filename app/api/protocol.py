"""The HTTP protocol under the app: uvicorn's httptools protocol, answering a request that is not valid HTTP with
a problem (``application/problem+json``) like every other error, instead of uvicorn's plain text. `bjaudit serve`
runs it; nothing else of uvicorn changes."""

from __future__ import annotations

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.api.problems import PROBLEM_JSON
from app.usecases.errors import PROBLEM_TYPE_PREFIX


class ProblemHttpToolsProtocol(HttpToolsProtocol):
    def send_400_response(self, msg: str) -> None:
        body = orjson.dumps(
            {
                "type": PROBLEM_TYPE_PREFIX + "bad-http",
                "title": "The request is not valid HTTP",
                "status": 400,
                "detail": f"{msg} (HTTP/1.1, RFC 9112)",
            }
        )
        head = [b"HTTP/1.1 400 Bad Request\r\n"]
        head += [name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers]
        head += [
            b"content-type: " + PROBLEM_JSON.encode() + b"\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n",
            b"connection: close\r\n\r\n",
        ]
        self.transport.write(b"".join(head) + body)
        self.transport.close()
