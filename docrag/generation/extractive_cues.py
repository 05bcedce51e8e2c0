"""Question cues of the ``extractive`` generator: whole-label matching of table headers and row labels,
and count questions.

* **Labels**: when the question names a column header (or row label) *whole*, cells under a sibling
  header that only shares part of it lose ("维吉尼亚鸢尾" beside a named "变色鸢尾"); a label that is only
  part of a longer label the question also names ("鸢尾" inside "山鸢尾", "Total" inside "Total
  arrests") is not taken as named. Characters shared by sibling headers no longer decide the column.
* **Counts** (:mod:`~docrag.generation.extractive_counts`): "how many", "多少个", "几例" ask for a count.
* **References**: "图1", "Table 2" in the question favour the figure or table captioned so.
* **Missing nouns**: Chinese nouns of the question that no page read contains lower the confidence.
* **Extremes** (:mod:`~docrag.generation.extractive_extremes`): "the heaviest", "最高" favour a maximum column.
* **Language**: evidence on a page in another language than the question's loses.
* **Rates**: "percentage change", "增长率" favour a row's percentage over its amount change; an amount asked
  ("销售量是多少") passes over text that states only rates.

Rules (``docs/extractive-rules.md``, 17-19, 21, 46, 50, 77, 80): label fit (x0.55 column, x0.7 row), language
fit (x0.75), reference fit (x1.4 / x0.7), key fit (x0.5), chart category fit (x1.4), period span fit (80, 172:
:mod:`~docrag.generation.extractive_span`), rate column (x1.25 / x0.8, 115), amount not rate (x0.8, 141),
missing nouns. Parts (46): :mod:`~docrag.generation.extractive_parts`. Name fit and date fit (20, 22) were removed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

from docrag.generation.extractive_extremes import _LEAST_Q, _MOST_Q
from docrag.generation.extractive_units import _CJK, _QUANTITY_Q, _REF, Unit, page_text, tokenize
from docrag.generation.extractive_units import _STOP as _STOPWORDS
from docrag.words import BRACKETED, file_name_words, jieba, simplified, simplified_text

if TYPE_CHECKING:
    from docrag.generation.extractive_tables import TableCell
    from docrag.types import Page

_GENERIC = frozenset({"", "total", "all", "value", "values", "item", "items", "合计", "总计", "项目", "特征", "指标"})
_SPELLED_OUT = re.compile(r"((?:[A-Z][a-z&]+\s+){1,5})\(([A-Z]{2,6})\)")   # "Data Center Group (DCG)"
_ENTITY = re.compile(r"(?<![.?!]\s)(?<!^)\b([A-Z][A-Za-z&.-]{2,})")
_NAME_WORDS = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+){2,4}\b")   # three to five capitalised words


def _norm(label: str) -> str:
    """A label without its parenthesised unit ("花萼长度（厘米）" -> "花萼长度") or notes, nested ones too
    (``nested_notes``), lower-cased, spaces squeezed."""
    while (bare := BRACKETED.sub(" ", label)) != label:   # nested: "Embedded (Operating income (loss))" (rule 200)
        label = bare
    return re.sub(r"\s+", " ", label).strip().strip(":：").lower()


def named_in(label: str, question: str) -> bool:
    """True when ``label`` appears whole in ``question`` (word boundaries for Latin text)."""
    lab = _norm(label)
    if len(lab) < 2 and not _CJK.search(lab) or lab in _GENERIC:
        return False
    q = question.lower()
    if _CJK.search(lab):   # in one script: a Traditional label (營業收入) is named by 营业收入
        return simplified(lab.replace(" ", "")) in simplified(q.replace(" ", ""))
    return re.search(r"(?<![\w])" + re.escape(lab) + r"(?![\w])", q) is not None


def most_specific(labels: Sequence[str], question: str) -> set[str]:
    """The normalised labels named whole in ``question``, less those inside a longer named one."""
    named = {_norm(x) for x in labels if named_in(x, question)}
    return {x for x in named if not any(x != o and x in o for o in named)}


def _confusable(named: set[str], label: str) -> bool:
    """``label`` is not one of the ``named`` labels but shares a term with one, or lies inside one
    ("维吉尼亚鸢尾" beside "变色鸢尾"; "Total" beside "Total arrests")."""
    if label in named or not label:
        return False
    terms = set(tokenize(label))
    return any(label in n or terms & set(tokenize(n)) for n in named)


def label_fit(units: Sequence[Unit], question: str, *, col_loss: float = 0.55, row_loss: float = 0.7) -> list[float]:
    """A factor per unit: when the question names a column header (row label) whole, the cells under
    a sibling header that only shares part of it (rows with such a label) lose; other units keep 1,
    so cells do not gain on sentences and figures."""
    cols: dict[int, list[tuple[set[str], set[str]]]] = {}
    rows: dict[int, set[str]] = {}
    for u in units:
        if u.table is None or id(u.table) in cols:
            continue
        lines = []
        heads = {_norm(h) for tc in u.table.cells() for h in tc.headers}  # the stub header names no value
        for line in u.table.header_lines:
            texts = [c.text for c in line]
            picked = most_specific([t for t in texts if _norm(t) in heads], question)
            if picked:
                lines.append(({_norm(t) for t in texts}, picked))
        cols[id(u.table)] = lines
        rows[id(u.table)] = most_specific([r.label for r in u.table.rows], question)
    out = []
    for u in units:
        f = 1.0
        if u.cell is not None and u.table is not None:
            mine = {_norm(h) for h in u.cell.headers}
            for texts, picked in cols[id(u.table)]:
                if any(_confusable(picked, h) for h in mine & texts) and not mine & picked:
                    f *= col_loss
            if _confusable(rows[id(u.table)], _norm(u.cell.row.label)):
                f *= row_loss
        out.append(f)
    return out


def _cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum(bool(_CJK.match(c)) for c in letters) / len(letters) if letters else 0.0


def language_fit(units: Sequence[Unit], question: str, loss: float = 0.75) -> list[float]:
    """A factor per unit: evidence on a page written in another language than the question (a mostly
    Chinese page for an English question, a page without Chinese for a Chinese one) loses."""
    zh = bool(_CJK.search(question))
    share: dict[str, float] = {}
    out = []
    for u in units:
        pid = u.page.page_id
        if pid not in share:
            share[pid] = _cjk_share(page_text(u.page))
        other = share[pid] == 0.0 if zh else share[pid] > 0.5
        out.append(loss if other else 1.0)
    return out


# what a question asks for, not what it is about: "多长时间", "什么时候", "比例" need not be on the page
_ASKED = re.compile(r"^(?:多[长久大高远少]|几|什么|哪|怎|如何|为何)")
_ANSWER_TYPES = frozenset({"比例", "比率", "数量", "数目", "次数", "时间", "日期", "年份", "金额", "价格", "原因",
                           "作用", "方法", "办法", "名称", "名字", "意思", "含义", "结果", "范围", "单位",
                           "无法", "时候", "情况", "方式", "部分", "平均值", "均值",
                           "纵轴", "横轴", "左轴", "右轴", "坐标轴", "刻度", "图例"})   # and words jieba tags n* that
# name nothing ("平均值": the mean computed, rule 150; a chart's axes, ticks and legend: how to read it, rule 237)


def missing_entities(question: str, pages: Sequence[Page]) -> list[str]:
    """Capitalised names in the question (not its first word) that no page read mentions, nor its document's file
    name ("Minutes" of ``en_banxico_minutes_104_2023-11.pdf``, whose extract starts after the cover: rule 216)."""
    names = {m.group(1).rstrip(".") for m in _ENTITY.finditer(question.strip())}
    names = {n for n in names if n.lower() not in _STOPWORDS}
    files = {file_name_words(p.file_name) for p in pages}
    text = " ".join([*(page_text(p) for p in pages), *files]).lower()
    for m in _SPELLED_OUT.finditer(question):   # ``spelled_out``: "Data Center Group (DCG)" is found as "DCG"
        words, short = m.group(1).split(), m.group(2)
        if "".join(w[0] for w in words[-len(short):]) == short and short.lower() in text:
            names -= set(words[-len(short):])
    for m in _NAME_WORDS.finditer(question):   # and "Data Center Group" alone, where a page prints "DCG"
        words = m.group(0).split()
        if re.search(rf"\b{''.join(w[0] for w in words).lower()}\b", text):
            names -= set(words)
    return sorted(n for n in names if n.lower() not in text)


def missing_nouns(question: str, pages: Sequence[Page]) -> tuple[list[str], float]:
    """Chinese nouns of the question (jieba, part of speech n*, two or more characters) that no page
    read contains, and their share of the question's nouns -- the Chinese counterpart of capitalised
    names missing from the pages ("火星", "年龄": the pages do not talk about it). The share counts the
    question's Latin-script names found on the pages as present nouns."""
    if not _CJK.search(question):
        return [], 0.0
    import jieba.posseg as posseg

    jieba()  # quiet
    # "表2中甲市": jieba would read "中甲市"
    plain = re.sub(r"(?:图|圖|表)\s*\d+\s*中?", " ", simplified_text(question))
    plain = re.sub(r"报告期(?:内|各期末?|末|各年)?", " ", plain)   # the report's periods, printed as dates (rule 237)
    # "最年长的": a maximum column answers it, not a word; "最高价" stays (a column name)
    plain = re.sub(rf"(?:{_MOST_Q.pattern}|{_LEAST_Q.pattern})(?=的|\s|$)", " ", plain, flags=re.IGNORECASE)
    nouns = list(dict.fromkeys(w.word.lstrip("中在于从") for w in posseg.lcut(plain)
                               if w.flag.startswith("n") and len(w.word.lstrip("中在于从")) >= 2
                               and _CJK.search(w.word) and not _ASKED.match(w.word)
                               and w.word not in _ANSWER_TYPES))
    if not nouns:
        return [], 0.0
    spaced = " ".join(page_text(p) for p in pages)
    text = simplified_text(re.sub(r"\s+", "", spaced))   # a Traditional-script filing names 营业收入 as 營業收入
    # a compound noun is present when its sub-words are ("平均年龄" needs both 平均 and 年龄)
    parts = {w: [s for s in jieba().lcut_for_search(w) if len(s) >= 2 and s != w] for w in nouns}
    missing = [w for w in nouns if w not in text and not (parts[w] and all(s in text for s in parts[w]))]
    # the question's Latin-script names found there ("cron", "chmod") count as nouns that are present
    named = sum(_mentions(spaced, n) for n in question_names(question))
    return missing, len(missing) / (len(nouns) + named)


