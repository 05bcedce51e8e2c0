"""Rule 286 ``ownership_diagram``: a picture of a control chain (an annual report's 产权及控制关系方框图: the holder's
box, an arrow labelled with its stake, the held company's box) holds few numbers, so it was no chart to read. Its
OCR'd words are read as stakes: each percentage between the name box above it (the holder) and the one below it
(the held), the nearest of each; only when every box names an entity (公司, 集团, 委员会, Inc., Ltd., ...)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.geometry import Box, union
from docrag.types import Block

_STAKE = re.compile(r"^\d{1,3}(?:\.\d+)?\s?[%％]$")
_ENTITY = re.compile(r"(?:公司|集团|委员会|政府|合伙企业|基金|银行|中心|管理局|财政部|研究院)$"
                     r"|\b(?:inc|ltd|limited|corp|corporation|llc|plc|holdings?|group|company|trust|fund|government"
                     r"|commission)\.?$", re.IGNORECASE)


def _boxes(words: Sequence[Block]) -> list[tuple[str, Box]]:
    """Name words joined into boxes: a word right under another, overlapping it across, continues its name."""
    groups: list[tuple[str, Box]] = []
    for w in sorted(words, key=lambda w: (w.box.y0, w.box.x0)):
        for i, (text, box) in enumerate(groups):
            if 0 <= w.box.y0 - box.y1 <= 0.6 * w.box.height and w.box.x_overlap(box) > 0:
                groups[i] = (text + w.text, union([box, w.box]))
                break
        else:
            groups.append((w.text, w.box))
    return groups


def _gap(a: Box, b: Box) -> float:
    """The distance between two boxes (0 when they touch)."""
    dx = max(a.x0 - b.x1, b.x0 - a.x1, 0.0)
    dy = max(a.y0 - b.y1, b.y0 - a.y1, 0.0)
    return (dx * dx + dy * dy) ** 0.5


def ownership_stakes(words: Sequence[Block]) -> dict[str, str]:
    """{"holder → held": "54.07%"} read off a control diagram's words, {} when they are no such diagram."""
    stakes = [w for w in words if _STAKE.match(w.text.strip())]
    names = _boxes([w for w in words if w.text.strip() and not _STAKE.match(w.text.strip())])
    if not stakes or len(names) < 2 or not all(_ENTITY.search(t.strip()) for t, _ in names):
        return {}
    out: dict[str, str] = {}
    for s in stakes:
        above = [(t, b) for t, b in names if b.y1 <= s.box.y0 + 1]
        below = [(t, b) for t, b in names if b.y0 >= s.box.y1 - 1]
        if not above or not below:
            return {}
        holder = min(above, key=lambda n: _gap(n[1], s.box))[0]
        held = min(below, key=lambda n: _gap(n[1], s.box))[0]
        out.setdefault(f"{holder} → {held}", s.text.strip())
    return out
