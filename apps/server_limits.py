"""Bounds on what one client can ask of ``docrag serve``: body size, admission, time budget.

* :class:`BodyLimit` (ASGI middleware) refuses a body over ``max_body_bytes`` with 413 before the
  app reads it: on the declared ``Content-Length`` at once; a body without one (chunked) is read
  by the middleware and refused as soon as more than the limit has arrived.
* :class:`WorkPool` admits at most ``max_in_flight`` answers being worked on and ``max_queue``
  waiting for a worker; beyond that :class:`Busy` (503 with ``Retry-After``). Each admitted piece of
  work gets a :class:`~docrag.cancel.CancelToken` with the ``timeout`` deadline; the token is
  cancelled when the deadline passes (504) or the client disconnects, and the work stops at its next
  checkpoint. A slot is freed when the work has actually stopped, not when the response is sent.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from docrag.cancel import Cancelled, CancelToken
from docrag.config import ServeLimits

log = logging.getLogger(__name__)

T = TypeVar("T")
POLL_S = 0.1   # how often a waiting request looks at its deadline and its client's connection

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class Busy(Exception):
    """Every worker is busy and the queue is full."""


class TimedOut(Exception):
    """The time budget passed before the answer was ready (the work was cancelled)."""


class ClientGone(Exception):
    """The client disconnected while its answer was being worked on (the work was cancelled)."""


def body_too_large_detail(size: int | None, limits: ServeLimits) -> str:
    what = f"the request body of {size} bytes" if size is not None else "the request body"
    return (f"{what} is over the limit of {limits.max_body_bytes} bytes "
            f"({ServeLimits.where('max_body_bytes')})")


class BodyLimit:
    """ASGI middleware: 413 for a request body over ``limits.max_body_bytes``, before it is read."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], limits: ServeLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limits.max_body_bytes:
            log.info("refused a %d-byte body on %s", declared, scope.get("path"))
            await _send_413(send, body_too_large_detail(declared, self.limits))
            return
        if declared is not None:   # within the limit, and the server never reads past Content-Length
            await self.app(scope, receive, send)
            return
        body = await _read_capped(receive, self.limits.max_body_bytes)   # chunked: read it here, capped
        if body is None:
            log.info("refused a streamed body over %d bytes on %s", self.limits.max_body_bytes, scope.get("path"))
            await _send_413(send, body_too_large_detail(None, self.limits))
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()   # after the body: http.disconnect when the client goes away

        await self.app(scope, replay, send)


async def _read_capped(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or ``None`` as soon as more than ``limit`` bytes have arrived."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(parts)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _send_413(send: Send, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class WorkPool:
    """``max_in_flight`` worker threads and room for ``max_queue`` more; see the module docstring."""

    def __init__(self, limits: ServeLimits) -> None:
        self.limits = limits
        self._executor = ThreadPoolExecutor(max_workers=limits.max_in_flight, thread_name_prefix="docrag-work")
        self._lock = threading.Lock()
        self._admitted = 0   # in flight + queued
        self._running = 0
        self._tokens: set[CancelToken] = set()   # of the admitted work, cancelled on shutdown

    def counts(self) -> dict[str, int]:
        """``{"in_flight": ..., "queued": ...}`` right now."""
        with self._lock:
            return {"in_flight": self._running, "queued": self._admitted - self._running}

    def _admit(self) -> bool:
        with self._lock:
            if self._admitted >= self.limits.max_in_flight + self.limits.max_queue:
                return False
            self._admitted += 1
            return True

    def _work(self, fn: Callable[[CancelToken], T], token: CancelToken) -> T:
        with self._lock:
            self._running += 1
        try:
            token.check("the start (it waited in the queue)")
            return fn(token)
        finally:
            with self._lock:
                self._running -= 1
                self._admitted -= 1
                self._tokens.discard(token)

    async def run(self, fn: Callable[[CancelToken], T], disconnected: Callable[[], Awaitable[bool]]) -> T:
        """``fn(token)`` on a worker; raises :class:`Busy`, :class:`TimedOut` or :class:`ClientGone`."""
        if not self._admit():
            raise Busy
        token = CancelToken(self.limits.timeout)
        with self._lock:
            self._tokens.add(token)
        try:
            future: Future[T] = self._executor.submit(self._work, fn, token)
        except RuntimeError:   # the pool was shut down
            with self._lock:
                self._admitted -= 1
                self._tokens.discard(token)
            raise
        waiting = asyncio.wrap_future(future)
        while True:
            left = token.remaining() or 0.0
            done, _ = await asyncio.wait({waiting}, timeout=min(POLL_S, left))
            if done:
                try:
                    return waiting.result()
                except Cancelled as exc:   # the work saw the deadline first
                    raise TimedOut(str(exc)) from exc
            if token.cancelled:
                self._abandon(waiting, token)
                raise TimedOut(token.reason)
            if await disconnected():
                token.cancel("the client disconnected")
                self._abandon(waiting, token)
                raise ClientGone

    @staticmethod
    def _abandon(waiting: asyncio.Future, token: CancelToken) -> None:
        """Log how abandoned work ends (it stops at its next checkpoint; its slot is freed then)."""
        started = time.monotonic()

        def ended(fut: asyncio.Future) -> None:
            if fut.cancelled():
                return
            exc = fut.exception()
            if exc is None or isinstance(exc, Cancelled):
                log.info("cancelled work stopped %.2f s after %s", time.monotonic() - started, token.reason)
            else:
                log.warning("cancelled work failed: %s", exc)

        waiting.add_done_callback(ended)

    def shutdown(self) -> None:
        """Cancel the admitted work (it stops at its next checkpoint) and stop taking more."""
        with self._lock:
            for token in self._tokens:
                token.cancel("the server is stopping")
        self._executor.shutdown(wait=False, cancel_futures=True)
