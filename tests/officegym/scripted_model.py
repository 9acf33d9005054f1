"""An OpenAI-compatible chat-completions server of the tests' own, over real HTTP, whose "model"
plays scripted policies on the task instance it recognises by its instruction:

- `reference`: the instance's reference solution, one tool call per turn, each argument taken from
  the earlier tool results the conversation carries, then a closing message;
- `wrong`: the same, but it stops before the reference's last call;
- `flaky`: `reference`, with every third request refused with HTTP 503 (the client must retry);
- `broken`: every request answered with HTTP 500;
- `refusing`: every request refused with HTTP 400 (as a wrong option is);
- `overflow`: a directory lookup, then every later request refused with HTTP 400 (as a conversation
  grown past the context window is);
- `hang`: every request answered only after `hang_seconds` (a client's timeout must end it);
- `malformed`: a call whose arguments are not JSON, then a call of a tool that does not exist, then
  a call whose arguments are a JSON list, then a closing message;
- `endless`: a directory lookup every turn, never a closing message;
- `chatty`: a closing message of 400,000 characters, with a reasoning field.

It answers `"stream": true` requests with server-sent events. It records each request it got, so a
test can check what a model is shown. Every answer reports token usage.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from officegym.tasks.base import ToolCall


class ScriptedModel:
    """The policies' knowledge: each instruction's reference steps."""

    def __init__(self, solutions: dict[str, list[ToolCall]], hang_seconds: float = 30.0):
        self.solutions = solutions
        self.hang_seconds = hang_seconds
        self.requests: list[dict] = []
        self._count = 0
        self._lock = threading.Lock()

    def refuse_now(self, model: str) -> bool:
        """Whether this request is one a flaky server refuses."""
        with self._lock:
            self._count += 1
            return model == "flaky" and self._count % 3 == 0

    def record(self, request: dict) -> None:
        """Keep a request, for the test to read."""
        with self._lock:
            self.requests.append(request)

    def reply(self, request: dict) -> dict:
        """The assistant message for one chat-completions request."""
        self.record(request)
        messages = request["messages"]
        misbehaving = MISBEHAVIOURS.get(request["model"])
        if misbehaving:
            return misbehaving(sum(1 for m in messages if m["role"] == "assistant"))
        instruction = next(m["content"] for m in messages if m["role"] == "user")
        steps = self.solutions[instruction]
        if request["model"] == "wrong":
            steps = steps[:-1]
        results = []
        for message in messages:
            if message["role"] == "tool":
                text = message["content"]
                results.append({} if text.startswith("Error:") else json.loads(text))
        if len(results) >= len(steps):
            return {"role": "assistant", "content": "Done."}
        step = steps[len(results)]
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": f"call_{len(results)}", "type": "function",
            "function": {"name": step.tool, "arguments": json.dumps(step.resolved_args(results))}}]}


def _call(index: int, name: str, arguments: str) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": arguments}}]}


def _malformed(turn: int) -> dict:
    bad = [("org_get_me", '{"unclosed": '), ("no_such_tool", "{}"), ("org_get_me", "[1, 2]")]
    return _call(turn, *bad[turn]) if turn < len(bad) else {"role": "assistant", "content": "Done."}


MISBEHAVIOURS = {
    "malformed": _malformed,
    "endless": lambda turn: _call(turn, "org_get_me", "{}"),
    "overflow": lambda turn: _call(turn, "org_get_me", "{}"),
    "chatty": lambda turn: {"role": "assistant", "content": "x" * 400_000, "reasoning_content": "Thinking it over."},
}
STATUS_OF = {"broken": (500, "internal error"), "refusing": (400, "this model does not take that option"),
             "overflow": (400, "the prompt is longer than the context window")}


def _handler(model: ScriptedModel):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self._send(404, {"error": {"message": "not found"}})
            name = body.get("model", "")
            if model.refuse_now(name):
                return self._send(503, {"error": {"message": "busy, try again"}})
            answered = any(m["role"] == "assistant" for m in body["messages"])
            if name in STATUS_OF and (name != "overflow" or answered):
                model.record(body)
                return self._send(STATUS_OF[name][0], {"error": {"message": STATUS_OF[name][1]}})
            if name == "hang":  # by then the client has given up: the connection just closes
                model.record(body)
                time.sleep(model.hang_seconds)
                return None
            message = model.reply(body)
            finish = "tool_calls" if message.get("tool_calls") else "stop"
            prompt = sum(len(json.dumps(m)) for m in body["messages"]) // 4
            completion = len(json.dumps(message)) // 4
            usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
            if body.get("stream"):
                return self._stream(body["model"], message, finish, usage)
            self._send(200, {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body["model"],
                             "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage})

        def _stream(self, model_name: str, message: dict, finish: str, usage: dict):
            """The same reply as server-sent events: the whole message in one delta, then the end."""
            delta = dict(message)
            if "tool_calls" in delta:
                delta["tool_calls"] = [dict(call, index=i) for i, call in enumerate(delta["tool_calls"])]
            head = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": model_name}
            events = [dict(head, choices=[{"index": 0, "delta": delta, "finish_reason": None}]),
                      dict(head, choices=[{"index": 0, "delta": {}, "finish_reason": finish}]),
                      dict(head, choices=[], usage=usage)]
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            for event in events:
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

        def _send(self, status: int, payload: dict):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


class ScriptedModelServer:
    """The server on a free port of 127.0.0.1, in a background thread, while the context is open."""

    def __init__(self, model: ScriptedModel):
        self.model = model
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(model))
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "ScriptedModelServer":
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