_LATIN_NAME = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z0-9_.+-]*[A-Za-z0-9])(?![\w-])")
_NAME_STOP = frozenset({"the", "and", "or", "of", "in", "to", "is", "a", "an"})


def question_names(question: str) -> list[str]:
    """Names a Chinese question asks about: its Latin-script words ("sort", "gzip", "PID", "Vim" in
    "sort 按数值大小排序的选项是哪个？"), which in Chinese text are program, product or unit names."""
    if not _CJK.search(question):
        return []
    return list(dict.fromkeys(m.group(1) for m in _LATIN_NAME.finditer(question)
                              if m.group(1).lower() not in _NAME_STOP))


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", text, re.IGNORECASE) is not None


def quoted_at(value: str, question: str) -> re.Match[str] | None:
    """Where ``question`` quotes a printed value whole ("300-399", not "21" inside "2021" or "3.5" in
    "3.55"); both lower-cased by the caller."""
    return re.search(rf"(?<![\w.]){re.escape(value)}(?![\w]|\.\d)", question)


def key_fit(units: Sequence[Unit], question: str, loss: float = 0.5) -> list[float]:
    """A cell whose printed value the question quotes ("the number range 300-399") is the key that picks
    the row, not the answer: its column (the keys) loses to the other cells of its row."""
    q = unicodedata.normalize("NFKC", question).lower()

    def quoted(u: Unit) -> bool:
        v = unicodedata.normalize("NFKC", u.cell.value).strip().lower() if u.cell is not None else ""
        return len(v) >= 3 and quoted_at(v, q) is not None

    keys = {(id(u.table), tuple(u.cell.headers)) for u in units if quoted(u)}  # type: ignore[union-attr]
    return [loss if u.cell is not None and (id(u.table), tuple(u.cell.headers)) in keys else 1.0 for u in units]


