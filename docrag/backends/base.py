"""The chat transport protocol: messages of text and images in, text out (with usage)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from PIL import Image

from docrag.errors import DocragError


@dataclass
class TextPart:
    text: str


@dataclass
class ImagePart:
    """An image exactly as it will be sent (already resized by the caller)."""

    image: Image.Image


Part = TextPart | ImagePart


@dataclass
class ChatMessage:
    role: str                      # "system" | "user" | "assistant"
    content: list[Part] = field(default_factory=list)

    @classmethod
    def user(cls, *parts: Part | str) -> ChatMessage:
        return cls("user", [TextPart(p) if isinstance(p, str) else p for p in parts])

    @classmethod
    def system(cls, text: str) -> ChatMessage:
        return cls("system", [TextPart(text)])


@dataclass
class ChatReply:
    text: str
    usage: dict[str, int] = field(default_factory=dict)   # prompt_tokens, completion_tokens, ...
    latency_s: float = 0.0
    model: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


class BackendError(DocragError, RuntimeError):
    """A chat call failed after retries (network, HTTP status, model error); one line for the user."""


class RequestTooLargeError(BackendError):
    """The request exceeded the server's size/context limit (callers may drop images and retry)."""


@runtime_checkable
class ChatBackend(Protocol):
    """Sends one conversation and returns the model's reply text."""

    name: str

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 1024,
             temperature: float = 0.0) -> ChatReply: ...
