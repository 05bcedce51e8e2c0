"""Hardening acceptance (issue 11): mutated PDFs through ``ingest`` and fuzzed replies through the parser.

1. ``--pdfs`` mutated PDFs (``tests/support/fuzz_pdfs.py``: byte flips, truncations, broken xref,
   absurd MediaBox, lying /Count, absurd numbers, huge images, PNG bombs, good copies) plus
   ``--heavy`` pages that take longer than the page limit, ingested in a child process with
   ``--page-timeout``. Counted: tracebacks on the child's stderr, the longest wait between two
   progress events (a page staged or a file failed; a hang past the limit would show here), files
   neither ingested nor named in the
   failures, good files not ingested, failure reasons that are not one line.
2. ``--replies`` fuzzed replies (``tests/support/fuzz_replies.py``) through ``parse_reply`` and
   ``citations_from_coordinates`` in all three box conventions; counted: exceptions, and text that
   cannot be written as UTF-8 (answer, warnings, and the JSON record ``ask --json`` / eval write).

    python benchmarks/fuzz.py [--pdfs 500] [--replies 10000] [--page-timeout 10] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = """
import json, logging, sys, time
from docrag.ingestion import ingest
stamps = []

class Stamp(logging.Handler):   # a file that fails is a progress event too
    def emit(self, record):
        if str(record.msg).startswith("failed:"):
            stamps.append(time.monotonic())

log = logging.getLogger("docrag.ingestion.pipeline")
log.setLevel(logging.INFO)
log.addHandler(Stamp())
report = ingest([{inp!r}], out={out!r}, ocr="never", show_progress=False, workers={workers},
                page_timeout={timeout}, on_page=lambda d, p: stamps.append(time.monotonic()))
json.dump({{"failures": report.failures, "added": report.added, "skipped": report.skipped,
           "stamps": stamps, "seconds": report.seconds}}, open({res!r}, "w"))
"""


def fuzz_pdfs(n: int, heavy: int, seed: int, timeout: float, workers: int) -> dict:
    from tests.support.fuzz_pdfs import write_mutants

    with tempfile.TemporaryDirectory(prefix="docrag-fuzz-") as tmp:
        tmp = Path(tmp)
        kinds = write_mutants(tmp / "in", n, seed, heavy=heavy)
        script = CHILD.format(inp=str(tmp / "in"), out=str(tmp / "corpus"), workers=workers, timeout=timeout,
                              res=str(tmp / "res.json"))
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=ROOT, capture_output=True,
                              text=True, timeout=3600)
        wall = time.monotonic() - t0
        res = json.loads((tmp / "res.json").read_text()) if (tmp / "res.json").exists() else {}
    failed = {Path(p).name: r for p, r in res.get("failures", [])}
    landed = {Path(p).name for p in res.get("added", []) + res.get("skipped", [])}
    stamps = [t0] + sorted(res.get("stamps", []))
    gaps = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    by_kind: dict[str, dict[str, int]] = {}
    for name, kind in kinds.items():
        row = by_kind.setdefault(kind, {"files": 0, "ingested": 0, "failed": 0})
        row["files"] += 1
        if name in landed:
            row["ingested"] += 1
        elif name in failed:
            row["failed"] += 1
    return {"files": len(kinds), "exit_code": proc.returncode, "tracebacks": proc.stderr.count("Traceback"),
            "unaccounted": sorted(set(kinds) - landed - set(failed)),
            "good_not_ingested": sorted(n for n, k in kinds.items() if k == "good" and n not in landed),
            "multi_line_reasons": sum("\n" in r for r in failed.values()),
            "ingested": len(landed), "failed": len(failed),
            "timeouts": sorted(n for n, r in failed.items() if "took longer than" in r),
            "longest_wait_s": round(max(gaps) if gaps else 0.0, 2), "page_timeout_s": timeout,
            "wall_s": round(wall, 1), "by_kind": by_kind, "reasons": _reason_counts(failed.values()),
            "stderr_tail": proc.stderr[-2000:] if proc.returncode else ""}


def _reason_counts(reasons) -> dict[str, int]:
    """Failure reasons with numbers and details cut off, counted (the most common first)."""
    import re

    counts: dict[str, int] = {}
    for r in reasons:
        key = re.sub(r"\d+", "N", re.split(r"[(:]", r.split(": ", 1)[-1] if r.startswith("page ") else r)[0]).strip()
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def fuzz_replies(n: int, seed: int) -> dict:
    from docrag.generation.parse import ImageFrame, citations_from_coordinates, parse_reply
    from docrag.io import dumps_safe
    from docrag.types import Page
    from tests.support.fuzz_replies import fuzzed_reply

    pages = [Page(doc_id="d", page_no=i, width_pt=612.0, height_pt=792.0) for i in (1, 2)]
    frames = [ImageFrame(i, p, (612, 792), (588, 756)) for i, p in enumerate(pages, start=1)]
    exceptions, unsafe, parse_errors, with_boxes = [], 0, 0, 0
    t0 = time.perf_counter()
    for i in range(n):
        text = fuzzed_reply(random.Random(seed * 1_000_003 + i))
        try:
            parsed = parse_reply(text)
            parse_errors += parsed.error is not None
            for conv in ("pixel", "norm1000", "model_pixels"):
                cits, warns = citations_from_coordinates(parsed.coordinates, frames, conv)
                with_boxes += conv == "pixel" and any(c.boxes for c in cits)
                try:
                    for t in (parsed.answer, *parsed.repairs, *warns, parsed.error or ""):
                        t.encode("utf-8")
                    dumps_safe({"answer": parsed.answer, "raw": text, "warnings": warns}).encode("utf-8")
                except UnicodeEncodeError:
                    unsafe += 1
        except Exception as exc:  # noqa: BLE001 -- counting them is the point
            exceptions.append(f"{type(exc).__name__}: {exc}"[:200])
    return {"replies": n, "exceptions": len(exceptions), "first_exceptions": exceptions[:5],
            "non_utf8_safe": unsafe, "parse_errors": parse_errors, "with_boxes": with_boxes,
            "seconds": round(time.perf_counter() - t0, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pdfs", type=int, default=500)
    ap.add_argument("--heavy", type=int, default=3, help="extra pages slower than the page limit")
    ap.add_argument("--replies", type=int, default=10_000)
    ap.add_argument("--page-timeout", type=float, default=10.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args()
    out = {"command": "python " + " ".join(sys.argv), "pdfs": fuzz_pdfs(args.pdfs, args.heavy, args.seed,
                                                                     args.page_timeout, args.workers),
           "replies": fuzz_replies(args.replies, args.seed)}
    text = json.dumps(out, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
