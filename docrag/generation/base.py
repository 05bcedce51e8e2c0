"""The Generator protocol, its registry, and the shared vision-language-model generator.

Registry names: ``extractive`` (offline baseline), ``openai:<model>``, ``qwen-vl:<path>``.
:class:`VLMGenerator` does the work common to every chat model: resize pages, build the prompt,
call a :class:`~docrag.backends.base.ChatBackend` (dropping the lowest-ranked page and retrying
when the request is too large), parse the reply and map every box into the page's PDF points.
Citing by region (``cite_by="regions"``, the default) the images sent carry numbered region marks
(:mod:`docrag.generation.marks`) and the region numbers of the reply become the regions' boxes
(:mod:`docrag.generation.parse_regions`); boxes in the reply are read as well.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from docrag.backends.base import BackendError, ChatBackend, ChatReply, RequestTooLargeError
from docrag.cancel import checkpoint
from docrag.errors import InputError
from docrag.generation import conventions
from docrag.generation.images import ResizePolicy, SentImage, prepare_images
from docrag.generation.marks import DEFAULT_CITE_BY, check_cite_by, mark_images
from docrag.generation.parse import (
    ImageFrame,
    citations_from_coordinates,
    parse_reply,
)
from docrag.generation.parse_regions import citations_from_regions, merge_citations
from docrag.generation.prompt import PROMPT_VERSION, build_messages
from docrag.generation.registry import GENERATORS, Generator
from docrag.generation.snap import snap_citations
from docrag.grounding import MODES as GROUND_MODES
from docrag.grounding import ground_answer
from docrag.types import Answer, Page

log = logging.getLogger(__name__)


def get_generator(name: str, **options: Any) -> Generator:
    """The generator called ``name`` (``extractive``, ``openai:<model>``, ``qwen-vl:<path>``)."""
    return GENERATORS.create(name, **options)


def generate_many(generator: Generator, items: Sequence[tuple[str, Sequence[Page]]],
                  concurrency: int = 1) -> list[Answer]:
    """``generator.generate`` over ``(question, pages)`` items, ``concurrency`` at a time, in order."""
    if concurrency <= 1 or len(items) <= 1:
        return [generator.generate(q, p) for q, p in items]
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="docrag-gen") as pool:
        return list(pool.map(lambda item: generator.generate(*item), items))


class VLMGenerator:
    """A generator backed by a chat model that sees the page images.

    ``coords`` is the reply convention (``pixel``, ``model_pixels``, ``norm1000``, ``norm1000_yx``,
    or ``auto``: from the backend's model name; see :mod:`docrag.generation.conventions`);
    ``processor_min_pixels`` / ``processor_max_pixels`` are the pixel budget of a ``model_pixels``
    model's processor, used when the backend does not report the size it resized each image to.
    ``max_pages`` caps the pages sent (lowest ranks dropped first).
    ``snap`` snaps boxes to layout blocks (unsnapped ones kept in ``answer.meta``); ``ground``
    (``refine`` by default, ``replace``, ``off``) grounds the answer on the pages' regions
    (:mod:`docrag.grounding`; the model's own citations kept in ``answer.meta["model_citations"]``).
    ``cite_by`` is ``regions`` (numbered region marks on the images sent, region numbers in the
    reply; the default) or ``boxes`` (the model draws boxes).
    """

    def __init__(self, backend: ChatBackend, *, coords: str = "pixel", resize: ResizePolicy | None = None,
                 max_pages: int | None = None, max_tokens: int = 1024, temperature: float = 0.0,
                 snap: bool = False, ground: str = "refine", cite_by: str = DEFAULT_CITE_BY,
                 concurrency: int = 4, name: str | None = None,
                 processor_min_pixels: int | None = None, processor_max_pixels: int | None = None) -> None:
        coords, self.coords_source = conventions.resolve(coords, str(getattr(backend, "name", "")))
        if max_pages is not None and max_pages < 1:
            raise InputError(f"max_pages must be at least 1, got {max_pages}")
        self.backend = backend
        self.name = name or backend.name
        self.coords = coords
        self.resize = resize or ResizePolicy()
        self.max_pages = max_pages
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.snap = snap
        if ground not in GROUND_MODES:
            raise InputError(f"ground={ground!r}: expected one of {', '.join(GROUND_MODES)}")
        self.ground = ground
        self.cite_by = check_cite_by(cite_by)
        self.concurrency = max(1, int(concurrency))
        self.processor_min_pixels = processor_min_pixels
        self.processor_max_pixels = processor_max_pixels

    # -- hooks for model families -------------------------------------------------------------
    def prepare(self, pages: Sequence[Page]) -> list[SentImage]:
        """Page images as they will be sent (subclasses may resize further)."""
        return prepare_images(list(pages), self.resize)

    def model_sizes(self, reply: ChatReply, images: Sequence[SentImage]) -> list[tuple[int, int] | None]:
        """The model's own input size per image: as the backend reports it, else (``model_pixels``)
        the processor's smart resize of the size sent."""
        sizes = reply.meta.get("input_sizes") or []
        out: list[tuple[int, int] | None] = [tuple(sizes[i]) if i < len(sizes) else None for i in range(len(images))]
        if self.coords == "model_pixels":
            out = [s or conventions.model_input_size(img.size, self.processor_min_pixels, self.processor_max_pixels)
                   for s, img in zip(out, images, strict=True)]
        return out

    # -- generation ----------------------------------------------------------------------------
    def generate(self, question: str, pages: Sequence[Page]) -> Answer:
        t0 = time.perf_counter()
        pages = list(pages)[: self.max_pages] if self.max_pages else list(pages)
        warnings: list[str] = []
        checkpoint("preparing the page images")
        images = self.prepare(pages)
        if self.cite_by == "regions":
            images = mark_images(images)
        reply: ChatReply | None = None
        while True:
            checkpoint("the model call")
            messages = build_messages(question, images, conventions.PARSER_CONVENTION.get(self.coords, "pixel"),
                                      self.cite_by)
            try:
                reply = self.backend.chat(messages, max_tokens=self.max_tokens, temperature=self.temperature)
                break
            except RequestTooLargeError as exc:
                if len(images) <= 1:
                    raise BackendError(f"{self.name}: request too large even with one page: {exc}") from exc
                dropped = images.pop()
                warnings.append(f"request too large with {len(images) + 1} pages; dropped the "
                                f"lowest-ranked page {dropped.page.page_id} and retried")
                log.warning("%s: %s", self.name, warnings[-1])
        checkpoint("parsing the reply")
        parsed = parse_reply(reply.text)
        warnings.extend(parsed.repairs)
        sizes = self.model_sizes(reply, images)
        frames = [ImageFrame(img.index, img.page, img.size, sizes[i], img.regions) for i, img in enumerate(images)]
        if self.coords_source.startswith("unknown") and (self.cite_by == "boxes" or parsed.coordinates):
            warnings.append(self.coords_source)
        coordinates, parse_coords = conventions.for_parser(parsed.coordinates, self.coords)
        citations, box_warnings = citations_from_coordinates(coordinates, frames, parse_coords)
        if parsed.regions:
            by_region, region_warnings = citations_from_regions(parsed.regions, frames)
            citations = merge_citations(by_region, citations)
            warnings.extend(region_warnings)
        warnings.extend(box_warnings)
        meta: dict[str, Any] = {"prompt_version": PROMPT_VERSION, "coords": self.coords,
                                "coords_source": self.coords_source, "cite_by": self.cite_by,
                                "images": [{"index": f.index, "page_id": f.page.page_id,
                                            "sent_size": list(f.sent_size),
                                            "model_size": list(f.model_size) if f.model_size else None,
                                            **({"regions": len(f.regions)} if self.cite_by == "regions" else {})}
                                           for f in frames]}
        if parsed.regions:
            meta["model_regions"] = {str(c.image_index): list(c.regions) for c in citations if c.regions}
        if self.snap:
            meta["unsnapped_citations"] = [c.to_json() for c in citations]
            citations = snap_citations(citations, {p.page_id: p for p in pages})
        answer = Answer(question=question, answer=parsed.answer, citations=citations, raw=reply.text,
                        warnings=warnings, parse_error=parsed.error, usage=dict(reply.usage),
                        generator=self.name, meta=meta)
        checkpoint("grounding")
        ground_answer(answer, [img.page for img in images], self.ground)
        answer.latency_s = time.perf_counter() - t0
        return answer

    def generate_many(self, items: Sequence[tuple[str, Sequence[Page]]]) -> list[Answer]:
        """Many questions, ``concurrency`` requests in flight at a time, answers in input order."""
        return generate_many(self, items, self.concurrency)


def resize_policy_from(options: dict[str, Any]) -> ResizePolicy:
    """Pop ``max_width`` / ``max_height`` / ``max_pixels`` from ``options`` into a policy."""
    given = {k: options.pop(k, None) for k in ("max_width", "max_height", "max_pixels")}
    return ResizePolicy(**{k: int(v) for k, v in given.items() if v is not None})
