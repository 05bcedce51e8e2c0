"""``docrag serve`` bounds what a client can ask for: sizes (413/422), load (503), time (504), disconnects.

The in-process tests serve the synthetic corpus with the ``slow-test:SECONDS`` generator
(:mod:`tests.support.slow_server`: extractive after a cancellable sleep); the load test starts the
real ``docrag serve`` in a child process so that its memory can be read from /proc.
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from docrag.apps.server import ServerThread, create_app
from docrag.cancel import Cancelled, CancelToken
from docrag.config import ServeLimits, load_settings
from docrag.errors import InputError
from tests.support.slow_server import SlowGenerator, SlowServer, rss_kib

FIVE_MB = 5 * 2**20


@pytest.fixture(scope="module")
def corpus_dir(synthetic_corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    dst = tmp_path_factory.mktemp("serve-limits") / "corpus"
    shutil.copytree(synthetic_corpus_dir, dst)
    return dst


@pytest.fixture(autouse=True)
def no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCRAG_CONFIG", str(tmp_path / "none.toml"))


@contextmanager
def serving(corpus_dir: Path, delay: float, **limits: float) -> Iterator[tuple[str, object]]:
    """An in-process server with the slow generator and these limits; yields (url, app)."""
    app = create_app(corpus_dir, retriever="bm25", generator=f"slow-test:{delay}", limits=ServeLimits(**limits))
    srv = ServerThread(app)
    url = srv.start()
    try:
        yield url, app
    finally:
        srv.stop()


def _client(url: str, timeout: float = 60) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=timeout, trust_env=False)


def _wait_idle(client: httpx.Client, within: float) -> float:
    """Seconds until /health shows nothing in flight or queued; fails after ``within``."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < within:
        h = client.get("/health").json()
        if h["in_flight"] == 0 and h["queued"] == 0:
            return time.monotonic() - t0
        time.sleep(0.02)
    raise AssertionError(f"work still running after {within} s: {client.get('/health').json()}")


# -- settings ----------------------------------------------------------------------------------

