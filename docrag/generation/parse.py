"""Reading a model's reply: repair messy JSON, then map every box into the cited page's PDF points.

Two steps, both total functions (they never raise on model output):

1. :func:`parse_reply` finds the ``{"answer": ..., "coordinates": {...}}`` object in the reply,
   repairing code fences, ``//``/``#``/``/* */`` comments, trailing commas, single quotes, Python
   literals and prose around the JSON. It returns the answer, the raw coordinates and, when nothing
   usable was found, a parse error (the answer is then the reply text, with no citations).
2. :func:`citations_from_coordinates` converts the raw boxes, given the reply convention and the
   images that were sent, into :class:`~docrag.types.Citation` objects in ``Space.POINT``:
   reversed corners are reordered, out-of-bounds boxes clipped, degenerate or malformed boxes and
   unknown image indices dropped -- each with a warning.

Reply conventions (``coords``):

* ``pixel``        -- pixels of the image as sent (the size stated in the prompt); GPT-4o style.
* ``model_pixels`` -- pixels of the model's own resized input (Qwen2.5-VL); needs that size.
* ``norm1000``     -- a 0-1000 grid over each image (Qwen2-VL, Qwen3-VL).
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docrag.geometry import Box, GeometryError
from docrag.types import Citation, Page

COORD_CONVENTIONS = ("pixel", "model_pixels", "norm1000")

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js|python)?[ \t]*\n?(.*?)```", re.DOTALL)
_ANSWER_FIELD = re.compile(r"""["']answer["']\s*:\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""", re.DOTALL)


@dataclass
class ParsedReply:
    """What :func:`parse_reply` could read from a reply."""

    answer: str
    coordinates: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    repairs: list[str] = field(default_factory=list)


@dataclass
class ImageFrame:
    """What the parser needs to know about one image that was sent (1-based ``index``)."""

    index: int
    page: Page
    sent_size: tuple[int, int]
    model_size: tuple[int, int] | None = None   # the model's own input size (Qwen2.5-VL)


# -- step 1: text -> object -------------------------------------------------------------------

def _strip_comments(text: str) -> str:
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


def _balanced_objects(text: str) -> list[str]:
    """Every top-level ``{...}`` span of ``text`` (string-aware), longest first."""
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
        elif c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start:i + 1])
        i += 1
    if depth > 0 and start >= 0:  # truncated reply (token limit): close what is open
        spans.append(_close_truncated(text[start:]))
    return sorted(spans, key=len, reverse=True)


def _close_truncated(text: str) -> str:
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
    out = text + ('"' if in_string else "")
    out = re.sub(r"[\s,:]+$", "", out)
    if out.endswith('"') and stack and stack[-1] == "}" and re.search(r'[{,]\s*"[^"]*"$', out):
        out += ": null"   # a dangling key
    return out + "".join(reversed(stack))


def _repairs(candidate: str) -> list[tuple[str, str]]:
    """Successively stronger repairs of a JSON-ish object: (name, text)."""
    out = [("none", candidate)]
    no_comments = _strip_comments(candidate)
    out.append(("comments", no_comments))
    no_trailing = re.sub(r",\s*([}\]])", r"\1", no_comments)
    out.append(("trailing commas", no_trailing))
    quoted_keys = re.sub(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*|\d+)(\s*:)", r'\1"\2"\3', no_trailing)
    out.append(("unquoted keys", quoted_keys))
    pyish = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", quoted_keys)))
    out.append(("python literal", pyish))
    return out


def _load(text: str) -> Any:
    try:
        return json.loads(text, strict=False)   # strict=False: raw newlines inside strings
    except (json.JSONDecodeError, RecursionError):
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _as_reply_object(obj: Any) -> dict | None:
    if isinstance(obj, dict) and ("answer" in obj or "coordinates" in obj):
        return obj
    return None


