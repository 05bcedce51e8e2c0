"""Text blocks cut into the sentences the ``extractive`` generator quotes (rules 142, 145 and 147,
``docs/extractive-rules.md``)."""

from __future__ import annotations

import re

# Chinese ends sentences with 。！？； (NFKC text has !?; for the last three) and no space after them
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s+|(?<=[。！？；])|(?<=[!?;])(?=[\u3400-\u9fff])")
# "!", "?" or "." closing a code token (":q!", "%d.") ends no sentence
_CODE_END = re.compile(r"(?:^|\s)[:%<\-/\\@$][^\s]*[.!?]$")
# nor does ";" before a clause opening with a conjunction ("...in April; and for services it was 4,7%", rule 142) or
# before a verbless item of a list of figures ("; Q2 at 3.8 per cent; Q3 at 4.6 per cent", rule 145)
_GOES_ON = re.compile(r"(?:and|but|while|whereas|or)\b"
                      r"|[\w:'’.-]+(?:\s[\w:'’.-]+)?\s+at\s+[-+−(]?\d(?!(?:\S*\s+){8})")
# nor does an abbreviation's "." before a word in lower case or a figure ("lower than the U.S. federal statutory
# rate", "approx. 5%", rule 147)
_ABBREVIATION = re.compile(r"(?:\b[A-Za-z]\.){2,}$|\b(?:Inc|Co|Corp|Ltd|Cos|No|Nos|vs|approx|est|incl|excl|Mr|Ms|"
                           r"Mrs|Dr|St|Fig|Figs|Vol|cf|al|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.$")
_GOES_ON_LOWER = re.compile(r"[a-z0-9(]")
# nor does a name's initial before the name ("由美国总统 R. 里根签署", "by Ronald W. Reagan"), or an abbreviation before
# Chinese text
_INITIAL = re.compile(r"(?:^|[\s(（])[A-Z]\.$")
_NAME_GOES_ON = re.compile(r"(?!(?:The|This|That|These|Those|Then|There|It|Its|In|We|Our|As|At|For|On|He|She|They|"
                           r"An?|But|And|If|When|While)\b)[A-Z][a-z]|[\u3400-\u9fff]")
_CJK_START = re.compile(r"[\u3400-\u9fff]")
# nor is a name alone a sentence: "Dissenting opinion on the monetary policy statement. Irene Espinosa." (the minutes
# sign a member's opinion so; rule 207 ``name_only``)
_NAME_ONLY = re.compile(r"(?!(?:The|This|That|These|Those|It|We|Our|See|Note)\b)[A-Z][a-zà-ÿ'’-]+"
                        r"(?:\s+[A-Z][a-zà-ÿ'’-]+){1,3}\.")


def split_sentences(text: str) -> list[str]:
    """``text`` (lines joined) cut into sentences."""
    flat = re.sub(r"\s*\n\s*", " ", text).strip()
    parts: list[str] = []
    for s in _SENTENCE_END.split(flat):
        s = s.strip()
        if not s:
            continue
        if parts and (_CODE_END.search(parts[-1]) or parts[-1].endswith(";") and _GOES_ON.match(s)
                      or _ABBREVIATION.search(parts[-1]) and _GOES_ON_LOWER.match(s)
                      or (_INITIAL.search(parts[-1]) or _ABBREVIATION.search(parts[-1]) and _CJK_START.match(s))
                      and _NAME_GOES_ON.match(s) or _NAME_ONLY.fullmatch(s)):
            parts[-1] = f"{parts[-1]} {s}"
        else:
            parts.append(s)
    return parts or ([flat] if flat else [])


MIN_QUOTE_CHARS = 120   # ``fit_quotes``: what a quote keeps at least when several share the answer's length


# a figure a quote states (a percentage, a decimal, a thousands-grouped amount), not a year
_FIGURE = re.compile(r"-?\d[\d,]*(?:\.\d+)?\s*(?:%|per\s?cent\b|percent\b)|\d[\d,]*\.\d+|\d{1,3}(?:,\d{3})+")


def _cut(text: str, limit: int) -> str:
    """``text`` in about ``limit`` characters: its start, or (rule 227 ``figure_window``) the stretch holding the most
    of its figures when the start would drop some ("...revised up ... to 2.16% while ... core CPI ... to 1.94%"); a
    quote of a chart's text is cut at its start (its figures are the drawing's, not stated)."""
    if len(text) <= limit:
        return text
    head = text[:limit].rsplit(" ", 1)[0]
    figures = [m.span() for m in _FIGURE.finditer(text)]
    if "[chart text:" in text or all(e <= len(head) for _, e in figures):
        return head + " ..."
    starts = [0, *(m.end() for m in re.finditer(r"\s+", text))]
    start = max(starts, key=lambda a: (sum(a <= b and e < a + limit - 8 for b, e in figures), -a))
    window = text[start:start + limit - 8].rsplit(" ", 1)[0] if start + limit - 8 < len(text) else text[start:]
    return f"{'... ' if start else ''}{window}{' ...' if start + len(window) < len(text) else ''}"


def fit_quotes(quotes: list[str], limit: int, sep: str) -> str:
    """``quotes`` joined by ``sep`` in at most about ``limit`` characters: when they run over, each long quote is cut
    to its share of the length (the short ones keep theirs whole and leave the rest to the others), so a second
    quote holding the figure asked is not cut off by a long first one (rule 45); one quote is cut at the limit."""
    text = sep.join(quotes)
    if len(text) <= limit or len(quotes) < 2:
        return _cut(text, limit)
    budget = limit - len(sep) * (len(quotes) - 1)
    by_length = sorted(range(len(quotes)), key=lambda i: len(quotes[i]))
    share: dict[int, int] = {}
    for n, i in enumerate(by_length):   # the shortest first: what they leave goes to the longer ones
        share[i] = max(MIN_QUOTE_CHARS, min(len(quotes[i]), budget // (len(quotes) - n)))
        budget -= share[i]
    return sep.join(_cut(q, share[i]) for i, q in enumerate(quotes))


_STATED = re.compile(r"(?<![\d.])-?\d+(?:\.\d+%?|%)")   # a figure with decimals or a percent sign, not "图 13"


def states_figures(text: str) -> bool:
    """Rule 275 ``stated_not_drawn``: ``text`` is prose stating two figures or more (with decimals or a percent sign),
    not a run of axis ticks ("2.60 2.40 2.20 … $/gal"): its clauses are punctuated and under a third of its pieces are
    figures."""
    pieces = re.findall(r"[\u4e00-\u9fff]|[^\s\u4e00-\u9fff]+", text)
    figures = _STATED.findall(text)
    return len(figures) >= 2 and 3 * len(figures) < len(pieces) and bool(re.search(r"[，。；、]|[,;]\s", text))
