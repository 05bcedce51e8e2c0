"""The parts of a question that asks for several facts (rule 46 of ``docs/extractive-rules.md``).

Each part is answered on all pages read and every part's evidence is cited
(:meth:`~docrag.generation.extractive.ExtractiveGenerator.generate`).

* English: "X, and what is Y?" splits before the second question; a part that only refers back ("and how
  did it compare", "what was it", "by how much") stays with the first. One measure asked over two spans, the
  preposition said again ("rise in July 2025 and over the last 12 months"), is asked once per span, and short
  items of one list after "what was/were" ("RIL's revenue and net profit for 2021-22") one by one.
* Chinese: clauses ("X？Y？", "X，Y是多少") are split where each asks something; a clause that names
  several items of one measure is split per item: "A的X、Y和Z分别是多少" (X, Y, Z of A), "A和B的X分别
  是多少" (X of A and of B), "A的X和Y是多少" (without 分别, when X and Y are not summed: "X和Y的合计").
  Nothing inside a title 《…》, brackets or quotes is split, and "A与B相差多少" stays one question.
"""
from __future__ import annotations

import re

from docrag.generation.extractive_extremes import _PAREN
from docrag.generation.extractive_parts_joins import _WH, joined_pieces
from docrag.generation.extractive_units import _CJK

_ASKS = re.compile(r"多少|几|什么|哪|何|谁|是否|吗|如何|怎样|怎么|"
                   r"\b(?:what|how|which|when|where|who|whose|why|did|does|do|is|are|was|were)\b", re.IGNORECASE)
# "..., and in which country ...", "... and at what average price ...", "... and roughly what share ...": a
# preposition or an approximation before the second question word (rule 101)
_SPLIT_EN = re.compile(r",?\s+and\s+(?=(?:what|how|which|when|where|who|whose|why|did|does|do|is|are|was|were|"
                       r"the|its|their|his|her|by how much)\b|(?:in|at|on|for|from|to|by|with|of|during|under|"
                       r"roughly|approximately|about|around)\s+(?:what|which|whom|whose|how)\b)", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:it|they|them|this|that|these|those|then)\b", re.IGNORECASE)
_REFERS_BACK = re.compile(r"^(?:how|why)\s+(?:does|did|do|has|have|is|was|would)\s+(?:it|they|this|that|these|those)\b",
                          re.IGNORECASE)
_OPEN, _CLOSE = "《（(“‘「【[", "》）)”’」】]"
_CLAUSE_END = "？?；;，,"
_EACH = re.compile(r"分别|各(?=是|为|有|多少|如何|约)")       # "分别是多少", "各是多少"
_IS_HOW_MUCH = re.compile(r"(?:是|为)多少[？?]?$")
_HOW_MUCH_END = re.compile(r"(?:是|为)?多少[？?]?$")   # "…营业收入是多少", "…实现广告收入多少"
# a change asked with no measure of its own: the measure is the one the part before asked for
_BARE_CHANGE = re.compile(r"^(?:同比|较上年同期|较上年|比上年同期|比上年|较去年|比去年)?"
                          r"(?:增长|增加|下降|减少|变动|变化)了?(?:多少|几)(?:[%％]|个百分点)?[？?]?$")
_TOGETHER = re.compile(r"的|合计|总和|之和|总计|共|差|比(?!例|重|率)")   # "A和B的合计": one; rule 284: 比例 is no 比
_LIST_SEP = ("以及", "和", "与", "及", "、")
# "公司总资产和归属于上市公司股东的净资产": the first item is a measure itself, not a name the last one's measure is of
_MEASURE = re.compile(r"(?:收入|利润|资产|负债|率|额|规模|量|数|值|费用|成本|价格|价|比例|比重|占比|增速|增长|收益)$")
# "大约是多少": a clause with no subject of its own
_ASK_ONLY = re.compile(r"大约|约|是|为|多少|了|其|几|什么|哪|如何|各|分别|[？?]")
_SUPER_END, _SUPER_ONLY = re.compile(r"最[高低大小多少]$"), re.compile(r"^哪[一个]?[\u4e00-\u9fff]?最[高低大小多少]$")


