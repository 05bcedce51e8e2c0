"""Answer metrics (spec §3): ROUGE-L F1 with CJK tokens, numeric match, and judge accuracy.

Tokens (ROUGE-L): every CJK character is one token; other text is split into lower-cased words
(runs of letters/digits; a number keeps its inner ``.``/``,`` so ``13,153`` and ``20.5`` stay one
token). No stemming, no stop words.

Numeric match: the numbers of the gold answer and of the prediction are compared within a
relative tolerance (default 1e-2). A number is read together with its scale word or unit
(``million``, ``bn``, ``thousand``, ``%``, ``万``, ``亿`` ...) and may match either as written
(``20.5`` for ``20.5 million``, ``53.2`` for ``53.2%``) or scaled (``20,500,000``, ``0.532``).
A decimal split by text extraction (``1 .35``) is read as one number.
The *headline* gold numbers must all be found in the prediction: the numbers outside parentheses
(gold answers state inputs and details in parentheses: ``74.7% (8,263.3 of 11,062.6 thousand)``),
or all numbers when every one is inside parentheses. Gold answers without numbers are not scored
(``None``).

Judge accuracy: an :class:`AnswerJudge` says true/false for (question, gold, prediction); an
empty prediction is false without asking. ``proxy`` (offline default) answers with the numeric
match when the gold has numbers, else ROUGE-L F1 >= 0.5 -- reports label it "accuracy (proxy)".
``openai:<model>`` / ``qwen-vl:<path>`` ask a chat backend the paper's true/false prompt.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger(__name__)

# -- tokenisation and ROUGE-L ---------------------------------------------------------------------

_CJK_RANGES = (
    (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F),  # ideographs
    (0x3040, 0x30FF), (0xAC00, 0xD7AF),  # kana, hangul syllables
)


def is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+|\d+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """ROUGE tokens: each CJK character alone, other words lower-cased (see module docstring)."""
    tokens: list[str] = []
    buf: list[str] = []

    def flush() -> None:
        if buf:
            tokens.extend(m.group(0) for m in _WORD.finditer("".join(buf).lower()))
            buf.clear()

    for ch in text:
        if is_cjk(ch):
            flush()
            tokens.append(ch)
        else:
            buf.append(ch)
    flush()
    return tokens


class _Tokenizer:
    """Adapter for rouge_score's ``tokenizer=`` argument."""

    def tokenize(self, text: str) -> list[str]:
        return tokenize(text)


def _lcs_length(a: list[str], b: list[str]) -> int:
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, start=1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def rouge_l_f1(prediction: str, reference: str) -> float:
    """ROUGE-L F1 (0..1) between a prediction and a reference answer."""
    p, r = tokenize(prediction), tokenize(reference)
    lcs = _lcs_length(r, p)
    if lcs == 0:
        return 0.0
    prec, rec = lcs / len(p), lcs / len(r)
    return 2 * prec * rec / (prec + rec)


# -- numbers ----------------------------------------------------------------------------------------

_SCALES = {
    "thousand": 1e3, "thousands": 1e3, "k": 1e3, "千": 1e3,
    "million": 1e6, "millions": 1e6, "mn": 1e6, "mln": 1e6, "m": 1e6, "百万": 1e6,
    "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9, "十亿": 1e9,
    "trillion": 1e12, "trillions": 1e12, "tn": 1e12, "t": 1e12, "万亿": 1e12,
    "万": 1e4, "千万": 1e7, "亿": 1e8,
}
_PERCENT = {"%", "％", "percent", "per cent", "pct", "个百分点", "百分点"}
# Longest alternatives first; single letters only right after the digits (``5m``, ``$3.1B``).
_WORD_UNITS = sorted([u for u in [*_SCALES, *_PERCENT] if not (len(u) == 1 and u.isalpha() and u.isascii())],
                     key=len, reverse=True)
_NUMBER = re.compile(
    r"(?P<sign>[-−–](?=\d))?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:(?P<letter>[kmbtKMBT](?:n|N)?)(?![A-Za-z])"
    r"|\s*(?P<unit>" + "|".join(re.escape(u) for u in _WORD_UNITS) + r")(?![A-Za-z]))?"
)


# A decimal split by text extraction ("1 .35" for 1.35, a trap of some PDF text layers).
_SPLIT_DECIMAL = re.compile(r"(?<=\d) \.(?=\d)")


@dataclass(frozen=True)
class Number:
    """A number as written, with the values it may stand for (as written, scaled)."""

    text: str
    value: float
    candidates: tuple[float, ...]
    in_parentheses: bool = False


def extract_numbers(text: str) -> list[Number]:
    """Numbers in ``text`` with their scale/unit readings (see module docstring)."""
    out: list[Number] = []
    text = _SPLIT_DECIMAL.sub(".", text)
    depth_at = _paren_depths(text)
    for m in _NUMBER.finditer(text):
        start = m.start()
        if start > 0 and (text[start - 1].isalpha() and text[start - 1].isascii()) and not m.group("sign"):
            continue  # part of an identifier such as "Q3" or "FY2011"
        sign = -1.0 if m.group("sign") and not (start > 0 and text[start - 1].isalnum()) else 1.0
        value = sign * float(m.group("num").replace(",", ""))
        unit = (m.group("letter") or m.group("unit") or "").lower()
        cands = [value]
        if unit in _PERCENT:
            cands.append(value / 100.0)
        elif unit in _SCALES:
            cands.append(value * _SCALES[unit])
        out.append(Number(m.group(0), value, tuple(cands), depth_at[start] > 0))
    return out


