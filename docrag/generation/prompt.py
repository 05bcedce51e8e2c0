"""The generation prompt: a versioned template of the FinRAGBench-V instruction and JSON format.

Two ways to cite (``cite_by``): ``boxes`` asks for ``{"answer", "coordinates"}`` (the paper's
format); ``regions`` shows numbered regions on each image (:mod:`docrag.generation.marks`), lists
them under the image and asks for ``{"answer", "regions": {"<image>": [<region numbers>]}}``.

Changing the wording changes results, so every change bumps :data:`PROMPT_VERSION`, which is
recorded on each :class:`~docrag.types.Answer` (``answer.meta["prompt_version"]``).
"""

from __future__ import annotations

from collections.abc import Sequence

from docrag.backends.base import ChatMessage, ImagePart, Part, TextPart
from docrag.generation.images import SentImage
from docrag.generation.marks import region_listing

#: 2: the ``regions`` prompt (numbered regions on the images, region numbers in the reply) added;
#: the ``boxes`` wording is the one of version 1.
PROMPT_VERSION = "finragbench-v-2"

#: Words that tell the model which space its boxes are in, per reply convention.
COORDINATE_HINTS = {
    "pixel": "Coordinates are pixel positions in the image as given (its Width and Height below), "
             "origin at the top-left corner.",
    "norm1000": "Coordinates are on a 0-1000 grid over each image (0,0 top-left, 1000,1000 "
                "bottom-right).",
    "model_pixels": "Coordinates are absolute pixel positions in the image, origin at the top-left corner.",
}

INSTRUCTION = """###
Answer the question using the given images. Name the images that support your answer and locate
the source of the answer inside them with bounding boxes.
### If the answer uses more than one image, list every image used; if it uses several pieces of
information, box all of them.
### Every box must support the answer; the answer must not contain anything the boxes do not support.
### Box a whole chart, table or text paragraph, not a single number.
### {coordinate_hint}
Reply with JSON only, exactly in this format:
```json
{{
    "answer": "",
    "coordinates": {{
        "1": [[x1, y1, x2, y2], [x1, y1, x2, y2]],
        "2": [[x1, y1, x2, y2]]
    }}
}}
```
The keys of "coordinates" are the numbers of the images used; each box is the top-left (x1, y1)
and bottom-right (x2, y2) corner. If the images do not contain the answer, answer
"not enough information" with empty coordinates.
"""

REGIONS_INSTRUCTION = """###
Answer the question using the given images. Each image has numbered regions outlined on it
(tables, charts, paragraphs, headings, lists); under each image its regions are listed by number,
kind and first words. Name the images that support your answer and, inside them, the numbered
regions that hold the source of the answer.
### If the answer uses more than one image, list every image used; if it uses several pieces of
information, name every region that holds one.
### Every region named must support the answer; the answer must not contain anything the named
regions do not support.
### Name whole regions by their numbers; do not give coordinates. Only when the evidence lies outside
every numbered region, box it under "coordinates" as [x1, y1, x2, y2] instead. {coordinate_hint}
Reply with JSON only, exactly in this format:
```json
{{
    "answer": "",
    "regions": {{
        "1": [3, 5],
        "2": [1]
    }}
}}
```
The keys of "regions" are the numbers of the images used; each value lists the numbers of that
image's regions that support the answer. If the images do not contain the answer, answer
"not enough information" with empty regions.
"""

QUESTION = """Here is the question and the reference images:
Question: {question}
"""


def image_caption(index: int, width: int, height: int) -> str:
    """How each image is introduced: ``Image i: Width: W, Height: H`` (the size as sent)."""
    return f"Image {index}: Width: {width}, Height: {height}"


def build_messages(question: str, images: Sequence[SentImage], coords: str = "pixel",
                   cite_by: str = "boxes") -> list[ChatMessage]:
    """One user message: instruction, question, then each image after its caption (and, citing
    by ``regions``, the listing of the regions marked on it)."""
    hint = COORDINATE_HINTS.get(coords, COORDINATE_HINTS["pixel"])
    template = REGIONS_INSTRUCTION if cite_by == "regions" else INSTRUCTION
    parts: list[Part] = [TextPart(template.format(coordinate_hint=hint)),
                         TextPart(QUESTION.format(question=question.strip()))]
    for img in images:
        parts.append(TextPart(image_caption(img.index, *img.size)))
        if cite_by == "regions":
            parts.append(TextPart(region_listing(img.index, img.regions)))
        parts.append(ImagePart(img.image))
    return [ChatMessage("user", parts)]
