"""Rule 238: a Chinese question about a table headed in English reads the English heads.

Chinese broker and quant notes often print their statistics tables with English column heads ("Cumulative
Return", "Sharpe Ratio", "Maximum Drawdown") under Chinese text, and a reader asks for 累计收益, 夏普比率 or
最大回撤. Where a term of the question is printed on no page read and one of its English names is, the question
is read with that English name in its place. Nothing changes where a page read prints the Chinese term, and
only pages printing Chinese are searched for the English name (an English report's "Revenue" heads no Chinese
report's table).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from docrag.generation.extractive_units import _CJK, page_text
from docrag.types import Page
from docrag.words import simplified_text

#: Chinese finance terms and the English names a table head prints for them, most specific first.
TERMS: dict[str, tuple[str, ...]] = {
    "累计收益率": ("Cumulative Return",), "累积收益率": ("Cumulative Return",),
    "累计收益": ("Cumulative Return",), "累积收益": ("Cumulative Return",),
    "年化收益率": ("Annualized Return", "Annualised Return", "Annual Return"),
    "年化收益": ("Annualized Return", "Annualised Return", "Annual Return"),
    "年化波动率": ("Annualized Volatility", "Annualised Volatility", "Annual Volatility"),
    "年化波动": ("Annualized Volatility", "Annualised Volatility", "Annual Volatility"),
    "超额收益": ("Excess Return",), "夏普比率": ("Sharpe Ratio", "Sharpe"), "夏普比": ("Sharpe Ratio", "Sharpe"),
    "信息比率": ("Information Ratio",), "卡玛比率": ("Calmar Ratio", "Calmar"),
    "索提诺比率": ("Sortino Ratio", "Sortino"),
    "最大回撤": ("Maximum Drawdown", "Max Drawdown", "MaxDD"), "跟踪误差": ("Tracking Error",),
    "胜率": ("Win Rate", "Win %", "Win Ratio"), "盈亏比": ("Profit/Loss Ratio", "P/L Ratio", "Profit Loss Ratio"),
    "换手率": ("Turnover",), "波动率": ("Volatility",), "回撤": ("Drawdown",),
    "营业收入": ("Revenue", "Net Sales"), "净利润": ("Net Income", "Net Profit"), "毛利率": ("Gross Margin",),
    "总资产": ("Total Assets",), "每股收益": ("Earnings per Share", "EPS"), "自由现金流": ("Free Cash Flow",),
    "净资产收益率": ("ROE",), "总资产收益率": ("ROA",), "股息率": ("Dividend Yield",),
    "深度": ("Depth",), "持续时间": ("Length", "Duration"),
}
_ORDER = sorted(TERMS, key=len, reverse=True)


@lru_cache(maxsize=256)
def _english(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", re.IGNORECASE)


def english_heads(question: str, pages: Sequence[Page]) -> str:
    """``question`` with each Chinese term no page prints replaced by the English name a page prints (rule 238)."""
    found = [t for t in _ORDER if t in question]
    if not found:
        return question
    texts = [page_text(p) for p in pages]
    chinese = " ".join(simplified_text(t) for t in texts)
    # the English names of Chinese pages only: an English report's "Revenue" is not a Chinese report's head
    english = " ".join(t for t in texts if _CJK.search(t))
    for term in found:
        if term not in question or term in chinese:
            continue
        name = next((n for n in TERMS[term] if _english(n).search(english)), None)
        if name is not None:
            question = question.replace(term, f" {name} ")
    return question
