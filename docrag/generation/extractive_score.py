"""How the ``extractive`` generator scores a unit against a question (``docs/extractive-rules.md``, 1-16 and
70: every rule with why it exists and which dev questions showed the need).

A unit's score is ``prior x (w x lexical + (1 - w) x semantic) x year_fit x cues / (1 + rank_prior x (rank - 1))``:

* **lexical** (:func:`idf_weights`, :func:`lexical_scores`): the IDF-weighted share of the question's terms
  the unit holds; terms only in the whole question, when one of its parts is answered, or only in the
  document it names (:func:`document_reference`) weigh ``_CONTEXT_WEIGHT``; Chinese characters and
  sub-words weigh ``_CJK_PART_WEIGHT`` (:func:`cjk_weight`);
* **semantic**: sentence-model similarity (:mod:`~docrag.generation.extractive_embed`);
* **prior** (:func:`prior`): the kind of unit the question wants (title x0.6, short fragment x0.7, figure
  x1.5 / x0.7, cell x1.1 / x0.85 / x0.8, quantity x1.15 / x0.8);
* **year fit** (:func:`year_fit`): the year the question names (x1.15 / x0.75);
* **cues** (:func:`cue_product`): the question cues of :mod:`~docrag.generation.extractive_cues`,
  :mod:`~docrag.generation.extractive_counts`, :mod:`~docrag.generation.extractive_extremes` and
  :mod:`~docrag.generation.extractive_lists` multiplied.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from docrag.generation.extractive_cost_basis import cost_fit
from docrag.generation.extractive_counts import count_fit
from docrag.generation.extractive_cues import (
    amount_fit,
    category_fit,
    key_fit,
    label_fit,
    language_fit,
    month_fit,
    rate_fit,
    reference_fit,
    share_fit,
)
from docrag.generation.extractive_extremes import chart_extreme_fit, extreme_fit
from docrag.generation.extractive_sentences import states_figures
from docrag.generation.extractive_share_class import class_fit
from docrag.generation.extractive_span import span_fit
from docrag.generation.extractive_tables import _MONTH, is_date
from docrag.generation.extractive_units import (
    _CJK,
    _QUANTITY_Q,
    Unit,
    _has_quantity,
    content_words,
    page_text,
    tokenize,
)
from docrag.types import BlockKind
from docrag.words import YEAR_ALONE

_CHART_Q = re.compile(r"\b(chart|graph|plot|figure|fig\.|line|bar|trend|peak|curve|series|axis)\b|图|曲线|趋势",
                      re.IGNORECASE)
_TEXT_Q = re.compile(r"\baccording to the (?:text|paragraph|passage|prose)|\bin the text\b|文中|正文|文字说明",
                     re.IGNORECASE)
_TABLE_Q = re.compile(r"\btable\b|表", re.IGNORECASE)
_CONTEXT_WEIGHT = 0.3  # terms of the whole question, when one of its parts is answered
_CJK_PART_WEIGHT = 0.5  # a lone Chinese character, or a word inside a longer word of the question
# a title ending with one year, its period ("…如下: 2024 年", "2022 年度"); a range ("(2010-2023)") is no period
_TITLE_YEAR = re.compile(r"(?:^|[^\d\-–—~至])((?:19|20)\d\d)\s*(?:年度?|年末)?\s*$")


def cue_product(units: Sequence[Unit], question: str, asked: str, referred: str = "") -> list[float]:
    """The product of the question cues of :mod:`~docrag.generation.extractive_cues` for every unit; ``asked`` is
    the question without the document it names (:func:`document_reference`), what the month and a quoted value
    are read from; ``referred``: the text the figure or table named is read from (default ``question``)."""
    out = [a * b * c for a, b, c in zip(month_fit(units, asked), quoted_fit(units, asked),
                                        reference_fit(units, referred or question), strict=True)]
    for fit in (label_fit, count_fit, language_fit, extreme_fit, chart_extreme_fit, key_fit, category_fit, span_fit,
                share_fit, rate_fit, class_fit, amount_fit, cost_fit):
        out = [a * b for a, b in zip(out, fit(units, question), strict=True)]
    return out


def cjk_weight(term: str, terms: set[str]) -> float:
    """Chinese tokens overlap (字符串 also yields 字符, 字, 符, 串): a word inside a longer word of
    the question and a lone character count ``_CJK_PART_WEIGHT`` as much, so a long common word does
    not outweigh a short rare one (季度)."""
    if not _CJK.match(term):
        return 1.0
    if len(term) == 1 or any(term != t and term in t for t in terms):
        return _CJK_PART_WEIGHT
    return 1.0


def period_axes(units: Sequence[Unit]) -> dict[int, int]:
    """How many columns of each table (by ``id`` of its block) name different years in their headers."""
    seen: dict[int, set[frozenset[str]]] = {}
    for u in units:
        if u.cell is not None:
            col = frozenset(YEAR_ALONE.findall(" ".join(u.cell.headers)))
            if col:
                seen.setdefault(id(u.block), set()).add(col)
    return {k: len(v) for k, v in seen.items()}


def year_fit(u: Unit, years: set[str], page_years: dict[str, frozenset[str]],
             axes: dict[int, int] | None = None) -> float:
    """A cell in a column of another year than the question names is less likely the answer, and so are
    a date cell of another year, text that states other years only, and text on a page that never
    mentions the year asked about (``page_years``: the years of each page). A column of the year asked
    gains only where the table's columns run over years (``axes``, :func:`period_axes`): ACCIONA's one
    "Employees at the close of 2020" is no period of "total 2020 sales"."""
    if not years:
        return 1.0
    if u.cell is not None and is_date(u.cell.value):   # "which release came out in 2005": its date
        return 1.15 if any(y in u.cell.value for y in years) else 0.75
    if u.cell is None:
        own = set(YEAR_ALONE.findall(u.text))
        if own and not own & years:   # it states other years only
            return 0.75
        seen = page_years.get(u.page.page_id)
        if seen is None:
            seen = page_years[u.page.page_id] = frozenset(YEAR_ALONE.findall(page_text(u.page)))
        return 1.0 if years & seen else 0.75
    col = set(YEAR_ALONE.findall(" ".join(u.cell.headers)))
    if not col:   # ``title_year`` (rule 217): no year over the column; the one ending its title ("…如下: 2024 年")
        last = _TITLE_YEAR.search(u.cell.title)
        return 1.0 if not last or last.group(1) in years else 0.75
    if not col & years:
        return 0.75
    return 1.15 if axes is None or axes.get(id(u.block), 0) >= 2 else 1.0


# "金宇生物技术股份有限公司（生物股份，600201）2020年年度报告中，", "In Alphabet's 2022 annual report, ": which document
# to read, not what to look for in it (a table or chart reference, "表3中", is kept: it names the evidence); the
# document's date in brackets belongs to it ("《…白皮书》（2021年）中，"), and it may end where the table or chart
# it names begins ("浙商证券金股报告表4中", rule 132 ``doc_ref_zh``)
# rule 230 ``document_kinds``: the kinds a report is named by beyond 报告 / 说明书 ("赛分科技招股书中，",
# "浙商证券C-VIX编制手册中，"), and a report ends where what it says begins ("…编制手册》（2020年3月）指出，",
# "…手册回顾的"): without them the question had no reference and named the wrong document (share l)
_SAYS_ZH = "指出|提到|认为|披露|介绍|回顾|预计|预测|统计|列示|所述"
_DOC_WORDS_ZH = "招股书|报告书|意见书|手册|研报|周报|月报|季报|快报|简报|通报|点评|年鉴"
_DOC_REF_ZH = re.compile(r"^(.{2,80}?(?:年度报告|报告|年报|说明书|公告|白皮书|预案|纪要|公报|》|" + _DOC_WORDS_ZH + ")"
                         r"(?:[（(][^）)]{1,16}[）)])?)"
                         r"(?:(?:中|显示|" + _SAYS_ZH + r")?[，,：:]|中|的|所列|(?=(?:图表|表|图)\s*\d)"
                         r"|(?:" + _SAYS_ZH + ")的?)")
_DOC_WORDS_EN = (r"report|release|10-K|10-Q|8-K|filing|prospectus|minutes|presentation|transcript|letter|paper|"
                 r"assessment|white ?paper|call|announcement|bulletin")
_DOC_REF_EN = re.compile(r"^(?:In|On|According to|Using|From|Per|Under)\s+(.{2,100}?\b(?:" + _DOC_WORDS_EN + r")"
                         r"(?:\s+(?:No\.?|number|#)\s?\d+)?"   # "Minutes number 94", "Release No. 5"
                         r"(?:\s+(?:FY\s?)?(?:19|20)\d\d(?:[-/]\d{2,4})?)?"   # "Annual Report 2021-22",
                         r"(?:\s+(?:for|of|dated|from)\s+(?:[A-Z][a-z]+\.?\s+)?(?:19|20)\d\d)?)"   # "... for July 2025"
                         r"(?: \([^)]{0,40}\))?,\s*", re.IGNORECASE)
# "..., according to the BLS release?", "... on its Q2 earnings call?": the same, said at the end
_DOC_REF_EN_END = re.compile(r",?\s+(?:in|on|according to|from|per|based on)\s+((?:the|its|an?|[A-Z][\w.&-]*'s?)\s"
                             r"[^,;?]{0,80}?\b(?:" + _DOC_WORDS_EN + r"))(?: \([^)]{0,40}\))?\s*[?.]?$",
                             re.IGNORECASE)

# a sentence that announces a table or chart and states nothing itself ("The following table presents details of
# our share repurchase transactions", "下表列示了…"): a title, in effect (ACCIONA's country-by-country table)
_ANNOUNCES = re.compile(r"\b(?:the )?following (?:tables?|charts?|figures?|graphs?|schedules?)\b|"
                        r"\b(?:tables?|charts?|figures?|graphs?) below\b|下表|如下表|见下表|下图|如下图|"
                        # rule 260 ``dateline``: a release's "X (NASDAQ: ULTA) today announced results for ..."
                        r"\btoday (?:announced|reported)\b[^.]{0,120}\bresults\b", re.IGNORECASE)
# ``formula_definition`` (rule 210): a measure written as a formula of names or symbols ("流动比率 = 流动资产 /
# 流动负债", "加权平均净资产收益率 = P0 / (E0 + NP ÷ 2 + …)", "ROA = net income / average total assets"): it says
# how the measure is computed, not what it was; its constants ("÷ 2", "× 100%") are no figures stated
_FORMULA = re.compile(r"[=＝]\s*[(（]?\s*[A-Za-z\u4e00-\u9fff][^=＝]{0,80}?\s[/÷×]\s?|"
                      r"[=＝]\s*[(（]?\s*[A-Za-z\u4e00-\u9fff][^=＝\s]{0,30}\s?[/÷×]\s?[(（]?\s*[A-Za-z\u4e00-\u9fff]")
_STATED_FIGURE = re.compile(r"\d\.\d|\d,\d{3}|\d{3,}(?!\s?%)")


def formula_definition(text: str) -> bool:
    """``formula_definition`` (rule 210): ``text`` writes a measure as a formula and states no figure of its own."""
    return bool(_FORMULA.search(text)) and not _STATED_FIGURE.search(text)


_DATE_IN = re.compile(rf"{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\s+{_MONTH}\s+\d{{4}}"
                      r"|\d{4}年\d{1,2}月(?:\d{1,2}日)?", re.IGNORECASE)   # a period named is no figure stated

_EVIDENCE_IN = re.compile(r"^(.+?)\s+(?:of|in)\s+(.+)$")   # "Table 1 of the BLS release", "the investment
# restrictions of the prospectus": what comes before "of" / "in" is asked for


# "what were RIL's revenue and net profit", "NVIDIA's Data Center revenue": the company whose report is read,
# named on its cover and in its boilerplate more than beside its figures (rule 104)
_OWNER_EN = re.compile(r"\b((?:[A-Z][\w&.-]*\s+(?:(?:de|of|la|del|du|der|van|von|y)\s+)?){0,2}[A-Z][\w&.-]*)['’]s\s+"
                       r"(?=[A-Za-z]|(?:19|20)\d\d\b)")   # "Banco de México's", "Bank of England's": one owner


_OWNS_REPORT = re.compile(r"(?:(?:19|20)\d\d\s+|fiscal\s+|fy\s?\d+\s+|q[1-4]\s+|annual\s+|form\s+){0,3}(?:"
                          + _DOC_WORDS_EN + r")\b", re.IGNORECASE)


def _owner_apart(asked: str, ref: str) -> tuple[str, str]:
    """(``asked`` less its possessive owners, ``ref`` with them): "RIL's revenue" asks for revenue in RIL's
    report; the owner still weighs, as context (``_CONTEXT_WEIGHT``), so another company's page does not win."""
    found = list(_OWNER_EN.finditer(asked))
    if not found or _CJK.search(asked):
        return asked, ref
    # rule 297 ``owner_or_subject``: an owner of a report ("according to Pfizer's 2022 Form 10-K") owns alone; another
    # owner is then the question's subject ("Paxlovid's worldwide revenues"); "Pfizer's 2022 revenues" owns too
    owning = [m for m in found if _OWNS_REPORT.match(asked, m.end())] or found
    for m in sorted(owning, key=lambda m: -m.start()):
        asked = asked[:m.start()] + asked[m.end():]
    return asked, " ".join([ref, *(m.group(1) for m in owning)]).strip()


