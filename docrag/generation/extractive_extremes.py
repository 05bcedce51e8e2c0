"""Superlatives in questions: "the heaviest", "the lowest", "最高" favour a table's maximum / minimum column
(or row), and "which region has the most time zones" takes the row with the largest value of the column
the question names. Rules (``docs/extractive-rules.md``, 27-28, 79, 85): extreme fit (x1.2 / x0.6 / x0.8, prose
x0.85), extreme row (``near`` 0.5, column fit >= 0.5, the table whose row header the question names, no Total
row among the rows compared, "Table 2" naming no column), and
across a row ("哪个分位组合的最大回撤最小": the named row's extreme cell; "最大回撤" a measure, not a superlative;
a drawdown smallest when closest to zero)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_asked import _without_asked, asked_word
from docrag.generation.extractive_chart_drawn import _TITLE
from docrag.generation.extractive_formula import is_total_row
from docrag.generation.extractive_tables import Table, parse_number
from docrag.generation.extractive_titled_rows import growth_terms, titled_tables
from docrag.generation.extractive_units import _REF, Unit, tokenize, without_references

_WORDY = re.compile(r"[A-Za-z\u4e00-\u9fff]")   # a header in words (no year, no figure)
_PAREN = re.compile(r"[（(][^)）]*[)）]")
_MOST_Q = re.compile(r"\b(?:highest|largest|biggest|greatest|heaviest|tallest|oldest|longest|fastest|most|maximum|"
                     r"max|peak|top)\b|最(?:高|大|多|重|长|老|年长|快|常见|普遍)", re.IGNORECASE)
_LEAST_Q = re.compile(r"\b(?:lowest|smallest|lightest|shortest|youngest|slowest|least|fewest|minimum|min)\b"
                      r"|最(?:低|小|少|轻|短|年轻|慢)", re.IGNORECASE)
# "最大值" labels a maximum, "最大回撤" names a measure (max drawdown)
_MOST_LABEL = re.compile(r"\b(?:max(?:imum)?|highest|largest|high|top|peak|upper)\b"
                         r"|(?:最大|最高|最多)值?(?![\u3400-\u9fff])|上限", re.IGNORECASE)
_LEAST_LABEL = re.compile(r"\b(?:min(?:imum)?|lowest|smallest|low|bottom|lower)\b"
                          r"|(?:最小|最低|最少)值?(?![\u3400-\u9fff])|下限", re.IGNORECASE)


# "which quarter's cash flow was negative", "哪个季度的...为负": the one value of that sign (rule 97)
# rule 283 ``loss_asked``: "哪个季度…净利润为亏损", "which quarter posted a net loss": the negative one
_NEGATIVE_Q = re.compile(r"\bnegative\b|为负|负值|(?:为|出现|发生)亏损"
                         r"|\b(?:posted|reported|recorded|had) an? (?:net )?loss\b", re.IGNORECASE)
_POSITIVE_Q = re.compile(r"\bpositive\b|为正(?![常式确当在])|正值", re.IGNORECASE)


def _wanted_sign(question: str) -> dict[str, list[str]]:
    """{"neg"|"pos": the words asking for it} for a question asking which value is negative (positive),
    {} when it asks for neither or both."""
    out = {d: [m.group(0) for m in rx.finditer(question)] for d, rx in (("neg", _NEGATIVE_Q), ("pos", _POSITIVE_Q))}
    out = {d: words for d, words in out.items() if words}
    return out if len(out) == 1 else {}


def _wanted_extremes(question: str, labels: str = "") -> dict[str, list[str]]:
    """{"max"|"min": the superlative words of the question that ask for it}. A superlative that begins a
    label of the pages read ("最大回撤" in "最大回撤最小", "maximum drawdown") names a measure, not the
    extreme asked for (``measure_superlative``)."""
    def asks(m: re.Match[str]) -> bool:
        after = question[m.end():]
        name = m.group(0) + (after[:2] if re.match(r"[\u3400-\u9fff]", after[:1]) else " ".join(after.split()[:1]))
        return not labels or name.strip().lower() not in labels
    out = {d: [m.group(0) for m in rx.finditer(question) if asks(m)] for d, rx in (("max", _MOST_Q), ("min", _LEAST_Q))}
    return {d: words for d, words in out.items() if words}


def _labels(units: Sequence[Unit]) -> str:
    """Row labels and column headers of the cells among ``units``, lower-cased, one per line."""
    names = {n for u in units if u.cell is not None for n in (u.cell.row.label, *u.cell.headers)}
    return "\n".join(n.lower() for n in names)


def _extremes_of(u: Unit) -> set[str]:
    """"max"/"min" when the cell's column headers (else its row label; units in parentheses such as
    "beats/min" ignored) name a maximum or minimum."""
    if u.cell is None:
        return set()
    for label in (" ".join(u.cell.headers), u.cell.row.label):
        label = _PAREN.sub(" ", label)
        has = {d for d, rx in (("max", _MOST_LABEL), ("min", _LEAST_LABEL)) if rx.search(label)}
        if has:
            return has
    return set()


def extreme_terms(units: Sequence[Unit], question: str) -> list[str]:
    """Per unit, the question's superlative words its labels answer ("lowest" for a cell under
    "Minimum", "最重" under "最大值"), to be counted as matched; "" for the others."""
    wants = _wanted_extremes(question, _labels(units))
    if not wants:
        return [""] * len(units)
    return [" ".join(w for d in _extremes_of(u) & wants.keys() for w in wants[d]) for u in units]


CHART_EXTREME_GAIN = 1.4   # ``charted_extreme`` (rule 157)


def chart_extreme_fit(units: Sequence[Unit], question: str, gain: float = CHART_EXTREME_GAIN) -> list[float]:
    """``charted_extreme`` (rule 157): "in which quarter shown was that share highest" (a which- or what-question,
    ``_WHICH``) asks which bar of a chart tops it, though it says no "chart": a figure printing three or more data
    labels, or whose bars or lines ingest read off its drawing (three values or more, rule 118; not when the question
    names a table), gains ``gain`` (the x0.7 of a figure that a question not asking for a chart gets, rule 3, is
    undone); the chart's note had answered."""
    if not (_WHICH.search(question) and (_MOST_Q.search(question) or _LEAST_Q.search(question))):
        return [1.0] * len(units)
    drawn = not _names_table(question)   # "表2中，哪一年…最高": a table is asked, not a drawing beside it
    return [gain if u.kind == "figure" and (len(u.extra.get("values") or {}) >= 3 or drawn and any(
        len(s.get("values") or []) >= 3 for s in u.extra.get("drawn") or [])) else 1.0 for u in units]


