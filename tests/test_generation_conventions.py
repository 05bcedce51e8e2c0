"""Box conventions per model family (``docrag.generation.conventions``), end to end against the
loopback OpenAI-compatible server: the server finds a coloured region in the image it received and
answers in the convention of the model it plays; the answer's POINT box must land on the region."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from docrag.config import load_settings
from docrag.generation import get_generator
from docrag.generation.conventions import coords_options, for_parser, model_family, resolve, swap_yx
from docrag.geometry import Box, GeometryError, Space, smart_resize
from tests.support.openai_server import ScriptedOpenAIServer, request_images
from tests.support.synthetic_pages import Region, color_box, make_page

RED, BLUE = (220, 20, 20), (20, 20, 220)
TOL_PT = 3.0
RED_PT, BLUE_PT = (72, 100, 300, 180), (50, 50, 250, 120)


@pytest.fixture()
def pages(tmp_path):
    p1 = make_page(tmp_path, [Region(RED_PT, RED, "Revenue rose to 5.2 million.")], doc_id="docA", page_no=1)
    p2 = make_page(tmp_path, [Region(BLUE_PT, BLUE, "Costs fell.")], doc_id="docB", page_no=3,
                   width_pt=842.0, height_pt=595.0)
    return [p1, p2]


def _qwen_resize(w: int, h: int, min_pixels: int = 3136, max_pixels: int = 12845056) -> tuple[int, int]:
    """The Qwen processor's resize, from qwen_vl_utils (independent of docrag.geometry)."""
    from qwen_vl_utils import smart_resize as reference

    nh, nw = reference(h, w, factor=28, min_pixels=min_pixels, max_pixels=max_pixels)
    return nw, nh


def encode(box: tuple[int, int, int, int], size: tuple[int, int], convention: str, **budget) -> list[float]:
    """A pixel box of the received image written the way a model of ``convention`` writes it."""
    w, h = size
    x0, y0, x1, y1 = box
    if convention == "pixel":
        return [x0, y0, x1, y1]
    if convention == "model_pixels":
        mw, mh = _qwen_resize(w, h, **budget)
        return [round(x0 * mw / w), round(y0 * mh / h), round(x1 * mw / w), round(y1 * mh / h)]
    grid = [round(x0 * 1000 / w), round(y0 * 1000 / h), round(x1 * 1000 / w), round(y1 * 1000 / h)]
    if convention == "norm1000":
        return grid
    if convention == "norm1000_yx":
        return [grid[1], grid[0], grid[3], grid[2]]
    raise AssertionError(convention)


def family_server(convention: str | None = None, **budget):
    """Answers like the model named in the request (or in ``convention`` when given)."""

    def reply(req: dict) -> str:
        conv = convention or model_family(req["model"]).coords
        coords = {}
        for i, (img, rgb) in enumerate(zip(request_images(req), (RED, BLUE), strict=False), start=1):
            coords[str(i)] = [encode(color_box(img, rgb), img.size, conv, **budget)]
        return json.dumps({"answer": "5.2 million", "coordinates": coords})

    return reply


def _assert_on(box, region_pt, tol=TOL_PT):
    assert box.space is Space.POINT
    assert box.coords == pytest.approx(region_pt, abs=tol), (box.coords, region_pt)


def _ask(srv, model: str, pages, **opts):
    opts.setdefault("ground", "off")   # the model's own boxes, as converted (grounding is tested elsewhere)
    return get_generator(f"openai:{model}", base_url=srv.base_url, api_key="k", **opts).generate("q", pages)


