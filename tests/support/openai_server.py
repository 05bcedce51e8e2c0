"""A real OpenAI-compatible chat-completions server on 127.0.0.1, scripted by the test.

Usage::

    with ScriptedOpenAIServer('{"answer": "42", "coordinates": {}}') as srv:
        backend = get_backend("openai:test-model", base_url=srv.base_url, api_key="x")
        ...
        srv.requests[0]               # the parsed JSON body of the first request
        srv.images(srv.requests[0])   # the PIL images that request carried, in order

``reply`` is one of

* a ``str``: every request gets it;
* a ``list`` of ``str`` (or of the tuples below): served in order, the last one repeated;
* a callable ``reply(request_json) -> str | (status_code, body)``; ``body`` is a ``str`` (sent as
  the error message of an OpenAI-style error object) or a ``dict`` (sent as JSON as is).

A successful reply is a ``chat.completion`` object with ``choices[0].message.content`` and
``usage``. A :class:`Fault` (in a list, or returned by a callable) makes the server misbehave at
the HTTP level instead; :data:`FAULTS` names every kind. The server speaks
``POST /v1/chat/completions`` and ``GET /v1/models``; it also takes ``POST /v1/embeddings`` and
``POST /v1/rerank`` (vLLM's pooling routes), whose scripted replies are ``(status, dict)`` tuples sent
as they are. ``paths`` lists the route of every request.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from PIL import Image

log = logging.getLogger(__name__)

FAULTS = ("incomplete_read", "bad_status_line", "reset", "non_utf8", "nan_usage", "html", "empty_choices",
          "no_content", "http_400", "http_500", "slow")


class Fault:
    """A misbehaving reply: ``incomplete_read`` (body shorter than its Content-Length),
    ``bad_status_line`` (garbage instead of an HTTP status line), ``reset`` (connection closed without
    a reply), ``non_utf8`` (200 with a body that is not UTF-8), ``nan_usage`` (a good reply whose usage
    counts are NaN/Infinity), ``html`` (200 with an HTML page), ``empty_choices``, ``no_content``
    (``choices[0]`` without a message), ``http_400``, ``http_500``, ``slow`` (``seconds``, then ``reply``)."""

    def __init__(self, kind: str, reply: str = '{"answer": "ok", "coordinates": {}}', seconds: float = 0.0) -> None:
        if kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}; one of {FAULTS}")
        self.kind, self.reply, self.seconds = kind, reply, seconds

    def __repr__(self) -> str:
        return f"Fault({self.kind!r})"


Scripted = str | tuple[int, str | dict] | Fault
Reply = str | list | Callable[[dict], Scripted]


def request_texts(request: dict) -> list[str]:
    """All text parts of all messages of a request, in order."""
    out: list[str] = []
    for msg in request.get("messages", []):
        content = msg.get("content")
        if isinstance(content, str):
            out.append(content)
            continue
        for part in content or []:
            if part.get("type") == "text":
                out.append(part.get("text", ""))
    return out


def request_images(request: dict) -> list[Image.Image]:
    """The images a request carried (base64 data URLs), decoded to PIL, in message order."""
    images: list[Image.Image] = []
    for msg in request.get("messages", []):
        content = msg.get("content")
        if isinstance(content, str):
            continue
        for part in content or []:
            if part.get("type") != "image_url":
                continue
            url = part["image_url"]["url"]
            header, _, data = url.partition(",")
            if not header.startswith("data:") or ";base64" not in header:
                raise ValueError(f"not a base64 data URL: {url[:40]}...")
            with Image.open(io.BytesIO(base64.b64decode(data))) as im:
                images.append(im.convert("RGB"))
    return images


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up (a cancelled or timed-out request) is expected here: socketserver would print
    its BrokenPipe traceback to whatever ``sys.stderr`` is at that moment -- a later test's captured CLI
    output (tests/test_top_k.py once parsed it as part of a JSON answer). Logged instead."""

    def handle_error(self, request, client_address) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
            log.debug("scripted server: client %s hung up (%s)", client_address, exc)
            return
        log.warning("scripted server: error while answering %s", client_address, exc_info=True)