def _names_table(question: str) -> bool:
    """The question names a table by number ("Table 2", "表2"; not "图表9", a figure)."""
    return any((m.group(1) or "").lower() == "table" or m.group(2) == "表" and question[max(m.start() - 1, 0)] != "图"
               for m in _REF.finditer(question))


def extreme_fit(units: Sequence[Unit], question: str, gain: float = 1.2, loss: float = 0.6,
                other: float = 0.8, prose: float = 0.85) -> list[float]:
    """"The heaviest man", "the lowest pulse", "最高次数" ask for a table's maximum or minimum column
    (or row): cells labelled so win, cells labelled the other way lose, and other cells of a table that
    has such labels (means, medians) lose a little."""
    wants = _wanted_extremes(question, _labels(units))
    if not wants:
        return [1.0] * len(units)
    labels = [_extremes_of(u) for u in units]
    table_answers = any(has & wants.keys() for has in labels)
    has_extremes: dict[int, bool] = {}   # per table
    out = []
    for u, has in zip(units, labels, strict=True):
        if u.cell is None:   # prose without the superlative loses to a column that is labelled so
            says = any(rx.search(u.text) for d, rx in (("max", _MOST_Q), ("min", _LEAST_Q)) if d in wants)
            out.append(prose if table_answers and not says else 1.0)
        elif has & wants.keys():
            out.append(gain)
        elif has:
            out.append(loss)
        else:
            if id(u.table) not in has_extremes:
                has_extremes[id(u.table)] = _table_has_extremes(u)
            out.append(other if has_extremes[id(u.table)] else 1.0)
    return out


