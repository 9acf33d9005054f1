"""The UI's part of an episode's trajectory: one step per request to an episode's pages.

A step names the route as the app declares it (`POST /chat/<channel>/messages`, the episode's
prefix left out), the values the request carried (path and query values, form fields without the
security token, uploaded files by name and size), the outcome (the error page's message when the
status is 400 or more), the size of the page and how long it took.
"""

from __future__ import annotations

import time

from flask import Flask, g, request
from werkzeug.exceptions import HTTPException

PREFIX = "/e/<episode_id>"


def _values() -> dict:
    values: dict = dict(request.view_args or {})
    values.update({k: v if len(v) > 1 else v[0] for k, v in request.args.lists()})
    try:
        form, files = request.form, request.files
    except HTTPException:  # a body the app refused unread (over the size limit): nothing to show of it
        values["body"] = f"<not read: {request.content_length} bytes>"
        return values
    values.update({k: v if len(v) > 1 else v[0] for k, v in form.lists() if k != "csrf_token"})
    for name, upload in files.items():
        upload.stream.seek(0, 2)
        values[name] = f"<file {upload.filename!r}, {upload.stream.tell()} bytes>"
        upload.stream.seek(0)
    return values


def install(app: Flask) -> None:
    """Journal every request to an episode's pages in that episode's trajectory."""

    @app.before_request
    def start_step():
        g.step_started = time.perf_counter()

    @app.after_request
    def record_step(response):
        episode = g.get("episode")
        if episode is not None and request.url_rule is not None:
            route = request.url_rule.rule.removeprefix(PREFIX) or "/"
            error = None
            if response.status_code >= 400:
                error = g.get("step_error") or f"HTTP {response.status_code}"
            size = response.calculate_content_length() or 0
            episode.trajectory.record("ui", f"{request.method} {route}", _values(), error, size,
                                      time.perf_counter() - g.get("step_started", time.perf_counter()))
        return response
