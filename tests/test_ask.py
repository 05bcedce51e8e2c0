"""``docrag ask`` on the synthetic development PDFs, with a scripted OpenAI-compatible server.

The acceptance check: the server identifies which page each received image shows, replies with the
pixel box (or 0-1000 box) of a known word *in the image it received*, and ``docrag ask --json`` must
return that word's box in PDF points (taken independently from PyMuPDF) on the right page.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from docrag.apps.cli import app
from docrag.errors import UnknownNameError
from tests.support.openai_server import ScriptedOpenAIServer, request_images
from tests.support.synthetic_corpus import ABRASIVES as TARGET_DOC
from tests.support.synthetic_corpus import ASK_QUESTION as QUESTION
from tests.support.synthetic_corpus import ASK_WORD

TOL_PT = 2.0


@pytest.fixture(scope="module")
def corpus_dir(synthetic_corpus_dir, tmp_path_factory):
    """A private copy of the ingested synthetic corpus (ask writes its index inside the corpus)."""
    dst = tmp_path_factory.mktemp("ask") / "corpus"
    shutil.copytree(synthetic_corpus_dir, dst)
    return dst


@pytest.fixture(scope="module")
def pdf_pages(synthetic_source):
    """(file name, page no) -> (grey 48x48 thumbnail, displayed page size in pt, words in displayed pt)."""
    import pymupdf as fitz

    out = {}
    for pdf in sorted(synthetic_source.pdfs.glob("*.pdf")):
        with fitz.open(pdf) as doc:
            for page in doc:
                pix = page.get_pixmap(dpi=24)
                img = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
                m = page.rotation_matrix
                words = [(tuple((fitz.Rect(w[:4]) * m).normalize()), w[4]) for w in page.get_text("words")]
                out[(pdf.name, page.number + 1)] = (_thumb(img), (page.rect.width, page.rect.height), words)
    return out


def _thumb(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("L").resize((48, 48), Image.Resampling.BILINEAR), dtype=np.float32)


def _identify(img: Image.Image, pdf_pages) -> tuple[str, int]:
    t = _thumb(img)
    return min(pdf_pages, key=lambda key: float(((pdf_pages[key][0] - t) ** 2).mean()))


def _target_word(pdf_pages) -> tuple[int, tuple[float, float, float, float], str]:
    _, _, words = pdf_pages[(TARGET_DOC, 1)]
    for box, text in words:
        if text.lower().startswith(ASK_WORD) and box[1] > 100:
            return 1, box, text
    raise AssertionError("target word not found in the test PDF")


def _server_script(pdf_pages, convention: str, target_box, seen: list):
    def reply(req: dict) -> str:
        coords = {}
        for i, img in enumerate(request_images(req), start=1):
            key = _identify(img, pdf_pages)
            seen.append((key, img.size))
            if key != (TARGET_DOC, 1):
                continue
            (pw, ph) = pdf_pages[key][1]
            w, h = img.size
            x0, y0, x1, y1 = target_box
            if convention == "pixel":
                box = [round(x0 * w / pw), round(y0 * h / ph), round(x1 * w / pw), round(y1 * h / ph)]
                crop = np.asarray(img.convert("L").crop(tuple(box)))
                assert crop.min() < 128, "the box should cover ink in the received image"
            else:
                box = [round(x0 / pw * 1000), round(y0 / ph * 1000), round(x1 / pw * 1000), round(y1 / ph * 1000)]
            coords[str(i)] = [box]
        return "```json\n" + json.dumps({"answer": "about 60,000 tons", "coordinates": coords}) + "\n```"

    return reply


def _run(args, env):
    result = CliRunner().invoke(app, args, env=env, catch_exceptions=False)
    return result


@pytest.mark.parametrize("convention", ["pixel", "norm1000"])
def test_ask_json_returns_the_servers_box_in_pdf_points(corpus_dir, pdf_pages, convention, tmp_path):
    page_no, target_box, word = _target_word(pdf_pages)
    seen: list = []
    with ScriptedOpenAIServer(_server_script(pdf_pages, convention, target_box, seen)) as srv:
        env = {"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "sk-test",
               "DOCRAG_CONFIG": str(tmp_path / "none.toml")}
        args = ["ask", str(corpus_dir), QUESTION, "--retriever", "bm25", "--generator", "openai:scripted",
                "-k", "5", "--json", "--no-progress"]
        if convention != "pixel":
            args += ["--coords", convention]
        result = _run(args, env)
        assert result.exit_code == 0, result.output
        assert srv.requests and srv.requests[0]["model"] == "scripted"
    rec = json.loads(result.stdout)
    assert set(rec) >= {"question", "answer", "citations", "hits", "warnings"}
    assert rec["question"] == QUESTION and rec["answer"] == "about 60,000 tons"
    assert (TARGET_DOC, 1) in [k for k, _ in seen], "retrieval should have sent the target page"
    assert all(max(size) <= 1024 and min(size) <= 768 for _, size in seen)
    (own,) = rec["model_citations"]          # the server's box, converted into PDF points
    assert own["doc"] == TARGET_DOC and own["page"] == page_no
    (box,) = own["boxes_pt"]
    assert box == pytest.approx(list(target_box), abs=TOL_PT), (word, box, target_box)
    (cit,) = rec["citations"]                # grounded: the whole paragraph the model's word box sits in
    assert cit["doc"] == TARGET_DOC and cit["page"] == page_no
    (region,) = cit["boxes_pt"]
    assert region[0] <= box[0] + 1 and region[1] <= box[1] + 1 and region[2] >= box[2] - 1 and region[3] >= box[3] - 1
    assert (region[2] - region[0]) * (region[3] - region[1]) > 4 * (box[2] - box[0]) * (box[3] - box[1])
    assert rec["grounding"]["mode"] == "refine"
    if convention == "pixel":   # no --coords and an unknown model name: pixels assumed, and the answer says so
        assert len(rec["warnings"]) == 1 and "unknown model family" in rec["warnings"][0], rec["warnings"]
    else:
        assert rec["warnings"] == []
    assert [h["rank"] for h in rec["hits"]] == list(range(1, len(rec["hits"]) + 1))
    assert all(h["doc"].endswith(".pdf") and h["page"] >= 1 for h in rec["hits"])


def test_ask_text_output_and_crops(corpus_dir, pdf_pages, tmp_path):
    _, target_box, _ = _target_word(pdf_pages)
    with ScriptedOpenAIServer(_server_script(pdf_pages, "pixel", target_box, [])) as srv:
        env = {"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "sk-test",
               "DOCRAG_CONFIG": str(tmp_path / "none.toml")}
        crops = tmp_path / "crops"
        result = _run(["ask", str(corpus_dir), QUESTION, "-r", "bm25", "-g", "openai:scripted", "-k", "5",
                       "--save-crops", str(crops), "--no-progress", "--ground", "off"], env)
    assert result.exit_code == 0, result.output
    assert "Answer: about 60,000 tons" in result.stdout
    assert f"[{TARGET_DOC} p.1]" in result.stdout and "box (pt):" in result.stdout
    (crop,) = sorted(crops.glob("*.png"))
    with Image.open(crop) as im:
        # the word's box at the corpus rendering's resolution (144 dpi: 2 px per point)
        w_pt, h_pt = target_box[2] - target_box[0], target_box[3] - target_box[1]
        assert im.size[0] == pytest.approx(2 * w_pt, abs=4) and im.size[1] == pytest.approx(2 * h_pt, abs=4)
        assert np.asarray(im.convert("L")).min() < 128


def test_ask_extractive_offline_default_generator(corpus_dir, tmp_path, monkeypatch):
    env = {"DOCRAG_CONFIG": str(tmp_path / "none.toml"), "DOCRAG_RETRIEVER": "bm25"}
    result = _run(["ask", str(corpus_dir), QUESTION, "--json", "--no-progress"], env)
    assert result.exit_code == 0, result.output
    rec = json.loads(result.stdout)
    assert rec["generator"] == "extractive" and rec["retriever"] == "bm25"   # env chose the retriever
    assert rec["citations"] and rec["citations"][0]["doc"] == TARGET_DOC
    assert "aluminum oxide" in rec["answer"].lower()


def test_ask_usage_errors(corpus_dir, tmp_path):
    env = {"DOCRAG_CONFIG": str(tmp_path / "none.toml")}
    bad = _run(["ask", str(corpus_dir), "q", "-g", "extractive", "--snap"], env)
    assert bad.exit_code == 2
    with pytest.raises(UnknownNameError, match="unknown generator 'nonsense'; valid generators: "):
        _run(["ask", str(corpus_dir), "q", "-r", "bm25", "-g", "nonsense"], env)
