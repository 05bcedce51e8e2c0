"""OCR of page images: Tesseract (via pytesseract) when installed, else RapidOCR's bundled models.

Both engines return lines of words with boxes in *pixels of the image they read*; the caller
converts them to page points with :mod:`docrag.geometry`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import shutil
from dataclasses import dataclass, field

from docrag import sysdeps
from docrag.errors import MissingDependencyError

log = logging.getLogger(__name__)

# Names users give in --lang, mapped to Tesseract's traineddata names.
TESSERACT_LANGS = {"en": "eng", "eng": "eng", "english": "eng", "ch": "chi_sim", "zh": "chi_sim",
                   "chi_sim": "chi_sim", "cn": "chi_sim", "chinese": "chi_sim",
                   "zh-tw": "chi_tra", "chi_tra": "chi_tra"}


@dataclass
class OcrWord:
    text: str
    box: tuple[float, float, float, float]  # pixels of the OCR'd image
    conf: float


@dataclass
class OcrLine:
    block_no: int
    words: list[OcrWord] = field(default_factory=list)


@dataclass
class OcrResult:
    engine: str
    lines: list[OcrLine]
    image_size: tuple[int, int]


def parse_langs(lang: str) -> list[str]:
    """``"en,ch"`` -> ``["en", "ch"]`` (validated against the names docrag knows)."""
    out = [part.strip().lower() for part in lang.replace("+", ",").split(",") if part.strip()]
    unknown = [p for p in out if p not in TESSERACT_LANGS]
    if unknown or not out:
        raise ValueError(f"unknown OCR language(s) {unknown or lang!r}; use a comma list of "
                         f"{sorted(set(TESSERACT_LANGS))}")
    return out


@functools.lru_cache(maxsize=1)
def _tesseract_langs() -> frozenset[str] | None:
    """Languages of an installed Tesseract, or None when it (or pytesseract) is missing."""
    if shutil.which("tesseract") is None:
        return None
    try:
        import pytesseract

        return frozenset(pytesseract.get_languages(config=""))
    except ImportError:
        return None
    except Exception as exc:  # a broken tesseract install: fall back, but say why
        log.warning("tesseract found but unusable (%s); using RapidOCR", exc)
        return None


def available_engine() -> str:
    if _tesseract_langs() is not None:
        return "tesseract"
    if not _rapid_installed():
        line = sysdeps.missing("tesseract-ocr") or "pytesseract is not installed: pip install pytesseract"
        raise MissingDependencyError(f"OCR needs Tesseract or RapidOCR (pip install rapidocr-onnxruntime), or "
                                     f"--ocr never; {line}")
    return "rapidocr"


def ocr_image(image, langs: list[str], sparse: bool = False) -> OcrResult:
    """Recognise words in a PIL image with the best available engine. ``sparse``: text scattered over a
    picture (a chart's data labels) is read by RapidOCR, which finds text boxes anywhere, when it is installed
    (it is a dependency): Tesseract reads a chart's bars as letters and drops or garbles its data labels (a
    CAICT bar chart: RapidOCR read all 6 labels at 99 % confidence, Tesseract 2 of them, "35.8" as "25:2");
    else Tesseract as sparse text (page segmentation mode 11, not mode 3, which leaves most labels out)."""
    engine = available_engine()
    if sparse and engine == "tesseract" and _rapid_installed():
        return _rapidocr(image)
    if engine == "tesseract":
        return _tesseract(image, langs, psm=11 if sparse else 3)
    return _rapidocr(image)


@functools.lru_cache(maxsize=1)
def _rapid_installed() -> bool:
    try:
        import rapidocr_onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


@contextlib.contextmanager
def _single_threaded_tesseract():
    """Tesseract's OpenMP threads make it several times *slower* on a busy machine: use one."""
    old = os.environ.get("OMP_THREAD_LIMIT")
    if old is None:
        os.environ["OMP_THREAD_LIMIT"] = "1"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("OMP_THREAD_LIMIT", None)


def _confident(data: dict) -> bool:
    """Whether a single-language pass read the page well (few low-confidence words)."""
    confs = [float(c) for c, t in zip(data["conf"], data["text"], strict=False) if (t or "").strip() and float(c) >= 0]
    if len(confs) < 5:
        return False
    return sum(c < 60 for c in confs) <= 0.1 * len(confs) and sum(confs) / len(confs) >= 80


