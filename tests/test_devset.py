"""The real-document dev set (benchmarks/devset, FORMAT.md) and its gold checker (check_golds.py).

The committed ``qa.jsonl`` must pass the checker's format checks (skipped while the file is not in the
repository yet); its gold pages, boxes and answer values are checked against each PDF that has been fetched
into ``benchmarks/devset/pdfs`` (one test per document, skipped by name when its PDF is absent). The checker
itself is tested on a one-page PDF built here with PyMuPDF, with records that pass and records that must fail.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pymupdf
import pytest

ROOT = Path(__file__).resolve().parents[1]
DEVSET = ROOT / "benchmarks" / "devset"
QA = DEVSET / "qa.jsonl"
PDFS = DEVSET / "pdfs"

_spec = importlib.util.spec_from_file_location("devset_check_golds", DEVSET / "check_golds.py")
cg = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = cg   # its dataclass looks its module up
_spec.loader.exec_module(cg)


def _committed() -> list[dict]:
    return cg.load(QA)[0] if QA.exists() else []


_NO_QA = f"{QA.relative_to(ROOT)} is not in the repository yet (the real dev set is being collected)"


# -- the committed dev set -------------------------------------------------------------------------------
@pytest.mark.skipif(not QA.exists(), reason=_NO_QA)
def test_committed_qa_passes_the_format_checks():
    recs, errs = cg.load(QA)
    errs += cg.check_ids(recs)
    for rec in recs:
        errs += cg.check_record(rec)
    assert not errs, "\n".join(errs[:30])
    assert recs
    assert set(Counter(r["lang"] for r in recs)) == set(cg.LANGS)
    assert set(Counter(r["category"] for r in recs)) == set(cg.CATEGORIES)
    assert set(Counter(r["finrag_category"] for r in recs)) == set(cg.FINRAG_CATEGORIES)


@pytest.mark.skipif(not QA.exists(), reason=_NO_QA)
def test_every_document_has_a_source_row():
    sources = DEVSET / "SOURCES.md"
    assert sources.exists(), "qa.jsonl without SOURCES.md: its PDFs cannot be fetched"
    text = sources.read_text(encoding="utf-8")
    missing = sorted(d for d in {r["doc"] for r in _committed()} if d not in text)
    assert not missing, missing


_DOCS = sorted({r["doc"] for r in _committed() if isinstance(r.get("doc"), str)}) or ["(no qa.jsonl)"]


@pytest.mark.parametrize("doc", _DOCS)
def test_golds_against_the_fetched_pdf(doc):
    if not QA.exists():
        pytest.skip(_NO_QA)
    path = PDFS / doc
    if not path.exists():
        pytest.skip(f"{doc}: PDF absent from {PDFS.relative_to(ROOT)} (fetch it as SOURCES.md says)")
    recs = [r for r in _committed() if r.get("doc") == doc and not cg.check_record(r)]
    errs = []
    hashes = DEVSET / "pdfs.sha256"
    if hashes.exists():
        want = cg.read_sha256(hashes).get(doc)
        if want and cg.sha256_of(path) != want:
            errs.append(f"{doc}: sha256 differs from pdfs.sha256")
    with pymupdf.open(path) as pdf:
        for rec in recs:
            errs += cg.check_against_pdf(rec, pdf)[0]
    assert not errs, "\n".join(errs)


# -- the checker, on a one-page PDF built here -----------------------------------------------------------
DOC = "en_fixture_report.pdf"
LINES = ["Fixture Corp. Annual Report 2023", "Total revenue was 1,234.5 million dollars in 2023.",
         "Net income rose to 98.7 million dollars."]
PARA = [72.0, 60.0, 400.0, 110.0]


@pytest.fixture()
def devset(tmp_path):
    """A dev-set folder: a one-page PDF (612 x 792 pt) under pdfs/, and a writer of qa.jsonl records."""
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=792)
    for i, line in enumerate(LINES):
        page.insert_text((72, 72 + 16 * i), line, fontsize=11, fontname="helv")
    pdf.save(pdfs / DOC)
    pdf.close()

    def write(*recs: dict) -> Path:
        qa = tmp_path / "qa.jsonl"
        qa.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
        return qa

    return tmp_path, pdfs, write


def rec(**kw) -> dict:
    out = {"id": "en-t-001", "lang": "en", "doc": DOC, "split": cg.split_of(DOC),
           "question": "What was Fixture Corp.'s total revenue in 2023?",
           "answer": "1,234.5 million dollars (total revenue, 2023)", "answer_values": ["1,234.5"],
           "category": "text", "finrag_category": "text_inference", "pages": [1],
           "boxes": [{"page": 1, "bbox": list(PARA), "kind": "paragraph"}], "answer_type": "short"}
    out.update(kw)
    return out


def test_split_rule_is_sha1_of_the_file_name():
    for name in ("en_apple_10q_q1fy24.pdf", "zh_cpi_2023_tongji_gongbao.pdf", DOC):
        want = "kept" if int(hashlib.sha1(name.encode()).hexdigest(), 16) % 10 < 3 else "seen"
        assert cg.split_of(name) == want
    assert {cg.split_of(f"en_doc{i}.pdf") for i in range(40)} == {"seen", "kept"}


def test_values_match_whitespace_nfkc_and_thousands_insensitively():
    assert cg.value_in("1,234.5", "revenue 1234.5 million")
    assert cg.value_in("1234.5", "revenue 1,234.5 million")
    assert cg.value_in("１２３４.５", "revenue 1,234.5")               # full-width digits (NFKC)
    assert cg.value_in("1,581,905,632.48", "营业收入 1,581,905,632.48 元")
    assert cg.value_in("12.8 %", "margin of 12.8%\n")
    assert cg.value_in("−3.2", "fell -3.2 points")                    # minus sign vs hyphen
    assert cg.value_in("2,673", "Spain 2,673\n367\n20,860")           # next cell is not glued onto the value
    assert cg.value_in("营业收入", "营 业 收 入")
    assert not cg.value_in("1,243.5", "revenue 1,234.5 million")
    assert not cg.value_in("", "anything")


def test_a_good_record_passes(devset):
    folder, pdfs, write = devset
    res = cg.check(write(rec(), rec(id="en-t-002", answer_values=["98.7"],
                                    boxes=[{"page": 1, "bbox": [72, 90, 400, 110]}])), pdfs)
    assert res.ok, res.errors
    assert res.records == 2 and res.pdf_checked == 2 and not res.unchecked and not res.warnings
    assert cg.main(["--qa", str(folder / "qa.jsonl"), "--pdfs", str(pdfs), "-q"]) == 0


def test_bad_split_is_an_error(devset):
    _, pdfs, write = devset
    wrong = "seen" if cg.split_of(DOC) == "kept" else "kept"
    res = cg.check(write(rec(split=wrong)), pdfs)
    assert any("sha1 rule" in e for e in res.errors), res.errors


def test_box_outside_its_page_is_an_error(devset):
    _, pdfs, write = devset
    res = cg.check(write(rec(boxes=[{"page": 1, "bbox": [72, 700, 400, 820]}])), pdfs)   # page is 792 pt high
    assert any("outside page 1" in e for e in res.errors), res.errors
    res = cg.check(write(rec(pages=[2], boxes=[{"page": 2, "bbox": PARA}])), pdfs)
    assert any("beyond the PDF's 1 pages" in e for e in res.errors), res.errors


def test_missing_value_is_an_error_but_a_warning_for_calculations_and_charts(devset):
    _, pdfs, write = devset
    res = cg.check(write(rec(answer_values=["1,234.5", "4,321"])), pdfs)
    assert [e for e in res.errors if "'4,321' not in the text" in e], res.errors
    assert not [e for e in res.errors if "1,234.5" in e]
    for soft in (rec(answer_values=["1,333.2"], finrag_category="numerical_calculation"),
                 rec(answer_values=["1,333.2"], category="chart", finrag_category="chart_extraction")):
        res = cg.check(write(soft), pdfs)
        assert res.ok, res.errors
        assert any("1,333.2" in w for w in res.warnings)


def test_box_with_no_text_is_a_warning_not_a_missing_value(devset):
    _, pdfs, write = devset
    res = cg.check(write(rec(answer_values=["7.7"], boxes=[{"page": 1, "bbox": [72, 300, 400, 500]}])), pdfs)
    assert res.ok, res.errors
    assert any("no text layer inside the gold boxes" in w for w in res.warnings)


@pytest.mark.parametrize(("change", "message"), [
    ({"category": "figure"}, "category 'figure'"),
    ({"finrag_category": "lookup"}, "finrag_category 'lookup'"),
    ({"lang": "fr"}, "lang 'fr'"),
    ({"doc": "fixture_report.pdf"}, "<lang>_<name>.pdf"),
    ({"answer_values": []}, "answer_values"),
    ({"pages": [0]}, "1-based"),
    ({"pages": [1, 1]}, "repeat"),
    ({"category": "multi_page"}, "multi_page question"),
    ({"boxes": [{"page": 1, "bbox": [400, 60, 72, 110]}]}, "x0 < x1"),
    ({"boxes": [{"page": 1, "bbox": [72, 60, 400]}]}, "four numbers"),
    ({"boxes": []}, "gold page 1 has no box"),
    ({"pages": [1, 2], "category": "multi_page", "boxes": [{"page": 1, "bbox": PARA}]}, "gold page 2 has no box"),
    ({"boxes": [{"page": 2, "bbox": PARA}, {"page": 1, "bbox": PARA}]}, "not one of the gold pages"),
    ({"boxes": [{"page": 1, "bbox": PARA}] * 6}, "6 boxes on page 1"),
    ({"pages": "1"}, "field 'pages' is str"),
    ({"question": " "}, "field 'question' is empty"),
])
def test_format_errors(devset, change, message):
    _, pdfs, write = devset
    res = cg.check(write(rec(**change)), pdfs)
    assert any(message in e for e in res.errors), (message, res.errors)


def test_missing_field_and_duplicate_ids(devset):
    _, pdfs, write = devset
    no_type = rec()
    del no_type["answer_type"]
    res = cg.check(write(rec(), rec(), no_type), pdfs)
    assert any("en-t-001: id used 3 times" in e for e in res.errors)
    assert any("field 'answer_type' missing" in e for e in res.errors)


def test_absent_pdf_is_reported_not_failed(devset, capsys):
    folder, pdfs, write = devset
    (pdfs / DOC).unlink()
    qa = write(rec(), rec(id="en-t-002"))
    res = cg.check(qa, pdfs)
    assert res.ok and res.unchecked == {DOC: ["en-t-001", "en-t-002"]} and res.pdf_checked == 0
    assert cg.main(["--qa", str(qa), "--pdfs", str(pdfs)]) == 0
    assert f"{DOC}: 2 records not checked (PDF absent: see SOURCES.md)" in capsys.readouterr().out
    assert cg.main(["--qa", str(write(rec(category="figure"))), "--pdfs", str(pdfs)]) == 1


def test_sha256_and_sources_when_present(devset):
    folder, pdfs, write = devset
    qa = write(rec())
    digest = cg.sha256_of(pdfs / DOC)
    (folder / "pdfs.sha256").write_text(f"{digest}  {DOC}\n", encoding="utf-8")
    (folder / "SOURCES.md").write_text(f"| {DOC} | Fixture Corp. | owner/repo, a.pdf, abc123 | 1 |\n",
                                       encoding="utf-8")
    assert cg.check(qa, pdfs).ok
    (folder / "pdfs.sha256").write_text(f"{'0' * 64}  {DOC}\n", encoding="utf-8")
    assert any("sha256 differs" in e for e in cg.check(qa, pdfs).errors)
    (folder / "pdfs.sha256").write_text(f"{digest} *pdfs/{DOC}\n", encoding="utf-8")   # binary mark, a path
    assert cg.check(qa, pdfs).ok
    (folder / "SOURCES.md").write_text("| en_other.pdf | ... |\n", encoding="utf-8")
    assert any("not in SOURCES.md" in e for e in cg.check(qa, pdfs).errors)