@pytest.mark.parametrize("model,expected", [
    ("Qwen/Qwen2.5-VL-7B-Instruct", "model_pixels"), ("qwen2.5vl:7b", "model_pixels"),
    ("Qwen/Qwen2-VL-7B-Instruct", "norm1000"), ("Qwen/Qwen3-VL-8B-Instruct", "norm1000"),
    ("OpenGVLab/InternVL3-8B", "norm1000"), ("gemini-2.0-flash", "norm1000_yx"),
    ("gpt-4o-2024-08-06", "pixel"), ("gpt-4.1-mini", "pixel"), ("claude-3-5-sonnet-latest", "pixel"),
])
def test_family_is_read_from_the_model_name(model, expected):
    assert resolve(None, model)[0] == expected
    assert resolve("auto", model)[0] == expected
    assert resolve("pixel", model) == ("pixel", "explicit")


def test_unknown_model_gets_pixels_and_says_so(pages):
    conv, how = resolve(None, "my-finetune")
    assert conv == "pixel" and how.startswith("unknown model family")
    with ScriptedOpenAIServer(family_server("pixel")) as srv:
        ans = _ask(srv, "my-finetune", pages)
    assert any("unknown model family" in w for w in ans.warnings)
    _assert_on(ans.citations[0].boxes[0], RED_PT)


@pytest.mark.parametrize("convention", ["pixel", "model_pixels", "norm1000", "norm1000_yx"])
def test_every_convention_comes_back_within_3pt(pages, convention):
    with ScriptedOpenAIServer(family_server(convention)) as srv:
        ans = _ask(srv, "some-model", pages, coords=convention)
    assert ans.parse_error is None and ans.warnings == [], ans.warnings
    by_page = {c.page_id: c for c in ans.citations}
    _assert_on(by_page["docA:1"].boxes[0], RED_PT)
    _assert_on(by_page["docB:3"].boxes[0], BLUE_PT)
    assert ans.meta["coords"] == convention


@pytest.mark.parametrize("model", ["Qwen/Qwen2.5-VL-7B-Instruct", "Qwen/Qwen2-VL-7B-Instruct",
                                   "Qwen3-VL-30B-A3B-Instruct", "gemini-2.5-pro", "gpt-4o", "InternVL3-8B"])
def test_model_name_alone_picks_the_convention(pages, model):
    """A scripted server answering like the named model; only the name is given to docrag."""
    with ScriptedOpenAIServer(family_server(), model=model) as srv:
        ans = _ask(srv, model, pages)
    assert ans.warnings == []
    by_page = {c.page_id: c for c in ans.citations}
    _assert_on(by_page["docA:1"].boxes[0], RED_PT)
    _assert_on(by_page["docB:3"].boxes[0], BLUE_PT)


def test_qwen25_pixels_read_as_plain_pixels_miss(pages):
    """The failure the convention fixes: Qwen2.5-VL boxes taken as pixels of the sent image are off
    (sent 593x768 is resized to 588x756 by the processor; at larger sizes the gap grows)."""
    with ScriptedOpenAIServer(family_server("model_pixels")) as srv:
        right = _ask(srv, "Qwen2.5-VL-7B", pages, max_width=1400, max_height=1400)
        wrong = _ask(srv, "Qwen2.5-VL-7B", pages, coords="pixel", max_width=1400, max_height=1400)
    _assert_on(right.citations[0].boxes[0], RED_PT)
    err = max(abs(a - b) for a, b in zip(wrong.citations[0].boxes[0].coords, RED_PT, strict=True))
    assert err > 1.0


def test_processor_pixel_budget_is_configurable(pages):
    budget = {"max_pixels": 200_000}
    with ScriptedOpenAIServer(family_server("model_pixels", **budget)) as srv:
        ans = _ask(srv, "Qwen/Qwen2.5-VL-3B-Instruct", pages, processor_max_pixels=200_000)
        default = _ask(srv, "Qwen/Qwen2.5-VL-3B-Instruct", pages)
    _assert_on(ans.citations[0].boxes[0], RED_PT)
    err = max(abs(a - b) for a, b in zip(default.citations[0].boxes[0].coords, RED_PT, strict=True))
    assert err > TOL_PT


