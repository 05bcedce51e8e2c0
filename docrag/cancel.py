"""Cooperative cancellation of one answer: a deadline and a cancel flag, checked between stages.

The caller that bounds the work (``docrag serve``, the viewer) makes a :class:`CancelToken` and
passes it to :meth:`docrag.RAG.ask`, which makes it the *current* token of the thread for the
duration of the call (:func:`cancel_scope`). The answering code calls :func:`checkpoint` at its
stage boundaries (retrieval, each page read, generation, each grounded citation); a checkpoint
raises :class:`Cancelled` once the token is cancelled or its deadline has passed, so the work stops
there and the thread is free again. Without a current token a checkpoint does nothing.

What a checkpoint cannot interrupt is a single blocking call between two checkpoints (one forward
pass of an embedding model, one retriever search): the work stops at the next checkpoint after it.
Model backends go further: the OpenAI-compatible client caps each HTTP call's timeout at the time
left (:func:`time_left`) and waits between retries with :func:`sleep`; the local Qwen-VL backend
stops generating at the next token once the token is cancelled.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar

from docrag.errors import DocragError


class Cancelled(DocragError):
    """The answer was cancelled (time budget spent, or the client went away) at a checkpoint."""

    def __init__(self, reason: str, stage: str) -> None:
        super().__init__(f"cancelled at {stage}: {reason}")
        self.reason = reason
        self.stage = stage


class CancelToken:
    """A cancel flag with an optional deadline (``time.monotonic()`` seconds)."""

    def __init__(self, timeout: float | None = None) -> None:
        self.deadline = time.monotonic() + timeout if timeout is not None else None
        self.timeout = timeout
        self._event = threading.Event()
        self.reason = ""

    def cancel(self, reason: str) -> None:
        """Ask the work to stop at its next checkpoint (the first reason given is kept)."""
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once cancelled, or once the deadline has passed."""
        if not self._event.is_set() and self.deadline is not None and time.monotonic() >= self.deadline:
            self.cancel(f"the time budget of {self.timeout:g} s is spent")
        return self._event.is_set()

    def remaining(self) -> float | None:
        """Seconds left before the deadline (``None``: no deadline; 0 when past it)."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def check(self, stage: str) -> None:
        """Raise :class:`Cancelled` (naming ``stage``) when the work should stop."""
        if self.cancelled:
            raise Cancelled(self.reason, stage)

    def acquire(self, lock: threading.Lock, stage: str) -> None:
        """Take ``lock``, waiting no longer than the deadline (and re-checking the flag every 0.1 s)."""
        while True:
            self.check(stage)
            left = self.remaining()
            if lock.acquire(timeout=0.1 if left is None else min(0.1, left)):
                return


_CURRENT: ContextVar[CancelToken | None] = ContextVar("docrag_cancel_token", default=None)


@contextlib.contextmanager
def cancel_scope(token: CancelToken | None) -> Iterator[CancelToken | None]:
    """Make ``token`` the current one (for :func:`checkpoint`) inside the ``with`` block."""
    reset = _CURRENT.set(token)
    try:
        yield token
    finally:
        _CURRENT.reset(reset)


def current_token() -> CancelToken | None:
    """The token of the enclosing :func:`cancel_scope`, if any."""
    return _CURRENT.get()


def time_left() -> float | None:
    """Seconds before the current token's deadline (``None``: no token or no deadline)."""
    token = _CURRENT.get()
    return None if token is None else token.remaining()


def sleep(seconds: float, stage: str) -> None:
    """``time.sleep(seconds)`` that wakes up when the current token is cancelled (then raises)."""
    token = _CURRENT.get()
    if token is None:
        time.sleep(seconds)
        return
    left = token.remaining()
    token._event.wait(seconds if left is None else min(seconds, left))
    token.check(stage)


def checkpoint(stage: str) -> None:
    """Stop here (raise :class:`Cancelled`) when the current token says so; no token: no-op."""
    token = _CURRENT.get()
    if token is not None:
        token.check(stage)
