"""Reading a model's reply: repair messy JSON, then map every box into the cited page's PDF points.

Two steps, both total functions (they never raise on model output):

1. :func:`parse_reply` finds the ``{"answer": ..., "coordinates": {...}}`` object in the reply
   (or ``{"answer": ..., "regions": {...}}``, region numbers per image, when citing by region),
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

import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docrag.generation import parse_json as pj
from docrag.geometry import Box, GeometryError
from docrag.io import utf8_safe
from docrag.regions import Region
from docrag.types import Citation, Page

log = logging.getLogger(__name__)

COORD_CONVENTIONS = ("pixel", "model_pixels", "norm1000")

_ANSWER_FIELD = re.compile(r"""["']answer["']\s*:\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""", re.DOTALL)


@dataclass
class ParsedReply:
    """What :func:`parse_reply` could read from a reply."""

    answer: str
    coordinates: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    repairs: list[str] = field(default_factory=list)
    regions: dict[str, Any] = field(default_factory=dict)   # image key -> region numbers (raw)


@dataclass
class ImageFrame:
    """What the parser needs to know about one image that was sent (1-based ``index``)."""

    index: int
    page: Page
    sent_size: tuple[int, int]
    model_size: tuple[int, int] | None = None   # the model's own input size (Qwen2.5-VL)
    regions: tuple[Region, ...] = ()             # the regions numbered on it (cite_by="regions")


# -- step 1: text -> object (repairs in parse_json) -----------------------------------------

def _coordinates_from_list(items: list) -> tuple[dict[str, list] | None, bool]:
    """``[{"image": 1, "bbox": [...]}, ...]`` as ``{"1": [[...]], ...}``; None when not that shape.

    Entries without an image key (Qwen's bare ``[{"bbox_2d": [...]}]``) go to image 1; the flag says so.
    """
    out: dict[str, list] = {}
    defaulted = False
    for item in items:
        if not isinstance(item, dict):
            return None, False
        key = next((item[k] for k in ("image", "image_index", "index", "img", "page") if k in item), None)
        box = next((item[k] for k in ("bbox_2d", "bbox", "box", "coordinates") if k in item), None)
        if box is None:
            return None, False
        if key is None:
            key, defaulted = 1, True
        out.setdefault(pj.key_text(key), []).append(box)
    return out, defaulted


def _unfenced(text: str) -> str:
    """The body of a reply that is exactly one code fence (the format asked for), else the text."""
    m = pj.FENCE.fullmatch(text.strip())
    return m.group(1).strip() if m else text.strip()


def parse_reply(text: str) -> ParsedReply:
    """Read ``{"answer", "coordinates"}`` (and ``"regions"``) from a model reply; never raises.

    All text it returns is UTF-8-safe (a reply cut inside an escaped surrogate pair included).
    """
    try:
        text = text if isinstance(text, str) else pj.as_text(text)
        parsed = _parse(text)
    except Exception as exc:  # noqa: BLE001 -- the promise is "never raises": report, keep the text
        log.warning("reply parser failed (%s: %s); the reply is kept as the answer", type(exc).__name__, exc)
        parsed = ParsedReply(str(text).strip(), {}, f"reply could not be parsed ({type(exc).__name__})")
    parsed.answer = utf8_safe(parsed.answer)
    parsed.repairs = [utf8_safe(r) for r in parsed.repairs]
    return parsed


def _parse(text: str) -> ParsedReply:
    cands = pj.candidates(text)
    found = pj.first_object(cands, pj.is_reply_object)
    if found is not None:
        obj, name, cand = found
        repairs = [] if name == "none" else [f"reply JSON repaired ({name})"]
        if cand.strip() != _unfenced(text) and not repairs:
            repairs = ["reply JSON extracted from surrounding text"]
        cited = [k for k in ("coordinates", "regions") if k in obj]
        if not cited or "answer" not in obj:  # answer and citations in two separate objects
            wanted = ("coordinates", "regions") if "answer" in obj else ("answer",)
            for missing in wanted:
                other = pj.first_object([c for c in cands if c != cand],
                                        lambda o, m=missing: isinstance(o, dict) and m in o)
                if other is not None:
                    obj = {**obj, missing: other[0][missing]}
                    repairs.append(f"'answer' and '{missing if missing != 'answer' else cited[0]}' "
                                   "read from two separate JSON objects")
                    break
        return _reply_from_object(obj, repairs)
    bare = pj.first_object(pj.candidates(text, "[", "]"), pj.bbox_list)
    if bare is not None:
        obj, _, cand = bare
        prose = pj.FENCE.sub(lambda m: "" if cand in m.group(1) else m.group(0), text).replace(cand, "")
        return _reply_from_object({"answer": prose.strip(), "coordinates": obj},
                                  ["reply is a bare list of boxes (no 'answer' field)"])
    # Nothing parseable: salvage the answer field if it is there, else keep the reply text.
    m = _ANSWER_FIELD.search(text)
    if m is not None:
        raw = m.group(1) if m.group(1) is not None else m.group(2)
        loaded = pj.load_plain(f'"{raw}"')
        answer = loaded if isinstance(loaded, str) else raw
        return ParsedReply(answer.strip(), {}, "reply is not valid JSON (answer field salvaged, no citations)")
    fence = pj.FENCE.search(text)
    body = fence.group(1) if fence else text
    return ParsedReply(body.strip(), {}, "reply contains no JSON object with 'answer'/'coordinates'")


def _reply_from_object(obj: dict, repairs: list[str]) -> ParsedReply:
    answer = pj.as_text(obj.get("answer", ""))
    coords = obj.get("coordinates", {})
    if isinstance(coords, str):
        loaded = pj.load_plain(coords) if coords.strip() else {}
        if isinstance(loaded, (dict, list)):
            coords = loaded
            repairs.append("'coordinates' given as a JSON string")
    if coords is None:
        coords = {}
    if isinstance(coords, list):
        listed, defaulted = _coordinates_from_list(coords)
        if listed is not None:
            coords = listed
            repairs.append("'coordinates' given as a list of {image, bbox} entries")
            if defaulted:
                repairs.append("boxes without an image number read as image 1")
    regions = _regions_object(obj.get("regions"), repairs)
    if not isinstance(coords, dict):
        return ParsedReply(answer.strip(), {}, None,
                           repairs + [f"'coordinates' is a {type(coords).__name__}, not an object; "
                                      "no boxes read"], regions)
    return ParsedReply(answer.strip(), {pj.key_text(k): v for k, v in coords.items()}, None, repairs, regions)


_REGION_LIST_KEYS = ("regions", "region", "numbers", "ids")


def _regions_object(value: Any, repairs: list[str]) -> dict[str, Any]:
    """The reply's ``"regions"`` as ``{image key: raw numbers}``: an object as is; a JSON string
    loaded; a bare list of numbers read as image 1's; ``[{"image": 1, "regions": [...]}]`` entries
    gathered -- each reshaping noted in ``repairs``."""
    if value is None:
        return {}
    if isinstance(value, str):
        loaded = pj.load_plain(value) if value.strip() else {}
        if not isinstance(loaded, (dict, list)):
            repairs.append(f"unreadable 'regions' {pj.short(value)}; no regions read")
            return {}
        value = loaded
        repairs.append("'regions' given as a JSON string")
    if isinstance(value, dict):
        return {pj.key_text(k): v for k, v in value.items()}
    if isinstance(value, list) and value and all(isinstance(it, dict) for it in value):
        out: dict[str, list] = {}
        for it in value:
            key = next((it[k] for k in ("image", "image_index", "index", "img", "page") if k in it), 1)
            nums = next((it[k] for k in _REGION_LIST_KEYS if k in it), [])
            out.setdefault(pj.key_text(key), []).extend(nums if isinstance(nums, list) else [nums])
        repairs.append("'regions' given as a list of {image, regions} entries")
        return out
    if isinstance(value, list):
        if value:
            repairs.append("region numbers without an image number read as image 1")
        return {"1": value} if value else {}
    repairs.append(f"'regions' is a {type(value).__name__}, not an object; no regions read")
    return {}


# -- step 2: raw coordinates -> citations in PDF points ----------------------------------------

_KEY = re.compile(r"(?:image|img|page|picture|pic|figure|图片|图像|图|第)?[\s_#:：-]*([0-9]{1,6})\s*(?:张|页|号)?",
                  re.IGNORECASE | re.ASCII)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def image_index(key: str) -> int | None:
    """``1``, ``image 1``, ``Image 1:``, ``<image_1>``, ``image_1``, ``图1``, ``第1张`` -> 1; else None."""
    key = key.strip().strip("<>[](){}\"'`*").strip().rstrip(":：").strip()
    m = _KEY.fullmatch(key)
    return int(m.group(1)) if m else None


def _from_string(value: str) -> Any:
    """A box or box list written as a string: JSON (``"[[1, 2, 3, 4]]"``) or four bare numbers
    (``"42, 290, 549, 334"``); None when it is neither."""
    loaded = pj.load_plain(value) if len(value) < 10_000 else None
    if isinstance(loaded, (list, dict)):
        return loaded
    nums = _NUMBER.findall(value)
    return nums if len(nums) == 4 else None


def _box_list(value: Any) -> tuple[list[Any], str | None]:
    """The list of boxes under one image key (a single flat box is accepted with a note)."""
    if isinstance(value, str):
        loaded = _from_string(value)
        if loaded is None:
            return [], f"unreadable box entry {pj.short(value)}"
        items, note = _box_list(loaded)
        return items, note or "boxes given as a string"
    if isinstance(value, (list, tuple)) and len(value) == 4 and all(_is_number(v) for v in value):
        return [list(value)], "a single box was given without the enclosing list"
    if isinstance(value, dict):
        for k in ("boxes", "bbox", "bboxes", "coordinates", "bbox_2d"):
            if k in value:
                return _box_list(value[k])
        return [], f"unreadable box entry {pj.short(value)}"
    if isinstance(value, (list, tuple)):
        return list(value), None
    return [], f"unreadable box entry {pj.short(value)}"


def _is_number(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    try:
        if isinstance(v, (int, float)):
            return math.isfinite(float(v))
        if isinstance(v, str) and len(v) < 64:
            return math.isfinite(float(v))
    except (ValueError, OverflowError):   # "abc", an int above 1e308
        return False
    return False


def _raw_box(item: Any) -> list[float] | None:
    if isinstance(item, str):
        item = _from_string(item)
    if isinstance(item, dict):
        for k in ("bbox_2d", "bbox", "box", "coordinates"):
            if k in item:
                return _raw_box(item[k])
        if all(k in item for k in ("x1", "y1", "x2", "y2")):
            item = [item["x1"], item["y1"], item["x2"], item["y2"]]
        else:
            return None
    if isinstance(item, (list, tuple)) and len(item) == 1 and isinstance(item[0], (list, tuple, str)):
        return _raw_box(item[0])   # one box wrapped once more
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
        key = pj.key_text(key)
        idx = image_index(key)
        if idx is None or idx not in by_index:
            warnings.append(f"image {pj.short(key, 60)}: not one of the {len(frames)} images sent; "
                            "its boxes were dropped")
            continue
        frame = by_index[idx]
        if key.strip() != str(idx):
            warnings.append(f"image key {pj.short(key, 60)} read as image {idx}")
        items, note = _box_list(value)
        if note:
            warnings.append(f"image {idx}: {note}")
        cit = merged.setdefault(idx, Citation(page_id=frame.page.page_id, boxes=[], image_index=idx))
        for j, item in enumerate(items, start=1):
            raw = _raw_box(item)
            where = f"image {idx} box {j}"
            if raw is None:
                warnings.append(f"{where}: not four numbers ({pj.short(item)}); dropped")
                continue
            try:
                box = _checked_box(raw, frame, coords, where, warnings)
            except (GeometryError, ValueError, OverflowError, ZeroDivisionError) as exc:
                warnings.append(f"{where}: {exc}; dropped")
                continue
            if box is not None:
                cit.boxes.append(box)
    citations = []
    for idx in sorted(merged):
        cit = merged[idx]
        if not cit.boxes:
            warnings.append(f"image {idx}: cited without a usable box; kept as a page citation")
        citations.append(cit)
    return citations, warnings


def _checked_box(raw: list[float], frame: ImageFrame, coords: str, where: str, warnings: list[str]) -> Box | None:
    """One raw box -> page points: reordered, clipped, or None (dropped) with a warning."""
    box = to_image_box(raw, frame, coords)
    if box.x0 > box.x1 or box.y0 > box.y1:
        warnings.append(f"{where}: corners out of order {raw}; reordered")
        box = box.ordered()
    ew, eh = box.extent
    if box.is_valid() and (box.x0 >= ew or box.y0 >= eh or box.x1 <= 0 or box.y1 <= 0):
        warnings.append(f"{where}: {raw} lies entirely outside the image ({ew:g}x{eh:g}); dropped")
        return None
    if not box.is_inside_extent(tol=1e-6):
        warnings.append(f"{where}: {raw} lies partly outside the image "
                        f"({box.extent[0]:g}x{box.extent[1]:g}); clipped")
        box = box.clipped()
    if not box.is_valid():
        warnings.append(f"{where}: {raw} has no area (after clipping); dropped")
        return None
    return frame.page.to_page_points(box)