def test_config_file_overrides_per_model(tmp_path, pages):
    cfg = tmp_path / "config.toml"
    cfg.write_text('[generation]\ncoords = "pixel"\n\n[models."my-ft"]\ncoords = "norm1000"\n\n'
                   '[models."*qwen2.5-vl*"]\ncoords = "model_pixels"\nprocessor_max_pixels = 200000\n')
    s = load_settings(cfg, environ={})
    assert s.generator_options("openai:my-ft")["coords"] == "norm1000"
    qwen = s.generator_options("openai:Qwen/Qwen2.5-VL-7B-Instruct")
    assert qwen["coords"] == "model_pixels" and qwen["processor_max_pixels"] == 200000
    assert s.generator_options("openai:gpt-4o")["coords"] == "pixel"   # the global setting
    with ScriptedOpenAIServer(family_server("norm1000")) as srv:
        opts = {**s.generator_options("openai:my-ft"), "base_url": srv.base_url, "api_key": "k", "ground": "off"}
        ans = get_generator("openai:my-ft", **opts).generate("q", pages)
    _assert_on(ans.citations[0].boxes[0], RED_PT)


def test_config_rejects_bad_model_tables(tmp_path):
    from docrag.errors import InputError

    cfg = tmp_path / "config.toml"
    cfg.write_text('[models."x"]\ncoords = "inches"\n')
    with pytest.raises(InputError, match="not a box convention"):
        load_settings(cfg, environ={})
    cfg.write_text('[models."x"]\ncolour = 1\n')
    with pytest.raises(InputError, match="unknown key"):
        load_settings(cfg, environ={})


def test_smart_resize_matches_qwen_vl_utils():
    for w, h in [(593, 768), (1024, 724), (3000, 40), (20, 20), (5000, 7000), (1240, 1755), (57, 3000)]:
        for budget in ({}, {"max_pixels": 200_000}, {"min_pixels": 500_000}):
            assert smart_resize(w, h, **budget) == _qwen_resize(w, h, **budget), (w, h, budget)
    with pytest.raises(GeometryError):
        smart_resize(0, 10)


def test_gemini_order_and_swap_shapes():
    assert Box.from_grid([100, 200, 300, 400], order="yxyx").coords == pytest.approx((0.2, 0.1, 0.4, 0.3))
    assert swap_yx([[1, 2, 3, 4]]) == [[2, 1, 4, 3]]
    assert swap_yx({"bbox_2d": [1, 2, 3, 4]}) == {"bbox_2d": [2, 1, 4, 3]}
    assert swap_yx("[1, 2, 3, 4]") == "[2, 1, 4, 3]"
    assert swap_yx([[1, 2], [3, 4]]) == [[2, 1], [4, 3]]
    assert swap_yx(["not a box"]) == ["not a box"]
    coords, conv = for_parser({"1": [[10, 20, 30, 40]]}, "norm1000_yx")
    assert conv == "norm1000" and coords == {"1": [[20, 10, 40, 30]]}


def test_coords_flag_options_and_cli_errors(tmp_path):
    from docrag.apps.cli import app

    assert coords_options(None, "openai:x") == {}
    assert coords_options("norm1000_yx", "openai:gemini") == {"coords": "norm1000_yx"}
    assert coords_options("pixel", "extractive") == {}
    runner = CliRunner()
    for cmd in (["ask", str(tmp_path), "q", "-g", "openai:gpt-4o", "--coords", "inches"],
                ["eval", str(tmp_path), "--qa", str(tmp_path / "qa.jsonl"), "--out", str(tmp_path / "r"),
                 "-g", "openai:gpt-4o", "--coords", "inches"],
                ["view", str(tmp_path), "--coords", "inches"]):
        res = runner.invoke(app, cmd)
        assert res.exit_code == 2, (cmd, res.output)
        assert "box convention" in res.output, res.output


def test_eval_config_carries_coords_without_changing_old_identities():
    from docrag.eval.runner import EvalConfig

    assert "coords" not in EvalConfig().identity()           # runs made before --coords still resume
    assert EvalConfig(coords="norm1000_yx").identity()["coords"] == "norm1000_yx"
