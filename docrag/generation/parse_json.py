"""Step 1 of reading a reply: find and repair the JSON-ish ``{"answer", "coordinates"}`` object.

Total on any text: every loader error (huge integer literals, deep nesting, odd Python literals) is
caught and the next repair tried. Whatever was loaded is turned into plain JSON data by
:func:`plain` (sets and tuples become lists, bytes text, ``...`` and non-finite floats ``None``,
keys text), so later steps only ever see ``dict``/``list``/``str``/``int``/``float``/``bool``/``None``.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from typing import Any

FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js|python)?[ \t]*\n?(.*?)```", re.DOTALL)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_ELLIPSIS = re.compile(r"(?:\.\.\.|…)\s*,?")
_PLACEHOLDER_BOX = re.compile(r"\[\s*x1\s*,\s*y1\s*,\s*x2\s*,\s*y2\s*\]\s*,?")
MAX_CANDIDATE_CHARS = 200_000   # longer spans are not tried (a reply that long is junk)


def short(value: Any, n: int = 80) -> str:
    """``repr(value)`` cut to ``n`` characters; never raises (huge ints refuse ``repr``)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # int above sys.get_int_max_str_digits, deep nesting
        text = f"<{type(value).__name__} too large to show>"
    return text[:n]


def plain(obj: Any, depth: int = 0) -> Any:
    """``obj`` as plain JSON data (see the module docstring); nesting past 100 levels is dropped."""
    if depth > 100:
        return None
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj).decode("utf-8", "replace")
    if isinstance(obj, dict):
        return {key_text(k): plain(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v, depth + 1) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted((plain(v, depth + 1) for v in obj), key=short)
    return None   # Ellipsis, complex numbers, ...


def key_text(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, (bytes, bytearray)):
        return bytes(key).decode("utf-8", "replace")
    if isinstance(key, int) and not isinstance(key, bool) and abs(key) >= 10 ** 100:
        return short(key, 40)
    return short(key, 200) if not isinstance(key, (int, float)) else str(key)


def as_text(value: Any) -> str:
    """An answer value as text: strings as they are, anything else as compact JSON."""
    value = plain(value)
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        return json.dumps(value, ensure_ascii=False)
    except ValueError:   # an int too long for str()
        return short(value, 200)


def _outside_strings(text: str, fn) -> str:
    """Apply ``fn`` to the parts of ``text`` outside double-quoted strings."""
    out, pos = [], 0
    for m in _STRING.finditer(text):
        out.append(fn(text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(fn(text[pos:]))
    return "".join(out)


def strip_comments(text: str) -> str:
    """Remove ``//``, ``#`` (line) and ``/* */`` comments that are outside string literals."""
    out: list[str] = []
    i, n = 0, len(text)
    quote: str | None = None
    while i < n:
        c = text[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == quote:
                quote = None
            i += 1
            continue
        if c in "\"'":
            # An apostrophe inside a word (don't, company's) is not a quote.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(c)
                i += 1
                continue
            quote = c
            out.append(c)
            i += 1
            continue
        if c == "#" or (c == "/" and i + 1 < n and text[i + 1] == "/"):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def balanced_spans(text: str, opener: str = "{", closer: str = "}") -> list[str]:
    """Every top-level ``{...}`` (or ``[...]``) span of ``text`` (string-aware), longest first.

    A span left open at the end (a reply cut by the token limit) is closed.
    """
    spans: list[str] = []
    depth, start = 0, -1
    quote: str | None = None
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c == '"':
            quote = c
        elif c == opener:
            if depth == 0:
                start = i
            depth += 1
        elif c == closer and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start:i + 1])
        i += 1
    if depth > 0 and start >= 0:
        spans.append(close_truncated(text[start:]))
    return sorted(spans, key=len, reverse=True)


def close_truncated(text: str) -> str:
    """Close the string, arrays and objects a cut-off JSON text left open."""
    stack: list[str] = []
    in_string = False
    i = 0
    while i < len(text):
        c = text[i]
        if in_string:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            stack.append("}" if c == "{" else "]")
        elif c in "}]" and stack:
            stack.pop()
        i += 1
    if text.endswith("\\") and in_string:
        text = text[:-1]   # cut right after a backslash: drop the half escape
    out = text + ('"' if in_string else "")
    out = re.sub(r"[\s,:]+$", "", out)
    if out.endswith('"') and stack and stack[-1] == "}" and re.search(r'[{,]\s*"[^"]*"$', out):
        out += ": null"   # a dangling key
    return out + "".join(reversed(stack))


def repairs(candidate: str) -> list[tuple[str, str]]:
    """Successively stronger repairs of a JSON-ish object: (name, text)."""
    out = [("none", candidate)]
    no_comments = strip_comments(candidate)
    out.append(("comments", no_comments))
    no_trailing = re.sub(r",\s*([}\]])", r"\1", no_comments)
    out.append(("trailing commas", no_trailing))
    no_placeholders = _outside_strings(no_trailing, lambda s: _ELLIPSIS.sub("", _PLACEHOLDER_BOX.sub("", s)))
    no_placeholders = re.sub(r",\s*([}\]])", r"\1", no_placeholders)
    if no_placeholders != no_trailing:
        out.append(("template placeholders '...' removed", no_placeholders))
    quoted_keys = re.sub(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*|\d+)(\s*:)", r'\1"\2"\3', no_placeholders)
    out.append(("unquoted keys", quoted_keys))
    pyish = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", quoted_keys)))
    out.append(("python literal", pyish))
    return out


def load(text: str) -> Any:
    """JSON, else a Python literal, else None. Never raises."""
    if len(text) > MAX_CANDIDATE_CHARS:
        return None
    try:
        return json.loads(text, strict=False)   # strict=False: raw newlines inside strings
    except (ValueError, RecursionError):   # JSONDecodeError, and integer literals over 4300 digits
        pass
    try:
        with warnings.catch_warnings():   # "invalid decimal literal" and the like: not ours to show
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.literal_eval(text)
    except Exception:  # noqa: BLE001 -- hostile text: literal_eval raises many types (all mean "not a literal")
        return None


def load_plain(text: str) -> Any:
    return plain(load(text))


def is_reply_object(obj: Any) -> bool:
    return isinstance(obj, dict) and ("answer" in obj or "coordinates" in obj or "regions" in obj)


def bbox_list(obj: Any) -> bool:
    """Qwen's bare grounding list: ``[{"bbox_2d": [...], "label": ...}, ...]``."""
    return isinstance(obj, list) and bool(obj) and all(
        isinstance(it, dict) and any(k in it for k in ("bbox_2d", "bbox", "box")) for it in obj)


def candidates(text: str, opener: str = "{", closer: str = "}") -> list[str]:
    """Spans to try: those inside code fences first, then those of the whole text (deduplicated)."""
    out: list[str] = []
    for m in FENCE.finditer(text):
        out.extend(balanced_spans(m.group(1), opener, closer))
    out.extend(balanced_spans(text, opener, closer))
    seen: set[str] = set()
    return [c for c in out if not (c in seen or seen.add(c))]


def first_object(cands: list[str], want) -> tuple[Any, str, str] | None:
    """The first (object, repair name, span) among ``cands`` whose loaded value satisfies ``want``."""
    for cand in cands:
        for name, fixed in repairs(cand):
            obj = load_plain(fixed)
            if want(obj):
                return obj, name, cand
    return None
