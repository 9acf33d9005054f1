"""An OpenAI-compatible chat-completions server of the tests' own, over real HTTP, whose "model"
plays scripted policies on the task instance it recognises by its instruction:

- `reference`: the instance's reference solution, one tool call per turn, each argument taken from
  the earlier tool results the conversation carries, then a closing message;
- `wrong`: the same, but it stops before the reference's last call;
- `flaky`: `reference`, with every third request refused with HTTP 503 (the client must retry).

It answers `"stream": true` requests with server-sent events. It records each request it got, so a
test can check what a model is shown.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from officegym.tasks.base import ToolCall


class ScriptedModel:
    """The policies' knowledge: each instruction's reference steps."""

    def __init__(self, solutions: dict[str, list[ToolCall]]):
        self.solutions = solutions
        self.requests: list[dict] = []
        self._count = 0
        self._lock = threading.Lock()

    def refuse_now(self, model: str) -> bool:
        """Whether this request is one a flaky server refuses."""
        with self._lock:
            self._count += 1
            return model == "flaky" and self._count % 3 == 0

    def reply(self, request: dict) -> dict:
        """The assistant message for one chat-completions request."""
        with self._lock:
            self.requests.append(request)
        messages = request["messages"]
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


def _handler(model: ScriptedModel):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self._send(404, {"error": {"message": "not found"}})
            if model.refuse_now(body.get("model", "")):
                return self._send(503, {"error": {"message": "busy, try again"}})
            message = model.reply(body)
            finish = "tool_calls" if message.get("tool_calls") else "stop"
            usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
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
