"""``docrag index`` (build or update a retriever's index of a corpus) and ``docrag search``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer

from docrag.apps.commands.common import check_retrievers, show_progress, top_k_option
from docrag.config import load_settings
from docrag.errors import InputError


def _parse_filters(items: list[str]) -> dict:
    """``key=value`` (repeat a key, or use commas, for several values) -> filter dict."""
    out: dict[str, list] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"--filter {item!r}: expected FIELD=VALUE (e.g. lang=en, doc_id=abc,def)")
        vals: list = [v.strip() for v in value.split(",") if v.strip()]
        if key.strip() in ("page_no", "pages"):
            try:
                vals = [int(v) for v in vals]
            except ValueError:
                raise typer.BadParameter(f"--filter {item!r}: page_no takes integers") from None
        out.setdefault(key.strip(), []).extend(vals)
    return out


def _retriever_options(device: str | None, batch_size: int | None, pool_factor: int | None,
                       dtype: str | None = None, trust_remote_code: bool = False, dim: int | None = None) -> dict:
    opts: dict = {}
    if trust_remote_code:
        opts["trust_remote_code"] = True
    if dim:
        opts["dim"] = dim
    if device:
        opts["device"] = device
    if dtype:
        opts["dtype"] = dtype
    if batch_size:
        opts["batch_size"] = batch_size
    if pool_factor and pool_factor > 1:
        opts["pool_factor"] = pool_factor
    return opts


STORE_HELP = ("Where vectors live: embedded (default, or the config's 'store'), qdrant:PATH (local mode; "
              "PATH#NAME names the collection) or qdrant:http(s)://HOST:PORT/NAME (API key from $QDRANT_API_KEY).")


def _check_store(store: str | None) -> str | None:
    """``--store`` checked early (usage error, exit 2), passed on unchanged."""
    if store is None:
        return None
    from docrag.index.qdrant_store import parse_store

    try:
        parse_store(store)
    except InputError as exc:
        raise typer.BadParameter(str(exc), param_hint="--store") from None
    return store


def use_store(store: str | None) -> None:
    """Make ``--store`` the default of every index this process opens (ask, eval, compare, view)."""
    if _check_store(store) is not None:
        os.environ["DOCRAG_STORE"] = str(store)


TRUST_HELP = ("Let a local checkpoint run its own Python code (VisRAG-Ret, jina-colbert-v2, jina-embeddings-v4, "
              "nemotron-colembed). Off by default; recorded in the index, and needed again to search it.")
RERANK_HELP = ("Rerank stage: cross-encoder:<path> (page text), qwen3-vl-rerank:<path> or monoqwen:<path> "
               "(page image), openai-rerank:<model> (vLLM /rerank). Default: config file / DOCRAG_RERANK (none).")
RERANK_DEPTH_HELP = "First-stage pages the reranker rescores per query (default: config / 20; at least k)."


def rerank_options(rerank: str | None, depth: int | None) -> dict:
    """``rerank``/``rerank_depth`` options of ``open_index`` from flags, else the config file / env."""
    settings = load_settings()
    name = settings.rerank if rerank is None else rerank
    if rerank == "none":
        return {"rerank": None}   # explicitly off, also over the config file
    if not name or name == "none":
        return {}
    return {"rerank": name, "rerank_depth": depth or settings.rerank_depth}


def _default_retriever() -> str:
    """The retriever ``ask`` uses: DOCRAG_RETRIEVER, the config file, or the built-in default."""
    return load_settings().retriever


def search_row(corpus, hit, query: str) -> dict:
    """One search result: rank, score, file, page, ids, a text snippet and the page image's path."""
    from docrag.snippet import snippet

    page = corpus.page(hit.page_id)
    return {"rank": hit.rank, "score": round(float(hit.score), 6), "file_name": page.file_name,
            "page_no": page.page_no, "page_id": hit.page_id, "retriever": hit.retriever,
            "snippet": snippet(page.text, query), "image": str(page.image_path)}