class ScriptedOpenAIServer:
    """Context manager running the scripted server in a background thread (port chosen by the OS)."""

    def __init__(self, reply: Reply, *, model: str = "scripted") -> None:
        self.reply = reply
        self.model = model
        self.requests: list[dict] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.errors: list[Exception] = []   # exceptions raised by a callable script
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -----------------------------------------------------------------------------
    def _next(self, request: dict, n: int) -> Scripted:
        """The scripted reply to the ``n``-th request (0-based); callables run concurrently."""
        if callable(self.reply):
            return self.reply(request)
        if isinstance(self.reply, list):
            return self.reply[min(n, len(self.reply) - 1)]
        return self.reply

    def images(self, request: dict | int = -1) -> list[Image.Image]:
        """Images of ``request`` (a parsed request or an index into :attr:`requests`)."""
        req = self.requests[request] if isinstance(request, int) else request
        return request_images(req)

    def texts(self, request: dict | int = -1) -> list[str]:
        req = self.requests[request] if isinstance(request, int) else request
        return request_texts(req)

    # -- lifecycle -----------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("server not started; use it as a context manager")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ScriptedOpenAIServer:
        handler = _make_handler(self)
        self._server = _QuietServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="scripted-openai", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None


def _completion(model: str, content: str, request: dict) -> dict:
    prompt_tokens = sum(len(t.split()) for t in request_texts(request))
    completion_tokens = len(content.split())
    return {
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def _make_handler(owner: ScriptedOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            return

        def _send(self, status: int, obj: dict) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _raw(self, data: bytes, close: bool = True) -> None:
            self.wfile.write(data)
            self.wfile.flush()
            self.close_connection = close

        def _fault(self, fault: Fault, request: dict) -> None:
            kind = fault.kind
            model = request.get("model", owner.model)
            if kind == "incomplete_read":
                body = json.dumps(_completion(model, fault.reply, request)).encode()
                self._raw(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                          + str(len(body) + 500).encode() + b"\r\n\r\n" + body[: len(body) // 2])
            elif kind == "bad_status_line":
                self._raw(b"garbage that is no status line\r\n\r\n")
            elif kind == "reset":
                self.close_connection = True
            elif kind in ("non_utf8", "html"):
                body = b"\xff\xfe\x00{\"choices\": \x80\x81}" if kind == "non_utf8" else \
                    b"<html><body><h1>502 Bad Gateway</h1></body></html>"
                ctype = b"application/json" if kind == "non_utf8" else b"text/html"
                self._raw(b"HTTP/1.1 200 OK\r\nContent-Type: " + ctype + b"\r\nContent-Length: "
                          + str(len(body)).encode() + b"\r\n\r\n" + body)
            elif kind == "nan_usage":
                obj = _completion(model, fault.reply, request)
                obj["usage"] = {"prompt_tokens": float("nan"), "completion_tokens": float("inf"), "total_tokens": 3}
                body = json.dumps(obj).encode()   # Python writes NaN / Infinity literally
                self._raw(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                          + str(len(body)).encode() + b"\r\n\r\n" + body)
            elif kind == "empty_choices":
                self._send(200, {"id": "x", "object": "chat.completion", "choices": []})
            elif kind == "no_content":
                self._send(200, {"id": "x", "object": "chat.completion", "choices": [{"index": 0}]})
            elif kind in ("http_400", "http_500"):
                status = int(kind[-3:])
                self._send(status, {"error": {"message": f"scripted {status}", "type": "scripted_error"}})
            elif kind == "slow":
                import time

                time.sleep(fault.seconds)
                self._send(200, _completion(model, fault.reply, request))

        def do_GET(self) -> None:  # noqa: N802 (http.server naming)
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": owner.model, "object": "model"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length", 0))
            body = self.rfile.read(length)
            route = self.path.rstrip("/")
            if route not in ("/v1/chat/completions", "/v1/embeddings", "/v1/rerank"):
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            try:
                request = json.loads(body)
            except json.JSONDecodeError as exc:
                self._send(400, {"error": {"message": f"invalid JSON: {exc}", "type": "invalid_request_error"}})
                return
            with owner._lock:
                n = len(owner.requests)
                owner.requests.append(request)
                owner.paths.append(route)
                owner.headers.append(dict(self.headers.items()))
            try:
                scripted = owner._next(request, n)
            except Exception as exc:  # a broken script is reported to the client, not swallowed
                owner.errors.append(exc)
                self._send(500, {"error": {"message": f"script failed: {exc!r}", "type": "server_error"}})
                return
            if isinstance(scripted, Fault):
                self._fault(scripted, request)
                return
            if isinstance(scripted, tuple):
                status, payload = scripted
                if isinstance(payload, dict):
                    self._send(status, payload)
                elif status >= 400:
                    self._send(status, {"error": {"message": str(payload), "type": "scripted_error"}})
                else:
                    self._send(status, _completion(request.get("model", owner.model), str(payload), request))
                return
            self._send(200, _completion(request.get("model", owner.model), str(scripted), request))

    return Handler
