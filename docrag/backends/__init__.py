"""Model transports shared by generators and judges (one client per backend, not one per role)."""

from docrag.backends.base import ChatBackend, ChatMessage, ChatReply, ImagePart, TextPart

__all__ = ["ChatBackend", "ChatMessage", "ChatReply", "ImagePart", "TextPart"]
