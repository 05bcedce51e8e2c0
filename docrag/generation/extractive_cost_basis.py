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
_AFTER_Q = re.compile(rf"(?<![未不])扣除{_COST}(?!前)|(?<![未不])扣费(?!前)|费后|(?<![未不])考虑{_COST}"
                      r"|\bafter (?:transaction |trading )?(?:costs|fees)\b|\bnet of (?:costs|fees)\b", re.IGNORECASE)
# a column of the after-cost basis: "(扣除交易成本)", "(扣费)", "费后", "net of fees"
_AFTER_HEAD = re.compile(rf"(?<![未不])扣除{_COST}(?!前)|(?<![未不])扣费(?!前)|费后|\bnet of (?:costs|fees)\b"
                         r"|\bafter (?:transaction |trading )?(?:costs|fees)\b", re.IGNORECASE)


def _after(u: Unit) -> bool:
    assert u.cell is not None
    return bool(_AFTER_HEAD.search(f"{u.cell.header_text} {u.cell.row.label}"))


def cost_fit(units: Sequence[Unit], question: str, loss: float = 0.6) -> list[float]:
    """``cost_basis``: asked before costs ("未扣交易成本", "扣费前"), a cell under an after-cost head loses; asked after
    costs ("扣费后", "net of fees"), a cell of a table with after-cost columns that is not under one loses."""
    before, after = bool(_BEFORE_Q.search(question)), bool(_AFTER_Q.search(question))
    if before == after:
        return [1.0] * len(units)
    priced = {id(u.table) for u in units if u.cell is not None and u.table is not None and _after(u)}
    out = []
    for u in units:
        if u.cell is None or u.table is None or id(u.table) not in priced:
            out.append(1.0)
        else:
            out.append(loss if _after(u) == before else 1.0)
    return out
