"""A JSON-over-HTTP server on 127.0.0.1 for tests that stand in for a remote API.

``respond(path, body, headers)`` returns ``(status, reply)`` to send as JSON, or ``None`` to
send nothing (an endpoint that hung until the test let it go). Every reply comes from the test
that gives ``respond``: nothing here is a model's output.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Respond = Callable[[str, dict[str, Any], Mapping[str, str]], tuple[int, dict[str, Any]] | None]


class LoopbackJSON:
    def __init__(self, respond: Respond) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                answer = respond(self.path, body, self.headers)
                if answer is None:
                    return
                status, reply = answer
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
