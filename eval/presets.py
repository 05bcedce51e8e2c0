"""``docrag compare --preset finragbench-v|vidore-v3``: a paper's retriever list on local data, with
the paper's published numbers printed beside the run's.

Local paths come from the config file (``[presets.<name>]``)::

    [presets.finragbench-v]
    corpus = "/data/frb/corpus_en"          # made by 'docrag ingest'
    qa = "/data/frb/queries_en.json"
    qrels = "/data/frb/qrels_en.tsv"
    retrievers = { ColQwen2 = "colqwen2:/models/colqwen2-v1.0", BM25 = "bm25" }

    [presets.vidore-v3]
    data = "/data/vidore_v3_finance_en"      # the Hugging Face layout (see docrag.eval.vidore_v3)
    corpus = "/data/vidore_v3_finance_en.docrag"   # built from data when missing
    retrievers = { "ColQwen2.5 (ColNomic)" = "colqwen2.5:/models/colnomic-embed-multimodal-7b" }
    rerank = "cross-encoder:/models/bge-reranker-v2-m3"   # optional rerank row

Published numbers: only values traced to a source are filled in; every other row says
"not verified". Sources are named in :data:`PUBLISHED`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from docrag.corpus import Corpus
from docrag.errors import InputError
from docrag.eval.data import load_qa
from docrag.eval.vidore_v3 import build_corpus, evaluate, graded_qrels, qa_items, read_dataset

log = logging.getLogger(__name__)

#: Published numbers we could trace (None = not verified here).
PUBLISHED: dict[str, dict[str, Any]] = {
    "finragbench-v": {
        "metric": "recall@10", "label": "Recall@10 (paper, zh / en)",
        "source": "FinRAGBench-V (arXiv 2505.17471) Table 4 as quoted by a secondary summary "
                  "(beancount.io research log); the paper's own table was not read here",
        "rows": {"ColQwen2": {"zh": 90.13, "en": 85.86}, "GME-Qwen2-VL-7B": None, "GME-Qwen2-VL-2B": None,
                 "DSE-Qwen2-2b-MRL-V1": None, "VisRAG-Ret": None, "BM25": None, "BGE-M3": None,
                 "Multilingual-E5-large": None, "Jina-ColBERT-V2": None},
        "defaults": {"BM25": "bm25"},
    },
    "vidore-v3": {
        "metric": "ndcg@10", "label": "nDCG@10 (paper / leaderboard)",
        "source": "docrag issue 17 quoting ViDoRe V3 (arXiv 2601.08620) and its leaderboard; Table 1 itself "
                  "was not read here",
        "rows": {"VultronRetrieverPrime-Qwen3.5-8B (leaderboard)": 64.26, "Qwen3-VL-Embedding (single vector)": 57.8,
                 "text pipeline before rerank": 50.4, "text pipeline + text reranker": 63.6,
                 "visual reranker (gain)": 0.2, "ColQwen2.5 (ColNomic)": None, "BM25": None},
        "defaults": {"BM25": "bm25"},
    },
}


def preset_settings(name: str, settings: Any) -> dict:
    if name not in PUBLISHED:
        raise InputError(f"--preset {name!r}: unknown; use one of {', '.join(PUBLISHED)}")
    cfg = dict((getattr(settings, "presets", {}) or {}).get(name, {}))
    if not cfg:
        raise InputError(f"--preset {name}: no [presets.{name}] table in the config file; add the local paths "
                         f"(see 'docrag.eval.presets' / docs/models.md)")
    return cfg


def _retrievers(name: str, cfg: dict) -> dict[str, str]:
    rows = dict(PUBLISHED[name].get("defaults", {}))
    rows.update({str(k): str(v) for k, v in (cfg.get("retrievers") or {}).items()})
    return rows


def _published(name: str, row: str, group: str = "") -> float | None:
    val = PUBLISHED[name]["rows"].get(row)
    if isinstance(val, dict):
        return val.get(group)
    return val


def run_preset(name: str, settings: Any, k: int = 10, show_progress: bool = True,
               rerank: dict | None = None) -> dict:
    """Run the preset and return ``{"rows": [...], "published": {...}}``."""
    cfg = preset_settings(name, settings)
    retrievers = _retrievers(name, cfg)
    if rerank is None:   # not given on the command line: the preset's own rerank row, if any
        rerank = {"rerank": cfg["rerank"], "rerank_depth": int(cfg.get("rerank_depth", 20))} \
            if cfg.get("rerank") else {}
    elif not rerank.get("rerank"):   # --rerank none
        rerank = {}
    rows: list[dict] = []
    if name == "vidore-v3":
        rows = _run_vidore(cfg, retrievers, k, show_progress, rerank)
    else:
        rows = _run_finragbench(cfg, retrievers, k, show_progress, rerank)
    published_only = [r for r in PUBLISHED[name]["rows"] if r not in retrievers]
    return {"preset": name, "rows": rows, "published_only": published_only, "metric": PUBLISHED[name]["metric"],
            "source": PUBLISHED[name]["source"], "label": PUBLISHED[name]["label"],
            "rerank": rerank.get("rerank", "")}


def _run_vidore(cfg: dict, retrievers: dict[str, str], k: int, show_progress: bool, rerank: dict) -> list[dict]:
    from docrag.index import open_index

    if "data" not in cfg:
        raise InputError("[presets.vidore-v3]: set data = <local ViDoRe V3 copy>")
    ds = read_dataset(cfg["data"])
    corpus = build_corpus(ds, cfg.get("corpus") or str(Path(cfg["data"]).with_suffix(".docrag")),
                          show_progress=show_progress)
    items = qa_items(ds, corpus)
    qrels = graded_qrels(ds, items)
    rows = []
    reranker = None
    if rerank:
        from docrag.index.rerank import RerankedIndex, get_reranker

        reranker = get_reranker(rerank["rerank"])
    for row, name in retrievers.items():
        idx = open_index(corpus, name, show_progress=show_progress)
        runs = [(row, name, idx)]
        if reranker is not None:
            runs.append((f"{row} + rerank", f"{name} >> {rerank['rerank']}",
                         RerankedIndex(idx, reranker, corpus.page, depth=rerank["rerank_depth"])))
        for label_row, label, index in runs:
            hits = index.search_batch([it.question for it in items], k=max(k, 10))
            res = evaluate({it.qid: h for it, h in zip(items, hits, strict=True)}, qrels, items)
            for group, vals in res["groups"].items():
                rows.append({"row": label_row, "retriever": label, "group": group, "ours": vals.get("ndcg@10"),
                             "n": vals["n"], "published": _published("vidore-v3", label_row)
                             if group == "overall" else None,
                             "pytrec_eval_max_abs_diff": res["pytrec_eval_max_abs_diff"]})
    return rows


def _run_finragbench(cfg: dict, retrievers: dict[str, str], k: int, show_progress: bool, rerank: dict) -> list[dict]:
    from docrag.eval.compare import compare_retrievers

    for key in ("corpus", "qa"):
        if key not in cfg:
            raise InputError(f"[presets.finragbench-v]: set {key} = <path>")
    corpus = Corpus.open(cfg["corpus"])
    items = load_qa(cfg["qa"], corpus, qrels=cfg.get("qrels"))
    res = compare_retrievers(corpus, items, list(dict.fromkeys(retrievers.values())), k=max(k, 10),
                             metrics=("recall@10", "ndcg@10"), show_progress=show_progress,
                             **({"rerank": rerank["rerank"], "rerank_depth": rerank["rerank_depth"]} if rerank else {}))
    rows = []
    labels = [(row, name, name) for row, name in retrievers.items()]
    if rerank:
        labels += [(f"{row} + rerank", name, f"{name} >> {rerank['rerank']}") for row, name in retrievers.items()]
    for row, _name, label in labels:
        for group, vals in res["retrievers"][label]["groups"].items():
            if group != "overall" and not group.startswith("lang:"):
                continue
            lang = group.partition(":")[2]
            rows.append({"row": row, "retriever": label, "group": group, "ours": vals.get("recall@10"), "n": vals["n"],
                         "published": _published("finragbench-v", row, lang) if lang else None})
    return rows


def render_preset(result: dict) -> str:
    """Rows of the run beside the published numbers (published-only rows listed after)."""
    def fmt(v: Any) -> str:
        return "-" if v is None else f"{v:.2f}"

    metric = result["metric"].replace("ndcg", "nDCG").replace("recall", "Recall")
    head = ["paper row", "docrag retriever", "group", f"{metric} (this run)", result["label"], "n"]
    body = [[r["row"], r["retriever"], r["group"], fmt(r["ours"]),
             fmt(r["published"]) if r["published"] is not None else "not verified", str(r["n"])]
            for r in result["rows"]]
    body += [[row, "(not run)", "overall", "-", fmt(_published(result["preset"], row))
              if not isinstance(PUBLISHED[result["preset"]]["rows"][row], dict) else
              " / ".join(fmt(v) for v in PUBLISHED[result["preset"]]["rows"][row].values()), "-"]
             for row in result["published_only"]]
    body = [[c if c != "-" or i != 4 else "not verified" for i, c in enumerate(r)] for r in body]
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in body]
    lines.append(f"published numbers: {result['source']}")
    if result.get("rerank"):
        lines.append(f"rerank stage: {result['rerank']}")
    return "\n".join(lines)
