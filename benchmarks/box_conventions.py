"""Boxes from model families that answer in their own convention, read back with and without the
model-name conventions (``docrag.generation.conventions``).

A scripted OpenAI-compatible server on 127.0.0.1 plays each model: for every gold box of the QA
file it receives the gold page (sent as docrag sends it: fit 1024x768), writes the gold box the way
that family would (Qwen2.5-VL: pixels of the processor's smart-resized image, computed with
``qwen_vl_utils.smart_resize``; Qwen2-VL: 0-1000; Gemini: [ymin, xmin, ymax, xmax] 0-1000; GPT-4o:
pixels of the image sent), rounded to integers as a model would. We count the boxes that come back
within 3 PDF points of the gold box (every side), with only the model name given (``auto``) and
with the former single global setting (``pixel``).

    python benchmarks/box_conventions.py CORPUS --qa ../shared/corpus/qa.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from docrag.corpus import Corpus
from docrag.generation import get_generator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.openai_server import ScriptedOpenAIServer, request_images  # noqa: E402

MODELS = {"Qwen/Qwen2.5-VL-7B-Instruct": "model_pixels", "Qwen/Qwen2-VL-7B-Instruct": "norm1000",
          "gemini-2.0-flash": "norm1000_yx", "gpt-4o": "pixel"}
TOL_PT = 3.0


def write_box(box_px: list[float], size: tuple[int, int], convention: str) -> list[int]:
    from qwen_vl_utils import smart_resize

    w, h = size
    x0, y0, x1, y1 = box_px
    if convention == "pixel":
        return [round(v) for v in box_px]
    if convention == "model_pixels":
        mh, mw = smart_resize(h, w, factor=28, min_pixels=3136, max_pixels=12845056)
        return [round(x0 * mw / w), round(y0 * mh / h), round(x1 * mw / w), round(y1 * mh / h)]
    g = [round(x0 * 1000 / w), round(y0 * 1000 / h), round(x1 * 1000 / w), round(y1 * 1000 / h)]
    return [g[1], g[0], g[3], g[2]] if convention == "norm1000_yx" else g


def run(corpus: Corpus, records: list[dict]) -> dict:
    targets = []
    for rec in records:
        (doc,) = corpus.find_documents(rec["doc"])
        for b in rec.get("boxes", []):
            targets.append((corpus.page(f"{doc.doc_id}:{b['page']}"), b["bbox"]))
    out: dict = {}
    for model, convention in MODELS.items():
        state: dict = {}

        def reply(req: dict, convention=convention, state=state) -> str:
            page, bbox = state["target"]
            (img,) = request_images(req)
            sx, sy = img.size[0] / page.width_pt, img.size[1] / page.height_pt
            box_px = [bbox[0] * sx, bbox[1] * sy, bbox[2] * sx, bbox[3] * sy]
            return json.dumps({"answer": "x", "coordinates": {"1": [write_box(box_px, img.size, convention)]}})

        with ScriptedOpenAIServer(reply, model=model) as srv:
            for coords in ("auto", "pixel"):
                gen = get_generator(f"openai:{model}", base_url=srv.base_url, api_key="k", coords=coords)
                errs = []
                for page, bbox in targets:
                    state["target"] = (page, bbox)
                    ans = gen.generate("q", [page])
                    got = ans.citations[0].boxes[0].coords if ans.citations and ans.citations[0].boxes else None
                    errs.append(max(abs(a - b) for a, b in zip(got, bbox, strict=True)) if got else float("inf"))
                ok = sum(e <= TOL_PT for e in errs)
                out[f"{model} coords={coords}"] = {"within_3pt": ok, "n": len(errs),
                                                   "median_max_side_error_pt": round(statistics.median(errs), 2)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--qa", type=Path, required=True)
    args = ap.parse_args()
    records = [json.loads(line) for line in args.qa.read_text(encoding="utf-8").splitlines() if line.strip()]
    result = run(Corpus.open(args.corpus), records)
    print("| model (scripted) | coords | within 3 pt | median worst-side error (pt) |")
    print("|---|---|---|---|")
    for key, r in result.items():
        model, coords = key.rsplit(" coords=", 1)
        print(f"| {model} | {coords} | {r['within_3pt']} / {r['n']} | {r['median_max_side_error_pt']} |")


if __name__ == "__main__":
    main()