def document_reference(question: str) -> tuple[str, str]:
    """``doc_reference``: ``(what is asked, the document it names)``; see :func:`_document_reference`; the
    question's possessive owners ("RIL's", rule 104) are named as the document's too."""
    return _owner_apart(*_document_reference(question))


def _document_reference(question: str) -> tuple[str, str]:
    """``doc_reference``: ``(what is asked, the document it names)``. A leading phrase naming the report
    to read says which document, not what the answer holds: its words (the company's full name, the
    report's title) weigh ``_CONTEXT_WEIGHT`` (an address cell holding "金宇" outranked 营业收入)."""
    for pattern in (_DOC_REF_ZH, _DOC_REF_EN):
        m = pattern.match(question)
        if m and len(question) - m.end() >= 6:
            ref, asked = m.group(1), question[m.end():]
            named = _EVIDENCE_IN.match(ref)
            return (f"{named.group(1)} {asked}", named.group(2)) if named else (asked, ref)
    m = _DOC_REF_EN_END.search(question)
    if m and m.start() >= 12:
        ref, asked = m.group(1), question[:m.start()] + "?"
        named = _EVIDENCE_IN.match(ref)
        return (f"{asked} {named.group(1)}", named.group(2)) if named else (asked, ref)
    return question, ""


def idf_weights(question: str, units: Sequence[Unit], context: str = "") -> tuple[dict[str, float], list[set[str]]]:
    """IDF weights of the question's terms over the units; terms only in ``context`` (the whole
    question, when one part of it is answered) count ``_CONTEXT_WEIGHT`` as much."""
    q = set(tokenize(question))
    ctx = set(tokenize(context)) - q
    docs = [set(tokenize(u.scored_text)) for u in units]
    df = Counter(t for d in docs for t in d if t in q or t in ctx)
    n = len(docs)
    return {t: (1.0 if t in q else _CONTEXT_WEIGHT) * cjk_weight(t, q | ctx)
            * math.log(1 + (n + 1) / (df.get(t, 0) + 0.5)) for t in q | ctx}, docs


