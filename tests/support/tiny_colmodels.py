"""Tiny random-weight colpali-engine retrievers built offline (no hub), saved to a folder.

``build_tiny_colmodel(family, out_dir)`` writes config.json, model.safetensors and the processor
files for ``colqwen2``, ``colqwen2.5``, ``colsmol`` (ColIdefics3), ``colpali`` or ``biqwen2``
(single-vector); load it with ``docrag.index.get_retriever(f"{family}:{out_dir}")`` (``bi:{out_dir}``
for biqwen2). The recipe is the code below: a BPE tokenizer trained on a few sentences, each family's
config shrunk to 2 layers of width 64, random weights, saved with ``save_pretrained``.
"""

from __future__ import annotations

from pathlib import Path

import torch

FAMILIES = ("colqwen2", "colqwen2.5", "colsmol", "colpali", "biqwen2")
TRAIN_TEXT = ["What is the total revenue in 2011?", "Table 1: arrests by offense, 2009",
              "Abrasives production and consumption", "financial literacy and losses of households",
              "总收入是多少", "employment by industry", "0123456789 ,.;:%$()"] * 4

_QWEN_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                 "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>"]


def _bpe(special: list[str], vocab_size: int = 600):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(TRAIN_TEXT, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special,
                                                            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


def _qwen_parts():
    from transformers import PreTrainedTokenizerFast, Qwen2VLImageProcessor, Qwen2VLVideoProcessor

    hf_tok = PreTrainedTokenizerFast(tokenizer_object=_bpe(_QWEN_SPECIAL), eos_token="<|im_end|>",
                                     pad_token="<|endoftext|>", additional_special_tokens=_QWEN_SPECIAL[1:])
    img = Qwen2VLImageProcessor(min_pixels=56 * 56, max_pixels=224 * 224, patch_size=14, temporal_patch_size=2,
                                merge_size=2)
    return hf_tok, img, Qwen2VLVideoProcessor()


def _qwen_ids(hf_tok) -> dict:
    tid = hf_tok.convert_tokens_to_ids
    return dict(image_token_id=tid("<|image_pad|>"), video_token_id=tid("<|video_pad|>"),
                vision_start_token_id=tid("<|vision_start|>"), vision_end_token_id=tid("<|vision_end|>"))


def _text_cfg(hf_tok) -> dict:
    return dict(vocab_size=len(hf_tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                num_attention_heads=4, num_key_value_heads=2,
                rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]},
                tie_word_embeddings=False, bos_token_id=0, eos_token_id=2, pad_token_id=0)


def _colqwen2(out: Path, single_vector: bool = False) -> None:
    from colpali_engine.models import BiQwen2, BiQwen2Processor, ColQwen2, ColQwen2Processor
    from transformers import Qwen2VLConfig

    hf_tok, img, vid = _qwen_parts()
    proc_cls, model_cls = (BiQwen2Processor, BiQwen2) if single_vector else (ColQwen2Processor, ColQwen2)
    proc = proc_cls(image_processor=img, tokenizer=hf_tok, video_processor=vid)
    vision = dict(depth=2, embed_dim=32, hidden_size=64, mlp_ratio=2, num_heads=2, in_chans=3, patch_size=14,
                  spatial_merge_size=2, temporal_patch_size=2)
    cfg = Qwen2VLConfig(text_config=_text_cfg(hf_tok), vision_config=vision, **_qwen_ids(hf_tok))
    cfg._attn_implementation = "eager"
    model_cls(cfg).eval().save_pretrained(out)
    proc.save_pretrained(out)


def _colqwen25(out: Path) -> None:
    from colpali_engine.models import ColQwen2_5, ColQwen2_5_Processor
    from transformers import Qwen2_5_VLConfig

    hf_tok, img, vid = _qwen_parts()
    proc = ColQwen2_5_Processor(image_processor=img, tokenizer=hf_tok, video_processor=vid)
    vision = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, in_channels=3, out_hidden_size=64,
                  patch_size=14, spatial_merge_size=2, temporal_patch_size=2, window_size=112,
                  fullatt_block_indexes=[1])
    cfg = Qwen2_5_VLConfig(text_config=_text_cfg(hf_tok), vision_config=vision, **_qwen_ids(hf_tok))
    cfg._attn_implementation = "eager"
    ColQwen2_5(cfg).eval().save_pretrained(out)
    proc.save_pretrained(out)


def _colsmol(out: Path) -> None:
    from colpali_engine.models import ColIdefics3, ColIdefics3Processor
    from transformers import Idefics3Config, Idefics3ImageProcessor, PreTrainedTokenizerFast

    special = ["<|endoftext|>", "<|im_start|>", "<end_of_utterance>", "<fake_token_around_image>", "<image>",
               "<global-img>"] + [f"<row_{r}_col_{c}>" for r in range(1, 7) for c in range(1, 7)]
    hf_tok = PreTrainedTokenizerFast(tokenizer_object=_bpe(special), eos_token="<end_of_utterance>",
                                     pad_token="<|endoftext|>", bos_token="<|im_start|>",
                                     additional_special_tokens=special[1:])
    img = Idefics3ImageProcessor(do_image_splitting=False, size={"longest_edge": 64},
                                 max_image_size={"longest_edge": 64})
    proc = ColIdefics3Processor(image_processor=img, tokenizer=hf_tok, image_seq_len=4)
    cfg = Idefics3Config(image_token_id=hf_tok.convert_tokens_to_ids("<image>"), scale_factor=2,
                         vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                            num_attention_heads=2, image_size=64, patch_size=16),
                         text_config=dict(model_type="llama", vocab_size=len(hf_tok), hidden_size=64,
                                          intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                                          num_key_value_heads=2, pad_token_id=0))
    cfg._attn_implementation = "eager"
    ColIdefics3(cfg).eval().save_pretrained(out)
    proc.save_pretrained(out)


