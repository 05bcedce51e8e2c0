"""Mutated PDFs (and page images) built from the test PDFs, deterministic per seed.

``write_mutants(folder, n, seed)`` writes ``n`` files named ``<kind>-<i>.pdf`` (or ``.png``) and returns
``{file name: kind}``. Kinds: ``flip`` (random bytes changed), ``truncate``, ``xref`` (broken
cross-reference table / startxref), ``mediabox`` (absurd page sizes), ``count`` (a lying page-tree
/Count), ``number`` (a number of the page content replaced by an absurd one), ``image`` (a PDF image
whose declared size is huge), ``bomb`` (a PNG claiming over 179 Mpx), ``heavy`` (1,000,000 vector paths:
slow to parse, for the page time limit), ``good`` (unchanged copies, which must be ingested).
Used by ``tests/test_fuzz_ingest.py`` and ``benchmarks/fuzz.py``.
"""

from __future__ import annotations

import io
import random
import re
import struct
import zlib
from pathlib import Path

import pymupdf
from PIL import Image

from tests.support.pdfs import make_sample_pdf, make_text_pdf

KINDS = ("flip", "truncate", "xref", "mediabox", "count", "number", "image", "bomb", "good")
ABSURD_NUMBERS = [b"-99999999999", b"1e308", b"99999999999999999999", b"0", b"-0.000001", b"NaN", b"4294967296"]
ABSURD_BOXES = [b"[0 0 1e12 1e12]", b"[0 0 0 0]", b"[0 0 -5 -5]", b"[0 0 3 99999999]", b"[1 2]", b"[a b c d]",
                b"[0 0 612 -792]", b"[-99999999999 0 612 792]"]


def base_pdfs(folder: Path) -> list[bytes]:
    """One-page PDFs (paragraphs, table, chart, image, Chinese, rotated, plain text), uncompressed."""
    folder.mkdir(parents=True, exist_ok=True)
    sample = make_sample_pdf(folder / "sample.pdf").path
    out: list[bytes] = []
    with pymupdf.open(sample) as doc:
        for i in range(doc.page_count):
            one = pymupdf.open()
            one.insert_pdf(doc, from_page=i, to_page=i)
            out.append(one.tobytes(deflate=False, expand=0))
            one.close()
    text = make_text_pdf(folder / "text.pdf", "Plain text for mutation.", n_pages=2)
    with pymupdf.open(text) as doc:
        out.append(doc.tobytes(deflate=False))
    return out


def _flip(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 40)):
        i = rng.randrange(9, len(b))   # keep the %PDF- header: these must reach the PDF parser
        b[i] = rng.randrange(256)
    return bytes(b)


def _xref(data: bytes, rng: random.Random) -> bytes:
    choice = rng.randrange(4)
    if choice == 0:
        return re.sub(rb"startxref\s+\d+", b"startxref\n" + str(rng.randint(0, 10**9)).encode(), data)
    if choice == 1:
        return data.replace(b"xref", b"xfer", 1)
    if choice == 2:
        return re.sub(rb"\d{10} \d{5} n", lambda m: b"%010d 00000 n" % rng.randint(0, 10**9), data)
    return re.sub(rb"/Size \d+", b"/Size " + str(rng.choice([0, 1, 10**9, -4])).encode(), data)


def _sub_random(pattern: bytes, data: bytes, repl: bytes, rng: random.Random) -> bytes:
    matches = list(re.finditer(pattern, data))
    if not matches:
        return data
    m = rng.choice(matches)
    return data[:m.start()] + repl + data[m.end():]


def _number(data: bytes, rng: random.Random) -> bytes:
    """An absurd number in a content stream (text matrix, font size, path coordinates)."""
    pattern = rng.choice([rb"(?<=\n)[-\d.]+(?= [-\d.]+ [-\d.]+ [-\d.]+ [-\d.]+ [-\d.]+ Tm)", rb"[-\d.]+(?= Tf)",
                          rb"[-\d.]+(?= [-\d.]+ [lm]\b)", rb"[-\d.]+(?= w\b)", rb"(?<= )[\d.]+(?= cm)"])
    out = _sub_random(pattern, data, rng.choice(ABSURD_NUMBERS), rng)
    return out if out != data else _sub_random(rb"\b\d+\.?\d*\b", data, rng.choice(ABSURD_NUMBERS), rng)