def _tesseract(image, langs: list[str], psm: int = 3) -> OcrResult:
    """Tesseract words. With several languages, the first language alone is tried first and kept
    when it reads the page confidently (a multi-language pass costs about twice as much)."""
    import pytesseract

    have = _tesseract_langs() or frozenset()
    wanted = [TESSERACT_LANGS[lang] for lang in langs]
    use = [t for t in dict.fromkeys(wanted) if t in have]
    missing = [t for t in wanted if t not in have]
    if missing:
        log.warning("tesseract has no %s data; OCR uses %s", "+".join(missing), "+".join(use) or "eng")
    gray = image.convert("L")
    with _single_threaded_tesseract():
        data = None
        if len(use) > 1:
            data = pytesseract.image_to_data(gray, lang=use[0], config=f"--psm {psm}",
                                             output_type=pytesseract.Output.DICT)
            if not _confident(data):
                data = None
        if data is None:
            data = pytesseract.image_to_data(gray, lang="+".join(use) or "eng", config=f"--psm {psm}",
                                             output_type=pytesseract.Output.DICT)
    lines: dict[tuple[int, int, int], OcrLine] = {}
    for i, text in enumerate(data["text"]):
        text = (text or "").strip()
        conf = float(data["conf"][i])
        if not text or conf < 0:
            continue
        key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
        line = lines.setdefault(key, OcrLine(block_no=data["block_num"][i] * 1000 + data["par_num"][i]))
        x, y, w, h = (float(data[k][i]) for k in ("left", "top", "width", "height"))
        line.words.append(OcrWord(text, (x, y, x + w, y + h), conf))
    return OcrResult("tesseract", list(lines.values()), image.size)


@functools.lru_cache(maxsize=1)
def _rapid_engine():
    from rapidocr_onnxruntime import RapidOCR

    # one thread: ingest runs a worker process per core, and onnxruntime's own threads on top of them made the
    # dev set's ingest slower, not faster (137.6 s against 121.8 s, BENCHMARKS.md "Ingest")
    return RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1)


# RapidOCR's (Chinese) model runs English words together: "Chart1:QuarterlyProjection", "RealGDPGrowth",
# "50percentCI". Put the space back where a lower-case word meets a capitalised one or an acronym, an acronym of
# three capitals a word, a word of three letters or more a number, a number a lower-case word, a colon a
# capitalised word ("Q4'23", "Q2:2021-22", "FY2025", "H200", "iPhone", "JPMorgan", "10x" stay as they are)
_GLUED = re.compile(r"(?<=[a-z]{2})(?=[A-Z][a-z]|[A-Z]{2})|(?<=[A-Z]{3})(?=[A-Z][a-z]{2})|(?<=[A-Za-z][a-z]{2})(?=\d)"
                    r"|(?<=\d)(?=[a-z]{3})|(?<=[A-Za-z\d]:)(?=[A-Z][a-z])")


def unglue(text: str) -> str:
    """English words RapidOCR ran together, apart again (Chinese text is left as it is)."""
    return _GLUED.sub(" ", text)


def _rapidocr(image) -> OcrResult:
    import numpy as np

    result, _ = _rapid_engine()(np.asarray(image.convert("RGB")))
    result = [(quad, unglue(text), score) for quad, text, score in result or []]
    lines = []
    for i, (quad, text, score) in enumerate(result):
        xs = [float(p[0]) for p in quad]
        ys = [float(p[1]) for p in quad]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        toks = text.split()
        total = sum(len(t) for t in toks) + max(len(toks) - 1, 0)
        line = OcrLine(block_no=i)
        pos = 0
        for tok in toks:  # apportion the line box to its words by character count
            a = x0 + (x1 - x0) * pos / max(total, 1)
            pos += len(tok)
            b = x0 + (x1 - x0) * pos / max(total, 1)
            pos += 1
            line.words.append(OcrWord(tok, (a, y0, b, y1), float(score) * 100))
        if line.words:
            lines.append(line)
    return OcrResult("rapidocr", lines, image.size)
