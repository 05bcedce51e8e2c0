"""Fuzzed generator replies: valid replies mutated, cut and filled with hostile values.

``fuzzed_reply(random.Random(seed))`` is deterministic per seed; the property test and
``benchmarks/fuzz.py`` use it.
"""

from __future__ import annotations

import json
import random

HOSTILE_NUMBERS = ["1e309", "-1e999", "9" * 400, "1" * 5000, "NaN", "Infinity", "-0", "0x10", "1_000",
                   "3.4.5", "1e-400", "True", "None", "[]", "{}", '"12"', '"1e999"', "..."]
HOSTILE_KEYS = ["1", "image 1", "<image_1>", "图1", "Image 1:", "7" * 5000, "0", "-1", "", "\ud83d",
                "1" * 30, "image_999999999", "第2张", "None"]
HOSTILE_ANSWERS = ['"ok"', "{1, 2}", "b'x'", "...", "1j", "[1, {2: 3}]", '"\\ud83d"', '"\\udc80x"', '"€ 5"',
                   "None", "9" * 400, '"' + "x" * 2000 + '"', "frozenset()", "(1, 2)"]
TEMPLATES = [
    '{{"answer": {a}, "coordinates": {{"{k}": [[{n1}, {n2}, {n3}, {n4}]]}}}}',
    "```json\n{{\"answer\": {a}, \"coordinates\": {{\"{k}\": [[{n1}, {n2}, {n3}, {n4}], ...]}}}}\n```",
    "{{'answer': {a}, 'coordinates': {{'{k}': ({n1}, {n2}, {n3}, {n4})}}}}",
    '{{"answer": {a}, "coordinates": "{{\\"{k}\\": [[{n1}, {n2}, {n3}, {n4}]]}}"}}',
    '{{"answer": {a}, "coordinates": {{"{k}": ["{n1}, {n2}, {n3}, {n4}"]}}}}',
    '[{{"bbox_2d": [{n1}, {n2}, {n3}, {n4}], "label": {a}}}]',
    '```json\n{{"answer": {a}}}\n```\n```json\n{{"coordinates": {{"{k}": [[{n1}, {n2}, {n3}, {n4}]]}}}}\n```',
    '{{"answer": {a}, "coordinates": [{{"image": "{k}", "bbox": [{n1}, {n2}, {n3}, {n4}]}}]}}',
]
NOISE = list('{}[]()"\',:#/*\\`\n ') + ["```", "...", "…", "//", "/*", "\\u", "\\ud83d", "null", "true"]


def fuzzed_reply(rng: random.Random) -> str:
    """One reply: a template filled with hostile values, then 0-6 random mutations (insert noise,
    delete, duplicate a span, cut the end)."""
    def num() -> str:
        return rng.choice(HOSTILE_NUMBERS) if rng.random() < 0.4 else str(rng.randint(-50, 3000))

    text = rng.choice(TEMPLATES).format(a=rng.choice(HOSTILE_ANSWERS), k=rng.choice(HOSTILE_KEYS),
                                        n1=num(), n2=num(), n3=num(), n4=num())
    if rng.random() < 0.2:
        text = "Sure, here it is: " + text + " Hope this helps."
    for _ in range(rng.randint(0, 6)):
        if not text:
            break
        i = rng.randrange(len(text))
        op = rng.random()
        if op < 0.4:
            text = text[:i] + rng.choice(NOISE) + text[i:]
        elif op < 0.65:
            text = text[:i] + text[i + rng.randint(1, 5):]
        elif op < 0.8:
            j = min(len(text), i + rng.randint(1, 30))
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i]   # cut (token limit)
    return text


def check_utf8_safe(*texts: str) -> None:
    """Raise UnicodeEncodeError when any text could not be written as UTF-8."""
    for t in texts:
        t.encode("utf-8")


def as_record(answer: str, coordinates: dict) -> str:
    return json.dumps({"answer": answer, "coordinates": coordinates}, ensure_ascii=False)