def category_fit(units: Sequence[Unit], question: str, gain: float = 1.4) -> list[float]:
    """``chart_category``: a chart with a data label on a category the question names whole ("Q3'23",
    "2019年") is the chart asked about, over one whose caption merely shares words with the question."""
    asked = set(tokenize(question))

    def names(key: str) -> bool:
        toks = set(tokenize(key))
        return len(key.strip()) >= 2 and any(t[:1].isdigit() or len(t) > 1 for t in toks) and toks <= asked

    return [gain if u.kind == "figure" and any(names(k) for k in u.extra.get("values") or {}) else 1.0
            for u in units]


# a column of shares of a whole ("占营业收入比重", "占年度销售总额比例", "% of net sales") and a question asking for one
_SHARE_HEAD = re.compile(r"占.{0,12}(?:比重|比例|百分比)|占比|\bpercent(?:age)? of\b|%\s*of\b|\bas a % of\b",
                         re.IGNORECASE)
_SHARE_Q = re.compile(r"占|比重|比例|百分比|百分之|\bpercent|\bshare\b|\bproportion|\bportion\b|%|\bhow much of\b",
                      re.IGNORECASE)


def share_fit(units: Sequence[Unit], question: str, loss: float = 0.7) -> list[float]:
    """``share_column``: a question asking for an amount ("连接器的营业收入是多少") is not answered from the column of
    its share of a whole ("占营业收入比重": the measure is named there as the denominator)."""
    if _SHARE_Q.search(question):
        return [1.0] * len(units)
    return [loss if u.cell is not None and _SHARE_HEAD.search(u.cell.header_text) else 1.0 for u in units]