def _outside(text: str) -> list[bool]:
    """For each character: whether it stands outside every bracket, title mark and quote."""
    depth, out = 0, []
    for ch in text:
        if ch in _CLOSE:
            depth = max(0, depth - 1)
        out.append(depth == 0 and ch not in _CLOSE)
        if ch in _OPEN:
            depth += 1
    return out


def _split_outside(text: str, seps: tuple[str, ...]) -> list[str]:
    """``text`` split at every separator that stands outside brackets and quotes."""
    free = _outside(text)
    pieces, start, i = [], 0, 0
    while i < len(text):
        sep = next((s for s in seps if text.startswith(s, i) and free[i]), None)
        if sep is None:
            i += 1
            continue
        pieces.append(text[start:i])
        i = start = i + len(sep)
    pieces.append(text[start:])
    return pieces


def _items(clause: str) -> list[str]:
    """One clause per named item of ``clause`` ("A的X和Y分别是多少" -> "A的X是多少", "A的Y是多少");
    ``[clause]`` when it names one thing."""
    free = _outside(clause)
    each = next((m for m in _EACH.finditer(clause) if free[m.start()]), None)
    if each is not None:
        before, tail, seps = clause[:each.start()], clause[each.end():], _LIST_SEP
    elif (m := _IS_HOW_MUCH.search(clause)) is not None:
        before, tail, seps = clause[:m.start()], m.group(0), tuple(s for s in _LIST_SEP if s != "与")
    else:
        return [clause]
    if not tail or not before:
        return [clause]
    # the subject ends at the last 的 (outside brackets) that still has a list after it
    subject, items = "", _split_outside(before, seps)
    for i in range(len(before) - 1, -1, -1):
        if before[i] == "的" and free[i] and "、" not in before[:i]:
            rest = _split_outside(before[i + 1:], seps)
            if len(rest) >= 2:
                subject, items = before[: i + 1], rest
                break
    if len(items) < 2 or len(items) > 6 or any(not x.strip() for x in items):
        return [clause]
    if each is None and (not subject or any(_TOGETHER.search(x) for x in items)):
        return [clause]
    if not subject and "的" in items[-1] and not _MEASURE.search(_PAREN.sub("", items[0])):
        measure = items[-1][items[-1].index("的"):]   # "微软和亚马逊的年末股价": one measure of several names
        items = [x if "的" in x else x + measure for x in items]
    return [f"{subject}{x}{tail}" for x in items]


# rule 140 ``parts_gap``: a clause comparing the figure asked before with another ("与2023年实际增速相比相差多少个
# 百分点", "比2023年实际治理提升的数量多还是少、相差多少条"), and a clause comparing two ("A的毛利率与其整体毛利率相比
# 高多少"): each figure is asked for, and the gap computed from the two answers (extractive_gap)
_GAP_TAIL = r"(?:相比|相较|比较)?[，,、]?(?:(?:多还是少|高还是低)[，,、]?)?(?:相差|差|高|低|多|少|快|慢)了?(?:多少|几)"
_GAP_CLAUSE = re.compile(rf"^(?:与|和|同|跟|比|较)(?P<other>[^，,、？?]{{2,30}}?){_GAP_TAIL}")
_GAP_WITHIN = re.compile(r"^(?P<a>[^？?]{2,60}?)(?:与|和|同|跟)(?P<b>[^与和？?]{2,30}?)相比[，,]?"
                         r"(?:(?:多还是少|高还是低)[，,、]?)?(?:相差|高|低|多|少|快|慢)了?(?:多少|几)")


# "基于A与基于B两种分组方式下，X相差多少": X under A and under B, their gap asked (rule 158 ``two_kinds``)
_BOTH = re.compile(r"^(?P<a>.{2,40}?)(?:与|和|及)(?P<b>[^与和]{2,40}?)(?:两种|两类|两个|两项|两者|二者)"
                   r"(?P<kind>.{0,10})$")
