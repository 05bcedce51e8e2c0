"""A slow generator for load tests, and ``docrag serve`` started with it in a child process.

``slow-test:SECONDS`` answers exactly like ``extractive`` (MiniLM off, so it starts fast) after
sleeping SECONDS in steps of at most 50 ms with a cancel checkpoint after each step: a stand-in for
a model that takes a while and stops when its work is cancelled. With ``SLOW_TEST_GATE=PATH`` in the
environment it first waits (cancellably) until PATH exists, so a test decides when answers may finish.
It is registered in the generator
registry by importing this module, so the real server picks it by name.

``python -m tests.support.slow_server CORPUS SECONDS [serve options]`` runs ``docrag serve CORPUS
-r bm25 -g slow-test:SECONDS --port 0 [serve options]`` (limits from ``DOCRAG_SERVE_*``; a later
``-g NAME`` wins); :class:`SlowServer` starts it, reads the URL it prints, and stops it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docrag.cancel import checkpoint
from docrag.generation.extractive import ExtractiveGenerator
from docrag.generation.registry import GENERATORS
from docrag.types import Answer, Page

ROOT = Path(__file__).resolve().parents[2]
STEP_S = 0.05


class SlowGenerator:
    """``extractive`` after ``delay`` seconds of cancellable sleeping (a test double)."""

    def __init__(self, delay: float, **options: Any) -> None:
        self.delay = delay
        self.inner = ExtractiveGenerator(**{"embed": False, **options})
        self.name = f"slow-test:{delay:g}"

    def generate(self, question: str, pages: Sequence[Page]) -> Answer:
        gate = os.environ.get("SLOW_TEST_GATE")
        while gate and not Path(gate).exists():
            time.sleep(STEP_S)
            checkpoint("the slow test generator (waiting for its gate)")
        end = time.monotonic() + self.delay
        while (left := end - time.monotonic()) > 0:
            time.sleep(min(STEP_S, left))
            checkpoint("the slow test generator")
        answer = self.inner.generate(question, pages)
        answer.generator = self.name
        return answer


@GENERATORS.register("slow-test", needs_arg=True, help="test double: extractive after SECONDS of sleeping")
def make_slow(arg: str | None = None, **options: Any) -> SlowGenerator:
    return SlowGenerator(float(arg or 0), **options)


class SlowServer:
    """``docrag serve`` with the slow generator in a child process; ``url`` and ``pid`` once started."""

    def __init__(self, corpus: Path, delay: float, env: dict[str, str] | None = None,
                 args: Sequence[str] = ()) -> None:
        self.corpus, self.delay, self.args = corpus, delay, list(args)
        self.env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT), **(env or {})}
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self, log_path: Path, timeout: float = 120.0) -> str:
        """Start the child (its output goes to ``log_path``) and wait for the URL it prints."""
        self.log_path = log_path
        with open(log_path, "w") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "tests.support.slow_server", str(self.corpus),
                                          str(self.delay), *self.args], cwd=ROOT, env=self.env, stdout=out,
                                         stderr=subprocess.STDOUT, text=True)
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout and self.proc.poll() is None:
            found = re.search(r"docrag API at (http://\S+)", log_path.read_text())
            if found:
                self.url = found.group(1)
                return self.url
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("the server did not start:\n" + log_path.read_text()[-3000:])

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def rss_kib(pid: int) -> int:
    """Resident memory of process ``pid`` (``VmRSS`` of /proc/PID/status), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def main(argv: Sequence[str]) -> None:
    from docrag.apps.cli import main as cli_main

    corpus, delay, *rest = argv
    sys.argv = ["docrag", "serve", corpus, "-r", "bm25", "-g", f"slow-test:{delay}", "--port", "0", *rest]
    cli_main()


if __name__ == "__main__":
    main(sys.argv[1:])
