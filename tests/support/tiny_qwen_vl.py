"""Tiny random-weight Qwen2.5-VL / Qwen2-VL checkpoints built offline (no downloads), for tests.

``build_tiny_qwen25_vl(folder)`` (and ``build_tiny_qwen2_vl``) writes a ~1 MB checkpoint
(config.json, model.safetensors, tokenizer and processor files) that ``from_pretrained`` of the
model class and ``AutoProcessor.from_pretrained`` load; its output is random text, which is the point: callers
must survive garbage replies.
"""

from __future__ import annotations

from pathlib import Path

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
           "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>"]

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for c in m['content'] %}{% if c['type'] == 'image' or 'image' in c %}"
    "<|vision_start|><|image_pad|><|vision_end|>{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")

_TRAINING_TEXT = [
    '{"answer": "The total revenue was 42 million.", "coordinates": {"1": [[10, 20, 300, 400]]}}',
    "What is the total revenue? Image 1: Width: 224, Height: 168",
    "answer coordinates table chart paragraph page image width height 0123456789 [ ] { } , : \"",
]

#: Pixel budget of the tiny image processor (keeps the vision tower's input small and fast).
MIN_PIXELS = 56 * 56
MAX_PIXELS = 224 * 224


def _tokenizer(extra_tokens: tuple[str, ...] = ()):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(_TRAINING_TEXT, trainers.BpeTrainer(
        vocab_size=600, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    hf_tok = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                     additional_special_tokens=SPECIAL[1:], chat_template=CHAT_TEMPLATE)
    if extra_tokens:   # single-token answers of yes/no rerankers
        hf_tok.add_tokens(list(extra_tokens))
    return hf_tok


def _token_ids(hf_tok) -> dict[str, int]:
    tid = hf_tok.convert_tokens_to_ids
    return dict(image_token_id=tid("<|image_pad|>"), video_token_id=tid("<|video_pad|>"),
                vision_start_token_id=tid("<|vision_start|>"), vision_end_token_id=tid("<|vision_end|>"))


def _save(model, proc, folder: Path) -> Path:
    model.generation_config.pad_token_id = 0
    model.generation_config.eos_token_id = 2
    model.save_pretrained(folder)
    proc.save_pretrained(folder)
    return folder


def _text_config(hf_tok) -> dict:
    """The tiny language model shared by the Qwen2-VL and Qwen2.5-VL builders (mrope sums to head_dim/2)."""
    return dict(vocab_size=len(hf_tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                num_attention_heads=4, num_key_value_heads=2,
                rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]},
                tie_word_embeddings=True, bos_token_id=0, eos_token_id=2, pad_token_id=0)


def build_tiny_qwen25_vl(folder: str | Path) -> Path:
    """Write a tiny random Qwen2.5-VL checkpoint into ``folder`` and return the folder."""
    import torch
    from transformers import (
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2_5_VLProcessor,
        Qwen2VLImageProcessor,
        Qwen2VLVideoProcessor,
    )

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    hf_tok = _tokenizer()
    proc = Qwen2_5_VLProcessor(
        image_processor=Qwen2VLImageProcessor(min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS),
        tokenizer=hf_tok, video_processor=Qwen2VLVideoProcessor(), chat_template=CHAT_TEMPLATE)
    text_cfg = _text_config(hf_tok)
    vision_cfg = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64,
                      patch_size=14, spatial_merge_size=2, temporal_patch_size=2, window_size=112,
                      fullatt_block_indexes=[1])
    cfg = Qwen2_5_VLConfig(text_config=text_cfg, vision_config=vision_cfg, **_token_ids(hf_tok),
                           eos_token_id=2, pad_token_id=0, tie_word_embeddings=True)
    cfg._attn_implementation = "eager"
    torch.manual_seed(0)
    return _save(Qwen2_5_VLForConditionalGeneration(cfg).eval(), proc, folder)


def build_tiny_qwen2_vl(folder: str | Path, extra_tokens: tuple[str, ...] = ()) -> Path:
    """Write a tiny random Qwen2-VL checkpoint (replies on a 0-1000 grid) into ``folder``."""
    import torch
    from transformers import (
        Qwen2VLConfig,
        Qwen2VLForConditionalGeneration,
        Qwen2VLImageProcessor,
        Qwen2VLProcessor,
        Qwen2VLVideoProcessor,
    )

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    hf_tok = _tokenizer(extra_tokens)
    proc = Qwen2VLProcessor(
        image_processor=Qwen2VLImageProcessor(min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS),
        tokenizer=hf_tok, video_processor=Qwen2VLVideoProcessor(), chat_template=CHAT_TEMPLATE)
    text_cfg = _text_config(hf_tok)
    vision_cfg = dict(depth=2, embed_dim=32, hidden_size=64, mlp_ratio=2, num_heads=2, in_chans=3,
                      patch_size=14, spatial_merge_size=2, temporal_patch_size=2)
    cfg = Qwen2VLConfig(text_config=text_cfg, vision_config=vision_cfg, **_token_ids(hf_tok),
                        eos_token_id=2, pad_token_id=0, tie_word_embeddings=True)
    cfg._attn_implementation = "eager"
    torch.manual_seed(0)
    return _save(Qwen2VLForConditionalGeneration(cfg).eval(), proc, folder)


def build_tiny_qwen3_vl(folder: str | Path, extra_tokens: tuple[str, ...] = ("yes", "no")) -> Path:
    """Write a tiny random Qwen3-VL checkpoint (patch 16, merge 2; recipe in retriever-zoo.md §2.2)."""
    import torch
    from transformers import (
        Qwen2VLImageProcessor,
        Qwen3VLConfig,
        Qwen3VLForConditionalGeneration,
        Qwen3VLProcessor,
        Qwen3VLVideoProcessor,
    )

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    hf_tok = _tokenizer(extra_tokens)
    proc = Qwen3VLProcessor(
        image_processor=Qwen2VLImageProcessor(patch_size=16, merge_size=2, temporal_patch_size=2,
                                              min_pixels=32 * 32, max_pixels=256 * 256),
        tokenizer=hf_tok, video_processor=Qwen3VLVideoProcessor(patch_size=16, merge_size=2, temporal_patch_size=2),
        chat_template=CHAT_TEMPLATE)
    text_cfg = dict(vocab_size=len(hf_tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                    rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [4, 2, 2],
                                     "mrope_interleaved": True},
                    tie_word_embeddings=False, bos_token_id=0, eos_token_id=2, pad_token_id=0)
    vision_cfg = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, patch_size=16,
                      spatial_merge_size=2, temporal_patch_size=2, out_hidden_size=64, num_position_embeddings=256,
                      deepstack_visual_indexes=[0])
    cfg = Qwen3VLConfig(text_config=text_cfg, vision_config=vision_cfg, **_token_ids(hf_tok),
                        tie_word_embeddings=False)
    cfg._attn_implementation = "eager"
    torch.manual_seed(0)
    return _save(Qwen3VLForConditionalGeneration(cfg).eval(), proc, folder)
