"""Answer generation with page- and block-level visual citations.

``get_generator(name, **options)`` with names ``extractive`` (offline baseline), ``openai:<model>``
and ``qwen-vl:<path>``; every generator returns a :class:`docrag.types.Answer` whose citation boxes
are in the cited page's PDF points.
"""

from docrag.generation.base import GENERATORS, Generator, VLMGenerator, generate_many, get_generator
from docrag.generation.images import ResizePolicy
from docrag.generation.parse import ParsedReply, citations_from_coordinates, parse_reply
from docrag.generation.prompt import PROMPT_VERSION

__all__ = ["GENERATORS", "Generator", "PROMPT_VERSION", "ParsedReply", "ResizePolicy", "VLMGenerator",
           "citations_from_coordinates", "generate_many", "get_generator", "parse_reply"]