_GAP_END = re.compile(r"(?:相差|差距|差额|差)了?(?:多少|几)[^，,？?]{0,4}[？?]?$")
_GENERIC = re.compile(r"的?(?:增速|增幅|增长率|数量|数目|数额|金额|水平|幅度|情况)$")   # "2023年实际增速"
_PLAN = re.compile(r"目标|计划|预期|预计|承诺")
_ASKED_TAIL = re.compile(r"(?:是|为)?(?:多少|几)[^，,？?]{0,2}[？?]?$")   # "是多少", "多少条"
_YEAR_ZH = re.compile(r"(?:19|20)\d\d\s*年(?:度|末|底)?")


def _gap_part(previous: str, other: str) -> str:
    """The part asking for the figure compared with the one ``previous`` asked for: "2023年实际增速" of
    "……2024年地区生产总值增长目标是多少" asks "2023年实际地区生产总值增长是多少" (the measure said before, its
    plan words and period left out; a generic word of ``other`` such as 增速 or 数量 stands for it)."""
    lead = previous[: previous.rfind("，") + 1]
    asked = previous[len(lead):]
    years = list(_YEAR_ZH.finditer(asked))
    measure = asked[years[-1].end():] if years else asked[asked.rfind("的") + 1:]
    measure = _PLAN.sub("", _ASKED_TAIL.sub("", measure)).strip("，, ")
    return f"{lead}{_GENERIC.sub('', other)}{measure}是多少"


def _compared_zh(clause: str) -> list[str]:
    """"A与B相比高多少": "A是多少", "B是多少" (rule 140); [] when the clause compares nothing that way or the
    comparison stands inside a title or quotes."""
    m = _GAP_WITHIN.match(clause)
    if m is None or not _outside(clause)[m.end("a")]:
        return []
    return [f"{m.group('a')}是多少", f"{m.group('b')}是多少"]


def _asks_apart(clause: str) -> list[str]:
    """Rule 146 ``asks_apart``: "GDPR是哪一年通过、何时正式生效的", "系统由谁研发、服务于哪家清算行": asks parted
    by "、", each asked of the subject said before the first ("GDPR何时正式生效的"); [] when a piece asks nothing."""
    pieces = _split_outside(clause, ("、",))
    first = _ASKS.search(pieces[0])
    if len(pieces) < 2 or first is None or not all(_ASKS.search(p) for p in pieces[1:]):
        return []
    if len(pieces) == 2 and _SUPER_END.search(pieces[0]) and _SUPER_ONLY.match(pieces[1]):   # rule 273
        return [pieces[0], pieces[0][:-2] + pieces[1][-2:]]   # "哪一年超额收益最低、哪一年最高": 超额收益 both ends
    said = re.search(r"(?:是|为|由)$", pieces[0][:first.start()])   # "X是哪一年", "X由谁": X is the subject
    subject = pieces[0][:said.start()] if said else ""
    return [pieces[0], *(f"{subject}{p}" for p in pieces[1:])] if len(subject) >= 2 else []


def _parts_zh(q: str) -> list[str]:
    free = _outside(q)
    clauses, start = [], 0
    for i, ch in enumerate(q[:-1]):   # the closing "？" stays with the last clause
        if ch in _CLAUSE_END and free[i]:
            clauses.append(q[start:i].strip())
            start = i + 1
    clauses.append(q[start:].strip())
    parts: list[str] = []
    context: list[str] = []
    for clause in filter(None, clauses):
        if not _ASKS.search(clause):
            context.append(clause)
            continue
        if parts and not context and len(_ASK_ONLY.sub("", clause)) < 2:   # "X最高的是哪个？是多少？"
            parts[-1] = f"{parts[-1]}，{clause}"
            continue
        if parts and not context and _BARE_CHANGE.match(clause) and "哪" not in parts[-1]:   # rule 107
            # "营业收入是多少？同比增长多少？": the change of 营业收入 (not of "哪个行业…最高", a which-question)
            parts.append(f"{_HOW_MUCH_END.sub('', parts[-1]).rstrip('，,')}{clause}")
            continue
        gap = _GAP_CLAUSE.match(clause) if parts and not context else None
        if gap is not None:   # rule 140: "与2023年实际增速相比相差多少": the other figure, asked for itself
            parts.append(_gap_part(parts[-1], gap.group("other")))
            continue
        both = _BOTH.match(context[-1]) if context and _GAP_END.search(clause) else None
        if both is not None and all(_outside(context[-1])):   # rule 158: the gap of X under two kinds named before
            lead, rest = "，".join(context[:-1]), _GAP_END.sub("是多少", clause)
            parts += [f"{lead}，{k}{both['kind']}，{rest}" if lead else f"{k}{both['kind']}，{rest}"
                      for k in (both["a"], both["b"])]
            context = []
            continue
        lead = "，".join(context)
        parts += [f"{lead}，{x}" if lead else x for x in _compared_zh(clause) or _asks_apart(clause) or _items(clause)]
        context = []
    if context and parts:
        parts[-1] = f"{parts[-1]}，{'，'.join(context)}"
    return parts if len(parts) >= 2 else [q]