REFERENCE_ONLY_LOSS = 0.5   # ``reference_only`` (rule 154): a unit holding none of the words asked, only context


def asked_fit(asked: str, docs: Sequence[set[str]], context: str = "", loss: float = REFERENCE_ONLY_LOSS
              ) -> list[float]:
    """``reference_only`` (rule 154): a unit holding none of the question's words but those of the document it names
    (:func:`document_reference`; ``context``: the whole question a part comes from) matches only the document's
    name: a transcript's masthead ("Nvidia (NVDA -1.50%) Q2 2025 Earnings Call") had answered "On NVIDIA's Q2 fiscal
    2025 earnings call, how large was the share repurchase authorization"; it loses ``loss``."""
    own = set(tokenize(asked)) | set(tokenize(document_reference(context)[0] if context else ""))
    if not own or not any(own & d for d in docs):
        return [1.0] * len(docs)
    return [1.0 if own & d else loss for d in docs]


def lexical_scores(idf: dict[str, float], docs: list[set[str]]) -> list[float]:
    """Each unit's share of the question's IDF weight."""
    total = sum(idf.values())
    if not total:
        return [0.0] * len(docs)
    # math.fsum: exact, so the sum does not depend on the set's order (string hashing varies run to run, and two
    # units' scores had tied or not by the last bit, answers changing between runs)
    return [math.fsum(idf[t] for t in idf.keys() & d) / total for d in docs]


