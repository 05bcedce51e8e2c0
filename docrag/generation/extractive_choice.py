"""Which of the things a question names (rules 111 ``named_choice`` and 117 ``which_then`` of
``docs/extractive-rules.md``).

"Which sub-platform grew faster: Hyperscale or AI Clouds, Industrial, & Enterprise?", "Among fuel oil,
gasoline and electricity, which had the largest 12-month increase?", "营业收入和净利润哪个增长更快？": the
options are rows of one table. Each option's row is found by its label; the figure compared is the
column the question names (a printed change column for a growth question), or, for a growth that no
column prints, the change between the table's two latest period columns, computed per row. The answer
names the winner and every option's figures, so a reader can check the comparison; every cell used is
cited. None when fewer than two options are rows of one table, or the figure compared is ambiguous.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from docrag.generation.extractive_answer import fmt_cell
from docrag.generation.extractive_tables import parse_number
from docrag.generation.extractive_units import _CJK, Unit, tokenize
from docrag.words import YEAR

# the options: "...: A or B?", "..., A or B?", "Among A, B and C, which ...", "(A, B, C), which ...",
# "A和B哪个…", "A、B、C中哪个…"
_WHICH_EN = re.compile(r"\bwhich\b", re.IGNORECASE)
_OR = re.compile(r"\s+or\s+", re.IGNORECASE)
_AMONG = re.compile(r"\bamong\s+(?:the\s+)?(?P<list>[^?]+?),\s+which\b", re.IGNORECASE)
_ZH_WHICH = re.compile(r"(?P<list>[^，,。；;：:？?]+?)(?:中|之中|当中|里|里面|相比|相比较)?(?:，|,)?"
                       r"(?:哪个|哪一个|哪家|哪项|哪一项|谁)")
_SEP_EN = re.compile(r",\s*(?:and|or)\s+|\s+(?:and|or)\s+|,\s*", re.IGNORECASE)
_SEP_ZH = re.compile(r"以及|、|和|与|及|或")
_SHARED_NOUN = re.compile(r"(?:成分股|成份股|股票池|样本股?|板块|组合)$")
# what is compared
_GROWTH = re.compile(r"\b(?:grew|grow(?:s|ing|th)?|increas\w*|rose|rise[sn]?|gain\w*|decline[sd]?|fell|"
                     r"f[ae]ll\w*|drop\w*|decreas\w*)\b|增长|增速|增幅|涨幅|上涨|下降|降幅|减少|增加", re.IGNORECASE)
_LESS = re.compile(r"\b(?:slow\w*|small\w*|low\w*|less|least|fewer|few\w*|weak\w*)\b"
                   r"|最低|最小|最少|更低|更小|更少|更慢|较低", re.IGNORECASE)
_MORE = re.compile(r"\b(?:fast\w*|larg\w*|high\w*|more|most|great\w*|big\w*|strong\w*|best)\b|最高|最大|最多|更高|更大|"
                   r"更多|更快|较高|最快", re.IGNORECASE)
_CHANGE_HEAD = re.compile(r"\bchange\b|\bgrowth\b|\bincrease\b|%\s*chg|\byoy\b|y/y|增减|增长|同比|变动|增幅",
                          re.IGNORECASE)
_PAREN_LIST = re.compile(r"\((?P<list>(?:[^()]|\([^()]*\))+)\)")


@dataclass
class Choice:
    """The answer: the text, and the cells it quotes (the winner's first)."""

    text: str
    cells: list[Unit]


def options_of(question: str) -> list[str]:
    """The things a which-question names to choose from; [] when it names fewer than two."""
    q = question.strip()
    if _CJK.search(q):
        m = _ZH_WHICH.search(q)
        items = _SEP_ZH.split(m.group("list")) if m else []
        if len(items) >= 2 and (noun := _SHARED_NOUN.search(items[-1])):   # rule 296 ``shared_noun``: "沪深300和
            items[-1] = items[-1][:noun.start()]   # 中证500成分股": the pool's noun is every option's, no row's name
    elif not _WHICH_EN.search(q):
        return []
    else:
        items = _or_list(q)
        for m in ([] if items else [*_PAREN_LIST.finditer(q), _AMONG.search(q)]):
            if m is not None and len(found := [x for x in _SEP_EN.split(m.group("list")) if x.strip()]) >= 2:
                items = found
                break
    items = [x.strip(" '\"‘’“”") for x in items if x.strip(" '\"‘’“”")]
    return items if 2 <= len(items) <= 8 else []


def _or_list(q: str) -> list[str]:
    """"...: A or B?", "..., the X Fund or the Y Fund?": the options around the last "or", the first starting
    after the last colon or comma before it ("A, B or C": three; "Hyperscale or AI Clouds, Industrial, &
    Enterprise": two, the second keeps its commas)."""
    ors = list(_OR.finditer(q))
    if not ors:
        return []
    before, after = q[:ors[-1].start()], re.split(r",\s*(?:and|but)\s", q[ors[-1].end():])[0].rstrip(" ?")
    start = max(before.rfind(":"), before.rfind(","), before.rfind("，"))
    if start < 0:
        return []
    head = before[start + 1:]
    if start == before.rfind(",") and ":" not in before:   # "A, B or C" after a colon-less lead: one list
        lead = before[:start]
        cut = max(lead.rfind(":"), lead.rfind(","))
        if cut >= 0 and len(lead[cut + 1:].split()) <= 5 and not _WHICH_EN.search(lead[cut + 1:]):
            return [lead[cut + 1:], head, after]
    return [head, after]


_YEAR_WORD = re.compile(r"(?:19|20)\d\d\s*(?:年度|年)?")


def _label_fit(option: str, label: str) -> float:
    """The share of the option's words the row label holds (a label adding its section is still named);
    a year said with the option ("2019年营业收入") names the column, not the row."""
    want = set(tokenize(_YEAR_WORD.sub(" ", option)))
    return len(want & set(tokenize(label))) / len(want) if want else 0.0


def choice_answer(units: Sequence[Unit], scores: Sequence[float], best: Unit, question: str) -> Choice | None:
    """``named_choice``: the option whose row has the largest (smallest) figure compared, with every option's
    figures, among the tables of the best unit's document; None when the question names no options or they
    are not rows of one table."""
    options = options_of(question)
    if not options:
        return None
    top = max(scores, default=0.0)
    near = {id(u.table) for u, s in zip(units, scores, strict=True) if u.table is not None and s >= 0.3 * top
            and u.page.doc_id == best.page.doc_id}   # tables of the best unit's report that score, all their rows
    tables: dict[int, list[Unit]] = {}
    for u in units:
        if u.cell is not None and id(u.table) in near:
            tables.setdefault(id(u.table), []).append(u)
    score_of = {id(u): s for u, s in zip(units, scores, strict=True)}
    picks = []
    for mine in tables.values():
        rows = _option_rows(options, mine)
        if len(rows) >= 2:
            picks.append((len(rows), max(score_of[id(u)] for u in mine), rows))
    if not picks:
        return None
    _, _, rows = max(picks, key=lambda p: (p[0], p[1]))
    growth = bool(_GROWTH.search(question))
    figures = _compared(rows, question, growth)
    if figures is None:
        return None
    less = bool(_LESS.search(question)) and not _MORE.search(question)
    order = sorted(figures, key=lambda f: f[1], reverse=not less)
    if len(order) > 1 and order[0][1] == order[1][1]:
        return None
    names = [used[0].cell.row.name for _, _, used in order]   # as the table prints it
    if len(set(names)) < len(names):   # "STR(沪深300)", "STR(中证500)": the brackets tell them apart
        names = [used[0].cell.row.own_label for _, _, used in order]
    parts = [_describe(name, value, used) for name, (_, value, used) in zip(names, order, strict=True)]
    return Choice(f"{names[0]} — " + "; ".join(parts), [u for _, _, used in order for u in used])


def _option_rows(options: list[str], cells: list[Unit]) -> dict[str, list[Unit]]:
    """Each option's row (its cells) in one table: the row whose label holds most of the option's words
    (at least three in four), one row per option."""
    by_row: dict[int, list[Unit]] = {}
    for u in cells:
        by_row.setdefault(id(u.cell.row), []).append(u)
    out: dict[str, list[Unit]] = {}
    for option in options:
        # the label whole: "STR(沪深300)" and "STR(中证500)" differ in their brackets only (rule 296)
        fits = sorted(((_label_fit(option, r[0].cell.row.own_label), -len(r[0].cell.row.name), k)
                       for k, r in by_row.items()), reverse=True)
        if fits and fits[0][0] >= 0.75 and (len(fits) == 1 or fits[1][:2] != fits[0][:2]):
            out[option] = by_row[fits[0][2]]
    return out if len({id(r[0].cell.row) for r in out.values()}) == len(out) else {}


def _compared(rows: dict[str, list[Unit]], question: str, growth: bool
              ) -> list[tuple[str, float, list[Unit]]] | None:
    """(option, figure, cells) per option: a printed change column for a growth question, else the change
    between the two latest period columns; for other questions the column the question names most."""
    q = set(tokenize(question))
    heads = {tuple(u.cell.headers) for cells in rows.values() for u in cells}
    if growth:
        change = [h for h in heads if _CHANGE_HEAD.search(" ".join(h))]
        if change:
            return _by_column(rows, _best_named(change, q, question))
        periods = sorted(((max(YEAR.findall(" ".join(h)), default=""), h) for h in heads), reverse=True)
        periods = [p for p in periods if p[0]]
        if len(periods) < 2 or periods[0][0] == periods[1][0] or len(periods) > 2 and periods[1][0] == periods[2][0]:
            return None
        new, old = periods[0][1], periods[1][1]
        out = []
        for option, cells in rows.items():
            a = next((u for u in cells if tuple(u.cell.headers) == new), None)
            b = next((u for u in cells if tuple(u.cell.headers) == old), None)
            va, vb = (parse_number(u.cell.value) if u else None for u in (a, b))
            if a is None or b is None or va is None or not vb:
                return None
            out.append((option, (va - vb) / abs(vb) * 100.0, [a, b]))
        return out
    return _by_column(rows, _best_named(list(heads), q, question))


def _best_named(heads: list[tuple[str, ...]], q: set[str], question: str) -> tuple[str, ...] | None:
    """The header the question's words name most, a span of the length asked breaking a tie ("12-month":
    "Jul 2024-Jul. 2025" over "Jun. 2025-Jul. 2025"); None on a tie."""
    want = 12 if _YEARLY.search(question) else 1 if _MONTHLY.search(question) else None
    fits = sorted(((len(q & set(tokenize(" ".join(h)))), _span(" ".join(h)) == want, h) for h in heads), reverse=True)
    if not fits or (len(fits) > 1 and fits[0][:2] == fits[1][:2]):
        return None
    return fits[0][2]


_YEARLY = re.compile(r"\b12-month|\btwelve-month|\bover the (?:past |last )?(?:year|12 months)|\byear[- ]over[- ]year|"
                     r"\bannual\b|同比|较上年|比上年", re.IGNORECASE)
_MONTHLY = re.compile(r"\b(?:1|one)-month|\bmonth[- ]over[- ]month|\bmonthly\b|环比|较上月", re.IGNORECASE)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_YEAR = re.compile(r"\b(" + "|".join(_MONTHS) + r")[a-z]*\.?,?\s*((?:19|20)\d\d)", re.IGNORECASE)


def _span(header: str) -> int | None:
    """Months between the two dates of a header ("Jul. 2024-Jul. 2025": 12); None without two."""
    dates = [(int(y), _MONTHS.index(m.lower()[:3])) for m, y in _MONTH_YEAR.findall(header)]
    if len(dates) != 2:
        return None
    (y0, m0), (y1, m1) = dates
    return abs((y1 - y0) * 12 + m1 - m0)


def _by_column(rows: dict[str, list[Unit]], head: tuple[str, ...] | None
               ) -> list[tuple[str, float, list[Unit]]] | None:
    if head is None:
        return None
    out = []
    for option, cells in rows.items():
        u = next((c for c in cells if tuple(c.cell.headers) == head), None)
        v = parse_number(u.cell.value) if u is not None else None
        if v is None:
            return None
        out.append((option, v, [u]))
    return out


def _describe(option: str, value: float, used: list[Unit]) -> str:
    """"Hyperscale +115.2% (37,869, Apr 26,2026 against 17,599, Apr 27,2025)", "Fuel oil: -2.9% (Unadjusted
    percent change, Jul 2024- Jul. 2025)"."""
    said = [f"{fmt_cell(u).split(' — ')[0]}, {' '.join(u.cell.headers)}".rstrip(", ") for u in used]
    if len(used) == 2:
        return f"{option} {value:+.1f}% ({said[0]} against {said[1]})"
    return f"{option}: {said[0]}"


def option_cell(chosen: Unit, question: str, units: Sequence[Unit]) -> Unit | None:
    """``which_then``: the part after a which-part ("哪个t对应的年化收益率最高？最大回撤是多少？") asks about the
    option chosen: the cell of the row it names (three in four of the label's words) in the chosen cell's column,
    or of the column it names in the chosen cell's row; None when it names neither, or several."""
    tc, table = chosen.cell, chosen.table
    if tc is None or table is None:
        return None
    cells = [u for u in units if u.table is table and u.cell is not None]
    q = set(tokenize(question))

    def named(label: str) -> bool:
        want = set(tokenize(label))
        return bool(want) and len(want & q) / len(want) >= 0.75

    rows = {id(u.cell.row): u.cell.row for u in cells if u.cell.row is not tc.row and named(u.cell.row.name)}
    if len(rows) == 1:
        row = next(iter(rows.values()))
        return next((u for u in cells if u.cell.row is row and u.cell.headers == tc.headers), None)
    if rows:
        return None
    heads = {tuple(u.cell.headers) for u in cells if u.cell.headers != tc.headers and named(" ".join(u.cell.headers))}
    if len(heads) == 1:
        head = next(iter(heads))
        return next((u for u in cells if u.cell.row is tc.row and tuple(u.cell.headers) == head), None)
    return None
