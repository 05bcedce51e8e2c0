"""``openai:<model>``: any OpenAI-compatible chat-completions endpoint over HTTP.

Works with OpenAI, vLLM, Ollama, LM Studio, llama.cpp server, ... Images are sent exactly as given
(PNG by default) as base64 ``data:`` URLs. Transient failures (HTTP 429 / 5xx, connection errors,
timeouts, cut or garbled replies: ``IncompleteRead``, ``BadStatusLine``, bodies that are not UTF-8 JSON or
lack ``choices``) are retried with exponential backoff (``Retry-After`` honoured), then raise
:class:`BackendError` (a :class:`~docrag.errors.DocragError`: one line, no traceback); HTTP 413 and
context-length errors raise :class:`RequestTooLargeError` so callers can send fewer images.

Options: ``base_url`` (default ``$OPENAI_BASE_URL`` or ``https://api.openai.com/v1``), ``api_key``
(default ``$OPENAI_API_KEY``; optional for local servers), ``timeout`` (seconds per request, 120),
``max_retries`` (4), ``backoff`` (first wait in seconds, 1.0), ``max_backoff`` (30),
``image_format`` (``png`` | ``jpeg``), ``extra_body`` (dict merged into every request).
"""

from __future__ import annotations

import base64
import http.client
import io
import json
import logging
import math
import os
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image

from docrag import cancel
from docrag.backends import BACKENDS
from docrag.backends.base import (
    BackendError,
    ChatMessage,
    ChatReply,
    ImagePart,
    RequestTooLargeError,
    TextPart,
)
from docrag.errors import InputError

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_TOO_LARGE_MARKERS = ("context_length_exceeded", "maximum context length", "context length",
                      "too many tokens", "request too large", "too large", "string_above_max_length",
                      "exceeds the maximum", "prompt is too long", "max_model_len")


def encode_image(image: Image.Image, fmt: str = "png") -> str:
    """``image`` as a base64 ``data:`` URL (PNG keeps the pixels exact; JPEG is smaller)."""
    buf = io.BytesIO()
    fmt = fmt.lower()
    if fmt in ("jpg", "jpeg"):
        image.convert("RGB").save(buf, format="JPEG", quality=90)
        mime = "image/jpeg"
    elif fmt == "png":
        image.save(buf, format="PNG")
        mime = "image/png"
    else:
        raise InputError(f"image_format must be 'png' or 'jpeg', got {fmt!r}")
    return f"data:{mime};base64,{base64.b64encode(buf.getvalue()).decode('ascii')}"


def to_openai_messages(messages: Sequence[ChatMessage], image_format: str = "png") -> list[dict]:
    """Convert docrag chat messages into the OpenAI JSON message format."""
    out = []
    for msg in messages:
        parts: list[dict] = []
        for part in msg.content:
            if isinstance(part, TextPart):
                parts.append({"type": "text", "text": part.text})
            elif isinstance(part, ImagePart):
                parts.append({"type": "image_url",
                              "image_url": {"url": encode_image(part.image, image_format)}})
            else:
                raise TypeError(f"unsupported message part {type(part).__name__}")
        if msg.role == "system" or all(p["type"] == "text" for p in parts):
            # Plain strings are the most widely supported form for text-only messages.
            out.append({"role": msg.role, "content": "\n".join(p["text"] for p in parts)})
        else:
            out.append({"role": msg.role, "content": parts})
    return out


