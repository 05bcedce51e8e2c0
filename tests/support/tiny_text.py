"""Tiny random-weight text models built offline: a BERT cross-encoder (ms-marco-MiniLM style, one
label) and a BERT ColBERT-style encoder (sentence-transformers ``MultiVectorEncoder``)."""

from __future__ import annotations

from pathlib import Path

TEXT = ["total revenue grew in 2011 to billion dollars", "operating costs and employee salaries",
        "abrasives production in the united states", "arrests by offense category table",
        "household financial literacy survey results", "what was the total revenue query document"]


def _vocab(special: list[str]) -> dict[str, int]:
    """A fixed vocabulary: the special tokens, the words of ``TEXT``, then every letter and digit alone
    and as a ``##`` continuation. Training a WordPiece vocabulary instead breaks frequency ties in
    a different order in each process, so token ids (and every score of a seeded model) would vary
    from run to run."""
    words = sorted({w for line in TEXT for w in line.lower().split()})
    chars = sorted(set("abcdefghijklmnopqrstuvwxyz0123456789"))
    pieces = [*special, *words, *chars, *(f"##{c}" for c in chars), *".,:;!?-()'%$&/"]
    return {p: i for i, p in enumerate(dict.fromkeys(pieces))}


def _wordpiece(extra: tuple[str, ...] = ()):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *extra]
    tok = Tokenizer(models.WordPiece(_vocab(special), unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]", model_max_length=128)


def _bert_config(vocab: int, **kw):
    from transformers import BertConfig

    return BertConfig(vocab_size=vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                      intermediate_size=64, max_position_embeddings=128, initializer_range=0.5, **kw)


def build_tiny_cross_encoder(folder: str | Path, seed: int = 0) -> Path:
    """A 1-label ``BertForSequenceClassification`` (+ tokenizer) that ``CrossEncoder`` loads."""
    import torch
    from transformers import BertForSequenceClassification

    folder = Path(folder)
    tok = _wordpiece()
    torch.manual_seed(seed)
    model = BertForSequenceClassification(_bert_config(len(tok), num_labels=1)).eval()
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def build_tiny_bert(folder: str | Path, markers: tuple[str, ...] = ("[Q]", "[D]"), seed: int = 0) -> Path:
    """A bare ``BertModel`` with query/document marker tokens (ColBERT style)."""
    import torch
    from transformers import BertModel

    folder = Path(folder)
    tok = _wordpiece(markers)
    torch.manual_seed(seed)
    BertModel(_bert_config(len(tok))).eval().save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def build_tiny_colbert(folder: str | Path, seed: int = 0) -> Path:
    """A tiny ColBERT-style ``MultiVectorEncoder`` (BERT + 128-d projection + mask + L2) with
    ``[Q] ``/``[D] `` prompts, saved in sentence-transformers' native format."""
    import torch
    from sentence_transformers import MultiVectorEncoder

    folder = Path(folder)
    bert = build_tiny_bert(folder.parent / f"{folder.name}-bert", seed=seed)
    torch.manual_seed(seed)
    model = MultiVectorEncoder(str(bert), device="cpu", prompts={"query": "[Q] ", "document": "[D] "})
    model.save_pretrained(str(folder))
    return folder
