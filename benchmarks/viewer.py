"""Viewer latency: first vs later questions through the cached pipeline, and what rendering costs.

Asks every question of ``qa.jsonl`` through :class:`docrag.apps.viewer.Viewer` (the logic behind
the Ask tab: retrieval, generation, boxes drawn on the cited pages, crops, thumbnails) with one
(retriever, generator) pair. The first question builds the pipeline (index and models); the later
ones reuse it from the cache. Rendering time is measured separately on the same answers.

    python benchmarks/viewer.py --corpus <ingested dev corpus> [--retriever bm25] [--generator extractive]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from docrag.apps.viewer import Viewer
from docrag.corpus import Corpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True, type=Path)
    ap.add_argument("--qa", type=Path, default=Path(__file__).resolve().parents[2] / "shared/corpus/qa.jsonl")
    ap.add_argument("--retriever", default="bm25")
    ap.add_argument("--generator", default="extractive")
    ap.add_argument("-k", type=int, default=5)
    args = ap.parse_args()

    questions = [json.loads(line)["question"] for line in args.qa.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    corpus = Corpus.open(args.corpus)
    with tempfile.TemporaryDirectory() as tmp:
        from functools import partial

        from docrag.apps.viewer import _default_rag_factory

        viewer = Viewer(corpus, allow_upload=False, k=args.k,
                        rag_factory=partial(_default_rag_factory, indexes_root=Path(tmp)))
        times = []
        for q in questions:
            t0 = time.perf_counter()
            res = viewer.ask(q, args.retriever, args.generator)
            times.append(time.perf_counter() - t0)
            assert res.answer is not None, res.status
        render = []
        for q in questions[:5]:
            ans = viewer.pipelines.get(args.retriever, args.generator)[0].ask(q, k=args.k)
            t0 = time.perf_counter()
            viewer.render_answer(ans)
            render.append(time.perf_counter() - t0)
    print(json.dumps({
        "retriever": args.retriever, "generator": args.generator, "k": args.k, "questions": len(questions),
        "pipelines_built": len(viewer.pipelines),
        "first_question_s": round(times[0], 2),
        "later_questions_median_s": round(statistics.median(times[1:]), 3),
        "later_questions_max_s": round(max(times[1:]), 3),
        "render_median_s": round(statistics.median(render), 3),
    }, indent=1))


if __name__ == "__main__":
    main()