LONG_SENTENCE_WORDS = 60   # ``long_sentence`` (rule 155): a sentence longer than this matches words by its length
LONG_SENTENCE_POWER = 0.5


def length_fit(units: Sequence[Unit]) -> list[float]:
    """``long_sentence`` (rule 155): a factor on each unit's lexical score; a sentence of n > 60 words (Chinese: two
    characters a word) keeps (60 / n) ** 0.5 of it: a prospectus's 150-character sentence counting the issuer's
    subsidiaries held every word of "香港影石2024年的营业收入是多少" but the name, and outranked its table."""
    out = []
    for u in units:
        n = len(u.text) / 2 if _CJK.search(u.text) else len(u.text.split())
        out.append(min(1.0, LONG_SENTENCE_WORDS / n) ** LONG_SENTENCE_POWER if u.kind == "sentence" and n else 1.0)
    return out


_STATES = re.compile(r"\S\s*[:：]\s*\S")   # "label: value"
_NOTE = re.compile(r"\s*(?:notes?|注|附注|source|资料来源|数据来源)\b", re.IGNORECASE)


# copyright lines, contact lines, disclaimers: the document's furniture, read as text (rule 131 ``boilerplate``)
_BOILERPLATE = re.compile(r"©|\bcopyright\b|all rights reserved|版权(?:属于|所有)|[\w.+-]+@[\w-]+\.[\w.]+|"
                          r"\(\d{3}\)\s?\d{3}-\d{4}|免责(?:声明|条款)|请务必阅读|"
                          r"(?:电话|传真|tel|fax)\s*[:：]\s*[+\d(]|"   # an analyst's phone line: "电话:021-38676673"
                          # a broker note's list of its earlier reports: "《次新股开板投资攻略》 2017.02.10 《…》 …"
                          r"(?:《[^》]{2,60}》\s*(?:19|20)\d\d[./-]\d{1,2}(?:[./-]\d{1,2})?\s*){2}", re.IGNORECASE)