def _coordinates_from_list(items: list) -> dict[str, list] | None:
    """``[{"image": 1, "bbox": [...]}, ...]`` as ``{"1": [[...]], ...}``; None when not that shape."""
    out: dict[str, list] = {}
    for item in items:
        if not isinstance(item, dict):
            return None
        key = next((item[k] for k in ("image", "image_index", "index", "img", "page") if k in item), None)
        box = next((item[k] for k in ("bbox", "box", "bbox_2d", "coordinates") if k in item), None)
        if key is None or box is None:
            return None
        out.setdefault(str(key), []).append(box)
    return out


def _unfenced(text: str) -> str:
    """The body of a reply that is exactly one code fence (the format asked for), else the text."""
    m = _FENCE.fullmatch(text.strip())
    return m.group(1).strip() if m else text.strip()


def parse_reply(text: str) -> ParsedReply:
    """Read ``{"answer", "coordinates"}`` from a model reply; never raises."""
    text = text if isinstance(text, str) else str(text)
    candidates: list[str] = []
    for m in _FENCE.finditer(text):
        candidates.extend(_balanced_objects(m.group(1)))
    candidates.extend(_balanced_objects(text))
    seen: set[str] = set()
    for cand in candidates:
        if cand in seen:
            continue
        seen.add(cand)
        for name, fixed in _repairs(cand):
            obj = _as_reply_object(_load(fixed))
            if obj is None:
                continue
            answer = obj.get("answer", "")
            answer = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
            coords = obj.get("coordinates", {})
            repairs = [] if name == "none" else [f"reply JSON repaired ({name})"]
            if cand.strip() != _unfenced(text) and not repairs:
                repairs = ["reply JSON extracted from surrounding text"]
            if coords is None:
                coords = {}
            if isinstance(coords, list):
                listed = _coordinates_from_list(coords)
                if listed is not None:
                    coords = listed
                    repairs.append("'coordinates' given as a list of {image, bbox} entries")
            if not isinstance(coords, dict):
                return ParsedReply(answer.strip(), {}, None,
                                   repairs + [f"'coordinates' is a {type(coords).__name__}, not an object; "
                                              "no citations read"])
            return ParsedReply(answer.strip(), {str(k): v for k, v in coords.items()}, None, repairs)
    # Nothing parseable: salvage the answer field if it is there, else keep the reply text.
    m = _ANSWER_FIELD.search(text)
    if m is not None:
        raw = m.group(1) if m.group(1) is not None else m.group(2)
        try:
            answer = json.loads(f'"{raw}"')
        except json.JSONDecodeError:
            answer = raw
        return ParsedReply(answer.strip(), {}, "reply is not valid JSON (answer field salvaged, no citations)")
    fence = _FENCE.search(text)
    body = fence.group(1) if fence else text
    return ParsedReply(body.strip(), {}, "reply contains no JSON object with 'answer'/'coordinates'")


# -- step 2: raw coordinates -> citations in PDF points ----------------------------------------

def _image_index(key: str) -> int | None:
    key = key.strip()
    m = re.fullmatch(r"(?:image|img|page|picture)?[\s_#-]*([0-9]+)", key, re.IGNORECASE | re.ASCII)
    return int(m.group(1)) if m else None


def _box_list(value: Any) -> tuple[list[Any], str | None]:
    """The list of boxes under one image key (a single flat box is accepted with a note)."""
    if isinstance(value, (list, tuple)) and len(value) == 4 and all(_is_number(v) for v in value):
        return [list(value)], "a single box was given without the enclosing list"
    if isinstance(value, dict):
        for k in ("boxes", "bbox", "bboxes", "coordinates", "bbox_2d"):
            if k in value:
                return _box_list(value[k])
        return [], f"unreadable box entry {value!r:.80}"
    if isinstance(value, (list, tuple)):
        return list(value), None
    return [], f"unreadable box entry {value!r:.80}"