def register(app: typer.Typer) -> None:
    """Add ``index`` and ``search`` to ``app``."""

    @app.command("index")
    def index_cmd(
        corpus: Path = typer.Argument(..., help="Corpus folder (made by 'docrag ingest')."),
        retriever: str | None = typer.Option(None, "--retriever", "-r",
                                             help="Retriever name, e.g. bm25, minilm, colqwen2:<path>, "
                                                  "hybrid:bm25+minilm (default: as for 'ask')."),
        index_dir: Path | None = typer.Option(None, "--index-dir",
                                              help="Index folder (default CORPUS/indexes/<name>)."),
        device: str | None = typer.Option(None, "--device", help="cuda, mps or cpu (default: best available)."),
        dtype: str | None = typer.Option(None, "--dtype", help="float32, bfloat16 or float16 (default: bf16 on GPU, "
                                                                "fp32 on CPU)."),
        batch_size: int | None = typer.Option(None, "--batch-size", min=1, help="Pages per encoding batch."),
        pool_factor: int | None = typer.Option(None, "--pool-factor", min=1,
                                               help="Multi-vector token pooling factor (hierarchical pooling)."),
        binarize: bool = typer.Option(False, "--binarize", help="Also store sign bits for a popcount first stage."),
        rebuild: bool = typer.Option(False, "--rebuild", help="Discard the existing index and encode every page."),
        progress: bool | None = typer.Option(None, "--progress/--no-progress",
                                             help="Show progress bars (default: when stderr is a terminal)."),
        store: str | None = typer.Option(None, "--store", help=STORE_HELP),
        engine: str = typer.Option("local", "--engine", help="local, or ray: encode on a Ray actor pool "
                                                             "(one model replica per GPU, else 2 CPU actors)."),
        ray_address: str | None = typer.Option(None, "--ray-address",
                                               help="Ray cluster for --engine ray (default $RAY_ADDRESS, else local)."),
        ray_actors: int | None = typer.Option(None, "--ray-actors", min=1,
                                              help="Encoder actors for --engine ray (default: one per GPU, else 2)."),
        trust_remote_code: bool = typer.Option(False, "--trust-remote-code", help=TRUST_HELP),
        dim: int | None = typer.Option(None, "--dim", min=1,
                                       help="Matryoshka (MRL) dimension of dse:/qwen3-vl-embed:/openai-embed: "
                                            "vectors (stored in the index)."),
    ) -> None:
        """Build or update the index of CORPUS for a retriever (only new documents are encoded)."""
        from docrag.index import open_index

        retriever = retriever or _default_retriever()
        opts = _retriever_options(device, batch_size, pool_factor, dtype, trust_remote_code, dim)
        if binarize:
            opts["binarize"] = True
        if rebuild:
            opts["rebuild"] = True
        if engine not in ("local", "ray"):
            raise typer.BadParameter(f"{engine!r} is not one of local, ray", param_hint="--engine")
        idx = open_index(corpus, retriever, index_dir=index_dir, build=True, show_progress=show_progress(progress),
                         store=_check_store(store), engine=engine, ray_address=ray_address,
                         ray_actors=ray_actors, **opts)
        where = getattr(idx, "dir", None) or index_dir or "(part indexes)"
        if getattr(idx, "collection", None):
            where = f"{idx.spec.describe()} collection {idx.collection}"
        typer.echo(f"{retriever}: {len(idx)} page(s) indexed in {where}")

    @app.command("search")
    def search_cmd(
        corpus: Path = typer.Argument(..., help="Corpus folder."),
        query: str = typer.Argument(..., help="The question or keywords."),
        retriever: str | None = typer.Option(None, "--retriever", "-r",
                                             help="Retriever name (default: as for 'ask')."),
        k: int = top_k_option("How many pages to return (default: config file k / DOCRAG_K / 10)."),
        index_dir: Path | None = typer.Option(None, "--index-dir",
                                              help="Index folder (default CORPUS/indexes/<name>)."),
        filters: list[str] = typer.Option([], "--filter", "-f",
                                          help="Only pages with FIELD=VALUE (doc_id, file_name, lang, page_no, ...)."),
        device: str | None = typer.Option(None, "--device", help="cuda, mps or cpu."),
        batch_size: int | None = typer.Option(None, "--batch-size", min=1,
                                              help="Pages per encoding batch (when the index is built or updated)."),
        as_json: bool = typer.Option(False, "--json", help="Print hits as JSON (with snippet and page image path)."),
        build: bool = typer.Option(True, "--build/--no-build",
                                   help="Build or update the index first when the corpus changed."),
        progress: bool | None = typer.Option(None, "--progress/--no-progress",
                                             help="Show progress bars (default: when stderr is a terminal)."),
        store: str | None = typer.Option(None, "--store", help=STORE_HELP),
        rerank: str | None = typer.Option(None, "--rerank", help=RERANK_HELP),
        rerank_depth: int | None = typer.Option(None, "--rerank-depth", min=1, help=RERANK_DEPTH_HELP),
        trust_remote_code: bool = typer.Option(False, "--trust-remote-code", help=TRUST_HELP),
    ) -> None:
        """Search CORPUS and print the best pages (rank, score, file name, page) with a text snippet."""
        from docrag.corpus import Corpus
        from docrag.index import open_index

        retriever = retriever or _default_retriever()
        check_retrievers([retriever])
        c = Corpus.open(corpus)
        idx = open_index(c, retriever, index_dir=index_dir, build=build, show_progress=show_progress(progress),
                         store=_check_store(store),
                         **_retriever_options(device, batch_size, None, trust_remote_code=trust_remote_code),
                         **rerank_options(rerank, rerank_depth))
        hits = idx.search(query, k=k, filter=_parse_filters(filters) or None)
        rows = []
        for h in hits:
            rows.append(search_row(c, h, query))
            if h.reranker:
                rows[-1].update(reranker=h.reranker, first_stage_score=round(float(h.first_stage_score), 6),
                                first_stage_rank=h.first_stage_rank)
        if as_json:
            typer.echo(json.dumps(rows, ensure_ascii=False, indent=1))
            return
        if not rows:
            typer.echo("no matching pages")
        for r in rows:
            first = (f"  (first stage #{r['first_stage_rank']} {r['first_stage_score']:.4f})"
                     if r.get("reranker") else "")
            typer.echo(f"{r['rank']:>3}  {r['score']:>10.4f}  {r['file_name']}  p.{r['page_no']}{first}")
            if r["snippet"]:
                typer.echo(f"       {r['snippet']}")
