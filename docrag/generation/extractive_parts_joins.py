"""Pieces of an English question cut at ", and what ..." that still ask one thing with the piece before them (rules
165 ``between_pair``, 222 ``joined_objects``, 294 ``dangling_wh``); used by :func:`extractive_parts.parts_of`."""

from __future__ import annotations

import re

_WH = re.compile(r"\b(?:what|which|how|when|where|who|whose|why)\b", re.IGNORECASE)
# rule 165: "the difference between A and its B" is one figure
_BETWEEN_OPEN = re.compile(r"\bbetween\b(?![^,;?]*\band\b)[^,;?]*$", re.IGNORECASE)
# rule 222: "rates for the euro area and the United States are cited": two objects of one preposition, the verb after
# the second
_OBJECT_END = re.compile(r"\b(?:for|in|of|on|at|from|among)\s+(?:the\s+)?[A-Za-z][\w'’-]*(?:\s+[A-Za-z][\w'’-]*){0,3}$",
                         re.IGNORECASE)
_VERB_AFTER = re.compile(r"^(?:the|its|their)\s+(?:[A-Za-z][\w'’-]*\s+){1,4}(?:are|is|was|were)\s", re.IGNORECASE)
# rule 294: "which member dissented and for what"
_DANGLING = re.compile(r"^(?:in|at|on|for|from|to|by|with|of|during|under)\s+(?:what|which|whom|whose|how)$",
                       re.IGNORECASE)


def _joins(before: str, piece: str) -> bool:
    """``piece`` asks nothing apart from ``before``: ``before`` ends in a "between" not yet closed by its "and"
    (``between_pair``); ``before`` ends in a preposition's object and ``piece`` starts with its subject's noun and a
    verb, asking nothing of its own (``joined_objects``, rule 220 answers each object); ``piece`` is a preposition
    and a question word alone, asking more of ``before`` (``dangling_wh``)."""
    return bool(_BETWEEN_OPEN.search(before)
                or _OBJECT_END.search(before) and _VERB_AFTER.match(piece) and not _WH.search(piece)
                or _DANGLING.match(piece))


def joined_pieces(pieces: list[str]) -> list[str]:
    """``pieces`` with each one that asks nothing apart joined to the one before it by "and"."""
    out: list[str] = []
    for piece in pieces:
        if out and _joins(out[-1], piece):
            out[-1] = f"{out[-1]} and {piece}"
        else:
            out.append(piece)
    return out