def _is_number(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return math.isfinite(float(v))
    if isinstance(v, str):
        try:
            return math.isfinite(float(v))
        except ValueError:
            return False
    return False


def _raw_box(item: Any) -> list[float] | None:
    if isinstance(item, dict):
        for k in ("bbox_2d", "bbox", "box", "coordinates"):
            if k in item:
                return _raw_box(item[k])
        if all(k in item for k in ("x1", "y1", "x2", "y2")):
            item = [item["x1"], item["y1"], item["x2"], item["y2"]]
        else:
            return None
    if isinstance(item, (list, tuple)) and len(item) == 2 and all(
            isinstance(p, (list, tuple)) and len(p) == 2 for p in item):
        item = [*item[0], *item[1]]  # [[x1, y1], [x2, y2]]
    if not isinstance(item, (list, tuple)) or len(item) != 4 or not all(_is_number(v) for v in item):
        return None
    return [float(v) for v in item]


def to_image_box(raw: Sequence[float], frame: ImageFrame, coords: str) -> Box:
    """A raw reply box as a :class:`Box` in the space the model answered in (not yet checked)."""
    if coords == "pixel":
        return Box.pixels(*raw, *frame.sent_size)
    if coords == "model_pixels":
        size = frame.model_size or frame.sent_size
        return Box.pixels(*raw, *size)
    if coords == "norm1000":
        return Box.from_grid(raw, 1000.0)
    raise ValueError(f"unknown coordinate convention {coords!r}; use one of {', '.join(COORD_CONVENTIONS)}")


def citations_from_coordinates(coordinates: Mapping[str, Any], frames: Sequence[ImageFrame],
                               coords: str = "pixel") -> tuple[list[Citation], list[str]]:
    """Citations in each page's PDF points, plus a warning for every repaired or dropped box."""
    by_index = {f.index: f for f in frames}
    warnings: list[str] = []
    merged: dict[int, Citation] = {}
    for key, value in coordinates.items():
        idx = _image_index(str(key))
        if idx is None or idx not in by_index:
            warnings.append(f"image {key!r}: not one of the {len(frames)} images sent; its boxes were dropped")
            continue
        frame = by_index[idx]
        if str(key).strip() != str(idx):
            warnings.append(f"image key {key!r} read as image {idx}")
        items, note = _box_list(value)
        if note:
            warnings.append(f"image {idx}: {note}")
        cit = merged.setdefault(idx, Citation(page_id=frame.page.page_id, boxes=[], image_index=idx))
        for j, item in enumerate(items, start=1):
            raw = _raw_box(item)
            where = f"image {idx} box {j}"
            if raw is None:
                warnings.append(f"{where}: not four numbers ({item!r:.80}); dropped")
                continue
            try:
                box = to_image_box(raw, frame, coords)
            except GeometryError as exc:
                warnings.append(f"{where}: {exc}; dropped")
                continue
            if box.x0 > box.x1 or box.y0 > box.y1:
                warnings.append(f"{where}: corners out of order {raw}; reordered")
                box = box.ordered()
            ew, eh = box.extent
            if box.is_valid() and (box.x0 >= ew or box.y0 >= eh or box.x1 <= 0 or box.y1 <= 0):
                warnings.append(f"{where}: {raw} lies entirely outside the image ({ew:g}x{eh:g}); dropped")
                continue
            if not box.is_inside_extent(tol=1e-6):
                warnings.append(f"{where}: {raw} lies partly outside the image "
                                f"({box.extent[0]:g}x{box.extent[1]:g}); clipped")
                box = box.clipped()
            if not box.is_valid():
                warnings.append(f"{where}: {raw} has no area (after clipping); dropped")
                continue
            cit.boxes.append(frame.page.to_page_points(box))
    citations = []
    for idx in sorted(merged):
        cit = merged[idx]
        if not cit.boxes:
            warnings.append(f"image {idx}: cited without a usable box; kept as a page citation")
        citations.append(cit)
    return citations, warnings