def huge_image_pdf(rng: random.Random) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "A page with an image whose size lies.", fontname="helv")
    buf = io.BytesIO()
    Image.new("RGB", (32, 32), (rng.randrange(256), 20, 20)).save(buf, "PNG")
    page.insert_image(pymupdf.Rect(72, 72, 300, 300), stream=buf.getvalue())
    xref = page.get_images()[0][0]
    side = rng.choice([20_000, 100_000, 2**31 - 1, 0, -5])
    doc.xref_set_key(xref, "Width", str(side))
    doc.xref_set_key(xref, "Height", str(rng.choice([side, 3, 50_000])))
    data = doc.tobytes()
    doc.close()
    return data


def png_bomb(rng: random.Random) -> bytes:
    """A small PNG whose header claims ``w x h`` > 179 Mpx (PIL's decompression-bomb error)."""
    w, h = rng.choice([(20_000, 10_000), (15_000, 15_000), (60_000, 4_000)])

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
    rows = zlib.compress(b"\x00" * (w + 1) * 4)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def heavy_pdf(n_paths: int = 1_000_000) -> bytes:
    """One page drawing ``n_paths`` tiny rectangles (page time limit tests): at the default, ingesting it takes
    about 19 s on 2 cores, far over a 3 s limit whatever the machine's load (150,000 took 3.1 s: met or missed
    by load)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "A very heavy page.", fontname="helv")
    ops = "".join(f"{(i * 7) % 600} {(i * 13) % 780} 0.5 0.5 re f\n" for i in range(n_paths)).encode()
    xref = doc.get_new_xref()
    doc.update_object(xref, "<<>>")
    doc.update_stream(xref, ops)
    doc.xref_set_key(page.xref, "Contents", f"[{page.get_contents()[0]} 0 R {xref} 0 R]")
    data = doc.tobytes(deflate=True)
    doc.close()
    return data


def mutate(kind: str, bases: list[bytes], rng: random.Random) -> tuple[bytes, str]:
    """(file bytes, suffix) of one mutant of ``kind``."""
    base = rng.choice(bases)
    if kind == "flip":
        return _flip(base, rng), ".pdf"
    if kind == "truncate":
        return base[: rng.randint(16, max(17, len(base) - 1))], ".pdf"
    if kind == "xref":
        return _xref(base, rng), ".pdf"
    if kind == "mediabox":
        return re.sub(rb"/MediaBox\s*\[[^\]]*\]", b"/MediaBox " + rng.choice(ABSURD_BOXES), base), ".pdf"
    if kind == "count":
        lie = rng.choice([b"99999", b"0", b"-1", b"1000000000", b"2", b"abc"])
        return re.sub(rb"/Count \d+", b"/Count " + lie, base), ".pdf"
    if kind == "number":
        return _number(base, rng), ".pdf"
    if kind == "image":
        return huge_image_pdf(rng), ".pdf"
    if kind == "bomb":
        return png_bomb(rng), ".png"
    if kind == "good":
        return base, ".pdf"
    raise ValueError(kind)


WEIGHTS = {"flip": 5, "truncate": 3, "xref": 3, "mediabox": 2, "count": 2, "number": 4, "image": 1, "bomb": 1,
           "good": 2}


def write_mutants(folder: Path, n: int, seed: int, scratch: Path | None = None,
                  heavy: int = 0) -> dict[str, str]:
    """Write ``n`` mutants (plus ``heavy`` heavy pages) into ``folder``; ``{file name: kind}``."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    bases = base_pdfs(scratch or folder.parent / f"{folder.name}-bases")
    kinds = [k for k, w in WEIGHTS.items() for _ in range(w)]
    out: dict[str, str] = {}
    for i in range(n):
        kind = "good" if i < 3 else rng.choice(kinds)   # a few good files in every batch
        data, suffix = mutate(kind, bases, rng)
        name = f"{kind}-{i:04d}{suffix}"
        (folder / name).write_bytes(data)
        out[name] = kind
    for j in range(heavy):
        name = f"heavy-{j:04d}.pdf"
        (folder / name).write_bytes(heavy_pdf())
        out[name] = "heavy"
    return out
