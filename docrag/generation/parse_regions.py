"""Reading region numbers from a reply (``cite_by="regions"``): numbers -> the regions' exact boxes.

A reply ``{"answer": ..., "regions": {"1": [3, 5], "2": [1]}}`` names, per image sent (1-based keys,
read like the keys of ``"coordinates"``), numbers of the regions marked on that image
(:mod:`docrag.generation.marks`). Each known number becomes its region's box in the page's PDF
points (converted by :meth:`docrag.types.Page.to_page_points`, i.e. :mod:`docrag.geometry`; no
rounding) and its number is kept in :attr:`docrag.types.Citation.regions`. Numbers not on the image
and numbers under an image key that was not sent are dropped with ONE counted warning
(``2 region numbers not on the page were dropped: image 1 #9, image 2 #4``); entries that are not
numbers at all get one warning of their own. Never raises on model output.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from docrag.generation import parse_json as pj
from docrag.generation.parse import ImageFrame, image_index
from docrag.types import Citation

_NUMBER = re.compile(r"^\s*(?:#|no\.?|nr\.?|region|区域|第)?\s*(\d{1,6})\s*(?:号|个)?\s*$", re.IGNORECASE)
MAX_LISTED = 8       # dropped numbers named in the warning; the rest are counted
MAX_NUMBER = 99_999  # larger "numbers" are no region numbers (and huge ints cannot even be printed)


def region_number(item: Any) -> int | None:
    """``3``, ``3.0``, ``"3"``, ``"#3"``, ``"region 3"``, ``{"region": 3}`` -> 3; anything else None."""
    if isinstance(item, bool):
        return None
    if isinstance(item, int):
        return item if abs(item) <= MAX_NUMBER else None
    if isinstance(item, float):
        return int(item) if math.isfinite(item) and item.is_integer() and abs(item) <= MAX_NUMBER else None
    if isinstance(item, str):
        m = _NUMBER.match(item)
        return int(m.group(1)) if m else None
    if isinstance(item, dict):
        for k in ("region", "id", "number", "n"):
            if k in item:
                return region_number(item[k])
    return None


def _entries(value: Any) -> list[Any]:
    """The raw entries under one image key (a lone number, a list, a "3, 5" string, ``{"regions": [...]}``)."""
    if isinstance(value, dict):
        inner = next((value[k] for k in ("regions", "region", "numbers", "ids") if k in value), None)
        if inner is not None:
            return _entries(inner)
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str) and "," in value:
        return [v for v in value.split(",") if v.strip()]
    return [] if value is None else [value]


def citations_from_regions(regions: Mapping[str, Any], frames: Sequence[ImageFrame]
                           ) -> tuple[list[Citation], list[str]]:
    """One citation per image named (its regions' boxes in PDF points), and the warnings."""
    by_index = {f.index: f for f in frames}
    dropped: list[str] = []
    unreadable: list[str] = []
    notes: list[str] = []
    out: dict[int, Citation] = {}
    for key, value in regions.items():
        key = pj.key_text(key)
        idx = image_index(key)
        items = _entries(value)
        frame = by_index.get(idx) if idx is not None else None
        label = f"image {idx}" if idx is not None else f"image {pj.short(key, 40)}"
        if frame is None:
            dropped.extend(f"{label} #{n}" if (n := region_number(it)) is not None else f"{label} {pj.short(it, 30)}"
                           for it in items)
            if not items:
                notes.append(f"{label}: not one of the {len(frames)} images sent; dropped")
            continue
        if key.strip() != str(idx):
            notes.append(f"image key {pj.short(key, 60)} read as image {idx}")
        known = {r.number: r for r in frame.regions}
        cit = out.setdefault(idx, Citation(page_id=frame.page.page_id, boxes=[], image_index=idx))
        for it in items:
            n = region_number(it)
            if n is None:
                unreadable.append(f"{label} {pj.short(it, 30)}")
            elif n not in known:
                dropped.append(f"{label} #{n}")
            elif n not in cit.regions:
                cit.regions.append(n)
                cit.boxes.append(frame.page.to_page_points(known[n].box))
    warnings = notes
    if dropped:
        listed = ", ".join(dropped[:MAX_LISTED]) + (f" and {len(dropped) - MAX_LISTED} more"
                                                      if len(dropped) > MAX_LISTED else "")
        what = "region number" if len(dropped) == 1 else "region numbers"
        warnings.append(f"{len(dropped)} {what} not on the page {'was' if len(dropped) == 1 else 'were'} "
                        f"dropped: {listed}")
    if unreadable:
        warnings.append(f"{len(unreadable)} region entr{'y' if len(unreadable) == 1 else 'ies'} not a number "
                        f"dropped: {', '.join(unreadable[:MAX_LISTED])}")
    return [out[i] for i in sorted(out)], warnings


def merge_citations(first: Sequence[Citation], second: Sequence[Citation]) -> list[Citation]:
    """Citations of both lists, one per image (``first``'s boxes, then ``second``'s), image order."""
    merged: dict[int | str, Citation] = {}
    for cit in [*first, *second]:
        key = cit.image_index if cit.image_index is not None else cit.page_id
        if key not in merged:
            merged[key] = Citation(page_id=cit.page_id, boxes=list(cit.boxes), image_index=cit.image_index,
                                   regions=list(cit.regions))
            continue
        have = merged[key]
        have.boxes.extend(b for b in cit.boxes if not any(b == o for o in have.boxes))
        have.regions.extend(n for n in cit.regions if n not in have.regions)
    return sorted(merged.values(), key=lambda c: (c.image_index is None, c.image_index or 0, c.page_id))