def _table_has_extremes(u: Unit) -> bool:
    """The unit's table labels a column (or row) as a maximum or minimum."""
    if u.table is None:
        return False
    names = _PAREN.sub(" ", " ".join([*(c.text for line in u.table.header_lines for c in line),
                                      *(r.label for r in u.table.rows)]))
    return bool(_MOST_LABEL.search(names) or _LEAST_LABEL.search(names))


_WHICH = re.compile(r"\b(?:which|what)\b|哪", re.IGNORECASE)

def _is_parameter(asked: str) -> bool:
    """A parameter's one- or two-letter name ("t" of "哪个t")."""
    return bool(re.fullmatch(r"[a-z][a-z0-9_]?", asked))


def _heads_asked(asked: str, header: str) -> bool:
    """A header names the thing asked: inside it for a word ("季度" of "第一季度"), at a word's start for a
    parameter's name ("t" of "t=1", not of "net")."""
    if _is_parameter(asked):
        return bool(re.search(rf"(?<![a-z]){re.escape(asked)}(?![a-z])", header.lower()))
    return asked in header.lower()


def _column_fit(headers: Sequence[str], terms: set[str]) -> tuple[float, float]:
    """How much of a column's header the question names: the share of its terms, then their weight
    (lone Chinese characters count half), so "分组1 对冲分组5" named in full beats "分组1"."""
    own = {t for h in headers for t in tokenize(_PAREN.sub(" ", h))}
    if not own:
        return 0.0, 0.0
    weight = {t: 0.5 if len(t) == 1 and not t.isascii() else 1.0 for t in own}
    named = sum(weight[t] for t in own & terms)
    return named / sum(weight.values()), named


# "at the one-quarter horizon" names the column headed "1"
_NUMBER_WORDS = {w: str(i) for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve"
                                                 .split(), start=1)}


# "Apart from Spain and 'Others', which ...", "除银行外，哪个行业...": rows left out of the comparison (rule 98)
# rule 280 ``outside``: "Outside the United States, which geographic region ..." leaves the United States out
_EXCEPT_EN = re.compile(r"\b(?:apart from|aside from|except(?: for)?|excluding|other than|besides|not counting|"
                        r"outside(?: of)?)\s+"
                        r"(.+?)(?=,|;|\bwhich\b|\bwhat\b|\bwho\b|$)", re.IGNORECASE)
_EXCEPT_ZH = re.compile(r"除(?:了)?([^，,。？?]{1,30}?)(?:以外|之外|外)(?=[，,。？?]|$)")


def _exceptions(text: str) -> list[re.Match[str]]:
    """The "apart from X" / "除X外" phrases of ``text`` (group 1: what they leave out)."""
    return [m for rx in (_EXCEPT_EN, _EXCEPT_ZH) for m in rx.finditer(text)]


def excluded(question: str) -> str:
    """The rows a "which ... the most" question leaves out ("Spain and 'Others'"), "" when none."""
    return " ".join(m.group(1) for m in _exceptions(question))


# "Others", "Rest of the world", "其他": a bucket of the rows not listed, no one of the things compared
# "哪一年…最低" over rows of years: a row of a part year ("20180629", "全样本期") is no year (rule 272 ``year_rows``)
_WHICH_YEAR = re.compile(r"哪(?:一)?(?:个)?年(?!度报告)|\b(?:which|what) (?:fiscal |calendar )?year\b", re.IGNORECASE)
_YEAR_ROW = re.compile(r"^\s*(?:FY\s*)?(?:19|20)\d\d\s*(?:年度?)?\s*$", re.IGNORECASE)
_REST_ROW = re.compile(r"^\s*(?:others?|all others?|other (?:countries|regions|jurisdictions)|rest of (?:the )?world"
                       r"|其他|其它)\s*$", re.IGNORECASE)


