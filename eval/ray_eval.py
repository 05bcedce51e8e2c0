"""``docrag eval --engine ray``: answers and answer verdicts made on a Ray actor pool.

:class:`RayEvaluator` is the :class:`~docrag.eval.runner.Evaluator` with its generation stage fanned
out: each actor builds the generator and the answer judge by name (as the local run does) and
answers questions; this process stays the one writer of ``answers.jsonl`` and ``judgements.jsonl``,
appending each record as its result arrives, so an interrupted run resumes from the records
written. Citation judging, the per-question records and the reports then run as in a local run
(they find the answers and verdicts already recorded). Page images are read by the actors from the
corpus folder (shared storage on a multi-node cluster).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import Any

from docrag.eval.answer_metrics import get_answer_judge
from docrag.eval.records import JudgementRecord
from docrag.eval.runner import Evaluator
from docrag.raycluster import cluster_cpus, cluster_gpus, ensure_ray
from docrag.types import Answer, Page

log = logging.getLogger(__name__)


class _EvalWorker:
    """Actor body: one generator and one answer judge, built by name."""

    def __init__(self, generator: str, gen_opts: dict, judge: str | None, judge_opts: dict) -> None:
        from docrag.generation import get_generator

        self.generator = get_generator(generator, **gen_opts)
        self.judge = get_answer_judge(judge, **judge_opts) if judge else None

    def answer(self, question: str, pages: list[Page], gold: str | None) -> tuple[dict, float, dict | None]:
        t0 = time.perf_counter()
        ans = self.generator.generate(question, pages)
        seconds = time.perf_counter() - t0
        verdict = None
        if self.judge is not None and gold is not None:
            verdict = self.judge.judge(question, gold, ans.answer).to_json()
        return ans.to_json(), seconds, verdict


class RayEvaluator(Evaluator):
    """An :class:`Evaluator` whose generation and answer judging run on Ray (see module docstring)."""

    def __init__(self, *args: Any, ray_address: str | None = None, actors: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ray_address = ray_address
        self.n_actors = actors

    def _per_question(self, retrieval, answers, judgements, *rest) -> dict[str, int]:
        made = self._answer_on_ray(retrieval, answers, judgements)
        done = super()._per_question(retrieval, answers, judgements, *rest)
        done["answers"] += made[0]
        done["judgements"] += made[1]
        return done

    def _answer_on_ray(self, retrieval, answers, judgements) -> tuple[int, int]:
        from tqdm import tqdm

        cfg = self.config
        todo = [it for it in self.items if it.qid not in answers]
        if not todo:
            return 0, 0
        settings = self.settings   # resolved by the caller, shipped to the actors
        judge_name = cfg.resolved_answer_judge
        if judge_name == "none" or self._answer_judge is not None:
            judge_name = None   # injected judges (tests, notebooks) stay local
        judge_opts = ({"rel_tol": cfg.rel_tol} if judge_name == "proxy"
                      else settings.backend_options(judge_name) if judge_name else {})
        ray = ensure_ray(self.ray_address)
        gpus = cluster_gpus(ray)
        n = self.n_actors or gpus or min(2, cluster_cpus(ray))
        per = {"num_gpus": 1} if gpus and cfg.generator.startswith("qwen-vl") else {"num_cpus": 1}
        actor = ray.remote(max_restarts=2, max_task_retries=2, **per)(_EvalWorker)
        pool = [actor.remote(cfg.generator, settings.generator_options(cfg.generator), judge_name, judge_opts)
                for _ in range(n)]
        log.info("eval on Ray: %d actor(s) answering %d question(s)", n, len(todo))
        queue = deque(todo)
        running: dict[Any, Any] = {}
        n_ans = n_judged = 0
        bar = tqdm(total=len(todo), desc="generation (ray)", unit="q", disable=not self.show_progress)
        try:
            while queue or running:
                while queue and len(running) < 2 * n:
                    item = queue.popleft()
                    pids = self._context_pages(item, retrieval)
                    ref = pool[len(running) % n].answer.remote(item.question, [self.corpus.page(p) for p in pids],
                                                               item.answer if judge_name else None)
                    running[ref] = (item, pids)
                ready, _ = ray.wait(list(running), num_returns=1)
                for ref in ready:
                    item, pids = running.pop(ref)
                    ans_json, seconds, verdict = ray.get(ref)
                    answers.add(self.answer_record(item, Answer.from_json(ans_json), pids, seconds, retrieval))
                    n_ans += 1
                    if verdict is not None and item.qid not in judgements:
                        judgements.add(JudgementRecord.from_json({"qid": item.qid, "verdict": verdict},
                                                                 "a Ray actor's answer verdict"))
                        n_judged += 1
                    bar.update(1)
        finally:
            bar.close()
            for ref in running:
                ray.cancel(ref)
            for a in pool:
                ray.kill(a)
        return n_ans, n_judged
