"""``titled_rows`` (rule 251): "Which Johnson & Johnson segment had the highest reported sales growth" is answered
from the table titled by the thing compared ("SEGMENT SALES RESULTS"), its "% Change | Reported" column, even where a
highlight on all sales outscored every cell of it (en-m-015); used by ``extremes.extreme_row``."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_tables import Table
from docrag.generation.extractive_units import Unit, tokenize

# "Which Johnson & Johnson segment had ...": the noun before the verb (after a company's name)
_HEAD_EN = re.compile(r"\bwhich\s+(?:[\w&.'’-]+\s+){0,4}?([a-z][a-z-]+)\s+(?:had|has|have|was|were|is|are|did|does|"
                      r"saw|posted|recorded|reported|grew|showed|contributed|generated)\b", re.IGNORECASE)
_GROWTH, _CHANGE = set(tokenize("growth grew")), set(tokenize("change"))


def head_noun(question: str) -> str:
    """The thing a "which" question compares, as :func:`tokenize` writes it ("" when none is found)."""
    m = _HEAD_EN.search(question)
    return next(iter(tokenize(m.group(1))), "") if m is not None else ""


def growth_terms(terms: set[str]) -> set[str]:
    """"The highest sales growth" names a "% Change" column too."""
    return _CHANGE if terms & _GROWTH else set()


def titled_tables(units: Sequence[Unit], best: Unit, question: str, tables: dict[int, Table]) -> dict[int, Table]:
    """The tables of ``best``'s report titled by the thing compared, in place of ``tables`` (those of the cells
    scoring near ``best``) when prose is best and none of those is so titled; else ``tables``."""
    head = head_noun(question) if best.cell is None else ""
    if not head:
        return tables
    mine = {id(u.table): u.table for u in units if u.cell is not None and u.table is not None
            and u.page.doc_id == best.page.doc_id}   # each table once: its title tokenized once, not per cell
    titled = {k: t for k, t in mine.items() if head in tokenize(t.title)}
    return titled if titled and not any(head in tokenize(t.title) for t in tables.values()) else tables