# "How much did the index rise in July 2025 and over the last 12 months?": one measure over two periods, the
# preposition said again before the second; "spend on A and on B in the quarter": two items, the period said once
# (a comma before a digit, "December 31, 2022", is part of a span)
_TWO_SPANS = re.compile(r"^(?P<head>.+)\s+(?P<p1>in|for|during|over|at|on)\s+(?P<a>[^,;?]+?)\s+and\s+"
                        r"(?P<p2>in|for|during|over|at|on)\s+(?P<b>(?:[^,;?]|,\s*\d)+?)\??$", re.IGNORECASE)
# "the rates of goods and of services": "of" said again
_TWO_OFS = re.compile(r"^(?P<head>.+)\s+(?P<p1>of)\s+(?P<a>[^,;?]+?)\s+and\s+(?P<p2>of)\s+"
                      r"(?P<b>(?:[^,;?]|,\s*\d)+?)\??$", re.IGNORECASE)
_PERIOD_TAIL = re.compile(r"\s+(?:in|for|during|as of)\s+(?:the\s+)?(?:(?:fiscal\s+)?(?:quarter|year|month|"
                          r"period|first|second|third|fourth|full)|(?:Q[1-4]|FY|fiscal)\s*'?\d|(?:19|20)\d\d|"
                          r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:19|20)\d\d)"
                          r"(?:[^,;?]|,\s*\d)*$", re.IGNORECASE)


def _two_spans(q: str) -> list[str]:
    m = _TWO_SPANS.match(q) or _TWO_OFS.match(q)
    if m is None or not _ASKS.search(m.group("head")) or _WH.search(m.group("b")):   # "and at what price"
        return [q]
    # the period said once after the second item is the first's too ("spend on A and on B in the quarter", "rates of
    # goods and of services in May 2023")
    tail = _PERIOD_TAIL.search(m.group("b")) if m.group("p1").lower() in ("on", "of") else None
    first = f"{m.group('head')} {m.group('p1')} {m.group('a')}{tail.group(0) if tail else ''}"
    return [first, f"{m.group('head')} {m.group('p2')} {m.group('b')}"]


# "What were RIL's revenue and net profit for 2021-22?": short items of one list after "what was/were", each
# asked with the owner and the period said once; fixed pairs ("cash and cash equivalents") are one item
_ITEMS_EN = re.compile(r"^(?P<head>(?:[^?]*?,\s+)?(?:what|how much|how many)\s+(?:was|were|is|are)\s+)(?P<list>[^?]+?)"
                       r"(?P<tail>\s+(?:in|for|during|as of|at|on|over|according to|under|from)\s+[^?]+)?\??$",
                       re.IGNORECASE)
_ITEM_SEP = re.compile(r",\s*and\s+|,\s+|\s+and\s+|\s+&\s+", re.IGNORECASE)
_PAIRS = re.compile(r"\b(?:cash and cash equivalents|research and development|property and equipment|sales and "
                    r"marketing|general and administrative|selling,? general and administrative|profit and loss|"
                    r"mergers and acquisitions|gains? and losses|plant and equipment|goods and services|compute & "
                    r"networking|between\b.+\band)\b", re.IGNORECASE)