# a question asking for a rate of change, and a cell that is a percentage
_RATE_Q = re.compile(r"\bpercent(?:age)?\s+(?:changes?|increases?|decreases?|declines?|growth)\b|%\s*change|"
                     r"\bgrowth\s+rates?\b|\brates?\s+of\s+(?:change|growth|increase)\b|增长率|增速|增幅|降幅|"
                     r"变动比例|变动幅度|增减幅度|同比增长百分", re.IGNORECASE)


def _is_percent(tc: TableCell) -> bool:
    return tc.value.rstrip().endswith(("%", "％")) or "%" in tc.header_text or "％" in tc.header_text


def rate_fit(units: Sequence[Unit], question: str, gain: float = 1.25, loss: float = 0.8) -> list[float]:
    """``rate_column``: "what were the year-over-year percentage changes", "增长率是多少" ask for a rate: in a row
    that prints both an amount change and a percentage change ("$ Change | % Change", "增减额 | 增减率"), or a
    column that does (rows "Constant Currency Impact | $184" and "Percentage Change Y/Y Constant Currency | 25%",
    rule 156 ``rate_row``), its percentages gain and its other figures lose; other units keep 1."""
    if not _RATE_Q.search(question):
        return [1.0] * len(units)
    mixed: dict[tuple, set[bool]] = {}
    for u in units:
        if u.cell is not None:
            mixed.setdefault(("row", id(u.cell.row)), set()).add(_is_percent(u.cell))
            mixed.setdefault(("col", id(u.block), u.cell.header_text), set()).add(_is_percent(u.cell))
    out = []
    for u in units:
        if u.cell is None or (len(mixed[("row", id(u.cell.row))]) < 2
                              and len(mixed[("col", id(u.block), u.cell.header_text)]) < 2):
            out.append(1.0)
        else:
            out.append(gain if _is_percent(u.cell) else loss)
    return out


# a question asking for a rate or a change, not an amount: "同比增长多少", "what share", "operating margin"
_RATE_WORDS = re.compile(r"率|比例|比重|占比|增长|增速|增幅|增减|增加|减少|下降|上升|提高|降低|变动|变化|百分|同比|"
                         r"环比|\b(?:percent(?:age)?s?|rates?|margins?|shares?|growth|change[ds]?|ratios?|yields?|returns?|"
                         r"grow|rise|fall|increase|decrease)\b", re.IGNORECASE)
_FIGURE_PRINTED = re.compile(r"(?<![A-Za-z0-9_.])\d[\d,]*(?:\.\d+)?(?![\d年月日])(\s*(?:%|％|个百分点|percent|per "
                             r"cent))?", re.IGNORECASE)
AMOUNT_NOT_RATE_LOSS = 0.8   # ``amount_not_rate`` (rule 141)


def asks_rate(question: str) -> bool:
    """The question asks for a rate, a share or a change ("同比增长多少", "what margin"), not an amount."""
    return bool(_RATE_WORDS.search(question))


def percent_only(text: str) -> bool:
    """Every figure ``text`` prints is a percentage (years, dates "2017.02.10" and single digits aside)."""
    text = re.sub(r"(?:19|20)\d\d[./-]\d{1,2}(?:[./-]\d{1,2})?", " ", text)
    figures = [m for m in _FIGURE_PRINTED.finditer(text) if not re.fullmatch(r"(?:19|20)\d\d|\d", m.group(0))]
    return bool(figures) and all(m.group(1) for m in figures)


