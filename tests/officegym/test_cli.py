"""The `officegym` command as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def officegym(*args: str, env_home: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "officegym.cli", *args], capture_output=True, text=True,
                          env=env, timeout=600)


def test_run_oracle_json_lines_all_succeed():
    done = officegym("run", "--agent", "oracle", "--tasks", "chat.set_topic,chat.fix_typo", "--instances", "2",
                     "--json", "--scale", "tiny")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 4
    assert {r["task_id"] for r in rows} == {"chat.set_topic", "chat.fix_typo"}
    assert all(r["success"] is True and r["score"] == 1.0 and r["status"] == "passed" for r in rows)
    assert all(set(r) >= {"task_id", "success", "score", "status", "checks"} for r in rows)


def test_run_null_agent_fails_and_table_is_printed():
    done = officegym("run", "--agent", "null", "--tasks", "chat.set_topic", "--instances", "2", "--scale", "tiny")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["task", "episodes", "success"]
    row = next(line for line in lines if line.startswith("chat.set_topic"))
    assert row.split()[1:3] == ["2", "0"]


def test_run_unknown_pattern_is_a_clear_error():
    done = officegym("run", "--agent", "oracle", "--tasks", "nothing.*", "--scale", "tiny")
    assert done.returncode == 2 and "no task matches" in done.stderr


def test_tasks_lists_the_registry():
    done = officegym("tasks", "--tasks", "chat.*")
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) >= 12 and "chat.reply_with_fact" in done.stdout


def test_a_template_that_cannot_draw_an_instance_is_reported_and_the_run_goes_on():
    # the tiny world has no open production incident for an on-call hand-over
    done = officegym("run", "--agent", "null", "--tasks", "tickets.hand_incident_over,chat.set_topic",
                     "--instances", "1", "--json", "--scale", "tiny")
    assert done.returncode == 1, done.stderr
    rows = {r["task_id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert rows["tickets.hand_incident_over"]["status"] == "error"
    assert "could not create the episode" in rows["tickets.hand_incident_over"]["error"]
    assert rows["chat.set_topic"]["status"] == "failed"
