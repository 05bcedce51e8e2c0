"""``cost_basis`` (rule 295, ``docs/extractive-rules.md``): a question saying whether a return is before or after
trading costs prefers the columns of that basis (broker notes print each backtest twice: "中证800" and "中证800(扣除
交易成本)", "超额收益" and "超额收益(扣费)")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_units import Unit

# the costs a backtest deducts ("扣除非经常性损益" is an accounting basis, not a cost: never matched)
_COST = r"(?:交易)?(?:成本|费用|手续费|费)"
_BEFORE_Q = re.compile(rf"未扣除?{_COST}?|不扣除?{_COST}|扣(?:除{_COST}|费)前|费前|(?:未|不)考虑{_COST}"
                       r"|\bbefore (?:transaction |trading )?(?:costs|fees)\b|\bgross of (?:costs|fees)\b",
                       re.IGNORECASE)
# a column of the after-cost basis: "(扣除交易成本)", "(扣费)", "费后", "net of fees"; asked, "考虑交易成本" too
_AFTER = (rf"(?<![未不])扣除{_COST}(?!前)|(?<![未不])扣费(?!前)|费后|\bnet of (?:costs|fees)\b"
          r"|\bafter (?:transaction |trading )?(?:costs|fees)\b")
_AFTER_HEAD = re.compile(_AFTER, re.IGNORECASE)
_AFTER_Q = re.compile(rf"{_AFTER}|(?<![未不])考虑{_COST}", re.IGNORECASE)


def _after(u: Unit) -> bool:
    assert u.cell is not None
    return bool(_AFTER_HEAD.search(f"{u.cell.header_text} {u.cell.row.label}"))


def cost_fit(units: Sequence[Unit], question: str, loss: float = 0.6) -> list[float]:
    """``cost_basis``: asked before costs ("未扣交易成本", "扣费前"), a cell under an after-cost head loses; asked after
    costs ("扣费后", "net of fees"), a cell of a table with after-cost columns that is not under one loses."""
    before, after = bool(_BEFORE_Q.search(question)), bool(_AFTER_Q.search(question))
    if before == after:
        return [1.0] * len(units)
    marked = [u.cell is not None and u.table is not None and _after(u) for u in units]
    priced = {id(u.table) for u, m in zip(units, marked, strict=True) if m}
    return [loss if u.cell is not None and u.table is not None and id(u.table) in priced and m == before else 1.0
            for u, m in zip(units, marked, strict=True)]
