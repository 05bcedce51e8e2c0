"""The OpenAI-compatible HTTP backend against a real server on 127.0.0.1."""

from __future__ import annotations

import socket

import pytest
from PIL import Image

from docrag.backends import BACKENDS, ChatMessage, ImagePart, get_backend
from docrag.backends.base import BackendError, RequestTooLargeError
from docrag.errors import InputError, UnknownNameError
from tests.support.openai_server import ScriptedOpenAIServer


def _backend(srv: ScriptedOpenAIServer, **kw):
    return get_backend("openai:test-model", base_url=srv.base_url, api_key="sk-test", backoff=0.01, **kw)


def test_chat_sends_text_and_exact_images_and_returns_usage():
    img = Image.new("RGB", (321, 123), (10, 200, 30))
    with ScriptedOpenAIServer("hello there") as srv:
        reply = _backend(srv).chat([ChatMessage.user("Look:", ImagePart(img))], max_tokens=77)
        req = srv.requests[0]
        sent = srv.images(req)
    assert reply.text == "hello there"
    assert reply.usage["completion_tokens"] == 2 and reply.usage["total_tokens"] >= 3
    assert req["model"] == "test-model" and req["max_tokens"] == 77 and req["temperature"] == 0.0
    assert [p["type"] for p in req["messages"][0]["content"]] == ["text", "image_url"]
    assert len(sent) == 1 and sent[0].size == (321, 123)
    assert sent[0].getpixel((5, 5)) == (10, 200, 30)   # PNG: pixels arrive unchanged
    assert srv.headers[0]["Authorization"] == "Bearer sk-test"


def test_env_variables_give_base_url_and_key(monkeypatch):
    with ScriptedOpenAIServer("ok") as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
        reply = get_backend("openai:m").chat([ChatMessage.user("hi")])
        assert reply.text == "ok"
        assert srv.headers[0]["Authorization"] == "Bearer sk-env"
        assert srv.requests[0]["messages"] == [{"role": "user", "content": "hi"}]


def test_missing_key_for_the_official_endpoint_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        get_backend("openai:gpt-4o")


@pytest.mark.parametrize("status", [429, 500, 502, 503])
def test_transient_errors_are_retried(status):
    with ScriptedOpenAIServer([(status, "busy"), (status, "busy"), "finally"]) as srv:
        reply = _backend(srv, max_retries=3).chat([ChatMessage.user("q")])
        assert reply.text == "finally"
        assert len(srv.requests) == 3


def test_gives_up_after_max_retries_with_the_last_error():
    with ScriptedOpenAIServer((503, "overloaded")) as srv:
        with pytest.raises(BackendError, match="overloaded"):
            _backend(srv, max_retries=2).chat([ChatMessage.user("q")])
        assert len(srv.requests) == 3


def test_client_errors_are_not_retried():
    with ScriptedOpenAIServer((401, "bad key")) as srv:
        with pytest.raises(BackendError, match="401") as info:
            _backend(srv).chat([ChatMessage.user("q")])
        assert not isinstance(info.value, RequestTooLargeError)
        assert len(srv.requests) == 1


@pytest.mark.parametrize("scripted", [
    (413, "Request Entity Too Large"),
    (400, {"error": {"message": "This model's maximum context length is 128000 tokens",
                     "code": "context_length_exceeded", "type": "invalid_request_error"}}),
])
def test_too_large_requests_raise_request_too_large(scripted):
    with ScriptedOpenAIServer(scripted) as srv:
        with pytest.raises(RequestTooLargeError):
            _backend(srv).chat([ChatMessage.user("q")])
        assert len(srv.requests) == 1


def test_connection_errors_are_retried_then_reported():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    backend = get_backend("openai:m", base_url=f"http://127.0.0.1:{port}/v1", api_key="x",
                          max_retries=1, backoff=0.01, timeout=2)
    with pytest.raises(BackendError, match="connection error"):
        backend.chat([ChatMessage.user("q")])


def test_callable_script_sees_the_request():
    with ScriptedOpenAIServer(lambda req: f"n={len(req['messages'])}") as srv:
        reply = _backend(srv).chat([ChatMessage.system("be brief"), ChatMessage.user("q")])
    assert reply.text == "n=2"


def test_unknown_backend_lists_the_valid_ones():
    with pytest.raises(UnknownNameError) as info:
        get_backend("nope:x")
    assert "openai" in str(info.value) and "qwen-vl" in str(info.value)
    assert set(BACKENDS.families()) >= {"openai", "qwen-vl"}