def _is_excluded(label: str, left_out: set[str]) -> bool:
    """The row's label is one the question leaves out: all its terms are among the left-out words."""
    own = set(tokenize(_PAREN.sub(" ", label)))
    return bool(own) and own <= left_out


def _compared_terms(question: str, wants: dict[str, list[str]]) -> set[str]:
    """The terms naming the column (or row) compared: the question less its superlatives, the thing
    a "which" question asks for, the table or figure it names ("Table 2" names no column "2") and the report's
    title in 《》; number words count as digits."""
    plain = _TITLE.sub(" ", without_references(question))   # rule 271: the report's title names no column
    for m in _exceptions(plain):
        plain = plain.replace(m.group(0), " ")
    for words in wants.values():
        for w in words:
            plain = plain.replace(w, " ")
    terms = set(tokenize(_without_asked(plain))) or set(tokenize(plain))
    return terms | growth_terms(terms) | {_NUMBER_WORDS[t] for t in terms if t in _NUMBER_WORDS}


def _names_stub(table: Table, question: str) -> int:
    """How long a header over the table's row labels the question names ("哪个地区" over 非洲, 美洲: 2;
    "哪个国家或地区" names 国家或地区, 5, over 地区): the longest wins."""
    heads = {h for tc in table.cells() for h in tc.headers}
    return max((len(c.text.strip()) for line in table.header_lines for c in line
                if c.text not in heads and c.text.strip() and c.text.strip().lower() in question.lower()), default=0)


