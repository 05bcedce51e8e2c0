"""Model transports shared by generators and judges (one client per backend, not one per role).

``get_backend(name, **options)`` builds a :class:`ChatBackend` from a registry name:

* ``openai:<model>`` -- any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama,
  LM Studio, ...); ``base_url`` / ``api_key`` options or ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``.
* ``qwen-vl:<model id or path>`` -- a local Qwen2-VL / Qwen2.5-VL / Qwen3-VL checkpoint run with
  transformers (CUDA bf16 when available, else CPU fp32 with eager attention).
"""

from __future__ import annotations

from typing import Any

from docrag.backends.base import (
    BackendError,
    ChatBackend,
    ChatMessage,
    ChatReply,
    ImagePart,
    RequestTooLargeError,
    TextPart,
)
from docrag.registry import Family, Registry

BACKENDS: Registry[ChatBackend] = Registry("backend", families={
    "openai": Family("docrag.backends.openai", "openai:<model>", endpoint=True),
    "qwen-vl": Family("docrag.backends.qwen_vl", "qwen-vl:<model id or path>"),
})


def get_backend(name: str, **options: Any) -> ChatBackend:
    """The chat backend called ``name`` (``openai:<model>``, ``qwen-vl:<path>``)."""
    return BACKENDS.create(name, **options)


__all__ = ["BACKENDS", "BackendError", "ChatBackend", "ChatMessage", "ChatReply", "ImagePart",
           "RequestTooLargeError", "TextPart", "get_backend"]