class OpenAIBackend:
    """Chat client for an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 120.0, max_retries: int = 4, backoff: float = 1.0,
                 max_backoff: float = 30.0, image_format: str = "png",
                 extra_body: dict[str, Any] | None = None) -> None:
        if not model:
            raise InputError("openai backend needs a model name: use 'openai:<model>'")
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        if not self.api_key and self.base_url == DEFAULT_BASE_URL:
            raise InputError("openai backend: no API key; set OPENAI_API_KEY (or pass api_key), or "
                             "point OPENAI_BASE_URL at a local OpenAI-compatible server")
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.image_format = image_format
        self.extra_body = dict(extra_body or {})

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self.model!r}, base_url={self.base_url!r})"

    # -- public --------------------------------------------------------------------------------
    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 1024,
             temperature: float = 0.0) -> ChatReply:
        body = {"model": self.model, "messages": to_openai_messages(messages, self.image_format),
                "max_tokens": int(max_tokens), "temperature": float(temperature), **self.extra_body}
        data = json.dumps(body).encode("utf-8")
        t0 = time.perf_counter()
        payload, text = self._post_with_retries("/chat/completions", data)
        latency = time.perf_counter() - t0
        choice = payload["choices"][0]
        return ChatReply(text=text, usage=_usage(payload.get("usage")), latency_s=latency,
                         model=str(payload.get("model", self.model)),
                         meta={"finish_reason": choice.get("finish_reason") if isinstance(choice, dict) else None})

    def post_json(self, path: str, body: dict[str, Any]) -> dict:
        """POST ``body`` to another route of the server (``/embeddings``, ``/rerank``) with the same
        retries and one-line errors as :meth:`chat`; the reply must be a JSON object."""
        payload, _ = self._post_with_retries(path, json.dumps(body).encode("utf-8"), decode=_decode_json)
        return payload

    # -- transport -----------------------------------------------------------------------------
    def _request(self, path: str, data: bytes) -> urllib.request.Request:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return urllib.request.Request(self.base_url + path, data=data, headers=headers, method="POST")

    def _post_with_retries(self, path: str, data: bytes,
                           decode: Callable[[bytes], tuple[dict, str]] | None = None) -> tuple[dict, str]:
        """(payload, reply text) of ``decode(body)`` (default: a chat completion), retried on faults."""
        decode = decode or _decode_reply
        url = self.base_url + path
        last = ""
        for attempt in range(self.max_retries + 1):
            retry_after: float | None = None
            cancel.checkpoint("the model server call")
            left = cancel.time_left()   # a call never outlives the caller's time budget by much
            timeout = self.timeout if left is None else max(0.1, min(self.timeout, left))
            try:
                with urllib.request.urlopen(self._request(path, data), timeout=timeout) as resp:
                    raw = resp.read()
                return decode(raw)
            except urllib.error.HTTPError as exc:
                detail = _error_detail(exc)
                if exc.code == 413 or (exc.code in (400, 422) and _looks_too_large(detail)):
                    raise RequestTooLargeError(f"{url}: HTTP {exc.code}: {detail}") from exc
                if exc.code not in RETRY_STATUS:
                    raise BackendError(f"{url}: HTTP {exc.code}: {detail}") from exc
                last = f"HTTP {exc.code}: {detail}"
                retry_after = _retry_after(exc)
            except _BadReply as exc:
                last = f"bad reply: {exc}"
            except http.client.HTTPException as exc:  # IncompleteRead, BadStatusLine, ...
                last = f"broken HTTP reply: {type(exc).__name__}: {str(exc)[:200]}"
            except (urllib.error.URLError, OSError) as exc:  # connection refused/reset, timeouts
                reason = getattr(exc, "reason", exc)
                last = f"connection error: {reason}"
            if attempt < self.max_retries:
                wait = retry_after if retry_after is not None else min(
                    self.max_backoff, self.backoff * (2 ** attempt)) * (0.5 + random.random() / 2)
                log.warning("%s: %s; retry %d/%d in %.1fs", url, last, attempt + 1, self.max_retries, wait)
                cancel.sleep(wait, "waiting to retry the model server")
        last = " ".join(last.split())  # one line
        raise BackendError(f"{url}: giving up after {self.max_retries + 1} attempts; last error: {last}")


class _BadReply(Exception):
    """A 200 reply that cannot be used (not UTF-8 JSON, no ``choices[0].message.content``)."""


def _decode_json(raw: bytes) -> tuple[dict, str]:
    """A JSON object reply (no reply text), or :class:`_BadReply` saying what is wrong."""
    try:
        payload = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _BadReply(f"body is not UTF-8 ({exc.reason} at byte {exc.start}): {raw[:120]!r}") from None
    except (json.JSONDecodeError, RecursionError):
        raise _BadReply(f"body is not JSON: {raw[:120]!r}") from None
    if not isinstance(payload, dict):
        raise _BadReply(f"body is not a JSON object: {raw[:120]!r}")
    return payload, ""


def _decode_reply(raw: bytes) -> tuple[dict, str]:
    """A chat completion's payload and its reply text, or :class:`_BadReply` saying what is wrong."""
    payload, _ = _decode_json(raw)
    try:
        choice = payload["choices"][0]
        text = choice["message"].get("content") or ""
    except (KeyError, IndexError, TypeError, AttributeError):
        raise _BadReply(f"no choices[0].message.content: {json.dumps(payload)[:200]}") from None
    if isinstance(text, list):  # some servers return content parts
        text = "".join(str(p.get("text", "")) for p in text if isinstance(p, dict))
    return payload, str(text)


def _usage(usage: Any) -> dict[str, int]:
    """Token counts as ints; NaN, infinite, negative or non-numeric counts are left out."""
    if not isinstance(usage, dict):
        return {}
    out: dict[str, int] = {}
    for k, v in usage.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        if isinstance(v, float) and not math.isfinite(v):
            log.warning("usage count %s=%r ignored", k, v)
            continue
        if 0 <= v < 2 ** 53:
            out[str(k)] = int(v)
    return out


def _error_detail(exc: urllib.error.HTTPError) -> str:
    """The server's error message, on one line (it ends up in a one-line error for the user)."""
    return " ".join(_raw_error_detail(exc).split())


def _raw_error_detail(exc: urllib.error.HTTPError) -> str:
    try:
        raw = exc.read().decode("utf-8", "replace")
    except OSError:
        return exc.reason or ""
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError:
        return raw[:500]
    err = obj.get("error", obj) if isinstance(obj, dict) else obj
    if isinstance(err, dict):
        parts = [str(err.get(k)) for k in ("code", "type", "message") if err.get(k)]
        return ": ".join(parts)[:500] if parts else json.dumps(obj)[:500]
    return str(err)[:500]


def _looks_too_large(detail: str) -> bool:
    low = detail.lower()
    return any(m in low for m in _TOO_LARGE_MARKERS)


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    value = exc.headers.get("Retry-After") if exc.headers else None
    try:
        return min(60.0, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None


@BACKENDS.register("openai", needs_arg=True, help="OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, ...)")
def _make(model: str, **options: Any) -> OpenAIBackend:
    return OpenAIBackend(model, **options)