def test_serve_limits_come_from_the_config_file_and_environment(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text("[serve]\nmax_in_flight = 2\nmax_queue = 3\ntimeout = 7.5\n")
    s = load_settings(cfg, environ={"DOCRAG_SERVE_MAX_QUEUE": "5"})
    assert (s.serve.max_in_flight, s.serve.max_queue, s.serve.timeout) == (2, 5, 7.5)
    assert s.serve.max_body_bytes == ServeLimits().max_body_bytes
    assert load_settings(tmp_path / "absent.toml", environ={}).serve == ServeLimits()
    with pytest.raises(InputError, match=r"DOCRAG_SERVE_MAX_IN_FLIGHT: max_in_flight = '0' is not valid "
                                         r"\(must be at least 1\)"):
        load_settings(cfg, environ={"DOCRAG_SERVE_MAX_IN_FLIGHT": "0"})
    cfg.write_text("[serve]\nmax_k = 2.5\n")
    with pytest.raises(InputError, match=r"max_k = 2.5 is not valid \(expected a whole number\)"):
        load_settings(cfg, environ={})
    cfg.write_text("[serve]\ntimeout = \"soon\"\n")
    with pytest.raises(InputError, match=r"\[serve\]: timeout = 'soon' is not valid"):
        load_settings(cfg, environ={})
    cfg.write_text("[serve]\nmax_questions = 3\n")
    with pytest.raises(InputError, match="unknown key.*max_questions.*valid: .*max_in_flight"):
        load_settings(cfg, environ={})


# -- cancellation --------------------------------------------------------------------------------

def test_cancel_token_stops_ask_at_a_stage_boundary(corpus_dir: Path) -> None:
    from docrag.pipeline import RAG

    rag = RAG(corpus_dir, retriever="bm25", generator=SlowGenerator(5.0), show_progress=False)
    assert rag.retrieve("aluminum oxide", k=3)   # the index is built before any clock starts
    spent = CancelToken(timeout=0.0)
    with pytest.raises(Cancelled, match="at retrieval: the time budget of 0 s is spent"):
        rag.ask("aluminum oxide", cancel=spent)
    token = CancelToken(timeout=0.3)
    t0 = time.monotonic()
    with pytest.raises(Cancelled, match="at the slow test generator"):
        rag.ask("aluminum oxide", cancel=token)
    assert time.monotonic() - t0 < 1.0   # stopped at the next checkpoint, not after 5 s
    flag = CancelToken()
    threading.Timer(0.2, flag.cancel, args=("stop",)).start()
    with pytest.raises(Cancelled, match="stop"):
        rag.ask("aluminum oxide", cancel=flag)


# -- sizes ----------------------------------------------------------------------------------------

def test_sizes_are_refused_with_the_limit_and_its_key(corpus_dir: Path) -> None:
    limits = {"max_body_bytes": 4096, "max_question_chars": 100, "max_k": 5, "max_filter_fields": 2,
              "max_filter_values": 3, "max_image_side": 500, "max_boxes": 2}
    with serving(corpus_dir, 0.0, **limits) as (url, _), _client(url) as c:
        t0 = time.monotonic()
        big = c.post("/ask", content=b'{"question": "' + b"x" * FIVE_MB + b'"}',
                     headers={"content-type": "application/json"})
        assert time.monotonic() - t0 < 1.0
        assert big.status_code == 413
        assert "limit of 4096 bytes" in big.json()["detail"] and "serve.max_body_bytes" in big.json()["detail"]

        def chunks() -> Iterator[bytes]:   # no Content-Length: counted while it streams in
            yield b'{"question": "'
            for _ in range(10):
                yield b"y" * 1000
            yield b'"}'

        streamed = c.post("/ask", content=chunks(), headers={"content-type": "application/json"})
        assert streamed.status_code == 413 and "serve.max_body_bytes" in streamed.json()["detail"]

        long_q = c.post("/ask", json={"question": "word " * 50})
        assert long_q.status_code == 422
        assert long_q.json()["detail"] == (
            "the question length in characters is 250; the limit is 100 "
            "(serve.max_question_chars in the config or DOCRAG_SERVE_MAX_QUESTION_CHARS)")
        assert c.post("/search", json={"query": "q" * 101}).status_code == 422
        assert "serve.max_k" in c.post("/ask", json={"question": "aluminum", "k": 6}).json()["detail"]
        assert c.post("/search", json={"query": "aluminum", "k": 6}).status_code == 422
        wide = c.post("/search", json={"query": "aluminum", "filter": {"a": 1, "b": 2, "c": 3}})
        assert wide.status_code == 422 and "serve.max_filter_fields" in wide.json()["detail"]
        many = c.post("/search", json={"query": "aluminum", "filter": {"lang": ["en", "zh", "fr", "de"]}})
        assert many.status_code == 422 and "serve.max_filter_values" in many.json()["detail"]
        ok = c.post("/search", json={"query": "aluminum", "k": 5, "filter": {"lang": ["en", "zh", "fr"]}})
        assert ok.status_code == 200, ok.text
        pid = ok.json()["hits"][0]["page_id"]
        assert c.get(f"/pages/{pid}/image", params={"max_side": 500}).status_code == 200
        side = c.get(f"/pages/{pid}/image", params={"max_side": 501})
        assert side.status_code == 422 and "serve.max_image_side" in side.json()["detail"]
        boxes = c.get(f"/pages/{pid}/image", params={"boxes": "1,1,2,2;3,3,4,4;5,5,6,6"})
        assert boxes.status_code == 422 and "serve.max_boxes" in boxes.json()["detail"]
        assert c.post("/ask", json={"question": "aluminum", "k": 5}).status_code == 200


# -- load and time --------------------------------------------------------------------------------

def test_time_budget_cancels_the_work_and_frees_the_slot(corpus_dir: Path) -> None:
    with serving(corpus_dir, 30.0, timeout=0.5, max_in_flight=1, max_queue=0) as (url, _), _client(url) as c:
        t0 = time.monotonic()
        r = c.post("/ask", json={"question": "aluminum oxide"})
        took = time.monotonic() - t0
        assert r.status_code == 504 and "time budget of 0.5 s" in r.json()["detail"], r.text
        assert "serve.timeout" in r.json()["detail"] and took < 1.5
        assert _wait_idle(c, within=1.0) < 1.0   # the work stopped: its slot is free again
        h = c.get("/health").json()
        assert h["limits"]["max_in_flight"] == 1 and h["limits"]["timeout"] == 0.5


def test_a_full_server_answers_503_with_retry_after(corpus_dir: Path) -> None:
    with serving(corpus_dir, 30.0, timeout=20, max_in_flight=1, max_queue=1, retry_after=3) as (url, _):
        results: list[httpx.Response | Exception] = []

        def ask() -> None:
            with _client(url, timeout=2) as c:
                try:
                    results.append(c.post("/ask", json={"question": "aluminum oxide"}))
                except httpx.TimeoutException as exc:   # held in flight / queued: the client gives up
                    results.append(exc)

        threads = [threading.Thread(target=ask) for _ in range(2)]
        for t in threads:
            t.start()
        with _client(url) as c:
            t0 = time.monotonic()
            while c.get("/health").json()["queued"] < 1 and time.monotonic() - t0 < 5:
                time.sleep(0.02)
            h = c.get("/health").json()
            assert (h["in_flight"], h["queued"]) == (1, 1)
            t0 = time.monotonic()
            busy = c.post("/ask", json={"question": "aluminum oxide"})
            assert time.monotonic() - t0 < 0.5
            assert busy.status_code == 503 and busy.headers["retry-after"] == "3"
            assert "serve.max_in_flight" in busy.json()["detail"]
            for t in threads:
                t.join()
            # both clients went away: their work is cancelled (not left to run for 30 s)
            assert _wait_idle(c, within=2.0) < 2.0
        assert all(isinstance(r, httpx.TimeoutException) for r in results)


def test_a_client_that_disconnects_cancels_its_work(corpus_dir: Path) -> None:
    with serving(corpus_dir, 30.0, timeout=60) as (url, _), _client(url) as c:
        with socket.create_connection((httpx.URL(url).host, httpx.URL(url).port)) as sock:
            body = b'{"question": "aluminum oxide"}'
            sock.sendall(b"POST /ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            t0 = time.monotonic()
            while c.get("/health").json()["in_flight"] < 1 and time.monotonic() - t0 < 5:
                time.sleep(0.02)
            assert c.get("/health").json()["in_flight"] == 1
        assert _wait_idle(c, within=2.0) < 2.0


@pytest.mark.slow
def test_thirty_concurrent_asks_against_the_real_server(corpus_dir: Path, tmp_path: Path) -> None:
    """4 in flight + 8 queued: 12 answered, 18 refused at once; memory bounded; 5 MB refused < 1 s.

    Answers wait at a gate until the 18 refusals are back, so a slow start of the 30 clients cannot let
    a 13th in after an early answer freed its slot (seen on a loaded CI machine)."""
    budget = 20.0
    gate = tmp_path / "gate"
    server = SlowServer(corpus_dir, 0.5, env={"DOCRAG_SERVE_MAX_IN_FLIGHT": "4", "DOCRAG_SERVE_MAX_QUEUE": "8",
                                              "DOCRAG_SERVE_TIMEOUT": str(budget),
                                              "DOCRAG_CONFIG": str(tmp_path / "none.toml"),
                                              "SLOW_TEST_GATE": str(gate)})
    server.start(tmp_path / "server.log")
    try:
        with _client(server.url) as c:
            gate.touch()
            assert c.post("/ask", json={"question": "aluminum oxide"}).status_code == 200
            gate.unlink()
            rss_one = rss_kib(server.pid)
            barrier = threading.Barrier(30)
            results: list[tuple[int, float, str | None]] = []

            def ask() -> None:
                with _client(server.url, timeout=budget + 10) as cc:
                    barrier.wait()
                    t0 = time.monotonic()
                    r = cc.post("/ask", json={"question": "What is crude fused aluminum oxide used for?"})
                    results.append((r.status_code, time.monotonic() - t0, r.headers.get("retry-after")))

            threads = [threading.Thread(target=ask) for _ in range(30)]
            for t in threads:
                t.start()
            t0 = time.monotonic()
            while len(results) < 18 and time.monotonic() - t0 < budget:
                time.sleep(0.05)
            assert sorted(code for code, _, _ in results) == [503] * 18, results
            gate.touch()
            for t in threads:
                t.join()
            rss_after = rss_kib(server.pid)
            codes = sorted(code for code, _, _ in results)
            assert codes == [200] * 12 + [503] * 18, results
            refused = [s for code, s, _ in results if code == 503]
            assert max(refused) < 1.0, refused
            assert all(ra == "2" for code, _, ra in results if code == 503)
            assert max(s for _, s, _ in results) < budget
            assert rss_after <= 1.5 * rss_one, (rss_one, rss_after)
            t0 = time.monotonic()
            big = c.post("/ask", json={"question": "x" * FIVE_MB})
            assert big.status_code == 413 and time.monotonic() - t0 < 1.0
            assert _wait_idle(c, within=2.0) < 2.0
    finally:
        server.stop()


# -- model backends stop with the token -------------------------------------------------------------

def test_openai_backend_call_and_retry_wait_end_at_the_deadline() -> None:
    from docrag.backends import ChatMessage, get_backend
    from docrag.cancel import cancel_scope
    from tests.support.openai_server import Fault, ScriptedOpenAIServer

    with ScriptedOpenAIServer([Fault("slow", seconds=5.0)] * 3) as srv:
        backend = get_backend("openai:m", base_url=srv.base_url, api_key="x", max_retries=3, backoff=10.0,
                              timeout=30)
        t0 = time.monotonic()
        with cancel_scope(CancelToken(0.5)), pytest.raises(Cancelled):
            backend.chat([ChatMessage.user("q")])
        # neither the 30 s HTTP timeout nor the 10 s backoff: the call is cut at the budget
        assert time.monotonic() - t0 < 2.0
    with ScriptedOpenAIServer([Fault("http_500"), Fault("http_500")]) as srv:
        backend = get_backend("openai:m", base_url=srv.base_url, api_key="x", max_retries=3, backoff=30.0,
                              timeout=30)
        token = CancelToken()
        threading.Timer(0.3, token.cancel, args=("client gone",)).start()
        t0 = time.monotonic()
        with cancel_scope(token), pytest.raises(Cancelled, match="waiting to retry the model server: client gone"):
            backend.chat([ChatMessage.user("q")])
        assert time.monotonic() - t0 < 2.0


def test_qwen_vl_generation_stops_at_the_next_token_once_cancelled(tmp_path: Path) -> None:
    pytest.importorskip("qwen_vl_utils")
    import torch
    from PIL import Image

    from docrag.backends import ChatMessage, ImagePart, get_backend
    from docrag.backends.qwen_vl import _stop_when_cancelled
    from docrag.cancel import cancel_scope
    from tests.support.tiny_qwen_vl import build_tiny_qwen25_vl

    backend = get_backend(f"qwen-vl:{build_tiny_qwen25_vl(tmp_path / 'tiny')}")
    message = [ChatMessage.user(ImagePart(Image.new("RGB", (200, 150), "white")), "What?")]
    assert backend.chat(message, max_tokens=4).usage["completion_tokens"] > 0
    token = CancelToken()
    with cancel_scope(token):
        stop = _stop_when_cancelled()
        ids = torch.zeros((1, 3), dtype=torch.long)
        assert not bool(stop(ids, None)[0])
        token.cancel("stop now")
        assert bool(stop(ids, None)[0])   # generate() ends at the next token
        with pytest.raises(Cancelled, match="the model's generation: stop now"):
            backend.chat(message, max_tokens=4)
    assert _stop_when_cancelled() is None


def test_pool_shutdown_cancels_the_admitted_work() -> None:
    import asyncio

    from docrag.apps.server_limits import Busy, TimedOut, WorkPool

    pool = WorkPool(ServeLimits(max_in_flight=1, max_queue=0, timeout=30))
    started = threading.Event()

    def spin(token: CancelToken) -> None:
        started.set()
        while True:
            token.check("spinning")
            time.sleep(0.01)

    async def connected() -> bool:
        return False

    async def scenario() -> None:
        task = asyncio.ensure_future(pool.run(spin, connected))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 5)
        assert pool.counts() == {"in_flight": 1, "queued": 0}
        with pytest.raises(Busy):
            await pool.run(spin, connected)
        pool.shutdown()
        with pytest.raises(TimedOut, match="at spinning: the server is stopping"):
            await asyncio.wait_for(task, 2)
        assert pool.counts() == {"in_flight": 0, "queued": 0}

    asyncio.run(scenario())