def extreme_row(units: Sequence[Unit], scores: Sequence[float], best: Unit, question: str,
                near: float = 0.5) -> Unit | None:
    """"Which region has the most time zones?", "哪个地区的时区最多？": the cell with the largest (smallest)
    value in the column the question names, among the tables of the cells scoring at least ``near`` of
    the best unit in its document, when no column is labelled as the maximum asked for; None when the question is not
    such a question, ``best`` is a chart (its series are not table rows) or no column is named."""
    wants = _wanted_extremes(question, _labels(units)) or _wanted_sign(question)
    if best.kind == "figure" or len(wants) != 1 or not _WHICH.search(question):
        return None
    if _extremes_of(best) & wants.keys():
        return None   # a "Maximum" column answers it
    terms = _compared_terms(question, wants)
    top = max(scores, default=0.0)
    tables = {id(u.table): u.table for u, s in zip(units, scores, strict=True)   # of the best unit's report:
              if u.cell is not None and u.table is not None and s >= near * top   # one company's months, not
              and u.page.doc_id == best.page.doc_id}                              # another's (en-a-047)
    tables = titled_tables(units, best, question, tables)   # rule 251: the table titled by the thing compared
    # (table, column) -> (fit, named weight, best score); (table, row) -> (fit, named weight, best score)
    fits: dict[tuple[int, tuple[str, ...]], tuple[float, float, float]] = {}
    rows: dict[tuple[int, int], tuple[float, float, float]] = {}
    for u, s in zip(units, scores, strict=True):
        if u.cell is None or id(u.table) not in tables or parse_number(u.cell.value) is None:
            continue
        key = (id(u.table), tuple(u.cell.headers))
        fit = fits[key][:2] if key in fits else _column_fit(u.cell.headers, terms)
        fits[key] = (*fit, max(s, fits[key][2] if key in fits else 0.0))
        row = (id(u.table), id(u.cell.row))
        fit = rows[row][:2] if row in rows else _section_named(_column_fit([u.cell.row.label], terms), u, terms)
        rows[row] = (*fit, max(s, rows[row][2] if row in rows else 0.0))
    if not fits:
        return None
    asked = asked_word(question)   # "哪个季度": a table whose columns are quarters is read across
    heading = {k: sum(_heads_asked(asked, c.text) for line in t.header_lines for c in line) if asked else 0
               for k, t in tables.items()}
    listed = {k: _listed_columns(t, question) for k, t in tables.items()}   # rule 186 ``listed_options``
    across = _across_row(units, rows, fits, {k for k, n in heading.items() if n},
                         {k for k, n in heading.items() if n >= 2 and _is_parameter(asked)}
                         | {k for k, heads in listed.items() if heads})
    across = [u for u in across if not listed[id(u.table)] or set(u.cell.headers) & listed[id(u.table)]]
    if across and not heading[id(across[0].table)] and not listed[id(across[0].table)] \
            and _asked_in_rows(asked, across[0].table, units):
        across = []   # rule 281 ``asked_in_rows``: "which geographic region": rows of regions compared, not columns
    if across:   # the question names a row and asks which column: the row's extreme cell
        return _pick(across, wants)
    named = {k: _names_stub(tables[k], question) for k in tables}   # "哪个地区": the table of regions
    column = max(fits, key=lambda k: (fits[k][0] >= 0.5, named[k[0]], fits[k]))
    fit = fits[column][:2]
    if fit[0] < 0.5 and (total := _total_column(fits, best, asked, units)) is not None:
        column, fit = total, (1.0, 1.0)
    if fit[0] < 0.5 or any(k != column and k[0] == column[0] and f[:2] == fit for k, f in fits.items()):
        return None   # no column named by most of its header, or two columns of one table named as well
    left_out = set(tokenize(excluded(question)))
    col = [u for u in units if u.cell is not None and id(u.table) == column[0]
           and tuple(u.cell.headers) == column[1] and parse_number(u.cell.value) is not None
           and not is_total_row(u.cell.row.label)   # a Total row sums the rows compared
           and not _is_excluded(u.cell.row.label, left_out)
           and not _REST_ROW.match(_PAREN.sub(" ", u.cell.row.label).strip(" '\"‘’“”"))]
    if _WHICH_YEAR.search(question) and 2 * sum(bool(_YEAR_ROW.match(u.cell.row.label)) for u in col) > len(col):
        col = [u for u in col if _YEAR_ROW.match(u.cell.row.label)]   # rule 272 ``year_rows``: not "20180629"
    # ``same_section`` (rule 250): a column of several measures (a year's revenue, income and margins) is compared
    # within the best cell's section ("Operating margin"), not across it ("Consolidated revenue" 90,155 is no margin)
    # and among figures of its kind: a percentage with percentages (a section may run on past its margins)
    section = best.cell.row.section if best.cell is not None and id(best.table) == column[0] else ""
    if section:
        rate = "%" in best.cell.value
        col = [u for u in col if u.cell.row.section == section and ("%" in u.cell.value) == rate]
    return _pick(col, wants) if col else None


def _asked_in_rows(asked: str, table: Table, units: Sequence[Unit]) -> bool:
    """The thing a which-question asks for ("geographic region") is in the row labels of ``table``."""
    return bool(asked) and any(_heads_asked(asked, u.cell.row.label) for u in units
                               if u.cell is not None and u.table is table)


def _total_column(fits: dict[tuple[int, tuple[str, ...]], tuple[float, float, float]], best: Unit, asked: str,
                  units: Sequence[Unit]) -> tuple[int, tuple[str, ...]] | None:
    """``total_column`` (rule 282): no column named, the thing asked heads the rows of the best cell's table ("which
    geographic region … the most net sales for Lockheed Martin" over segment columns): its Total column is compared."""
    if best.table is None or not _asked_in_rows(asked, best.table, units):
        return None
    totals = [k for k in fits if k[0] == id(best.table) and k[1] and is_total_row(k[1][-1])]
    return totals[0] if len(totals) == 1 else None


