"""Which documents a question names: "四方科技2019年年度报告中，…", "In Twilio's Q4 2023 earnings presentation, …".

FinRAGBench-V's questions (and analysts') say which report to read, by the company's or the publisher's name.
That name is printed on the cover and in running headers, seldom beside the figure asked for, so a page of
another company's report that matches the rest of the question better used to win (8 of the 316 seen dev
questions had the wrong document first, every one of them answered wrong). :class:`DocumentNames` reads each
document's *identity text* (file name, title, first two pages' text, first five pages' running headers) and
:meth:`DocumentNames.named` returns the documents the question's reference phrase names *distinctively*:

* the reference phrase is the one :func:`~docrag.generation.extractive_score.document_reference` finds (a
  leading "…年度报告中，" / "In …'s report,", a trailing "… according to the BLS release", or a possessive
  owner "NVIDIA's"); an English question without one names the documents whose *file name or title* holds
  one of its capitalised names ("... did Apple return to shareholders?"), a Chinese one the document whose
  identity text alone holds its first four characters ("海翔药业2019年…"; a longer start, tried before, named a
  publisher's other report on 7 of 7 kept questions it scoped), else none;
* its candidate names are the CJK substrings of 2-10 characters, the capitalised words of three or more letters
  (glued to Chinese too: "ICU均线") and adjacent capitalised pairs written together ("Stats SA" = ``statssa``); a
  Chinese one names a document only where its neighbours agree with the question's ("泰证券" of "中泰证券" is not
  华泰证券's, rule 232);
* a candidate is distinctive when the identity texts of at least one and at most ``max(2, n / 10)`` documents
  hold it ("年度报告" in every annual report is not); the documents holding the most distinctive candidates
  (held by the fewest documents) are named: "航天电器" (one report) outweighs "年度报告" (four), and "Microsoft
  and Alphabet" names both.

A number the question gives a document by ("Minutes number 104", "meeting No. 5/2021") names the documents printing
it so on their first pages or in their file name ("minutes 104"), where the names alone fit a publisher's every
issue (rule 214, ``numbered_document``). A company named by two capitalised words joined by "&" ("Johnson & Johnson") or
their initials ("J&J") names the one or two documents printing the name whole (rule 244, ``ampersand_name``).

An English question whose reference phrase names no document ("In its August 24, 2023 release, to what range did Ulta
Beauty update ...") is read as one without a reference (rule 255, ``unnamed_reference``).

The pipeline then searches those documents only (``scope = "named"``, the default; ``"off"`` searches all).
Measured on the seen dev split: 188 questions named a document, every time the right one; 128 named none (2026-11-26).
With share l's two new notes and prospectus (563 seen questions, 82 documents): the right document alone for 446,
among others for 69, none for 47, a wrong one for 1 (415 / 77 / 57 / 14 before rules 230-233).
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Iterable
from itertools import pairwise

from docrag.generation.extractive_score import document_reference
from docrag.types import Document, Page
from docrag.words import YEAR_ALONE, file_name_words, folded, simplified

log = logging.getLogger(__name__)

IDENTITY_PAGES = 2          # the first pages whose whole text names the document (cover, first header)
FURNITURE_PAGES = 5         # running headers repeat: the first pages' furniture holds them
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
# on folded text ("México" is "Mexico"); a name glued to Chinese counts ("ICU均线", "C-VIX编制手册": rule 231)
_CAPITALISED = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z&]+(?![A-Za-z0-9&])")
_LATIN_WORD = re.compile(r"[a-z0-9&]+")
_NAME_RUN = re.compile(r"[A-Z][A-Za-z&]+(?: [A-Z][A-Za-z&]+)+")   # a name of several capitalised words
# "minutes number 104", "meeting no. 5/2021": the document's word and its number
_NUMBERED = re.compile(r"([a-z]{3,})\s+(?:no\.?|number|#)\s*(\d{1,4}(?:/\d{2,4})?)(?![\d/])")
_AMPERSAND = re.compile(r"(?<![A-Za-z])([A-Z][a-z]*)\s*&\s*([A-Z][a-z]*)(?![A-Za-z&])")   # rule 244
# initials every filing uses ("R&D" is Pfizer's "research & development", no company's name): rule 291 ``initialism``
_INITIALISMS = frozenset({"r&d", "m&a", "p&l", "s&p", "a&d", "g&a", "q&a", "e&p", "p&c", "o&m", "d&a", "b&r"})
_LEADING_ZH = re.compile(r"^(?:根据|在|据)?([\u4e00-\u9fff]{4})")
_NOT_NAMES = {"in", "on", "what", "how", "the", "which", "according", "using", "from", "by", "for", "did", "does",
              "was", "were", "is", "are", "among", "as", "at", "if", "per", "under", "its", "an", "and", "of"}


def title_text(doc: Document) -> str:
    """A document's own name: its file name's words and its title, in Simplified script and lower case."""
    return folded(simplified(" ".join(x for x in (file_name_words(doc.file_name), doc.title) if x))).lower()


def identity_text(doc: Document, pages: Iterable[Page]) -> str:
    """What names a document: its file name's words and title (:func:`title_text`), the text of its first pages
    and the furniture (running headers and footers) of its first five, in Simplified script and lower case."""
    parts = [title_text(doc)]
    for p in pages:
        if p.page_no <= IDENTITY_PAGES:
            parts.append(p.text)
        if p.page_no <= FURNITURE_PAGES:
            parts += [b.text for b in p.blocks if b.meta.get("furniture")]
    return folded(simplified(" ".join(x for x in parts if x))).lower()


def candidate_names(reference: str) -> set[str]:
    """The names a reference phrase may hold (lower case, Simplified script)."""
    out: set[str] = set()
    reference = folded(reference)
    for run in _CJK_RUN.findall(simplified(reference)):
        for i in range(len(run)):
            out.update(run[i:j] for j in range(i + 2, min(len(run), i + 10) + 1))
    words = [w for w in _CAPITALISED.findall(reference) if w.lower() not in _NOT_NAMES]
    out.update((a + b).lower() for a, b in pairwise(words))
    out.update(w.lower() for w in words if len(w) >= 3)
    return out


def _name_runs(question: str, reference: str) -> list[list[str]]:
    """The names of several capitalised words the question writes within its reference ("American Express's", "the
    BLS July 2025 CPI release"), each as its words of three letters or more (lower case). A name running past the
    reference ("Alphabet Class A" of a reference "Alphabet") is not one."""
    ref = folded(reference).lower()
    out = []
    for run in _NAME_RUN.findall(folded(question)):
        words = [w.lower() for w in run.split() if len(w) >= 3 and w.lower() not in _NOT_NAMES]
        if len(words) > 1 and run.lower() in ref:
            out.append(words)
    return out


def _agree(before: str, after: str, text: str, name: str) -> bool:
    """Whether ``text`` prints ``name`` somewhere with neighbours that are ``before`` / ``after`` or not Chinese."""
    def fits(mine: str, theirs: str) -> bool:
        return mine == theirs or not (mine and _CJK_RUN.match(mine)) or not (theirs and _CJK_RUN.match(theirs))
    i = text.find(name)
    while i >= 0:
        if fits(before, text[i - 1:i] if i else "") and fits(after, text[i + len(name):i + len(name) + 1]):
            return True
        i = text.find(name, i + 1)
    return False


class DocumentNames:
    """The identity texts of a corpus's documents, with a posting list per CJK character pair and Latin word."""

    def __init__(self, texts: dict[str, str], titles: dict[str, str] | None = None) -> None:
        self.texts = texts
        self.titles = titles or {}   # file name and title (:func:`title_text`): names said anywhere in a question
        self._postings: dict[str, set[str]] = defaultdict(set)
        for doc_id, text in texts.items():
            words = _LATIN_WORD.findall(text)
            keys = {*words, *(a + b for a, b in pairwise(words))}
            for run in _CJK_RUN.findall(text):
                keys.update(run[i:i + 2] for i in range(len(run) - 1))
            for key in keys:
                self._postings[key].add(doc_id)

    @classmethod
    def of_corpus(cls, corpus) -> DocumentNames:   # noqa: ANN001 -- a docrag.corpus.Corpus
        """Read from ``corpus`` (each document's first pages and furniture)."""
        docs = corpus.documents()
        names = cls({d.doc_id: identity_text(d, corpus.pages([d.doc_id])) for d in docs},
                    {d.doc_id: title_text(d) for d in docs})
        log.debug("document names read for %d documents", len(names.texts))
        return names

    def holding(self, name: str) -> set[str]:
        """The documents whose identity text holds ``name`` (a whole Latin word, or a CJK substring)."""
        if _CJK_RUN.fullmatch(name):
            pairs = [name[i:i + 2] for i in range(len(name) - 1)]
            docs = set.intersection(*(self._postings.get(p, set()) for p in pairs))
            return {d for d in docs if name in self.texts[d]}
        return set(self._postings.get(name, set()))

    def named(self, question: str) -> set[str]:
        """The documents ``question`` names distinctively (empty when it names none)."""
        _, reference = document_reference(simplified(question))   # "年度報告" ends a reference too
        if not self.texts:
            return set()
        most = max(2, len(self.texts) // 10)
        # each candidate's documents, ranked by how many documents hold the name at all: a name the neighbours rule
        # narrows ("择时" of eight notes, one printing "择时报告") is no rarer for it (rule 232)
        held: list[tuple[int, set[str]]] = []
        if reference:
            runs = _name_runs(question, reference)
            ref = folded(simplified(reference)).lower()
            for name in candidate_names(reference):
                if 1 <= len(whole := self._whole(name, runs)) <= most and (docs := self._agreeing(name, ref, whole)):
                    held.append((len(whole), docs))
        if not held and not (reference and _CJK_RUN.search(question)):   # rule 255 ``unnamed_reference``: "In its
            # August 24, 2023 release, ... did Ulta Beauty ...": a reference naming nothing leaves the whole question
            found = self._leading(question) if _CJK_RUN.search(question) else self._titled(question)
            held = [(len(docs), docs) for docs in found]
        joined = self._ampersand(question)
        if joined:
            held.append((len(joined), joined))
        numbered = self._numbered(question)
        if 1 <= len(numbered) <= most:
            held.append((len(numbered), numbered))
        held = [(n, kept) for n, docs in held if (kept := self._of_year(docs, reference))]
        if not held:
            return set()
        fewest = min(n for n, _ in held)
        named = set().union(*(docs for n, docs in held if n == fewest))
        if fewest > 1 and all(docs == named for n, docs in held if n == fewest):
            # ``more_names`` (rule 292): one name several documents hold ("凸显理论" in 广发's note and 招商's) goes to
            # those that hold more of the reference's other names too ("广发证券"), counted once per set of holders
            sets = {frozenset(docs) for _, docs in held}
            count = {d: sum(d in docs for docs in sets) for d in named}
            named = {d for d in named if count[d] == max(count.values())}
        return named

    def _of_year(self, docs: set[str], reference: str) -> set[str]:
        """``other_year`` (rule 290): of ``docs``, those not titled with other years only than the year the reference
        names: "2024年北京市政府工作报告" is not 万科's 2014 report, whose page mentioning a 政府工作报告 made it the
        only holder of the name (the work report's extract prints no title)."""
        years = set(YEAR_ALONE.findall(reference))
        titled = {d: set(YEAR_ALONE.findall(self.titles.get(d, ""))) for d in docs}
        return {d for d in docs if not years or not titled[d] or titled[d] & years}

    def _ampersand(self, question: str) -> set[str]:
        """``ampersand_name`` (rule 244): a company named by two capitalised words joined by "&" ("Johnson & Johnson",
        "Procter & Gamble"), or by their initials ("J&J's"), names the one or two documents whose identity text prints
        the name whole, with a reference phrase or without ("Which Johnson & Johnson segment ..."): the words alone
        ("Johnson") are too common to name a report, the initials are seldom printed."""
        out: set[str] = set()
        for a, b in _AMPERSAND.findall(folded(question)):
            if f"{a}&{b}".lower() in _INITIALISMS:
                continue
            if len(a) == len(b) == 1:
                printed = re.compile(rf"\b{a.lower()}[a-z]{{2,}}\s*&\s*{b.lower()}[a-z]{{2,}}\b")
            elif len(a) >= 3 and len(b) >= 3:
                printed = re.compile(rf"\b{re.escape(a.lower())}\s*&\s*{re.escape(b.lower())}\b")
            else:
                continue
            docs = {d for d, text in self.texts.items() if printed.search(text)}
            if len(docs) <= 2:
                out |= docs
        return out

    def _numbered(self, question: str) -> set[str]:
        """``numbered_document`` (rule 214): the documents whose identity text prints the number the question gives a
        document by ("Minutes number 104", "meeting No. 5/2021"): a corpus holding Banco de México's minutes No. 94,
        104 and 105 is told apart by it, where "Banco", "Mexico" and "Minutes" name all three."""
        out: set[str] = set()
        for word, num in _NUMBERED.findall(folded(question).lower()):
            printed = re.compile(rf"(?:\bno\.?|\bnumber|#)\s*\(?{re.escape(num)}(?![\d/])")
            titled = re.compile(rf"\b{re.escape(word)}\s+{re.escape(num)}(?![\d/])")   # a file name's "minutes 104"
            held = self._postings.get(num.split("/")[0], set())   # the documents printing the number at all
            out |= {d for d in held if printed.search(self.texts[d]) or titled.search(self.titles.get(d, ""))}
        return out

    def _agreeing(self, name: str, reference: str, docs: set[str]) -> set[str]:
        """``agreeing_neighbours`` (rule 232): of ``docs``, those printing the Chinese ``name`` where no other
        Chinese character stands beside it than the reference's: "泰证券" of "中泰证券" is not the "泰证券" of
        "华泰证券", "线择" of "均线择时" not that of "鳄鱼线择时" (a Latin letter, a digit or the edge of the text
        agrees with anything)."""
        if not _CJK_RUN.fullmatch(name):
            return docs
        sides = [(reference[i - 1:i], reference[i + len(name):i + len(name) + 1])
                 for i in range(len(reference)) if reference.startswith(name, i)]
        return {d for d in docs if any(_agree(before, after, self.texts[d], name) for before, after in sides)}

    def _whole(self, name: str, runs: list[list[str]]) -> set[str]:
        """``whole_name``: the documents holding ``name`` and, when it is a word of one of ``runs`` (names of several
        capitalised words the question writes within its reference: :func:`_name_runs`), every word of that name
        or the name written together: Kroger's release printing "Express" names no "American Express" report."""
        docs = self.holding(name)
        for words in runs:
            if name in words:
                together, each = self.holding("".join(words)), [self.holding(w) for w in words]
                docs = {d for d in docs if d in together or all(d in held for held in each)}
        return docs

    def _leading(self, question: str) -> list[set[str]]:
        """``leading_name``: a Chinese question with no reference phrase opens with its subject, a company's short
        name ("海翔药业2019年第四季度…", "航天电器2019年…"): its first four characters name the one document whose
        identity text holds them; none when two do ("浙商证券" of two broker notes; a longer start, tried before,
        named the wrong one of them on every kept question it scoped). When no document prints the four (a prospectus
        extract that says "公司", never "三协电机"), the first three, then two, are tried the same way (rule 233
        ``leading_short``)."""
        head = _LEADING_ZH.match(simplified(question))
        for size in (4, 3, 2) if head else ():
            docs = self.holding(head.group(1)[:size])
            if docs:
                return [docs] if len(docs) == 1 else []
        return []

    def _titled(self, question: str) -> list[set[str]]:
        """An English question with no reference phrase ("What share of its net income did Apple return ...?"):
        the document whose *file name or title* holds a capitalised name of the question (not its first word),
        the only one that does. A name only somewhere in a document's first pages ("Settlement", "Spearman"),
        and a word several titles hold ("Data" in three), name nothing here: said in passing, no report's name.
        Nor does a title's word ("Board" of ``rba_board_minutes``) when another document's identity text holds more
        of the question's names ("Banco", "Mexico", "Governing", "Board", "Minutes" of Banco de México's minutes)."""
        if " " not in question.strip():
            return []
        holders = {name: self.holding(name) for name in candidate_names(question.strip().split(" ", 1)[1])}
        out = []
        for name, held in holders.items():
            docs = {d for d in held if re.search(rf"\b{re.escape(name)}\b", self.titles.get(d, ""))}
            if len(docs) == 1:
                out.append(docs)
        count: dict[str, int] = defaultdict(int)
        for held in holders.values():
            for doc in held:
                count[doc] += 1
        titled = set().union(*out)
        return out if titled and max(count[d] for d in titled) >= max(count.values()) else []
