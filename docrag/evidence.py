"""Gold evidence and the small vocabularies every layer shares (citation levels, modes, contexts).

:class:`GoldEvidence` is the one gold-evidence type: a gold page (``box`` None) or a gold box on a
page, in that page's ``Space.POINT``. Question sets (``docrag.eval.data``), the oracle citation
judge (``docrag.citation.oracle``), the run records (``docrag.eval.records``) and the viewer all
use it. Its JSON form is ``{"page_id", "bbox", "space", "extent"}`` (plus ``annotator`` when set;
just ``{"page_id"}`` for a whole page), the form ``generations.jsonl`` has always held.

The enums are ``str``-valued, so ``Level.PAGE == "page"`` and JSON and CLI values stay plain strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from docrag.errors import InputError
from docrag.geometry import Box, GeometryError


class Level(str, Enum):
    """Citation level: a unit is a cited page, or a cited box."""

    PAGE = "page"
    BLOCK = "block"


class Mode(str, Enum):
    """How a set of units is shown to the judge."""

    PAGE = "page"    # whole page images (page level)
    CROP = "crop"    # crops of the cited boxes (block level, image-cropping)
    BOX = "box"      # full pages with red rectangles (block level, box-bounding)


class Context(str, Enum):
    """Pages the generator sees in an evaluation run."""

    RETRIEVED = "retrieved"   # the retriever's top k
    ORACLE = "oracle"         # the gold pages
    NONE = "none"             # the question only


#: every level / context, in order (the values as plain strings: CLI choices, help texts)
LEVELS: tuple[str, ...] = tuple(lv.value for lv in Level)
CONTEXTS: tuple[str, ...] = tuple(c.value for c in Context)
#: block-level modes (page level always shows whole pages)
BLOCK_MODES: tuple[str, ...] = (Mode.CROP.value, Mode.BOX.value)


def parse_enum(enum: type[Enum], value: Any, what: str) -> Any:
    """``enum(value)``, or an :class:`InputError` naming ``what`` and the valid values."""
    try:
        return enum(value)
    except ValueError:
        valid = ", ".join(str(m.value) for m in enum)  # type: ignore[attr-defined]
        raise InputError(f"{what} must be one of {valid}, got {value!r}") from None


@dataclass(frozen=True)
class GoldEvidence:
    """One piece of gold evidence: a page (``box`` None) or a box on it (page POINT space)."""

    page_id: str
    box: Box | None = None
    annotator: str = ""   # who drew it, when a data set has several annotators (ViDoRe V3)

    def to_json(self) -> dict:
        out: dict[str, Any] = {"page_id": self.page_id}
        if self.box is not None:
            out.update(self.box.to_dict())
        if self.annotator:
            out["annotator"] = self.annotator
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any], where: str = "gold evidence") -> GoldEvidence:
        """Read :meth:`to_json`'s form; a bad record raises :class:`InputError` naming ``where``."""
        if not isinstance(d, Mapping):
            raise InputError(f"{where}: expected an object with 'page_id', got {d!r}")
        if not isinstance(d.get("page_id"), str) or not d["page_id"]:
            raise InputError(f"{where}: field 'page_id' missing or not a page id: {dict(d)!r}")
        box = None
        if any(k in d for k in ("bbox", "space", "extent")):
            try:
                box = Box.from_dict(dict(d))
            except GeometryError as exc:
                raise InputError(f"{where}: field 'bbox'/'space'/'extent': {exc}") from None
        return cls(d["page_id"], box, str(d.get("annotator") or ""))