_OWNER = re.compile(r"^(?:the\s+)?(?:(?:[A-Z][\w.&-]*|&)\s+){0,3}[A-Z][\w.&-]*['’]s\s+")
# "Johnson & Johnson", "Procter & Gamble": an ampersand between capitalised words joins a name (rule 242)
_NAME_AMP = re.compile(r"\b([A-Z][\w.]*)\s+&\s+(?=[A-Z])")


# "the year-over-year changes in A and B", "the growth of A and B": the measure said once before the items is each
# item's (rule 143 ``shared_measure``); a sum, ratio or difference of them is one figure
_MEASURE_OF = re.compile(r"^(?P<measure>(?:[\w’'-]+\s+){0,5}?[\w’'-]+\s+(?:of|in)\s+)(?P<item>.+)$", re.IGNORECASE)
_ONE_FIGURE = re.compile(r"\b(?:sum|total|ratio|difference|spread|gap|combined|aggregate|product|average|mix|split|"
                         r"correlation|between)\b", re.IGNORECASE)


def _list_and_tail(q: str) -> tuple[str, str, str] | None:
    """``(head, list, tail)`` of "what was/were LIST[ in PERIOD]?": the period is the last "in / for ..." naming one
    ("in the first quarter of fiscal 2027", not "in NVIDIA's Graphics segment revenue")."""
    m = _ITEMS_EN.match(q.strip())
    if m is None:
        return None
    rest = q.strip().rstrip("?")[m.end("head"):]
    period = _PERIOD_TAIL.search(rest)
    if period is not None and _ITEM_SEP.search(rest[:period.start()]) and not _WH.search(rest[:period.start()]):
        return m.group("head"), rest[:period.start()], period.group(0)
    return m.group("head"), m.group("list"), m.group("tail") or ""


def _items_en(q: str) -> list[str]:
    split = _list_and_tail(q)
    if split is None or _PAIRS.search(split[1]):
        return [q]
    head, listed, tail = split
    listed = _NAME_AMP.sub(lambda m: f"{m.group(1)}\0", listed)
    items = [x.strip().replace("\0", " & ") for x in _ITEM_SEP.split(listed) if x.strip()]
    measure = _MEASURE_OF.match(items[0]) if len(items) >= 2 else None
    if measure and _ONE_FIGURE.search(measure.group("measure")):
        return [q]   # "the ratio of debt and equity": one figure
    shared = ""
    if measure and not any(_MEASURE_OF.match(x) for x in items[1:]):
        shared, items[0] = measure.group("measure"), measure.group("item")
    if len(items) < 2 or any(len(x.split()) > 5 or _WH.search(x) for x in items):
        return [q]
    owner = _OWNER.match(items[0])
    lead = owner.group(0) if owner else ""
    return [f"{head}{shared}{x if i == 0 or x.startswith(lead) else lead + x}{tail}".strip()
            for i, x in enumerate(items)]


# "How does A compare with B (, and with C)?": the figures compared, each asked for (rule 103)
_COMPARE = re.compile(r"^(?P<pre>.*?)\bhow\s+(?:did|does|do|has|have|would|will)\s+(?P<a>.+?)\s+compare[ds]?\s+"
                      r"(?:with|to|against)\s+(?P<b>[^,?]+?)(?P<more>(?:,?\s+and\s+with\s+[^,?]+)*)"
                      r"(?P<rest>,?\s+and\s+(?:what|how|which|when|where|who|why)\b[^?]*)?\??$", re.IGNORECASE)


# "Which is larger for RIL: its exports or its market capitalisation (, and by how much)?": each option asked for
_WHICH_OF = re.compile(r"^(?P<pre>.*?)\bwhich\s+(?:is|was|are|were)\s+(?:the\s+)?(?:larger|bigger|higher|greater|"
                       r"smaller|lower)\b(?P<mid>[^:,?]*)[:,]\s*(?P<a>[^,?]+?)\s+or\s+(?P<b>[^,?]+?)"
                       r"(?:,?\s+and\s+(?:by\s+)?how\s+much[^?]*)?\??$", re.IGNORECASE)   # the gap: rule 140