def _colpali(out: Path) -> None:
    from colpali_engine.models import ColPali, ColPaliProcessor
    from transformers import PaliGemmaConfig, PreTrainedTokenizerFast, SiglipImageProcessor

    special = ["<pad>", "<eos>", "<bos>", "<unk>", "<image>"]
    hf_tok = PreTrainedTokenizerFast(tokenizer_object=_bpe(special), pad_token="<pad>", eos_token="<eos>",
                                     bos_token="<bos>", unk_token="<unk>", additional_special_tokens=["<image>"])
    img = SiglipImageProcessor(size={"height": 28, "width": 28})
    img.image_seq_length = 4
    proc = ColPaliProcessor(image_processor=img, tokenizer=hf_tok)
    cfg = PaliGemmaConfig(
        vision_config=dict(model_type="siglip_vision_model", hidden_size=32, intermediate_size=64,
                           num_hidden_layers=2, num_attention_heads=2, image_size=28, patch_size=14,
                           projection_dim=64),
        text_config=dict(model_type="gemma", vocab_size=len(proc.tokenizer), hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1, head_dim=16),
        projection_dim=64, image_token_index=hf_tok.convert_tokens_to_ids("<image>"))
    cfg._attn_implementation = "eager"
    ColPali(cfg).eval().save_pretrained(out)
    proc.save_pretrained(out)


def _qwen3_parts(proc_cls):
    from transformers import Qwen2VLImageProcessor, Qwen3VLVideoProcessor

    from tests.support.tiny_qwen_vl import _tokenizer

    hf_tok = _tokenizer()
    img = Qwen2VLImageProcessor(patch_size=16, merge_size=2, temporal_patch_size=2, min_pixels=32 * 32,
                                max_pixels=256 * 256)
    vid = Qwen3VLVideoProcessor(patch_size=16, merge_size=2, temporal_patch_size=2)
    return hf_tok, proc_cls(image_processor=img, tokenizer=hf_tok, video_processor=vid)


def _colqwen3(out: Path) -> None:
    """ColQwen3 on a tiny Qwen3-VL (dims of retriever-zoo.md §2.2)."""
    from colpali_engine.models import ColQwen3, ColQwen3Processor
    from transformers import Qwen3VLConfig

    hf_tok, proc = _qwen3_parts(ColQwen3Processor)
    text = dict(vocab_size=len(hf_tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                num_attention_heads=4, num_key_value_heads=2, head_dim=16, pad_token_id=0,
                rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [4, 2, 2],
                                 "mrope_interleaved": True})
    vision = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, patch_size=16, spatial_merge_size=2,
                  temporal_patch_size=2, out_hidden_size=64, num_position_embeddings=256, deepstack_visual_indexes=[0])
    cfg = Qwen3VLConfig(text_config=text, vision_config=vision, **_qwen_ids(hf_tok))
    cfg._attn_implementation = "eager"
    ColQwen3(cfg).eval().save_pretrained(out)
    proc.save_pretrained(out)


def _colqwen35(out: Path) -> None:
    """ColQwen3.5 on a tiny Qwen3.5 (one linear-attention and one full-attention layer)."""
    from colpali_engine.models import ColQwen3_5, ColQwen3_5Processor
    from transformers import Qwen3_5Config

    hf_tok, proc = _qwen3_parts(ColQwen3_5Processor)
    text = dict(vocab_size=len(hf_tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                num_attention_heads=4, num_key_value_heads=2, head_dim=32, pad_token_id=0,
                layer_types=["linear_attention", "full_attention"], linear_key_head_dim=16, linear_value_head_dim=16,
                linear_num_key_heads=2, linear_num_value_heads=4,
                rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25,
                                 "mrope_section": [2, 1, 1], "mrope_interleaved": True})
    vision = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, patch_size=16, spatial_merge_size=2,
                  temporal_patch_size=2, out_hidden_size=64, num_position_embeddings=256)
    cfg = Qwen3_5Config(text_config=text, vision_config=vision, **_qwen_ids(hf_tok))
    cfg._attn_implementation = "eager"
    ColQwen3_5(cfg).eval().save_pretrained(out)
    proc.save_pretrained(out)


def _biqwen2(out: Path) -> None:
    _colqwen2(out, single_vector=True)


_BUILDERS = {"colqwen2": _colqwen2, "colqwen2.5": _colqwen25, "colsmol": _colsmol, "colpali": _colpali,
             "biqwen2": _biqwen2, "colqwen3": _colqwen3, "colqwen3.5": _colqwen35}


def build_tiny_colmodel(family: str, out_dir: str | Path, seed: int = 0) -> Path:
    """Build, randomly initialise (seeded) and save a tiny model of ``family``; returns the folder."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    _BUILDERS[family](out)
    return out