def _listed_columns(table: Table, question: str) -> set[str]:
    """``listed_options`` (rule 186): the column headers the question lists as the options compared, when it names
    three or more in words ("电子、通信、计算机、传媒四个行业中哪个累计收益率最高": the row is read across them, not
    down the best-named column); else none."""
    heads = {c.text.strip() for line in table.header_lines for c in line}
    named = {h for h in heads if len(h) >= 2 and _WORDY.search(h) and h in question}
    return named if len(named) >= 3 else set()


def _section_named(fit: tuple[float, float], u: Unit, terms: set[str]) -> tuple[float, float]:
    """``section_named`` (rule 185): rows named alike ("累计收益率") under sections (periods) are told apart by the
    section the question names ("2010.6.29-2015.12.31期间 ... 哪个累计收益率最高"): its share adds a tenth."""
    section = set(tokenize(u.cell.row.section))
    return (fit[0], fit[1] + 0.1 * len(section & terms) / len(section)) if section else fit


def _pick(cells: Sequence[Unit], wants: dict[str, list[str]]) -> Unit | None:
    """The largest (smallest) of ``cells``; for a sign asked, the one cell of that sign (None when
    none or several are: the question's premise does not hold for this line)."""
    if "neg" in wants or "pos" in wants:
        values = [(u, parse_number(u.cell.value)) for u in cells]
        signed = [u for u, v in values if v and (v < 0) == ("neg" in wants)]
        return signed[0] if len(signed) == 1 else None
    losses = all(_is_loss(u) for u in cells)   # a net loss compared with the adjustments to it is its signed value
    return (max if "max" in wants else min)(cells, key=lambda u: _size(u, losses))


# a loss printed negative ("-15.24%" 最大回撤) is smallest when closest to zero
_LOSS = re.compile(r"\bdrawdowns?\b|\blosse?s?\b|回撤|亏损|跌幅", re.IGNORECASE)


def _is_loss(u: Unit) -> bool:
    assert u.cell is not None
    return bool(_LOSS.search(f"{u.cell.row.label} {u.cell.header_text}"))


def _size(u: Unit, losses: bool) -> float:
    """The value compared for "the highest / the smallest": its magnitude when ``losses`` are compared."""
    assert u.cell is not None
    v = parse_number(u.cell.value) or 0.0
    return abs(v) if losses else v


def _across_row(units: Sequence[Unit], rows: dict[tuple[int, int], tuple[float, float, float]],
                fits: dict[tuple[int, tuple[str, ...]], tuple[float, float, float]],
                asked_in_columns: set[int] = frozenset(), options_in_columns: set[int] = frozenset()) -> list[Unit]:
    """``across_row``: the cells of the row the question names by most of its label, better than it names any
    column of its table (a table whose columns are the groups compared), of the best-scoring table; [] when no
    row is named so, or two rows of that table are. Another table's column ("2019 年" of the yearly table) does
    not count against the quarterly table's row ("2019年分季度 ... 哪个季度"), and a table whose column headers
    hold the thing asked for (``asked_in_columns``: 季度 over 第一季度 ...) is read first."""
    if not rows:
        return []
    best = max(rows, key=lambda r: (r[0] in asked_in_columns and rows[r][0] >= 0.5, rows[r]))
    fit, named = rows[best][:2]
    # columns two or more of which a parameter asked heads ("t=1 | ... | t=5" for "哪个t") are the options
    # compared: the question naming them ("t=1至5") names no column to read
    column_fit = (0.0, 0.0) if best[0] in options_in_columns else \
        max((f[:2] for k, f in fits.items() if k[0] == best[0]), default=(0.0, 0.0))
    if fit < 0.5 or fit <= column_fit[0] or named < column_fit[1]:
        return []   # named less than a column is ("in total" names a Total row by one word)
    if any(r != best and r[0] == best[0] and f[:2] == (fit, named) for r, f in rows.items()):
        return []
    return [u for u in units if u.cell is not None and (id(u.table), id(u.cell.row)) == best
            and parse_number(u.cell.value) is not None]
