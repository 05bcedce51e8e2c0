"""Time to answer, measured side by side in one run with the real ``docrag`` console script:

- ``--help`` start-up: ``docrag --help``, ``docrag ingest --help``, ``docrag corpus info``;
- the first ``ask`` on a fresh corpus (it builds the retriever's index) against a warm ``ask``;
- N separate ``docrag ask`` processes against one ``docrag ask --questions FILE --out`` process
  answering the same N questions (same retriever, generator and k; index already built).

Wall time and CPU time (children included) are both reported: on a shared machine wall time
depends on the other jobs, CPU time much less. The load average at the start is printed.

    python benchmarks/time_to_answer.py [--n 20] [--retriever hybrid:bm25+minilm] [--write BENCHMARKS.md]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpus"
SECTION = "## Time to answer"
DOCRAG = str(Path(sys.executable).with_name("docrag"))


def timed(args: list[str], env: dict) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, stdout) of one ``docrag`` run; a failure aborts the benchmark."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([DOCRAG, *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"docrag {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    print(f"  {wall:7.2f} s wall  docrag {' '.join(a if len(a) < 60 else a[:57] + '...' for a in args)[:150]}",
          file=sys.stderr, flush=True)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20, help="questions (taken from the shared qa.jsonl, cycled)")
    ap.add_argument("--retriever", default="hybrid:bm25+minilm")
    ap.add_argument("--generator", default="extractive")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--write", type=Path, help="replace the '## Time to answer' section of this markdown file")
    args = ap.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "DOCRAG_CONFIG": "/nonexistent/docrag.toml"}
    load = os.getloadavg()
    rows: list[tuple[str, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="docrag-tta-") as tmp:
        corpus = Path(tmp) / "corpus"
        timed(["ingest", str(SHARED / "pdfs"), "--out", str(corpus), "--no-progress"], env)
        pages = json.loads(timed(["corpus", "info", str(corpus), "--json"], env)[2])["pages"]
        for label, cmd in (("docrag --help", ["--help"]), ("docrag ingest --help", ["ingest", "--help"]),
                           ("docrag corpus info", ["corpus", "info", str(corpus)])):
            best = min((timed(cmd, env) for _ in range(3)), key=lambda r: r[0])
            rows.append((label, best[0], best[1]))
        questions = [json.loads(x)["question"] for x in (SHARED / "qa.jsonl").read_text().splitlines() if x.strip()]
        questions = [questions[i % len(questions)] for i in range(args.n)]
        common = ["-r", args.retriever, "-g", args.generator, "-k", str(args.k), "--json", "--no-progress"]
        first = timed(["ask", str(corpus), questions[0], *common], env)
        rows.append((f"first ask (builds the {args.retriever} index, {pages} pages)", first[0], first[1]))
        warm = timed(["ask", str(corpus), questions[0], *common], env)
        rows.append(("warm ask (index on disk)", warm[0], warm[1]))
        sep_wall = sep_cpu = 0.0
        for q in questions:
            w, c, _ = timed(["ask", str(corpus), q, *common], env)
            sep_wall, sep_cpu = sep_wall + w, sep_cpu + c
        rows.append((f"{args.n} separate 'docrag ask' processes", sep_wall, sep_cpu))
        qfile = Path(tmp) / "questions.jsonl"
        qfile.write_text("".join(json.dumps({"id": f"q{i}", "question": q}) + "\n" for i, q in enumerate(questions)))
        batch = timed(["ask", str(corpus), "--questions", str(qfile), "--out", str(Path(tmp) / "a.jsonl"),
                       *[a for a in common if a != "--json"]], env)
        rows.append((f"one 'docrag ask --questions' process, {args.n} questions", batch[0], batch[1]))
    ratio_wall, ratio_cpu = sep_wall / batch[0], sep_cpu / max(batch[1], 1e-9)
    lines = [SECTION, "",
             f"Command: `python benchmarks/time_to_answer.py --n {args.n} --retriever {args.retriever} "
             f"--generator {args.generator}` ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPU cores, load average "
             f"{load[0]:.1f} at the start; shared dev corpus, {pages} pages; k = {args.k}). All rows in one run.",
             "", "| what | wall s | CPU s (children) |", "|---|---:|---:|"]
    lines += [f"| {name} | {w:.2f} | {c:.2f} |" for name, w, c in rows]
    lines += ["", f"`ask --questions` against {args.n} separate `ask` calls: **{ratio_wall:.1f}x** faster in wall "
              f"time, {ratio_cpu:.1f}x in CPU time (models loaded once, one batched retrieval per 16 questions).", ""]
    text = "\n".join(lines)
    print(text)
    if args.write:
        _replace_section(args.write, text)


def _replace_section(path: Path, text: str) -> None:
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if SECTION in old:
        head, _, rest = old.partition(SECTION)
        nxt = rest.find("\n## ")
        old = head + text + (rest[nxt + 1:] if nxt >= 0 else "")
    else:
        old = old.rstrip("\n") + "\n\n" + text
    tmp = path.with_suffix(".tmp")
    tmp.write_text(old, encoding="utf-8")
    shutil.move(tmp, path)


if __name__ == "__main__":
    main()
