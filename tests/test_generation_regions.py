"""Citing by region number (``cite_by="regions"``) end to end against a real OpenAI-compatible
server on 127.0.0.1, on real PDFs (the repo's ``examples/pdfs``, ingested once for this module).

The server reads the prompt it received, finds the region whose listed first words hold a gold
phrase and replies by number; the answer must cite that region's exact box in PDF points.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from docrag.apps.cli import app
from docrag.config import load_settings
from docrag.errors import InputError
from docrag.generation import get_generator
from docrag.generation.images import ResizePolicy, SentImage, prepare_images
from docrag.generation.marks import PALETTE, draw_marks, first_words, mark_images, region_listing, region_pixels
from docrag.generation.parse import parse_reply
from docrag.generation.prompt import PROMPT_VERSION
from docrag.geometry import Space
from docrag.regions import page_regions
from tests.support.openai_server import ScriptedOpenAIServer, request_images, request_texts

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "pdfs"
ABRASIVES = "usgs_mcs2011_abrasives_manufactured.pdf"
QUESTION = "What was China's silicon carbide production capacity in 2010?"
GOLD = "World Production Capacity"          # the first words of the table that answers it
ANSWER = "455,000 metric tons"
_LISTED = re.compile(r'^#(\d+) (\w+): (?:"(.*)"|\(no text\))$')


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from docrag.corpus import Corpus
    from docrag.ingestion import ingest

    out = tmp_path_factory.mktemp("regions") / "corpus"
    report = ingest([EXAMPLES], out=out, show_progress=False)
    assert not report.failures, report.failures
    return Corpus.open(out)


@pytest.fixture(scope="module")
def pages(corpus):
    """The abrasives page (a table with its title) first, then a page of another document."""
    all_pages = list(corpus.pages())
    first = next(p for p in all_pages if p.file_name == ABRASIVES)
    other = next(p for p in all_pages if p.file_name != ABRASIVES)
    return [first, other]


def listed_regions(texts: list[str]) -> dict[int, dict[int, str]]:
    """What the prompt lists: image number -> region number -> first words (as a model reads it)."""
    out: dict[int, dict[int, str]] = {}
    for text in texts:
        head = re.match(r"Regions of image (\d+)", text)
        if not head:
            continue
        rows = out.setdefault(int(head.group(1)), {})
        for line in text.splitlines()[1:]:
            m = _LISTED.match(line)
            assert m, f"unexpected listing line {line!r}"
            rows[int(m.group(1))] = m.group(3) or ""
    return out


def by_phrase(phrase: str, extra: dict | None = None):
    """A server script: cite, per image, the regions whose listed first words contain ``phrase``."""

    def reply(req: dict) -> str:
        listed = listed_regions(request_texts(req))
        regions = {str(i): [n for n, words in rows.items() if phrase.lower() in words.lower()]
                   for i, rows in listed.items()}
        regions = {k: v for k, v in regions.items() if v}
        return json.dumps({"answer": ANSWER, "regions": regions, **(extra or {})})

    return reply


def _file_digest(page) -> str:
    return hashlib.sha256(page.image_path.read_bytes()).hexdigest()


# -- end to end through the loopback server ---------------------------------------------------------

def test_region_numbers_become_the_regions_exact_boxes(pages):
    page = pages[0]
    digest, stored = _file_digest(page), np.asarray(page.load_image())
    with ScriptedOpenAIServer(by_phrase(GOLD)) as srv:
        gen = get_generator("openai:gpt-4o", base_url=srv.base_url, api_key="k", ground="off")
        ans = gen.generate(QUESTION, pages)
        req = srv.requests[0]
    assert gen.cite_by == "regions"                 # the default of openai:
    assert ans.parse_error is None and ans.warnings == [], ans.warnings
    assert ans.answer == ANSWER
    table = next(r for r in page_regions(page) if r.first_words().startswith(GOLD))
    (cit,) = ans.citations
    assert cit.page_id == page.page_id and cit.image_index == 1 and cit.regions == [table.number]
    (box,) = cit.boxes
    assert box.space is Space.POINT and box.extent == (page.width_pt, page.height_pt)
    assert box.coords == pytest.approx(table.box.coords, abs=0.01)
    assert table.kind == "table"
    assert ans.meta["cite_by"] == "regions" and ans.meta["prompt_version"] == PROMPT_VERSION
    assert ans.meta["model_regions"] == {"1": [table.number]}
    assert [im["regions"] for im in ans.meta["images"]] == [len(page_regions(p)) for p in pages]
    # the prompt: the region format, and every region of every image listed by number and kind
    texts = request_texts(req)
    assert '"regions": {' in texts[0] and "Name whole regions by their numbers" in texts[0]
    listed = listed_regions(texts)
    assert set(listed) == {1, 2}
    for i, p in enumerate(pages, start=1):
        assert list(listed[i]) == [r.number for r in page_regions(p)]
    assert any(f'#{table.number} table: "{GOLD}' in t for t in texts)
    # the image sent carries the marks; the stored page image is unchanged
    sent = request_images(req)[0]
    plain = prepare_images([page], ResizePolicy())[0].image
    assert sent.size == plain.size
    diff = np.abs(np.asarray(sent, dtype=np.int16) - np.asarray(plain, dtype=np.int16)).max(axis=2)
    assert (diff > 60).mean() > 0.002, "the sent image should carry visible marks"
    assert _file_digest(page) == digest
    assert np.array_equal(np.asarray(page.load_image()), stored)


def test_refine_keeps_the_named_region_and_records_what_the_model_named(pages):
    with ScriptedOpenAIServer(by_phrase(GOLD)) as srv:
        ans = get_generator("openai:gpt-4o", base_url=srv.base_url, api_key="k").generate(QUESTION, pages)
    table = next(r for r in page_regions(pages[0]) if r.first_words().startswith(GOLD))
    (own,) = ans.meta["model_citations"]
    assert own["regions"] == [table.number]
    assert own["boxes"][0]["bbox"] == pytest.approx(list(table.box.coords), abs=0.01)
    (cit,) = ans.citations                           # grounding found the amount in the named table
    assert cit.page_id == pages[0].page_id and table.number in cit.regions
    assert any(b.coords == pytest.approx(table.box.coords, abs=0.01) for b in cit.boxes)
    assert any("455,000" in q for q in cit.quotes)


def test_unknown_region_numbers_and_images_give_one_counted_warning(pages):
    table = next(r for r in page_regions(pages[0]) if r.first_words().startswith(GOLD))
    reply = json.dumps({"answer": ANSWER, "regions": {"1": [table.number, 99], "7": [1]}})
    with ScriptedOpenAIServer(reply) as srv:
        ans = get_generator("openai:gpt-4o", base_url=srv.base_url, api_key="k", ground="off").generate(
            QUESTION, pages)
    assert ans.warnings == ["2 region numbers not on the page were dropped: image 1 #99, image 7 #1"]
    (cit,) = ans.citations
    assert cit.regions == [table.number] and len(cit.boxes) == 1


def test_a_boxes_reply_still_parses_when_citing_by_region(pages):
    page = pages[0]
    table = next(r for r in page_regions(page) if r.first_words().startswith(GOLD))

    def reply(req: dict) -> str:
        w, h = request_images(req)[0].size
        px = table.box.to_pixels(w, h)
        box = [round(px.x0), round(px.y0), round(px.x1), round(px.y1)]
        return json.dumps({"answer": ANSWER, "coordinates": {"1": [box]}})

    with ScriptedOpenAIServer(reply) as srv:
        ans = get_generator("openai:gpt-4o", base_url=srv.base_url, api_key="k", ground="off").generate(
            QUESTION, pages)
    assert ans.parse_error is None and ans.warnings == []
    (cit,) = ans.citations
    assert cit.regions == [] and cit.boxes[0].coords == pytest.approx(table.box.coords, abs=1.5)


def test_cite_by_boxes_sends_the_plain_images_and_the_box_prompt(pages):
    with ScriptedOpenAIServer('{"answer": "x", "coordinates": {}}') as srv:
        gen = get_generator("openai:gpt-4o", base_url=srv.base_url, api_key="k", cite_by="boxes")
        ans = gen.generate(QUESTION, pages)
        req = srv.requests[0]
    assert ans.meta["cite_by"] == "boxes" and "model_regions" not in ans.meta
    texts = request_texts(req)
    assert '"coordinates": {' in texts[0] and not any("Regions of image" in t for t in texts)
    plain = [im.image for im in prepare_images(pages, ResizePolicy())]
    for sent, expected in zip(request_images(req), plain, strict=True):
        assert np.array_equal(np.asarray(sent), np.asarray(expected))


def test_bad_cite_by_is_a_clear_error():
    with pytest.raises(InputError, match="cite_by"):
        get_generator("openai:gpt-4o", base_url="http://127.0.0.1:9/v1", api_key="k", cite_by="pixels")


# -- the marks and the listing -------------------------------------------------------------------

def test_marks_outline_and_number_every_region_on_a_copy(pages):
    page = pages[0]
    regions = page_regions(page)
    image = prepare_images([page], ResizePolicy())[0].image
    before = np.asarray(image).copy()
    marked = draw_marks(image, regions)
    assert marked is not image and marked.size == image.size
    assert np.array_equal(np.asarray(image), before)          # the input image is not drawn on
    arr = np.asarray(marked)
    for r in regions:
        px = region_pixels(r, marked.size)
        colour = PALETTE[(r.number - 1) % len(PALETTE)]
        x_mid = int((px.x0 + px.x1) / 2)
        # the bottom edge is outlined in the region's colour
        edge = arr[int(px.y1) - 1: int(px.y1) + 1, x_mid]
        assert any(np.abs(edge.astype(int) - colour).max(axis=1) < 10), (r.number, edge)
        # a filled tag of that colour with white digits at the top-left corner (outside when the margin is free)
        tag = arr[int(px.y0): int(px.y0) + 12, max(0, int(px.x0) - 30): int(px.x0) + 30]
        assert (np.abs(tag.astype(int) - colour).max(axis=2) < 10).sum() > 40, r.number
        assert (tag.min(axis=2) > 240).any()
    assert np.array_equal(np.asarray(draw_marks(image, [])), before)   # no regions: an unmarked copy


def test_mark_images_keeps_index_page_and_size(pages):
    sent = prepare_images(pages, ResizePolicy())
    marked = mark_images(sent)
    for s, m in zip(sent, marked, strict=True):
        assert isinstance(m, SentImage) and (m.index, m.page, m.size) == (s.index, s.page, s.size)
        assert [r.number for r in m.regions] == [r.number for r in page_regions(s.page)]
        assert s.regions == ()


def test_labels_are_legible_at_the_sent_resolution(pages):
    """The digits of a tag are at least 9 px tall at the default 1024 x 768 (a model reads them)."""
    page = pages[0]
    regions = page_regions(page)
    marked = mark_images(prepare_images([page], ResizePolicy()))[0].image
    arr = np.asarray(marked).astype(int)
    r = regions[0]
    px = region_pixels(r, marked.size)
    colour = PALETTE[0]
    window = arr[max(0, int(px.y0) - 2): int(px.y0) + 30, max(0, int(px.x0) - 40): int(px.x0) + 40]
    filled = np.argwhere(np.abs(window - colour).max(axis=2) < 10)
    rows = filled[:, 0]
    white = np.argwhere(window.min(axis=2) > 240)
    inside = white[(white[:, 0] >= rows.min()) & (white[:, 0] <= rows.max())]
    assert rows.max() - rows.min() + 1 >= 12
    assert inside[:, 0].max() - inside[:, 0].min() + 1 >= 9


def test_listing_names_number_kind_and_first_words_in_english(pages):
    regions = page_regions(pages[0])
    text = region_listing(1, regions)
    lines = text.splitlines()
    assert lines[0] == "Regions of image 1 (number, kind, first words):"
    assert len(lines) == len(regions) + 1
    table = next(r for r in regions if r.kind == "table")
    line = lines[table.number]
    assert line.startswith(f'#{table.number} table: "World Production Capacity')
    words = _LISTED.match(line).group(3)
    assert words.endswith("...") and len(words[:-3].split()) <= 8
    assert region_listing(3, []).startswith("Regions of image 3: none are marked")


def test_an_uncaptioned_chart_is_listed_by_its_words_not_its_ticks(corpus):
    page = next(p for p in corpus.pages() if p.file_name.startswith("usda_ag_energy"))
    charts = [line for line in region_listing(1, page_regions(page)).splitlines() if " chart: " in line]
    assert charts and any("Iowa Ethanol" in line for line in charts)
    assert not any(re.search(r"\d\.\d\d", line) for line in charts), charts


def test_listing_of_a_chinese_page_shows_its_first_characters(synthetic_corpus):
    from tests.support.synthetic_corpus import LOTUS

    page = next(p for p in synthetic_corpus.pages() if p.file_name == LOTUS and p.page_no == 1)
    regions = page_regions(page)
    text = region_listing(2, regions)
    body = next(r for r in regions if r.kind == "paragraph" and len(r.text) > 30)
    shown = first_words(body)
    assert shown.endswith("...") and len(shown) == 3 * 8 + 3
    assert re.search(r"[\u4e00-\u9fff]{5}", shown)
    assert f'#{body.number} paragraph: "{shown}"' in text.splitlines()
    heading = next(r for r in regions if r.kind == "title")
    assert f"#{heading.number} heading: " in text


# -- reading region replies -------------------------------------------------------------------------

@pytest.mark.parametrize("reply, expected, repaired", [
    ('{"answer": "a", "regions": {"1": [3, 5], "2": [1]}}', {"1": [3, 5], "2": [1]}, False),
    ('```json\n{"answer": "a", "regions": {"Image 1": ["#3", "region 5"]},}\n```',
     {"Image 1": ["#3", "region 5"]}, False),
    ('{"answer": "a", "regions": "{\\"1\\": [2]}"}', {"1": [2]}, True),
    ('{"answer": "a", "regions": [4, 6]}', {"1": [4, 6]}, True),
    ('{"answer": "a", "regions": [{"image": 2, "regions": [1, 3]}]}', {"2": [1, 3]}, True),
    ('{"answer": "a", "regions": 7}', {}, True),
])
def test_parse_reply_reads_regions_in_many_shapes(reply, expected, repaired):
    parsed = parse_reply(reply)
    assert parsed.answer == "a" and parsed.error is None
    assert parsed.regions == expected
    assert bool(parsed.repairs) == repaired, parsed.repairs


def test_region_entries_that_are_not_numbers_are_reported(pages):
    reply = json.dumps({"answer": ANSWER, "regions": {"1": ["the table", 1], "2": "2, 1"}})
    with ScriptedOpenAIServer(reply) as srv:
        ans = get_generator("openai:gpt-4o", base_url=srv.base_url, api_key="k", ground="off").generate(
            QUESTION, pages)
    assert ans.warnings == ["1 region entry not a number dropped: image 1 'the table'"]
    assert [c.regions for c in ans.citations] == [[1], [2, 1]]


# -- options: config, environment, CLI ----------------------------------------------------------------

def test_cite_by_setting_is_validated_and_reaches_vision_generators(tmp_path):
    none = tmp_path / "none.toml"
    s = load_settings(none, environ={"DOCRAG_CITE_BY": "boxes"})
    assert s.generation["cite_by"] == "boxes"
    assert s.generator_options("openai:gpt-4o")["cite_by"] == "boxes"
    assert s.generator_options("qwen-vl:/m")["cite_by"] == "boxes"
    assert "cite_by" not in s.generator_options("extractive")
    with pytest.raises(InputError, match="DOCRAG_CITE_BY: cite_by = 'pixels' is not valid"):
        load_settings(none, environ={"DOCRAG_CITE_BY": "pixels"})
    cfg = tmp_path / "c.toml"
    cfg.write_text('[generation]\ncite_by = "Regions"\n')
    assert load_settings(cfg, environ={}).generation["cite_by"] == "regions"
    cfg.write_text('[generation]\ncite_by = "marks"\n')
    with pytest.raises(InputError, match="cite_by"):
        load_settings(cfg, environ={})


def test_cli_cite_by_usage_errors(corpus, tmp_path):
    env = {"DOCRAG_CONFIG": str(tmp_path / "none.toml")}
    root = str(corpus.root)
    for cmd in (["ask", root, "q"], ["eval", root, "--qa", str(tmp_path / "qa.jsonl"), "--out", str(tmp_path / "r")],
                ["view", root], ["serve", root]):
        bad = CliRunner().invoke(app, [*cmd, "--cite-by", "pixels"], env=env)
        assert bad.exit_code == 2 and "regions or boxes" in bad.output, (cmd, bad.output)
    text_gen = CliRunner().invoke(app, ["ask", root, "q", "-g", "extractive", "--cite-by", "boxes"], env=env)
    assert text_gen.exit_code == 2 and "vision generators" in text_gen.output


def test_ask_json_carries_the_region_numbers(corpus, tmp_path):
    with ScriptedOpenAIServer(by_phrase(GOLD)) as srv:
        env = {"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "sk-test",
               "DOCRAG_CONFIG": str(tmp_path / "none.toml")}
        result = CliRunner().invoke(app, ["ask", str(corpus.root), QUESTION, "-r", "bm25", "-g", "openai:gpt-4o",
                                          "-k", "2", "--json", "--no-progress", "--cite-by", "regions"],
                                    env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rec = json.loads(result.stdout)
    page = next(p for p in corpus.pages() if p.file_name == ABRASIVES)
    table = next(r for r in page_regions(page) if r.first_words().startswith(GOLD))
    (own,) = rec["model_citations"]
    assert own["doc"] == ABRASIVES and own["regions"] == [table.number]
    assert own["boxes_pt"] == [table.box.to_list(2)]
    assert rec["citations"][0]["doc"] == ABRASIVES and table.number in rec["citations"][0]["regions"]


def test_marked_copy_is_not_written_anywhere(pages, tmp_path):
    """Marking touches no file: the corpus' image files keep their bytes and modification times."""
    files = {p.image_path: (p.image_path.stat().st_mtime_ns, _file_digest(p)) for p in pages}
    mark_images(prepare_images(pages, ResizePolicy()))
    assert {p.image_path: (p.image_path.stat().st_mtime_ns, _file_digest(p)) for p in pages} == files
    with Image.open(pages[0].image_path) as im:
        assert im.size == (pages[0].image_width, pages[0].image_height)


def test_region_reading_never_raises_on_hostile_values(pages):
    from docrag.generation.parse import ImageFrame
    from docrag.generation.parse_regions import citations_from_regions

    frames = [ImageFrame(i, p, (593, 768), None, tuple(page_regions(p))) for i, p in enumerate(pages, start=1)]
    hostile = [10 ** 5000, -3, 0, 2.5, float("nan"), None, True, [[1]], {"x": 1}, {"regions": [1, "#2"]}, "", "   ",
               "1, , 2", "#99999999999", "区域2", "第3号", ["1"] * 3, {"id": 2}]
    for value in hostile:
        for key in ("1", "Image 2", "图1", "999999999999999999999", "", "x"):
            cits, warnings = citations_from_regions({key: value}, frames)
            assert all(isinstance(w, str) for w in warnings)
            for c in cits:
                assert len(c.boxes) == len(c.regions) == len(set(c.regions))
    cits, _ = citations_from_regions({"1": {"regions": [1, "#2", "区域3"]}}, frames)
    assert cits[0].regions == [1, 2, 3]