_CONTACT_Q = re.compile(r"\b(?:copyright|contact|e-?mail|phone|website|web site|url|disclaimer)|"
                        r"版权|联系|电话|邮箱|网址|网站|免责", re.IGNORECASE)


FOOTNOTE_PRIOR = 0.7   # ``footnote`` (rule 276): a page's footnote notes what the text above it states
_FOOTNOTE = re.compile(r"^(?:\d{1,2}|[*†‡])\s+[A-Z\u4e00-\u9fff]")   # "1 Unless ...", "2 Corresponds to ..."


def _is_footnote(unit: Unit) -> bool:
    """A text block in the page's bottom fifth opening with a note mark ("2 Corresponds to the rounded value ...")."""
    box, height = unit.block.box, unit.block.box.extent[1]
    return unit.block.kind is BlockKind.TEXT and box.y0 > 0.8 * height and bool(_FOOTNOTE.match(unit.block.text))


def prior(unit: Unit, wants_number: bool, wants_chart: bool, wants_table: bool, wants_text: bool = False,
          wants_contact: bool = False) -> float:
    """Titles name things but rarely answer; quantity questions want digits; chart questions
    want figures and table questions cells; copyright and contact lines answer only questions asking for them."""
    out = 1.0
    if unit.kind != "figure" and not wants_contact and _BOILERPLATE.search(unit.text):
        out *= 0.5
    # a chart read from its caption and labels is a figure, not a caption
    # ``stated_title`` (rule 129): a bold line stating a figure ("● Total revenue: $1.025 billion to ...") is no title
    stated = unit.kind == "title" and len(unit.text) <= 120 and bool(_STATES.search(unit.text)) \
        and _has_quantity(unit.text) and not _NOTE.match(unit.text)
    if not stated and (unit.kind == "title" or (unit.block.kind is BlockKind.CAPTION and unit.kind != "figure")) \
            and not states_figures(unit.text):   # rule 277: "图 21 是…均值 1.47%，…最低一期为 -1.3%" is prose
        out *= 0.6
    if unit.kind == "sentence" and len(unit.text.split()) < 4 and not _CJK.search(unit.text):
        out *= 0.7
    if (unit.kind == "sentence" and _ANNOUNCES.search(unit.text)
            and not _has_quantity(_DATE_IN.sub(" ", unit.text))):
        out *= 0.6   # "The following table includes information on ...": it points at the evidence
    if unit.kind == "sentence" and _is_footnote(unit):
        out *= FOOTNOTE_PRIOR   # rule 276 ``footnote``: "1 Unless explicitly stated otherwise, this update ..."
    if unit.kind == "figure":
        out *= 1.5 if wants_chart else 0.7
    elif unit.kind == "cell" or unit.extra.get("table_row"):   # a text table's row is read as its cells are
        out *= 1.1 if wants_table else (0.85 if wants_chart else 1.0)
        if wants_text:
            out *= 0.8
    if wants_number and unit.kind in ("sentence", "title") and formula_definition(unit.text):
        return out * 0.8 * 0.6   # how the measure is computed, not its value (rule 210)
    if wants_number and unit.kind != "figure":
        out *= 1.15 if _has_quantity(unit.text) else 0.8
    return out


