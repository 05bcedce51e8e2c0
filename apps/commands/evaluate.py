"""``docrag eval`` (resumable batch evaluation into a RUN_DIR), ``docrag compare`` (retrievers) and
``docrag compare-runs`` (eval runs side by side)."""

from __future__ import annotations

from pathlib import Path

import typer

from docrag.apps.commands.common import (
    check_retrievers,
    cite_by_generator_options,
    cite_by_option,
    encoding_options,
    ground_option,
    show_progress,
    top_k_option,
)
from docrag.apps.commands.index import RERANK_DEPTH_HELP, RERANK_HELP, rerank_options, use_store
from docrag.config import DEFAULT_ANSWER_JUDGE, DEFAULT_CONTEXT, DEFAULT_LEVELS, DEFAULT_MODE, load_settings
from docrag.errors import DocragError, InputError
from docrag.evidence import BLOCK_MODES, CONTEXTS, LEVELS


def _levels(value: str) -> tuple[str, ...]:
    levels = tuple(v.strip() for v in value.split(",") if v.strip())
    bad = [v for v in levels if v not in LEVELS]
    if bad or not levels:
        raise typer.BadParameter(f"--levels {value!r}: use page, block or page,block")
    return levels


def register(app: typer.Typer) -> None:
    """Add ``eval``, ``compare`` and ``compare-runs`` to ``app``."""

    @app.command("eval")
    def eval_cmd(
        corpus: Path = typer.Argument(..., help="Corpus folder (made by 'docrag ingest')."),
        qa: Path = typer.Option(..., "--qa",
                                help="Questions: our QA JSONL, or FinRAGBench-V queries (JSON/JSONL)."),
        out: Path = typer.Option(..., "--out", "-o", help="RUN_DIR: records, reports and plots go here (resumable)."),
        qrels: Path | None = typer.Option(None, "--qrels",
                                          help="FinRAGBench-V qrels TSV (query-id, corpus-id, score)."),
        retriever: str | None = typer.Option(None, "--retriever", "-r",
                                             help="Retriever name (bm25, minilm, lang-hybrid:bm25+minilm, "
                                                  "colqwen2:<path>, none). "
                                                  "Default: DOCRAG_RETRIEVER / config file / built-in."),
        generator: str | None = typer.Option(None, "--generator", "-g",
                                             help="Generator name (extractive, openai:<model>, qwen-vl:<path>, none). "
                                                  "Default: DOCRAG_GENERATOR / config file / built-in."),
        judge: str | None = typer.Option(None, "--judge", "-j",
                                         help="Citation judge (grounding, openai:<model>, qwen-vl:<path>, none). "
                                              "Default: DOCRAG_JUDGE / config file / built-in."),
        answer_judge: str = typer.Option(DEFAULT_ANSWER_JUDGE, "--answer-judge",
                                         help="Answer-accuracy judge: auto (the citation judge when it is a "
                                              "model, else proxy), proxy (offline numeric/ROUGE proxy), none, "
                                              "openai:<model>."),
        context: str = typer.Option(DEFAULT_CONTEXT, "--context",
                                    help="Pages the generator sees: retrieved (top k), oracle (gold pages), none."),
        k: int = top_k_option(),
        levels: str = typer.Option(",".join(DEFAULT_LEVELS), "--levels",
                                   help="Citation levels to judge: page, block or both."),
        mode: str = typer.Option(DEFAULT_MODE, "--mode",
                                 help="Block-level judging: crop (image-cropping) or box (box-bounding)."),
        limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N questions."),
        index_dir: Path | None = typer.Option(None, "--index-dir",
                                              help="Index folder (default CORPUS/indexes/<name>)."),
        rebuild_index: bool = typer.Option(False, "--rebuild-index",
                                           help="Re-encode the retriever's index (e.g. after its settings changed)."),
        store: str | None = typer.Option(None, "--store", help="Where vectors live: embedded (default) or "
                                         "qdrant:PATH (local mode, optional #NAME) / qdrant:http(s)://HOST:PORT/NAME."),
        overwrite: bool = typer.Option(False, "--overwrite",
                                       help="Discard RUN_DIR if it holds a run with another config."),
        engine: str = typer.Option("local", "--engine",
                                   help="local, or ray: generate and judge answers on a Ray actor pool."),
        ray_address: str | None = typer.Option(None, "--ray-address",
                                               help="Ray cluster for --engine ray (default $RAY_ADDRESS, else local)."),
        coords: str | None = typer.Option(
            None, "--coords", help="Box convention of a vision generator's replies: auto (openai: default, from "
                                   "the model name), pixel, model_pixels, norm1000, norm1000_yx."),
        ground: str | None = ground_option(),
        cite_by: str | None = cite_by_option(),
        batch_size: int | None = typer.Option(None, "--batch-size", min=1,
                                              help="Pages per encoding batch (model retrievers; not part of the "
                                                   "run's identity)."),
        device: str | None = typer.Option(None, "--device", help="cuda, mps or cpu for the retriever's model."),
        progress: bool | None = typer.Option(None, "--progress/--no-progress",
                                             help="Show progress bars (default: when stderr is a terminal)."),
        rerank: str | None = typer.Option(None, "--rerank", help=RERANK_HELP),
        rerank_depth: int | None = typer.Option(None, "--rerank-depth", min=1, help=RERANK_DEPTH_HELP),
        pixel_empty: str = typer.Option("skip", "--pixel-empty",
                                        help="Pixel grounding: a page neither side boxed is skipped, one or zero."),
        pixel_average: str = typer.Option("query", "--pixel-average",
                                          help="Pixel grounding: average per question (query) or over pages."),
        pixel_best: str = typer.Option("page", "--pixel-best",
                                       help="Pixel grounding: keep the best annotator per page or per question."),
    ) -> None:
        """Evaluate retrieval, answers and citations on a question set; resumes an interrupted RUN_DIR."""
        use_store(store)
        from docrag.eval.report import GEN_COLUMNS, column_label, metric_label
        from docrag.eval.runner import EvalConfig, Evaluator

        if context not in CONTEXTS:
            raise typer.BadParameter(f"--context {context!r}: use {', '.join(CONTEXTS)}")
        if mode not in BLOCK_MODES:
            raise typer.BadParameter(f"--mode {mode!r}: use crop or box")
        if pixel_empty not in ("skip", "one", "zero"):
            raise typer.BadParameter(f"--pixel-empty {pixel_empty!r}: use skip, one or zero")
        if pixel_average not in ("query", "page"):
            raise typer.BadParameter(f"--pixel-average {pixel_average!r}: use query or page")
        if pixel_best not in ("page", "question"):
            raise typer.BadParameter(f"--pixel-best {pixel_best!r}: use page or question")
        from docrag.generation.conventions import coords_options

        settings = load_settings()   # resolved once, here; the runner gets them passed in
        gen_name = generator or settings.generator
        try:
            gen_coords = coords_options(coords, gen_name).get("coords")
        except InputError as exc:
            raise typer.BadParameter(str(exc)) from exc
        if coords is not None and gen_coords is None:
            raise typer.BadParameter(f"--coords applies to vision generators (openai:, qwen-vl:), not {gen_name!r}")
        gen_cite_by = cite_by_generator_options(cite_by, gen_name).get("cite_by")
        config = EvalConfig.from_settings(settings, retriever=retriever, generator=gen_name, coords=gen_coords,
                                          ground=ground, cite_by=gen_cite_by,
                                          judge=judge, answer_judge=answer_judge,
                                          context=context, k=k, levels=_levels(levels), mode=mode,
                                          index_dir=str(index_dir) if index_dir else None,
                                          pixel_empty=pixel_empty, pixel_average=pixel_average,
                                          pixel_best=pixel_best, **rerank_options(rerank, rerank_depth))
        if qa.is_dir() and not (corpus / "manifest.json").exists():   # a local ViDoRe V3 copy: build its corpus
            from docrag.eval.vidore_v3 import build_corpus, read_dataset

            build_corpus(read_dataset(qa), corpus, show_progress=show_progress(progress))
        if engine not in ("local", "ray"):
            raise typer.BadParameter(f"{engine!r} is not one of local, ray", param_hint="--engine")

        opts = {} if config.retriever == "none" else encoding_options(batch_size, device)
        extra: dict = {}
        runner_cls = Evaluator
        if engine == "ray":
            from docrag.eval.ray_eval import RayEvaluator

            runner_cls, extra = RayEvaluator, {"ray_address": ray_address}
        ev = runner_cls.from_files(corpus, qa, out, config, qrels=qrels, limit=limit, overwrite=overwrite,
                                   show_progress=show_progress(progress), rebuild_index=rebuild_index,
                                   retriever_options=opts, settings=settings, **extra)
        report = ev.run()
        ret, gen = report.get("retrieval"), report.get("generation")
        if ret:
            ov = ret["groups"]["overall"]
            typer.echo("retrieval  " + "  ".join(f"{metric_label(m)} {ov[m]:.2f}" for m in ret["metrics"])
                       + f"  (n={ov['n']}, pytrec_eval max diff {ret['pytrec_eval_max_abs_diff']})")
        if gen:
            ov = gen["groups"]["overall"]
            shown = [f"{column_label(c, gen)} {'-' if ov.get(c) is None else format(ov[c], '.2f')}"
                     for c in GEN_COLUMNS]
            typer.echo("generation " + "  ".join(shown) + f"  (n={ov['n']})")
            typer.echo("stages     " + "  ".join(f"{s} {n}" for s, n in ov["attribution"].items()))
        errors = report.get("errors") or {}
        if errors.get("n"):
            typer.echo(f"errors     {errors['n']} question(s) failed "
                       f"({', '.join(f'{k} {v}' for k, v in errors['by_stage'].items())}); see {out}/errors.jsonl "
                       "and run the same command again to retry only them", err=True)
        typer.echo(f"reports in {out}/report.md (json, csv, png beside it)")

    @app.command("compare")
    def compare_cmd(
        corpus: Path | None = typer.Argument(None, help="Corpus folder (not with --preset)."),
        qa: Path | None = typer.Option(None, "--qa", help="Questions (our QA JSONL, FinRAGBench-V queries, or a "
                                                          "local ViDoRe V3 folder)."),
        preset: str | None = typer.Option(None, "--preset",
                                          help="finragbench-v or vidore-v3: the paper's retrievers on the local "
                                               "data named in the config's [presets.<name>], beside the paper's "
                                               "published numbers."),
        retrievers: str = typer.Option("bm25,minilm,lang-hybrid:bm25+minilm", "--retrievers",
                                       help="Comma-separated retriever names, e.g. bm25,minilm,colqwen2:<path>."),
        qrels: Path | None = typer.Option(None, "--qrels", help="FinRAGBench-V qrels TSV."),
        k: int = top_k_option(),
        per_category: bool = typer.Option(False, "--per-category", help="Also one row per category and language."),
        out: Path | None = typer.Option(None, "--out", "-o", help="Write the results as JSON to this file."),
        runs_dir: Path | None = typer.Option(None, "--runs-dir",
                                             help="Write each retriever's TREC run + qrels here "
                                                  "(default with --out FILE.json: FILE.runs/)."),
        limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N questions."),
        index_dir: Path | None = typer.Option(None, "--index-dir",
                                              help="Parent folder for the indexes (default: inside CORPUS)."),
        rebuild_index: bool = typer.Option(False, "--rebuild-index",
                                           help="Re-encode every index (e.g. after retriever settings changed)."),
        metrics: str | None = typer.Option(
            None, "--metrics", help="Comma-separated metrics (ndcg@K, recall@K, mrr@K, map@K, p@K); default "
                                    "nDCG@1/3/5/10, Recall@5/10, MRR@10, MAP@10, P@1/5."),
        batch_size: int | None = typer.Option(None, "--batch-size", min=1,
                                              help="Pages per encoding batch (model retrievers)."),
        device: str | None = typer.Option(None, "--device", help="cuda, mps or cpu (default: best available)."),
        store: str | None = typer.Option(None, "--store", help="Where vectors live: embedded (default) or "
                                         "qdrant:PATH (local mode, optional #NAME) / qdrant:http(s)://HOST:PORT/NAME."),
        progress: bool | None = typer.Option(None, "--progress/--no-progress",
                                             help="Show progress bars (default: when stderr is a terminal)."),
        rerank: str | None = typer.Option(None, "--rerank", help=RERANK_HELP),
        rerank_depth: int | None = typer.Option(None, "--rerank-depth", min=1, help=RERANK_DEPTH_HELP),
    ) -> None:
        """Compare retrievers: nDCG@1/3/5/10, Recall@5/10, MRR@10, MAP@10, P@1/5 (in percent)."""
        use_store(store)
        if preset is not None:
            from docrag.eval.presets import render_preset, run_preset

            result = run_preset(preset, load_settings(), k=k, show_progress=show_progress(progress),
                                rerank=rerank_options(rerank, rerank_depth) if rerank else None)
            typer.echo(render_preset(result))
            if out is not None:
                from docrag.eval.compare import write_compare_json

                write_compare_json(result, out)
            return
        if corpus is None or qa is None:
            raise typer.BadParameter("give CORPUS and --qa (or --preset finragbench-v|vidore-v3)")
        from docrag.corpus import Corpus
        from docrag.eval.compare import compare_retrievers, render_table, write_compare_json
        from docrag.eval.data import load_qa
        from docrag.eval.retrieval_metrics import COMPARE_METRICS, parse_metric

        names = [r.strip() for r in retrievers.split(",") if r.strip()]
        if not names:
            raise typer.BadParameter("--retrievers: give at least one retriever name")
        if len(set(names)) != len(names):
            raise typer.BadParameter(f"--retrievers {retrievers!r}: a retriever is named twice")
        check_retrievers(names, "--retrievers")
        metric_names = tuple(m.strip().lower() for m in metrics.split(",") if m.strip()) if metrics else COMPARE_METRICS
        for m in metric_names:
            try:
                parse_metric(m)
            except DocragError as exc:
                raise typer.BadParameter(str(exc), param_hint="--metrics") from None
        if runs_dir is None and out is not None:
            runs_dir = out.with_suffix(".runs")
        c = Corpus.open(corpus)
        items = load_qa(qa, c, qrels=qrels, limit=limit)
        result = compare_retrievers(c, items, names, k=k, index_dir=index_dir, runs_dir=runs_dir,
                                    show_progress=show_progress(progress), rebuild=rebuild_index,
                                    metrics=metric_names, retriever_options=encoding_options(batch_size, device),
                                    **rerank_options(rerank, rerank_depth))
        result["qa"] = str(qa)
        typer.echo(render_table(result, per_category=per_category))
        if out is not None:
            write_compare_json(result, out)
            typer.echo(f"results written to {out}; run files in {runs_dir}")

    @app.command("compare-runs")
    def compare_runs_cmd(
        runs: list[Path] = typer.Argument(..., help="RUN_DIRs made by 'docrag eval' (e.g. text-only vs multimodal)."),
        group: str = typer.Option("overall", "--group", help="Report group: overall, category:<name>, lang:<en|zh>."),
        out: Path | None = typer.Option(None, "--out", "-o", help="Write the table as JSON to this file."),
    ) -> None:
        """Put the headline numbers of several eval runs side by side."""
        from docrag.eval.compare import compare_runs, render_runs_table, write_compare_json

        result = compare_runs(runs, group=group)
        if all(r["n"] == 0 for r in result["runs"]):
            raise typer.BadParameter(f"no run has a group {group!r}; use overall, category:<name> or lang:<code> "
                                     "as named in report.json", param_hint="--group")
        typer.echo(render_runs_table(result))
        if not result["same_question_count"]:
            typer.echo("note: the runs cover different numbers of questions", err=True)
        if out is not None:
            write_compare_json(result, out)
