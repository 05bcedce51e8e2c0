"""Row labels printed once for a group of rows (``spanned_labels``, rule 198 of ``docs/extractive-rules.md``).

Broker notes print grouped tables: a factor's name set once, centred beside its rows, the rows named again in a
second label column ("ILLIQ_20D" beside "group1 / group2 / group3"). Read line by line, only the middle row
carries the name and a wrapped name ("RealizedSkewness" / "_240D", "强势" / "因子") becomes lines of its own: the
other rows lose what names them. :func:`spanned_labels` finds each group's name for every line of the group; the
ingested table rows (:func:`relabelled`) and the generator's table reader both give it to them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from docrag.geometry import Box, union

_NUMERIC = re.compile(r"\d")
_FIGURE = re.compile(r"^[-+(−–]?[\d,.]+%?\)?$")
WRAPPED_LINE_PITCH = 2.2   # a wrapped label's next line lies within this many line heights


class _Cell(Protocol):
    text: str
    box: Box | None


@dataclass
class TextCell:
    """A cell of an ingested text row: its words' text and box."""

    text: str
    box: Box


@dataclass
class Spans:
    """The lines of a table (by index) and what they take: ``labels``, the group label (``(text, box)``);
    ``headers``, an empty first cell (the header line has nothing over the labels); ``fragments``: none, they are a
    wrapped label's own lines."""

    labels: dict[int, tuple[str, Box]] = field(default_factory=dict)
    headers: set[int] = field(default_factory=set)
    fragments: set[int] = field(default_factory=set)


_Line = list[tuple[str, Box]]


def _cy(line: _Line) -> float:
    return sum((b.y0 + b.y1) / 2 for _, b in line) / len(line)


def _label_like(text: str, box: Box) -> bool:
    """A name set level: no figure ("2014" of a margin note run into the rows), not a glyph of text set upright."""
    return not _FIGURE.match(text) and box.width >= 0.8 * box.height


def _joined(parts: Sequence[str]) -> str:
    out = ""
    for p in parts:
        cjk = bool(out) and ord(out[-1]) > 0x2E80 and ord(p[0]) > 0x2E80
        glued = not out or out.endswith(("_", "-")) or p.startswith("_") or cjk
        out += p if glued else f" {p}"
    return out


def spanned_labels(cells: Sequence[Sequence[_Cell]]) -> Spans | None:
    """The group labels of a table's lines (``cells`` left to right, each with its box), or None when the table
    has no such groups: two labels or more set left of lines that start one column in, each label on a line of
    its own group or alone on its lines (a table whose every label stands alone gives all its lines one)."""
    lines: list[_Line] = [[(c.text, c.box) for c in line if c.box is not None] for line in cells]
    if any(not line or len(line) != len(c) for line, c in zip(lines, cells, strict=True)):
        return None
    n = max((len(line) for line in lines), default=0)
    if n < 3:
        return None
    full = [i for i, line in enumerate(lines) if len(line) == n]
    label_x1 = max(lines[i][0][1].x1 for i in full)
    second = (min(lines[i][1][1].x0 for i in full), max(lines[i][1][1].x1 for i in full))
    if second[0] > label_x1:
        spans = _labelled(lines, full, second[0], lambda line: len(line) == n - 1 and
                          label_x1 - 1.0 <= line[0][1].x0 < second[1])
        if spans is not None:
            return spans
    first_x0 = min(line[0][1].x0 for line in lines if len(line) > 1)   # every label alone on its lines
    return _labelled(lines, [], first_x0, lambda line: len(line) > 1)


def _labelled(lines: Sequence[_Line], full: Sequence[int], second_x0: float,
              starts_second: Callable[[_Line], bool]) -> Spans | None:
    """:func:`spanned_labels` given the lines that carry their label (``full``), where the lines that lack it start
    (``second_x0``) and which lines those are."""
    short = [i for i, line in enumerate(lines) if starts_second(line) and any(_NUMERIC.search(t) for t, _ in line)]

    def fragment(line: _Line) -> bool:   # a line of a wrapped label, alone in the label column
        return len(line) == 1 and line[0][1].x1 <= second_x0 and not _FIGURE.match(line[0][0])

    def own_line(i: int) -> bool:   # a label printed a little above its own row's figures ("年化收益" 4 pt higher)
        box = lines[i][0][1]
        return any(min(box.y1, b.y1) - max(box.y0, b.y0) >= 0.5 * box.height
                   for j in short for _, b in lines[j][:1])

    labels = [(_cy(lines[i]), *lines[i][0]) for i in full]
    alone = [i for i, line in enumerate(lines) if fragment(line)]
    if any(own_line(i) or not _label_like(*lines[i][0]) for i in alone) \
            or not all(_label_like(*lines[i][0]) for i in full):
        return None
    # a wrapped label's lines, alone in the label column, make one label where they follow each other closely
    groups: list[list[int]] = []
    for i in alone:
        pitch = WRAPPED_LINE_PITCH * lines[i][0][1].height
        if groups and _cy(lines[i]) - _cy(lines[groups[-1][-1]]) <= pitch:
            groups[-1].append(i)
        else:
            groups.append([i])
    labels += [(sum(_cy(lines[i]) for i in g) / len(g), _joined([lines[i][0][0] for i in g]),
                union([lines[i][0][1] for i in g])) for g in groups]
    if len(labels) < 2 or len(short) < len(labels) or (not full and len(groups) < 2):
        return None
    spans = Spans(fragments={i for g in groups for i in g})
    for i in short:
        y = _cy(lines[i])
        _, text, box = min(labels, key=lambda lab: (abs(lab[0] - y), lab[0] > y))   # a tie: the label above
        spans.labels[i] = (text, box)
    named = [text for text, _ in spans.labels.values()]
    wrapped = [_joined([lines[i][0][0] for i in g]) for g in groups]
    if any(named.count(text) < 2 for text in wrapped) or sum(named.count(t) + (t not in wrapped) >= 2
                                                             for _, t, _ in labels) < 2:
        return None   # a label alone naming one row is that row's own, set apart; two groups at least
    spans.headers = {i for i, line in enumerate(lines) if starts_second(line) and i not in spans.labels}
    return spans


def relabelled(texts: Sequence[Sequence[str]], spans: Spans) -> list[list[str]]:
    """A table's cell texts with the group labels of ``spans`` put first, an empty cell first in the header line,
    and the wrapped labels' own lines left out."""
    out: list[list[str]] = []
    for i, line in enumerate(texts):
        if i in spans.fragments:
            continue
        head = [spans.labels[i][0]] if i in spans.labels else [""] if i in spans.headers else []
        out.append([*head, *line])
    return out
