"""``docrag serve`` under load: 30 concurrent asks against 4 in flight + 8 queued, and a 5 MB question.

Starts the real server (``docrag serve``, a child process on 127.0.0.1, ephemeral port) over a
corpus (default: ``examples/pdfs`` ingested into a temp folder) with the ``slow-test:SECONDS``
generator of ``tests/support/slow_server.py`` (extractive after a cancellable sleep: a stand-in for
a model that takes a while) or any generator (``--generator extractive``). Then:

1. one ask (warm-up), the server's RSS read from /proc (VmRSS);
2. ``--concurrent`` asks at once: status codes, latency p50/p95/max of the answered and the
   refused ones, the RSS after them;
3. one 5 MB question: status and time to refusal.

    python benchmarks/serve_load.py [--corpus DIR] [--delay 0.5] [--generator extractive] [--concurrent 30]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.slow_server import SlowServer, rss_kib  # noqa: E402  (the repo root is on sys.path now)

log = logging.getLogger("serve_load")
QUESTION = "What was China's silicon carbide production capacity in 2010?"


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def burst(url: str, n: int, timeout: float) -> list[tuple[int, float]]:
    """``n`` asks released together (a barrier); ``(status, seconds)`` of each."""
    barrier = threading.Barrier(n)
    out: list[tuple[int, float]] = []

    def one() -> None:
        with httpx.Client(base_url=url, timeout=timeout, trust_env=False) as c:
            barrier.wait()
            t0 = time.monotonic()
            try:
                status = c.post("/ask", json={"question": QUESTION}).status_code
            except httpx.TimeoutException:
                status = 0   # the client gave up
            out.append((status, time.monotonic() - t0))

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def latency_row(label: str, rows: list[tuple[int, float]]) -> str:
    secs = [s for _, s in rows]
    if not secs:
        return f"| {label} | 0 | – | – | – |"
    return f"| {label} | {len(secs)} | {pct(secs, 0.5):.3f} | {pct(secs, 0.95):.3f} | {max(secs):.3f} |"


def ingest_examples(tmp: Path) -> Path:
    from docrag.ingestion import ingest

    out = tmp / "corpus"
    report = ingest([ROOT / "examples" / "pdfs"], out=out, show_progress=False)
    if report.failures:
        raise SystemExit(f"ingest failed: {report.failures}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, help="an ingested corpus (default: examples/pdfs, ingested now)")
    ap.add_argument("--delay", type=float, default=0.5, help="seconds the slow-test generator sleeps per answer")
    ap.add_argument("--generator", help="serve with this generator instead of slow-test:DELAY")
    ap.add_argument("--concurrent", type=int, default=30)
    ap.add_argument("--in-flight", type=int, default=4)
    ap.add_argument("--queue", type=int, default=8)
    ap.add_argument("--timeout", type=float, default=60.0, help="the server's time budget per question")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    env = {"DOCRAG_CONFIG": "/nonexistent/docrag.toml", "HF_HUB_OFFLINE": "1",
           "DOCRAG_SERVE_MAX_IN_FLIGHT": str(args.in_flight), "DOCRAG_SERVE_MAX_QUEUE": str(args.queue),
           "DOCRAG_SERVE_TIMEOUT": str(args.timeout)}
    os.environ.update(env)
    with tempfile.TemporaryDirectory(prefix="docrag-serve-load-") as tmp:
        corpus = args.corpus or ingest_examples(Path(tmp))
        log.info("corpus %s; starting the server", corpus)
        server = SlowServer(corpus, args.delay, env=env, args=["-g", args.generator] if args.generator else [])
        url = server.start(Path(tmp) / "server.log")
        try:
            with httpx.Client(base_url=url, timeout=args.timeout + 30, trust_env=False) as c:
                t0 = time.monotonic()
                first = c.post("/ask", json={"question": QUESTION})
                one_s = time.monotonic() - t0
                rss_one = rss_kib(server.pid)
                rows = burst(url, args.concurrent, args.timeout + 30)
                rss_burst = rss_kib(server.pid)
                t0 = time.monotonic()
                big = c.post("/ask", json={"question": "x" * 5 * 2**20})
                big_s = time.monotonic() - t0
                generator = c.get("/health").json()["generator"]
        finally:
            server.stop()
    codes = Counter(code for code, _ in rows)
    print(f"docrag serve, generator {generator}, {args.in_flight} in flight + {args.queue} queued, "
          f"time budget {args.timeout:g} s, {args.concurrent} concurrent asks\n")
    print("| requests | count | p50 s | p95 s | max s |\n|---|---:|---:|---:|---:|")
    print(latency_row("single ask (warm-up)", [(first.status_code, one_s)]))
    for code in sorted(codes):
        print(latency_row(f"burst: {code or 'client timeout'}", [r for r in rows if r[0] == code]))
    print(latency_row(f"5 MB question: {big.status_code}", [(big.status_code, big_s)]))
    print(f"\nstatus codes of the burst: {dict(sorted(codes.items()))}")
    print(f"server RSS: {rss_one / 1024:.0f} MiB after one ask, {rss_burst / 1024:.0f} MiB after the burst "
          f"(x{rss_burst / rss_one:.2f})")


if __name__ == "__main__":
    main()