def compares(question: str) -> bool:
    """The question asks how one thing compares with another (:func:`_compared` splits it)."""
    return not _CJK.search(question) and len(_compared(question)) > 1


def _compared(q: str) -> list[str]:
    """One part per thing compared ("what was A", "what was B"; "which is larger: A or B" too), then the question's
    other parts; ``[q]`` when it compares nothing or a thing named only by a pronoun ("how did it compare")."""
    m = _COMPARE.match(q.strip()) or _WHICH_OF.match(q.strip())
    if m is None:
        return [q]
    more = m.groupdict().get("more") or ""
    things = [m.group("a"), m.group("b"), *(x for x in re.split(r",?\s+and\s+with\s+", more) if x)]
    if any(_PRONOUN.fullmatch(t.split()[0]) or len(t.split()) < 2 for t in things):
        return [q]
    pre, mid = m.group("pre"), (m.groupdict().get("mid") or "").rstrip()   # "which is larger for RIL: A or B"
    parts = [f"{pre}what was {t.strip()}{mid}" for t in things]
    rest = (m.groupdict().get("rest") or "").strip()
    return parts + ([re.sub(r"^,?\s*and\s+", "", rest)] if rest else [])


# "by how much did A and the B rise over ...": two subjects of one verb that follows them (rule 128)
_VERBS = (r"rise|fall|increase|decrease|grow|change|decline|climb|drop|gain|lose|move|contribute|account|total|reach|"
          r"exceed|earn|report|pay|spend|repurchase|return|record|show|generate|cost|represent|make|post|achieve")
_SHARED_VERB = re.compile(rf"^(?P<head>.*?\b(?:how much|how many|how|what|which|when)\b[^,?]*?\s"
                          rf"(?:did|does|do|has|have|will|would)\s+)(?P<a>\S.+?)\s+and\s+(?P<b>(?:the|its|their)\s+.+?)"
                          rf"\s+(?P<tail>(?:{_VERBS})(?:s|d|ed|n)?\b.*)$", re.IGNORECASE)


def _shared_verb(q: str) -> list[str]:
    """``shared_verb`` (rule 128): "by how much did the all items CPI-U and the all items less food and energy index
    rise over the 12 months" asks the verb of each subject: one part per subject, each with the verb and what
    follows it (split at "and the", the first part had no verb and was answered by the release's contact line)."""
    m = _SHARED_VERB.match(q.strip())
    if m is None or _WH.search(m.group("a")) or _WH.search(m.group("b")):
        return [q]
    tail = m.group("tail").rstrip()
    return [f"{m.group('head')}{m.group('a')} {tail}", f"{m.group('head')}{m.group('b')} {tail}"]


def _refers_back(piece: str) -> bool:
    words = piece.split()
    return bool(_REFERS_BACK.search(piece)) or len(words) < 4 or (len(words) <= 5 and bool(_PRONOUN.search(piece)))


def parts_of(question: str) -> list[str]:
    """The sub-questions of a question that asks for two or more facts (one part when it asks for one).
    A comparison ("A与B相差多少", "between 2019 and 2021") and a part that refers back ("and how did it
    compare") stay one question."""
    q = question.strip()
    if _CJK.search(q):
        return _parts_zh(q)
    compared = _compared(q)
    if len(compared) > 1:
        return compared
    shared = _shared_verb(q)
    if len(shared) > 1:
        return shared
    pieces = joined_pieces([p.strip(" ,?") for p in _SPLIT_EN.split(q) if p.strip(" ,?")])
    if len(pieces) < 2 or not _ASKS.search(pieces[0]):
        spans = _two_spans(q)
        return spans if len(spans) > 1 else _items_en(q)
    if any(_refers_back(p) for p in pieces[1:]):
        # "what were the rates of goods and of services in May, and how did they compare with April?": the two spans
        # of the first question (what refers back to both is read in the whole question)
        spans = _two_spans(pieces[0])
        if len(spans) > 1:
            return spans
        spans = _two_spans(q)
        return spans if len(spans) > 1 else _items_en(q)
    return pieces