def _paren_depths(text: str) -> list[int]:
    depth, out = 0, []
    for ch in text:
        if ch in "(（[":
            depth += 1
        out.append(depth)
        if ch in ")）]" and depth > 0:
            depth -= 1
    return out


def numbers_close(a: float, b: float, rel_tol: float = 1e-2) -> bool:
    if b == 0.0:
        return abs(a) <= 1e-12
    return abs(a - b) <= rel_tol * abs(b)


def headline_numbers(gold: str) -> list[Number]:
    nums = extract_numbers(gold)
    outside = [n for n in nums if not n.in_parentheses]
    return outside or nums


def numeric_recall(prediction: str, gold: str, rel_tol: float = 1e-2) -> float | None:
    """Fraction of the gold's headline numbers found in the prediction (None: gold has none)."""
    gold_nums = headline_numbers(gold)
    if not gold_nums:
        return None
    pred_nums = extract_numbers(prediction)
    found = sum(1 for g in gold_nums
                if any(numbers_close(pc, gc, rel_tol) for p in pred_nums for pc in p.candidates for gc in g.candidates))
    return found / len(gold_nums)


def numeric_match(prediction: str, gold: str, rel_tol: float = 1e-2) -> bool | None:
    """True when every headline gold number is in the prediction; None when the gold has none."""
    rec = numeric_recall(prediction, gold, rel_tol)
    return None if rec is None else rec == 1.0


# -- judge accuracy ---------------------------------------------------------------------------------

JUDGE_PROMPT = ("Question: {question}\nGround_truth: {gold}\nModel_answer: {prediction}\n"
                "Is the model answer correct? You only need to output 'true' for correct or 'false' for "
                "incorrect. If the model answer does not contain any information, it should be judged as 'false'.")


@dataclass
class AnswerVerdict:
    correct: bool | None          # None: the judge failed (error recorded, left out of the mean)
    judge: str
    raw: str = ""
    error: str | None = None

    def to_json(self) -> dict:
        return {"correct": self.correct, "judge": self.judge, "raw": self.raw, "error": self.error}


class AnswerJudge(Protocol):
    name: str
    is_proxy: bool

    def judge(self, question: str, gold: str, prediction: str) -> AnswerVerdict: ...


class ProxyAnswerJudge:
    """Offline stand-in for an LLM judge: numeric match, else ROUGE-L F1 >= ``rouge_threshold``."""

    name = "proxy"
    is_proxy = True

    def __init__(self, rel_tol: float = 1e-2, rouge_threshold: float = 0.5) -> None:
        self.rel_tol = rel_tol
        self.rouge_threshold = rouge_threshold

    def judge(self, question: str, gold: str, prediction: str) -> AnswerVerdict:
        if not prediction.strip():
            return AnswerVerdict(False, self.name, raw="empty answer")
        nm = numeric_match(prediction, gold, self.rel_tol)
        if nm is not None:
            return AnswerVerdict(nm, self.name, raw="numeric match")
        score = rouge_l_f1(prediction, gold)
        return AnswerVerdict(score >= self.rouge_threshold, self.name, raw=f"rouge-l {score:.3f}")


_VERDICT = re.compile(r"^\W*(true|false)\b", re.IGNORECASE)


def parse_true_false(text: str) -> bool | None:
    """A leading true/false word (case-insensitive), else None."""
    m = _VERDICT.match(text or "")
    return None if m is None else m.group(1).lower() == "true"


class BackendAnswerJudge:
    """Asks a chat backend (``openai:<model>``, ``qwen-vl:<path>``) the paper's true/false prompt."""

    is_proxy = False

    def __init__(self, name: str, backend=None, max_tokens: int = 8, **options) -> None:
        from docrag.backends import get_backend

        self.name = name
        self.backend = backend if backend is not None else get_backend(name, **options)
        self.max_tokens = max_tokens

    def judge(self, question: str, gold: str, prediction: str) -> AnswerVerdict:
        from docrag.backends import BackendError, ChatMessage

        if not prediction.strip():
            return AnswerVerdict(False, self.name, raw="empty answer")
        prompt = JUDGE_PROMPT.format(question=question, gold=gold, prediction=prediction)
        try:
            reply = self.backend.chat([ChatMessage.user(prompt)], max_tokens=self.max_tokens, temperature=0.0)
        except BackendError as exc:
            log.warning("answer judge %s failed: %s", self.name, exc)
            return AnswerVerdict(None, self.name, error=f"backend error: {exc}")
        verdict = parse_true_false(reply.text)
        if verdict is None:
            return AnswerVerdict(None, self.name, raw=reply.text, error="reply is not 'true' or 'false'")
        return AnswerVerdict(verdict, self.name, raw=reply.text)


def get_answer_judge(name: str, **options) -> AnswerJudge | None:
    """``none`` (no accuracy), ``proxy`` (offline), or a backend name (``openai:<model>``...)."""
    if name in ("none", ""):
        return None
    if name == "proxy":
        return ProxyAnswerJudge(**options)
    return BackendAnswerJudge(name, **options)


def answer_scores(prediction: str, gold: str, rel_tol: float = 1e-2) -> dict[str, float | bool | None]:
    """The judge-free answer metrics of one question."""
    return {"rouge_l": rouge_l_f1(prediction, gold),
            "numeric_match": numeric_match(prediction, gold, rel_tol),
            "numeric_recall": numeric_recall(prediction, gold, rel_tol)}
