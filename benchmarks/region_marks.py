"""What citing by region number costs per page: marking time, regions marked, prompt text added.

For every page of an ingested corpus, at the default resize (fit 1024 x 768): the time to find its
regions and draw the marks (:func:`docrag.generation.marks.mark_images`), the number of regions,
and the length of the listing the prompt adds under the image (characters and whitespace words).

    python benchmarks/region_marks.py CORPUS [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from docrag.corpus import Corpus
from docrag.generation.images import ResizePolicy, prepare_images
from docrag.generation.marks import mark_images, region_listing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--limit", type=int, default=None, help="only the first N pages")
    args = ap.parse_args(argv)
    pages = list(Corpus.open(args.corpus).pages())[: args.limit]
    ms, regions, chars, words = [], [], [], []
    for sent in prepare_images(pages, ResizePolicy()):
        t0 = time.perf_counter()
        (marked,) = mark_images([sent])
        ms.append((time.perf_counter() - t0) * 1000)
        listing = region_listing(marked.index, marked.regions)
        regions.append(len(marked.regions))
        chars.append(len(listing))
        words.append(len(listing.split()))

    def row(name: str, values: list[float], fmt: str) -> str:
        return (f"| {name} | {format(statistics.median(values), fmt)} | {format(statistics.mean(values), fmt)} "
                f"| {format(max(values), fmt)} |")

    print(f"{len(pages)} pages of {args.corpus}, sent at fit 1024 x 768\n")
    print("| per page | median | mean | max |\n|---|---|---|---|")
    print(row("regions + marks (ms)", ms, ".1f"))
    print(row("regions marked", regions, ".0f"))
    print(row("listing characters", chars, ".0f"))
    print(row("listing words", words, ".0f"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