def wants(question: str) -> tuple[bool, bool, bool, bool, bool]:
    """What the question asks for: a number, a chart, a table, the text, contact or copyright lines (the
    :func:`prior` flags)."""
    return (bool(_QUANTITY_Q.search(question)), bool(_CHART_Q.search(question)), bool(_TABLE_Q.search(question)),
            bool(_TEXT_Q.search(question)), bool(_CONTACT_Q.search(question)))


# "In the voting table of ...", "the Sub-Fund Derivatives Usage table" (not "Table 1"); "…的法规标准对照表中"
_TITLED_EN = re.compile(r"\b(?:in|from|of|according to)\s+(?:the|its|their)\s+((?:[\w’'&-]+\s+){1,4}?)table\b"
                        r"(?!\s*(?:\d|[A-Z]\b))", re.IGNORECASE)
_TITLED_ZH = re.compile(r"([\u4e00-\u9fff]{1,10}表)(?=中|里|内)")
_TITLE_STOP = frozenset({"following", "above", "below", "this", "that", "same", "first", "second", "last", "报告"})


def titled_table(units: Sequence[Unit], asked: str) -> list[bool]:
    """``titled_table`` (rule 136): the units of the table the question names by its title ("In the voting table",
    "产销量情况分析表中": every content word of the name in the table's title) are the evidence wherever the
    retriever ranked their page, as a table named by number is (rule 96)."""
    names = [m.group(1) for m in _TITLED_EN.finditer(asked)] + _TITLED_ZH.findall(asked)
    wanted = [w for w in (content_words(n) - _TITLE_STOP for n in names) if w]
    if not wanted:
        return [False] * len(units)
    words: dict[str, set[str]] = {}   # a table's cells share its title: tokenized once
    out = []
    for u in units:
        title = u.table.title if u.table is not None else str(u.extra.get("title", ""))
        if title not in words:
            words[title] = set(tokenize(title))
        out.append(any(w <= words[title] for w in wanted))
    return out


ROW_NAMED_PRIOR = 0.5   # ``row_named`` (rule 139): the share of the rank prior a cell of a row named whole keeps


def row_named(units: Sequence[Unit], asked: str) -> list[bool]:
    """``row_named`` (rule 139): a cell whose row label (two words or more) the question names whole ("How many
    Active Riders ...", "growth of Azure and other cloud services revenue") is evidence on whichever page it is
    printed: it keeps ``ROW_NAMED_PRIOR`` of the rank prior."""
    asked_words = content_words(asked)
    words: dict[str, set[str]] = {}
    out = []
    for u in units:
        label = u.cell.row.label if u.cell is not None else ""
        if label and label not in words:
            words[label] = content_words(label)
        out.append(bool(label) and len(words[label]) >= 2 and words[label] <= asked_words)
    return out


_QUOTED = re.compile(r"(?<![\w’'])['‘\"“]([A-Za-z][\w.%-]*(?: [\w.%-]+){0,2})['’\"”](?![\w’'])")
QUOTED_GAIN = 1.25   # ``quoted_value`` (rule 137)


def quoted_fit(units: Sequence[Unit], asked: str) -> list[float]:
    """``quoted_value`` (rule 137): a short Latin-script value the question quotes ("which members voted 'No'")
    is one a stopword list would drop; units printing it as a word of their own gain ``QUOTED_GAIN``."""
    quoted = [re.compile(rf"(?<![\w-]){re.escape(q)}(?![\w-])") for q in _QUOTED.findall(asked)]
    if not quoted:
        return [1.0] * len(units)
    return [QUOTED_GAIN if any(q.search(u.text) for q in quoted) else 1.0 for u in units]
