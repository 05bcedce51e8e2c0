"""``qwen-vl:<path>`` through the real transformers + qwen-vl-utils path, on a tiny random checkpoint."""

from __future__ import annotations

import json
import shutil

import pytest
from PIL import Image

from docrag.backends import ChatMessage, ImagePart, get_backend
from docrag.backends.base import ChatReply
from docrag.errors import InputError
from docrag.generation import get_generator
from docrag.generation.base import VLMGenerator
from tests.support.synthetic_pages import Region, color_box, make_page

pytest.importorskip("qwen_vl_utils")
pytest.importorskip("transformers")

RED = (220, 20, 20)


@pytest.fixture(scope="module")
def tiny_qwen(tmp_path_factory):
    from tests.support.tiny_qwen_vl import build_tiny_qwen25_vl

    # A misleading folder name: the family must come from config.json, not from the name.
    return build_tiny_qwen25_vl(tmp_path_factory.mktemp("models") / "Qwen2-VL-not-really")


def test_family_comes_from_config_and_sizes_fed_are_reported(tiny_qwen):
    backend = get_backend(f"qwen-vl:{tiny_qwen}")
    assert backend.model_type == "qwen2_5_vl" and backend.coords == "model_pixels"
    reply = backend.chat([ChatMessage.user(ImagePart(Image.new("RGB", (400, 300), "white")), "What?")],
                         max_tokens=8)
    assert isinstance(reply, ChatReply) and isinstance(reply.text, str)
    assert 0 < reply.usage["completion_tokens"] <= 8
    (size,) = reply.meta["input_sizes"]
    assert size[0] % 28 == 0 and size[1] % 28 == 0
    assert size[0] * size[1] <= backend.max_pixels
    assert abs(size[0] / size[1] - 400 / 300) < 0.2   # rounded to the 28-pixel grid


def test_one_loaded_model_is_shared(tiny_qwen):
    a = get_backend(f"qwen-vl:{tiny_qwen}")
    b = get_backend(f"qwen-vl:{tiny_qwen}")
    assert a._loaded is b._loaded


def test_not_a_qwen_vl_checkpoint_is_a_clear_error(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(InputError, match="not a Qwen-VL family"):
        get_backend(f"qwen-vl:{tmp_path}")


def test_generate_end_to_end_survives_garbage(tiny_qwen, tmp_path):
    page = make_page(tmp_path / "pages", [Region((72, 100, 300, 180), RED, "Revenue")])
    gen = get_generator(f"qwen-vl:{tiny_qwen}", max_tokens=24)
    ans = gen.generate("What is the revenue?", [page])
    assert ans.parse_error is not None          # random weights: no JSON
    assert ans.citations == []
    assert ans.raw is not None and ans.usage["completion_tokens"] > 0
    (img,) = ans.meta["images"]
    # the page is sent at the model's own input size, which the backend confirms
    assert img["sent_size"] == img["model_size"]
    assert img["sent_size"][0] % 28 == 0 and img["sent_size"][1] % 28 == 0


def test_qwen2_vl_family_uses_the_1000_grid(tmp_path):
    from tests.support.tiny_qwen_vl import build_tiny_qwen2_vl

    path = build_tiny_qwen2_vl(tmp_path / "Qwen2.5-VL-name-is-a-lie")
    backend = get_backend(f"qwen-vl:{path}")
    assert (backend.model_type, backend.coords) == ("qwen2_vl", "norm1000")
    page = make_page(tmp_path / "pages", [Region((72, 100, 300, 180), RED, "Revenue")])
    gen = get_generator(f"qwen-vl:{path}", max_tokens=8)
    assert gen.coords == "norm1000"
    ans = gen.generate("What?", [page])
    assert ans.meta["coords"] == "norm1000" and ans.meta["images"][0]["model_size"] is not None


def test_copied_checkpoint_still_loads(tiny_qwen, tmp_path):
    copy = shutil.copytree(tiny_qwen, tmp_path / "plain-name")
    assert get_backend(f"qwen-vl:{copy}").coords == "model_pixels"


class _FakeQwen25:
    """A backend answering like Qwen2.5-VL: pixels of its own (here: half-size) input."""

    name = "fake-qwen2.5"

    def __init__(self):
        self.seen = []

    def chat(self, messages, *, max_tokens=1024, temperature=0.0):
        image = next(p.image for p in messages[0].content if isinstance(p, ImagePart))
        self.seen.append(image.size)
        w, h = image.size
        half = image.resize((w // 2, h // 2))
        x0, y0, x1, y1 = color_box(half, RED)
        return ChatReply(json.dumps({"answer": "a", "coordinates": {"1": [[x0, y0, x1, y1]]}}),
                         meta={"input_sizes": [(w // 2, h // 2)]})


def test_model_pixel_convention_maps_through_the_models_input_size(tmp_path):
    page = make_page(tmp_path, [Region((72, 100, 300, 180), RED, "Revenue")])
    backend = _FakeQwen25()
    ans = VLMGenerator(backend, coords="model_pixels").generate("q", [page])
    assert ans.citations[0].boxes[0].coords == pytest.approx((72, 100, 300, 180), abs=3.0)
    # the same reply read in the sent size would be off by a factor of two
    wrong = VLMGenerator(_FakeQwen25(), coords="pixel").generate("q", [page])
    assert wrong.citations[0].boxes[0].x1 < 200


@pytest.mark.gpu
def test_cuda_runs_in_bfloat16(tiny_qwen):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    backend = get_backend(f"qwen-vl:{tiny_qwen}", device="cuda")
    assert next(backend._loaded.model.parameters()).dtype == torch.bfloat16
    reply = backend.chat([ChatMessage.user(ImagePart(Image.new("RGB", (200, 150), "white")), "What?")],
                         max_tokens=4)
    assert reply.meta["input_sizes"] and reply.usage["completion_tokens"] > 0


def test_region_marks_are_drawn_at_the_models_own_input_size(tiny_qwen, tmp_path):
    """Citing by region (the default), the marks are drawn after the resize to the model's grid,
    so the numbers are as legible as the model sees them and the listing names every region."""
    from docrag.generation.marks import PALETTE
    from docrag.regions import page_regions

    page = make_page(tmp_path / "pages", [Region((72, 100, 300, 180), (255, 255, 255), "Revenue rose to 5.2 million."),
                                          Region((72, 300, 400, 420), (255, 255, 255), "Costs fell.")])
    gen = get_generator(f"qwen-vl:{tiny_qwen}", max_tokens=8)
    seen = []
    chat = gen.backend.chat

    def spy(messages, **kw):
        seen.append(messages)
        return chat(messages, **kw)

    gen.backend.chat = spy
    ans = gen.generate("What?", [page])
    assert gen.cite_by == "regions" and ans.meta["cite_by"] == "regions"
    (image,) = [p.image for p in seen[0][0].content if isinstance(p, ImagePart)]
    w, h = image.size
    assert w % 28 == 0 and h % 28 == 0 and [w, h] == ans.meta["images"][0]["sent_size"]
    regions = page_regions(page)
    first = regions[0].box.to_pixels(w, h)
    edge = image.getpixel((int((first.x0 + first.x1) / 2), int(first.y1)))
    assert max(abs(a - b) for a, b in zip(edge, PALETTE[0], strict=True)) < 10
    texts = [p.text for p in seen[0][0].content if hasattr(p, "text")]
    assert any(t.startswith("Regions of image 1") and t.count("\n#") == len(regions) for t in texts)
