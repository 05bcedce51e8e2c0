"""Client-side cost of one ``openai:`` generation with k pages (load, resize, PNG-encode, parse).

A scripted OpenAI-compatible server on 127.0.0.1 answers instantly, so the time measured is
docrag's own work per question: loading the k page images, fitting them into 1024x768, encoding
them as PNG data URLs, the HTTP round trip on localhost and parsing the reply.

    python benchmarks/generation_openai_overhead.py --corpus <ingested corpus> [-k 10] [--format png]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from docrag.corpus import Corpus
from docrag.generation import get_generator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.openai_server import ScriptedOpenAIServer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True, type=Path)
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--format", default="png", choices=["png", "jpeg"])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    pages = Corpus.open(args.corpus).pages()[: args.k]
    reply = json.dumps({"answer": "x", "coordinates": {"1": [[10, 10, 100, 100]]}})
    times = []
    with ScriptedOpenAIServer(reply) as srv:
        gen = get_generator("openai:bench", base_url=srv.base_url, api_key="k", image_format=args.format)
        for _ in range(args.repeats):
            t = time.perf_counter()
            gen.generate("What was the total?", pages)
            times.append(time.perf_counter() - t)
        body = sum(len(json.dumps(r)) for r in srv.requests) / len(srv.requests)
    print(f"| {len(pages)} | {args.format} | {statistics.median(times):.2f} | {min(times):.2f} | {body / 1e6:.1f} |")


if __name__ == "__main__":
    main()
