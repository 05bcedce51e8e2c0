"""``docrag cite ANSWERS --corpus DIR``: citation recall/precision of saved answers (spec §4).

ANSWERS is a JSONL file of answers: ``Answer.to_json()`` records, or records with ``qid`` and an
``answer`` object (as the evaluation runner writes them). Prints the dataset scores as JSON;
``--out`` writes one result per answer and level; ``--dry-run`` only estimates judge calls.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from docrag.config import DEFAULT_JUDGE, DEFAULT_LEVELS, DEFAULT_MODE
from docrag.evidence import BLOCK_MODES, LEVELS


def _load_answers(path: Path) -> list:
    from docrag.errors import InputError
    from docrag.types import Answer

    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                if isinstance(rec.get("answer"), dict):
                    ans = Answer.from_json(rec["answer"])
                    if rec.get("qid") is not None:
                        ans.meta = {**ans.meta, "qid": str(rec["qid"])}
                else:
                    ans = Answer.from_json(rec)
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise InputError(f"{path}:{n}: not an answer record ({exc}); expected Answer JSON "
                                 "or {{qid, answer: {{...}}}}") from None
            out.append(ans)
    return out


def _options(pairs: list[str]) -> dict:
    opts: dict = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"--judge-option takes key=value, got {pair!r}")
        try:
            opts[key] = json.loads(value)
        except json.JSONDecodeError:
            opts[key] = value
    return opts


def register(app: typer.Typer) -> None:
    """Add ``cite`` to ``app``."""

    @app.command("cite")
    def cite(
        answers: Path = typer.Argument(..., exists=True, dir_okay=False, help="JSONL file of answers."),
        corpus: Path = typer.Option(..., "--corpus", "-c", help="Corpus folder the answers cite."),
        judge: str = typer.Option(DEFAULT_JUDGE, "--judge", "-j",
                                  help="grounding | oracle | openai:<model> | qwen-vl:<path>."),
        level: list[str] = typer.Option(list(DEFAULT_LEVELS), "--level", help="page and/or block."),
        mode: str = typer.Option(DEFAULT_MODE, "--mode", help="Block level: crop (image-cropping) or box (red boxes)."),
        cache: Path | None = typer.Option(None, "--cache", help="Verdict cache (JSONL); reruns cost nothing."),
        gold: Path | None = typer.Option(None, "--gold", help="qa.jsonl with gold boxes (for --judge oracle)."),
        judge_option: list[str] = typer.Option([], "--judge-option", "-o", help="key=value for the judge."),
        out: Path | None = typer.Option(None, "--out", help="Write per-answer results (JSONL)."),
        evidence: Path | None = typer.Option(None, "--evidence", help="Save crops/overlays/pages here."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Only estimate judge calls."),
        progress: bool | None = typer.Option(None, "--progress/--no-progress",
                                             help="Show progress bars (default: when stderr is a terminal)."),
    ) -> None:
        """Score the visual citations of saved answers with a citation judge."""
        from docrag.apps.commands.common import show_progress
        from docrag.citation import citation_scores, dry_run_many, evaluate_many, get_judge, save_evidence
        from docrag.corpus import Corpus
        from docrag.io import write_jsonl

        for lv in level:
            if lv not in LEVELS:
                raise typer.BadParameter(f"--level must be page or block, got {lv!r}")
        if mode not in BLOCK_MODES:
            raise typer.BadParameter(f"--mode must be crop or box, got {mode!r}")
        store = Corpus.open(corpus)
        items = _load_answers(answers)
        opts = _options(judge_option)
        if gold is not None:
            with open(gold, encoding="utf-8") as fh:
                opts.update(qa=[json.loads(x) for x in fh if x.strip()], corpus=store)
        jd = get_judge(judge, **opts)
        if dry_run:
            typer.echo(json.dumps(dry_run_many(items, store, jd, levels=level, mode=mode, cache=cache), indent=1))
            return
        results = evaluate_many(items, store, jd, levels=level, mode=mode, cache=cache,
                                progress=show_progress(progress))
        if out is not None:
            write_jsonl(out, [r.to_json() for r in results])
        if evidence is not None:
            for ans in items:
                save_evidence(ans, store, evidence)
        typer.echo(json.dumps(citation_scores(results), indent=1))
