"""Judge verdicts and their strict parsing.

A verdict is ``yes``, ``no`` or ``error``. A reply counts as a verdict only when it *starts* with
the word ``yes`` or ``no`` (case-insensitive), after any leading markdown and punctuation (spaces,
quotes, ``*``, ``_``, ``#``, ``>``, ``-``, backticks, brackets, ``Answer:``/``Verdict:`` labels):
``**Yes**``, ``Yes.``, ``"no"``, ``- No, the boxes...`` all parse. Anything else -- "I think yes",
"Yesterday", a yes/no later in the text, an empty reply, a failed call -- is an **error**, recorded
with its reason and never read as "no".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class VerdictValue(str, Enum):
    YES = "yes"
    NO = "no"
    ERROR = "error"


_LEADING = re.compile(r"""^[\s"'`*_(\[{<>#\-:.~|]*(?:(?:final\s+)?(?:answer|verdict|judgement|judgment)\s*[:：]"""
                      r"""[\s"'`*_(\[{<>#\-:.~|]*)?(yes|no)(?![a-z0-9])""", re.IGNORECASE)


@dataclass
class Verdict:
    """One judge decision; ``source`` says whether it came from the judge, the cache or memo."""

    value: VerdictValue
    raw: str = ""
    error: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    latency_s: float = 0.0
    source: str = "judge"   # "judge" | "cache" | "memo"

    @classmethod
    def yes(cls, raw: str = "yes", **kw: Any) -> Verdict:
        return cls(VerdictValue.YES, raw, **kw)

    @classmethod
    def no(cls, raw: str = "no", **kw: Any) -> Verdict:
        return cls(VerdictValue.NO, raw, **kw)

    @classmethod
    def failed(cls, reason: str, raw: str = "", **kw: Any) -> Verdict:
        return cls(VerdictValue.ERROR, raw, error=reason, **kw)

    @property
    def is_error(self) -> bool:
        return self.value is VerdictValue.ERROR

    @property
    def supported(self) -> bool:
        """True for yes, False for no; asking an error verdict is a bug, so it raises."""
        if self.is_error:
            raise ValueError(f"an error verdict has no yes/no value ({self.error})")
        return self.value is VerdictValue.YES

    def to_json(self) -> dict:
        out: dict[str, Any] = {"value": self.value.value, "raw": self.raw, "source": self.source}
        if self.error:
            out["error"] = self.error
        if self.usage:
            out["usage"] = dict(self.usage)
        if self.latency_s:
            out["latency_s"] = round(self.latency_s, 4)
        return out


def parse_verdict(text: str | None) -> Verdict:
    """Strictly parse a judge reply: a leading yes/no word, else an error verdict."""
    raw = text or ""
    m = _LEADING.match(raw)
    if not m:
        shown = raw.strip().replace("\n", " ")[:80]
        return Verdict.failed(f"unparseable verdict (no leading yes/no): {shown!r}", raw=raw)
    return Verdict.yes(raw) if m.group(1).lower() == "yes" else Verdict.no(raw)