def amount_fit(units: Sequence[Unit], question: str) -> list[float]:
    """``amount_not_rate`` (rule 141): a question asking for an amount and no rate ("连接器的销售量是多少"): a unit
    stating only percentages ("销售量……较上年增长177.78%") loses."""
    if not _QUANTITY_Q.search(question) or asks_rate(question):
        return [1.0] * len(units)
    # rule 202 ``named_column``: a cell under a header the question names ("IC均值是多少") is what it asks, rate or not
    return [AMOUNT_NOT_RATE_LOSS if percent_only(u.text) and not (
        u.cell is not None and any(named_in(h, question) for h in u.cell.headers)) else 1.0 for u in units]


def _refs(text: str) -> set[tuple[str, str]]:
    """("figure" | "table", number) of every "Figure 1", "Table 2", "图1", "表2" in ``text``."""
    out = set()
    for m in _REF.finditer(text or ""):
        word = (m.group(1) or m.group(2)).lower()
        out.add(("table" if word in ("table", "表") else "figure", m.group(3)))
    return out


def _own_refs(u: Unit) -> set[tuple[str, str]]:
    """The figure / table numbers a unit's caption or table title gives it."""
    if u.kind == "figure":
        return _refs(str(u.extra.get("caption") or u.text))
    return _refs(u.table.title) if u.table is not None else set()


def reference_text(part: str, context: str) -> str:
    """``carried_reference`` (rule 152): the text a part's figure or table reference is read from: the part, or
    the question up to it when the part names none ("图表6中，哪个因子为正？最低的是哪个因子？": the second part
    is asked of 图表6 too)."""
    return part if _refs(part) or not context else context


def named_reference(units: Sequence[Unit], question: str) -> list[bool]:
    """``named_reference``: the units of the figure or table the question names by number ("表1中", "Figure
    2(a)"): they are the evidence wherever the retriever ranked their page (a research note's summary page,
    ranked first, restates the table in words)."""
    asked = _refs(question)
    return [bool(asked and _own_refs(u) & asked) for u in units]


def reference_fit(units: Sequence[Unit], question: str, gain: float = 1.4, loss: float = 0.7) -> list[float]:
    """A factor per unit: when the question names a figure or table by number ("图1", "Table 2"), the
    units of the figure/table captioned so gain and those of another number of the same kind lose."""
    asked = _refs(question)
    if not asked:
        return [1.0] * len(units)
    out = []
    for u in units:
        own = _own_refs(u)
        if own & asked:
            out.append(gain)
        elif {k for k, _ in own} & {k for k, _ in asked}:
            out.append(loss)
        else:
            out.append(1.0)
    return out


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_NAME = (r"(?-i:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?"
               r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
# "November 2022", "December 31, 2022", "31 December 2020", "Nov. 1 - 30, 2022", "Apr., 2025" (a table's header
# cut into lines), "2019年12月"
_MONTH_YEAR = re.compile(rf"\b({_MONTH_NAME})\.?,?(?:\s+\d{{1,2}}(?:\s*[-–]\s*\d{{1,2}})?,?)?\s+((?:19|20)\d\d)\b"
                         rf"|\b\d{{1,2}}\s+({_MONTH_NAME})\s+((?:19|20)\d\d)\b|((?:19|20)\d\d)\s?年\s?(1[0-2]|0?[1-9])\s?月")


def month_years(text: str) -> set[tuple[int, str]]:
    """The (month 1-12, year) pairs ``text`` names."""
    out = set()
    for m in _MONTH_YEAR.finditer(text):
        if m.group(1):
            out.add((_MONTHS.index(m.group(1)[:3].lower()) + 1, m.group(2)))
        elif m.group(3):
            out.add((_MONTHS.index(m.group(3)[:3].lower()) + 1, m.group(4)))
        else:
            out.add((int(m.group(6)), m.group(5)))
    return out


def month_fit(units: Sequence[Unit], asked: str, loss: float = 0.8) -> list[float]:
    """``month_fit``: a question about one month of a year ("repurchase in November 2022") is not answered by
    text dated another month of that year only ("As of December 31, 2022, there were ... stockholders");
    ``asked`` is the question without the document it names."""
    wanted = month_years(asked)
    years = {y for _, y in wanted}
    if not wanted:
        return [1.0] * len(units)
    out = []
    for u in units:
        named = month_years(f"{u.text} {u.context}")
        out.append(loss if named and not named & wanted and any(y in years for _, y in named) else 1.0)
    return out
