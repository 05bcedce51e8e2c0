"""Citation recall, irrelevance and precision (spec §4) with the call-saving order.

For a unit set C and S(X) = "the judge says units X together support the answer":

* recall = 1 if S(C) else 0 (empty C: 0);
* irrel(c) = not S({c}) and S(C \\ {c}); with |C| = 1, c is never irrelevant;
* precision = |{c : not irrel(c)}| / |C| if recall = 1 else 0 (empty C: 0).

Order of calls: S(C) first; when it is false, nothing else is asked. For each c, S(C \\ {c}) is
asked first and S({c}) only when that is true. Unit sets with the same content are asked once per
answer (with |C| = 2, C \\ {c1} is the singleton {c2}), and every yes/no verdict goes through the
persistent cache. A judge error stops the answer: it is recorded, the answer has no score and is
left out of the means (never counted as "no").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from docrag.citation.verdict import Verdict

SupportFn = Callable[[frozenset[int]], Verdict]


@dataclass
class UnitVerdict:
    """Per-unit outcome: S(C \\ {c}), S({c}) (None when not asked) and the irrelevance flag."""

    index: int
    page_id: str = ""
    box: list[float] | None = None
    without: Verdict | None = None
    alone: Verdict | None = None
    irrelevant: bool | None = None     # None when undecided (recall 0 or a judge error)

    def to_json(self) -> dict:
        return {"index": self.index, "page_id": self.page_id, "box": self.box,
                "without": self.without.to_json() if self.without else None,
                "alone": self.alone.to_json() if self.alone else None, "irrelevant": self.irrelevant}


@dataclass
class SetScore:
    """Recall/precision of one unit set; ``None`` scores when a judge error left them undecided."""

    n_units: int
    recall: float | None
    precision: float | None
    support_all: Verdict | None
    units: list[UnitVerdict] = field(default_factory=list)
    error: str | None = None
    memo_hits: int = 0


def score_units(keys: Sequence[str], support: SupportFn) -> SetScore:
    """Score a unit set given its unit content keys and S (called with sets of unit indices).

    ``support`` is called at most once per distinct *content* (set of keys) and never for the
    empty set.
    """
    n = len(keys)
    units = [UnitVerdict(i) for i in range(n)]
    if n == 0:
        return SetScore(0, 0.0, 0.0, None, units)
    memo: dict[frozenset[str], Verdict] = {}
    memo_hits = 0

    def ask(idx: frozenset[int]) -> Verdict:
        nonlocal memo_hits
        content = frozenset(keys[i] for i in idx)
        if content in memo:
            memo_hits += 1
            v = memo[content]
            return Verdict(v.value, v.raw, v.error, source="memo")
        v = support(idx)
        memo[content] = v
        return v

    def done(score: SetScore) -> SetScore:
        score.memo_hits = memo_hits
        return score

    everything = frozenset(range(n))
    s_all = ask(everything)
    if s_all.is_error:
        return done(SetScore(n, None, None, s_all, units, error=s_all.error))
    if not s_all.supported:
        return done(SetScore(n, 0.0, 0.0, s_all, units))
    if n == 1:
        units[0].irrelevant = False
        return done(SetScore(n, 1.0, 1.0, s_all, units))
    for i in range(n):
        rest = everything - {i}
        without = ask(rest)
        units[i].without = without
        if without.is_error:
            return done(SetScore(n, 1.0, None, s_all, units, error=without.error))
        if not without.supported:
            units[i].irrelevant = False
            continue
        alone = ask(frozenset({i}))
        units[i].alone = alone
        if alone.is_error:
            return done(SetScore(n, 1.0, None, s_all, units, error=alone.error))
        units[i].irrelevant = not alone.supported
    relevant = sum(1 for u in units if not u.irrelevant)
    return done(SetScore(n, 1.0, relevant / n, s_all, units))


def distinct_sets(keys: Sequence[str]) -> list[frozenset[int]]:
    """Every unit set the call-saving order may ask, once per distinct content (worst case)."""
    n = len(keys)
    if n == 0:
        return []
    everything = frozenset(range(n))
    candidates = [everything]
    if n > 1:
        for i in range(n):
            candidates += [everything - {i}, frozenset({i})]
    seen: set[frozenset[str]] = set()
    out = []
    for idx in candidates:
        content = frozenset(keys[i] for i in idx)
        if content not in seen:
            seen.add(content)
            out.append(idx)
    return out


@dataclass
class CallCounter:
    """Judge calls, cache hits and memo hits of one or more answers, with usage and time."""

    calls: int = 0
    cache_hits: int = 0
    memo_hits: int = 0
    errors: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    judge_seconds: float = 0.0

    def record_call(self, verdict: Verdict, seconds: float) -> None:
        self.calls += 1
        self.judge_seconds += seconds
        self.errors += int(verdict.is_error)
        for k, v in verdict.usage.items():
            if isinstance(v, (int, float)):
                self.usage[k] = self.usage.get(k, 0) + int(v)


def timed(fn: Callable[[], Verdict]) -> tuple[Verdict, float]:
    t0 = time.perf_counter()
    v = fn()
    return v, time.perf_counter() - t0
