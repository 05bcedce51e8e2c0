"""MLLM judges over ``docrag.backends``: ``openai:<model>`` and ``qwen-vl:<path>``.

The judge sends one user message -- the spec's prompt, the paper's ``Here are my images:`` line, then
the evidence images in citation order --
through the same :class:`~docrag.backends.ChatBackend` the generators use (pass ``backend=`` to share
one already-built client, e.g. a loaded Qwen-VL model), and parses the reply strictly. A backend
failure or an unparseable reply is an error verdict, never "no".

Options: ``max_tokens`` (16), ``temperature`` (0), ``max_image_side`` (None: images are sent at
their own resolution; else scaled down to fit a square of that side), ``page_max_width`` /
``page_max_height`` (page-level calls: whole pages are scaled down to fit this box, by default the
generator's image size, 1024 x 768; 0 sends them at full resolution), ``price_prompt`` /
``price_completion`` (currency per 1M tokens, for cost accounting), ``backend`` (an existing
backend); any other option goes to the backend (``base_url``, ``api_key``, ``timeout``, ...).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from docrag.backends import BackendError, ChatBackend, ChatMessage, ImagePart, get_backend
from docrag.citation.evidence import EvidenceImage, Mode
from docrag.citation.judge import JUDGES, PROMPT_VERSION, JudgeContext
from docrag.citation.verdict import Verdict, parse_verdict
from docrag.geometry import fit_within

log = logging.getLogger(__name__)

IMAGES_LINE = "Here are my images:"   # FinRAGBench-V's judge message puts this line before the images


class ChatJudge:
    """A yes/no citation judge backed by a chat model."""

    needs_images = True

    def __init__(self, backend: ChatBackend, *, max_tokens: int = 16, temperature: float = 0.0,
                 max_image_side: int | None = None, price_prompt: float | None = None,
                 price_completion: float | None = None, page_max_width: int | None = None,
                 page_max_height: int | None = None) -> None:
        from docrag.generation.images import ResizePolicy

        self.backend = backend
        self.name = backend.name
        self.max_tokens = int(max_tokens)
        self.temperature = float(temperature)
        self.max_image_side = int(max_image_side) if max_image_side else None
        self.price_prompt = price_prompt
        self.price_completion = price_completion
        default = ResizePolicy()
        pw = default.max_width if page_max_width is None else int(page_max_width)
        ph = default.max_height if page_max_height is None else int(page_max_height)
        self.page_policy = ResizePolicy(pw, ph) if pw > 0 and ph > 0 else None
        side = f"|side={self.max_image_side}" if self.max_image_side else ""
        page = f"|page={pw}x{ph}" if self.page_policy else "|page=full"
        self.cache_id = f"{backend.name}|t={self.temperature}{side}{page}|{PROMPT_VERSION}+images-line"

    def messages(self, prompt: str, images: Sequence[EvidenceImage]) -> list[ChatMessage]:
        parts: list[Any] = [prompt, IMAGES_LINE]
        for ev in images:
            img = ev.image()
            if ev.mode is Mode.PAGE and self.page_policy is not None:
                img = self.page_policy.apply(img)
            if self.max_image_side:
                size = fit_within(img.width, img.height, self.max_image_side, self.max_image_side)
                if size != img.size:
                    img = img.resize(size)
            parts.append(ImagePart(img))
        return [ChatMessage.user(*parts)]

    def judge(self, prompt: str, images: Sequence[EvidenceImage], context: JudgeContext) -> Verdict:
        msgs = self.messages(prompt, images)
        try:
            reply = self.backend.chat(msgs, max_tokens=self.max_tokens, temperature=self.temperature)
        except BackendError as exc:
            return Verdict.failed(f"judge call failed: {exc}")
        verdict = parse_verdict(reply.text)
        verdict.usage = dict(reply.usage)
        verdict.latency_s = reply.latency_s
        return verdict

    def cost(self, usage: dict[str, int]) -> float | None:
        """Cost of ``usage`` at the configured prices (per 1M tokens); None when no price is set."""
        if self.price_prompt is None and self.price_completion is None:
            return None
        return (usage.get("prompt_tokens", 0) * (self.price_prompt or 0.0)
                + usage.get("completion_tokens", 0) * (self.price_completion or 0.0)) / 1e6


_JUDGE_OPTIONS = ("max_tokens", "temperature", "max_image_side", "price_prompt", "price_completion",
                  "page_max_width", "page_max_height")


def _make(family: str, arg: str, backend: ChatBackend | None, opts: dict[str, Any]) -> ChatJudge:
    judge_opts = {k: opts.pop(k) for k in _JUDGE_OPTIONS if k in opts}
    if backend is None:
        backend = get_backend(f"{family}:{arg}", **opts)
    elif opts:
        raise TypeError(f"backend options {sorted(opts)} given together with an existing backend")
    return ChatJudge(backend, **judge_opts)


@JUDGES.register("openai", needs_arg=True, help="MLLM judge over an OpenAI-compatible endpoint")
def _make_openai(arg: str, backend: ChatBackend | None = None, **opts: Any) -> ChatJudge:
    return _make("openai", arg, backend, opts)


@JUDGES.register("qwen-vl", needs_arg=True, help="local Qwen-VL judge (transformers)")
def _make_qwen(arg: str, backend: ChatBackend | None = None, **opts: Any) -> ChatJudge:
    return _make("qwen-vl", arg, backend, opts)
