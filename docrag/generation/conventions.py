"""Box conventions of vision-language model families, picked from the model's name.

Each family answers boxes in its own space; ``openai:<model>`` reads the model name (the part
after the last ``/``, case-insensitive) to choose one, unless a convention is given explicitly
(``--coords``, ``coords`` in ``[generation]`` or a per-model ``[models."<name or glob>"]`` table
of the config file). Conventions (the ``coords`` values):

* ``pixel``        -- pixels of the image as sent (GPT-4o, GPT-4.1, Claude).
* ``model_pixels`` -- pixels of the model's own smart-resized input (Qwen2.5-VL): both sides
  rounded to multiples of 28 within ``processor_min_pixels`` .. ``processor_max_pixels``
  (default 3,136 .. 12,845,056, the released checkpoints' processor settings), computed by
  :func:`docrag.geometry.smart_resize` when the backend does not report the size it used.
* ``norm1000``     -- ``[x1, y1, x2, y2]`` on a 0-1000 grid (Qwen2-VL, Qwen3-VL, InternVL).
* ``norm1000_yx``  -- ``[ymin, xmin, ymax, xmax]`` on a 0-1000 grid (Gemini).
* ``auto``         -- choose from the model name (the default of ``openai:``); unknown names get
  ``pixel``, with a warning in the answer.

The reply parser (:mod:`docrag.generation.parse`) reads ``pixel``, ``model_pixels`` and
``norm1000``; :func:`for_parser` rewrites ``norm1000_yx`` replies into ``norm1000`` (through
:func:`docrag.geometry.yxyx_to_xyxy`) before parsing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docrag.errors import InputError
from docrag.generation.registry import takes_option
from docrag.geometry import GeometryError, smart_resize, yxyx_to_xyxy

CONVENTIONS = ("auto", "pixel", "model_pixels", "norm1000", "norm1000_yx")
PARSER_CONVENTION = {"pixel": "pixel", "model_pixels": "model_pixels", "norm1000": "norm1000",
                     "norm1000_yx": "norm1000"}


@dataclass(frozen=True)
class Family:
    """A model family: a name pattern and the convention its boxes use."""

    label: str
    pattern: str
    coords: str
    note: str = ""


#: First match wins (Qwen2.5-VL before Qwen2-VL). Patterns match the lower-cased model name.
FAMILIES: tuple[Family, ...] = (
    Family("Qwen2.5-VL", r"qwen2[._-]?5[._ -]?vl", "model_pixels",
           "absolute pixels of the processor's smart-resized image"),
    Family("Qwen3-VL", r"qwen3[._ -]?vl", "norm1000", "0-1000 grid"),
    Family("Qwen2-VL", r"qwen2[._ -]?vl", "norm1000", "0-1000 grid"),
    Family("InternVL", r"intern[._ -]?vl", "norm1000", "0-1000 grid"),
    Family("Gemini", r"gemini", "norm1000_yx", "[ymin, xmin, ymax, xmax] on a 0-1000 grid"),
    Family("GPT-4o / GPT-4.1", r"gpt-?4(?:o|\.1)", "pixel", "pixels of the image sent"),
    Family("Claude", r"claude", "pixel", "pixels of the image sent"),
)


def model_family(model: str) -> Family | None:
    """The family of a model name (``Qwen/Qwen2.5-VL-7B-Instruct`` -> Qwen2.5-VL), or None."""
    base = model.strip().rsplit("/", 1)[-1].lower()
    for fam in FAMILIES:
        if re.search(fam.pattern, base):
            return fam
    return None


def check_convention(coords: str, where: str = "coords") -> str:
    """``coords`` if it is a known convention, else a clear error naming the valid ones."""
    value = str(coords).strip().lower()
    if value not in CONVENTIONS:
        raise InputError(f"{where} = {coords!r} is not a box convention; use one of {', '.join(CONVENTIONS)}")
    return value


def resolve(coords: str | None, model: str) -> tuple[str, str]:
    """``(convention, how it was chosen)`` for ``model``; ``coords`` None or ``auto`` reads the name."""
    if coords is not None and check_convention(coords) != "auto":
        return check_convention(coords), "explicit"
    fam = model_family(model)
    if fam is None:
        return "pixel", f"unknown model family {model!r}: assumed pixels of the image sent (set --coords)"
    return fam.coords, f"model name: {fam.label}"


def model_input_size(sent_size: tuple[int, int], min_pixels: int | None = None,
                     max_pixels: int | None = None) -> tuple[int, int]:
    """The ``(width, height)`` a Qwen2.5-VL processor turns an image of ``sent_size`` into."""
    kwargs = {k: int(v) for k, v in (("min_pixels", min_pixels), ("max_pixels", max_pixels)) if v is not None}
    return smart_resize(int(sent_size[0]), int(sent_size[1]), **kwargs)


def coords_options(coords: str | None, generator: str) -> dict[str, Any]:
    """Generator options for a ``--coords`` flag: ``{"coords": ...}`` for generators whose registry
    entry takes ``coords`` (``openai:``, ``qwen-vl:``), ``{}`` when no flag was given or the generator
    reads no boxes."""
    if coords is None:
        return {}
    value = check_convention(coords, "--coords")
    return {"coords": value} if takes_option(generator, "coords") else {}


# -- rewriting yx replies -----------------------------------------------------------------------

_NUM = r"\s*(-?\d+(?:\.\d+)?)\s*"
_FOUR = re.compile(r"\[" + ",".join([_NUM] * 4) + r"\]|^" + ",".join([_NUM] * 4) + r"$")


def _is_num(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return True
    if isinstance(v, str):
        try:
            float(v)
        except ValueError:
            return False
        return True
    return False


def _swap_string(text: str) -> str:
    def repl(m: re.Match) -> str:
        nums = [g for g in m.groups() if g is not None]
        x = yxyx_to_xyxy(nums)
        return "[" + ", ".join(x) + "]" if m.group(0).lstrip().startswith("[") else ", ".join(x)

    return _FOUR.sub(repl, text.strip())


def swap_yx(value: Any) -> Any:
    """``value`` (a reply's boxes in any shape the parser reads) with every ``[y1, x1, y2, x2]``
    box turned into ``[x1, y1, x2, y2]``; anything that is not a box is returned unchanged."""
    if isinstance(value, Mapping):
        return {k: swap_yx(v) for k, v in value.items()}
    if isinstance(value, str):
        return _swap_string(value)
    if isinstance(value, (list, tuple)):
        if len(value) == 4 and all(_is_num(v) for v in value):
            try:
                return yxyx_to_xyxy(list(value))
            except GeometryError:
                return value
        if len(value) == 2 and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in value):
            return [[value[0][1], value[0][0]], [value[1][1], value[1][0]]]   # [[y, x], [y, x]]
        return [swap_yx(v) for v in value]
    return value


def for_parser(coordinates: Mapping[str, Any], coords: str) -> tuple[Mapping[str, Any], str]:
    """``(coordinates, parser convention)``: the reply's raw boxes rewritten for the parser."""
    if coords == "norm1000_yx":
        return {k: swap_yx(v) for k, v in coordinates.items()}, "norm1000"
    return coordinates, PARSER_CONVENTION.get(coords, coords)


def conventions_table() -> str:
    """The family table (markdown) used in docs/generation.md."""
    rows = ["| family (model name contains) | `coords` | boxes are |", "|---|---|---|"]
    rows += [f"| {f.label} (`{f.pattern}`) | `{f.coords}` | {f.note} |" for f in FAMILIES]
    return "\n".join(rows)
