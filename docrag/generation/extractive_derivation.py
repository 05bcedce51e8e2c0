"""Cells read beside a table answer for what the question asks of it: the cells of its column in the table's other
rows (``column_mates``), and the rows it is derived from when the question asks how (rule 285 ``derived_rows``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_units import Unit


def column_mates(best: Unit, units: Sequence[Unit]) -> list[Unit]:
    """The cells of ``best``'s column in its table's other rows (its parts over a page break too), one per row."""
    out: list[Unit] = []
    if best.cell is None or best.table is None:
        return out
    for u in units:
        if (u is not best and u.cell is not None and best.table.joins(u.table) and u.cell.row is not best.cell.row
                and u.cell.header_text == best.cell.header_text and not any(v.cell.row is u.cell.row for v in out)):
            out.append(u)
    return out


_DERIVED = re.compile(r"\bhow (?:is|was|are|were) (?:it|this|that|they|these)\s+"
                      r"(?:derived|calculated|computed|arrived at)|如何(?:计算|得出|算出|得到|推算)", re.IGNORECASE)


def derived_rows(best: Unit, question: str, units: Sequence[Unit]) -> list[Unit]:
    """``derived_rows`` (rule 285): "what was free cash flow, and how is it derived?" reads the rows printed just above
    the answer in its column (cash from operations, capital expenditures), at most three, in table order."""
    if not _DERIVED.search(question) or best.cell is None:
        return []
    above = [u for u in column_mates(best, units) if u.cell.row.index < best.cell.row.index and u.table is best.table]
    return sorted(above, key=lambda u: u.cell.row.index)[-3:]
