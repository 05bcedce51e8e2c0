"""The citation ``Judge`` protocol, the spec's yes/no prompts and the judge registry.

A judge answers one question: do the shown units together support the answer? It receives the
prompt (exactly as the spec words it), the evidence images (lazily rendered) and a context with the
question/answer/level/mode, and returns a :class:`~docrag.citation.verdict.Verdict`.

Names (``get_judge(name, **opts)``): ``grounding`` (offline text proxy), ``oracle`` (gold evidence,
for testing metrics), ``openai:<model>`` and ``qwen-vl:<path>`` (MLLM judges over
``docrag.backends``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from docrag.citation.evidence import EvidenceImage, Level, Mode
from docrag.citation.verdict import Verdict, parse_verdict
from docrag.config import Settings
from docrag.registry import Family, Registry

PROMPT_VERSION = "finragbench-v/1"

PAGE_PROMPT = ("Answer: {answer} Please judge whether these pages cover the answer, your answer can "
               "only be 'yes' or 'no'.")
BOX_PROMPT = ("Answer: {answer} The following images will contain marked areas (red boxes), please judge "
              "whether these marked areas (red boxes) cover the content of the answer, your answer can "
              "only be 'yes' if it covers or 'no' if it doesn't cover.")
CROP_PROMPT = ("Answer: {answer} Below are some extracts from the images, please decide if they cover "
               "the answers given, your answer can only be 'yes' if it covers or 'no' if it doesn't cover.")

PROMPTS: dict[Mode, str] = {Mode.PAGE: PAGE_PROMPT, Mode.BOX: BOX_PROMPT, Mode.CROP: CROP_PROMPT}


def build_prompt(answer: str, mode: Mode | str) -> str:
    """The spec's judge prompt for ``mode`` with the answer filled in (answer text verbatim)."""
    return PROMPTS[Mode(mode)].replace("{answer}", answer)


@dataclass(frozen=True)
class JudgeContext:
    """What a judge may know besides the prompt and images (text/oracle judges use it)."""

    question: str
    answer: str
    level: Level
    mode: Mode
    qid: str | None = None


@runtime_checkable
class Judge(Protocol):
    """Decides whether shown evidence supports an answer.

    ``cache_id`` identifies the judge's behaviour for the persistent verdict cache (model + settings);
    ``None`` means verdicts are never cached. ``needs_images`` False lets cheap judges skip rendering.
    """

    name: str
    cache_id: str | None
    needs_images: bool

    def judge(self, prompt: str, images: Sequence[EvidenceImage], context: JudgeContext) -> Verdict: ...


class FunctionJudge:
    """A judge made from a function ``fn(prompt, images, context) -> Verdict | bool | str``.

    A bool becomes yes/no, a string is parsed strictly (so scripted replies behave like a model's),
    an exception propagates. Useful for scripted tests and custom rules.
    """

    needs_images = False

    def __init__(self, fn: Callable[[str, Sequence[EvidenceImage], JudgeContext], Verdict | bool | str],
                 name: str = "function", cache_id: str | None = None) -> None:
        self.fn = fn
        self.name = name
        self.cache_id = cache_id

    def judge(self, prompt: str, images: Sequence[EvidenceImage], context: JudgeContext) -> Verdict:
        out = self.fn(prompt, images, context)
        if isinstance(out, Verdict):
            return out
        if isinstance(out, bool):
            return Verdict.yes() if out else Verdict.no()
        return parse_verdict(out)


JUDGES: Registry[Judge] = Registry("judge", families={
    "grounding": Family("docrag.citation.grounding", offline=True),
    "oracle": Family("docrag.citation.oracle", offline=True, offer=False),   # needs gold evidence
    "openai": Family("docrag.citation.chat_judge", "openai:<model>", endpoint=True),
    "qwen-vl": Family("docrag.citation.chat_judge", "qwen-vl:<model id or path>"),
})


def get_judge(name: str, **opts: Any) -> Judge:
    """Create a judge by registry name (``grounding``, ``oracle``, ``openai:<model>``, ``qwen-vl:<path>``)."""
    return JUDGES.create(name, **opts)


def judge_options(name: str, settings: Settings) -> dict[str, Any]:
    """Options for ``get_judge(name)`` from the user's settings: the endpoint, for a judge whose
    registry entry declares one (``openai:``)."""
    return settings.endpoint_options() if JUDGES.family(name).endpoint else {}


def resolve_judge(judge: str | Judge, **opts: Any) -> Judge:
    return get_judge(judge, **opts) if isinstance(judge, str) else judge


def judge_name(judge: Any) -> str:
    return str(getattr(judge, "name", type(judge).__name__))


def judge_cache_id(judge: Any) -> str | None:
    return getattr(judge, "cache_id", None)


def _takes_context(judge: Any) -> bool:
    try:
        params = list(inspect.signature(judge.judge).parameters.values())
    except (TypeError, ValueError):
        return True
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return True
    return len(params) >= 3


def call_judge(judge: Any, prompt: str, images: Sequence[EvidenceImage], context: JudgeContext) -> Verdict:
    """Ask ``judge`` once. Judges written to the plain ``judge(prompt, images)`` form receive the
    rendered PIL images; a bool or str result becomes a verdict (strings are parsed strictly)."""
    if _takes_context(judge):
        out = judge.judge(prompt, images, context)
    else:
        out = judge.judge(prompt, [im.image() for im in images])
    if isinstance(out, Verdict):
        return out
    if isinstance(out, bool):
        return Verdict.yes() if out else Verdict.no()
    if isinstance(out, str):
        return parse_verdict(out)
    return Verdict.failed(f"judge {judge_name(judge)} returned {type(out).__name__}, not a verdict")
