"""``share_class`` (rule 119, ``docs/extractive-rules.md``): a question naming a share class prefers the units of
that class."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_units import Unit

# a share class: "Class A common stock", "Class F and Class T shares", "Class C2"
_CLASS = re.compile(r"\bclass\s+((?-i:[A-Z]\d?))\b", re.IGNORECASE)
_CODE = re.compile(r"[A-Z]\d?")


def _classes(u: Unit) -> set[str]:
    """The classes ``u`` names: in its text or context, or as its row's label in a table with a class column
    ("Base Class | Initial Charge ..." over rows "A", "C", "D": a prospectus's fee table)."""
    named = {m.upper() for m in _CLASS.findall(f"{u.text} {u.context}")}
    if u.cell is not None and u.table is not None and _CODE.fullmatch(u.cell.row.name.strip()) \
            and any("class" in c.text.lower() for line in u.table.header_lines for c in line):
        named.add(u.cell.row.name.strip())
    return named


def class_fit(units: Sequence[Unit], question: str, gain: float = 1.2, loss: float = 0.6) -> list[float]:
    """``share_class``: a question naming a share class ("Alphabet Class A") prefers units that name it and
    not units naming only another class (a 10-K prints one performance graph per class, alike but for it; a
    fee table one row per class)."""
    asked = {m.upper() for m in _CLASS.findall(question)}
    if not asked:
        return [1.0] * len(units)
    out = []
    for u in units:
        named = _classes(u)
        out.append(1.0 if not named else gain if named & asked else loss)
    return out
