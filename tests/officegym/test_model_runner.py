"""`officegym run --agent openai` end to end: the `openai` client talks over real HTTP to a local
OpenAI-compatible server of the tests' own (scripted_model.py) whose "model" plays scripted policies;
the runner shows it the standard prompt and the episode's tools, runs its tool calls over MCP, grades,
and writes a results table and one trajectory per episode."""

from __future__ import annotations

import json

import pytest
from scripted_model import ScriptedModel, ScriptedModelServer

from officegym.cli import main
from officegym.tasks.registry import match_tasks

CHAT = [t for t in match_tasks("chat.*")]


@pytest.fixture(scope="module")
def model(store) -> ScriptedModel:
    """The scripted model, knowing instance 0 and 1 of every chat task."""
    solutions = {}
    for template in CHAT:
        world = store.world(template.scale, 0)
        for k in (0, 1):
            inst = store.task_instance(world, template.id, k)
            solutions[inst.instruction] = inst.solution
    return ScriptedModel(solutions)


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main(["run", "--agent", "openai", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_reference_policy_passes_every_chat_task_with_trajectories(model, capsys, tmp_path):
    with ScriptedModelServer(model) as server:
        code, out, err = run_cli(capsys, "--base-url", server.base_url, "--tasks", "chat.*", "--instances", "1",
                                 "--parallel", "2", "--trajectories", str(tmp_path / "out"))
    assert code == 0, err
    assert f"{len(CHAT)}/{len(CHAT)} episodes, {len(CHAT)} passed" in err  # the progress bar's last state
    all_row = [line.split() for line in out.splitlines() if line.startswith("all")][-1]
    assert all_row == ["all", str(len(CHAT)), str(len(CHAT)), "1.000", "1.000", "0"]
    assert any(line.startswith("app chat") for line in out.splitlines())
    files = sorted((tmp_path / "out").iterdir())
    assert [f.name for f in files] == sorted(f"{t.id}-0-0.jsonl" for t in CHAT)
    for path in files:
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        steps, agent, grade = lines[:-2], lines[-2], lines[-1]
        assert steps and all(s["type"] == "step" and s["surface"] == "mcp" and s["ok"] for s in steps), path.name
        assert agent["type"] == "agent" and agent["stop"] == "answered" and agent["tool_calls"] == len(steps)
        assert grade["type"] == "grade" and grade["success"] is True and grade["task_id"] == path.name.split("-")[0]
    first = model.requests[0]
    tools = [t["function"]["name"] for t in first["tools"]]
    assert 0 < len(tools) <= 100 and "submit_answer" in tools and not any(n.startswith("crm_") for n in tools)
    system = first["messages"][0]
    assert system["role"] == "system" and "company time" in system["content"] and "@" in system["content"]


def test_a_wrong_policy_fails_and_says_so_in_the_table(model, capsys):
    with ScriptedModelServer(model) as server:
        code, out, err = run_cli(capsys, "--base-url", server.base_url, "--model", "wrong", "--tasks", "chat.set_*",
                                 "--instances", "2", "--trials", "2", "--json")
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(results) == 4
    assert all(r["success"] is False and r["agent"]["stop"] == "answered" for r in results)
    assert sorted((r["instance"], r["trial"]) for r in results) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_transport_errors_are_retried_and_the_turn_limit_holds(model, capsys):
    with ScriptedModelServer(model) as server:
        code, out, err = run_cli(capsys, "--base-url", server.base_url, "--model", "flaky", "--tasks",
                                 "chat.set_topic", "--instances", "2", "--json")
        assert code == 0 and all(json.loads(line)["success"] for line in out.splitlines())
        code, out, err = run_cli(capsys, "--base-url", server.base_url, "--tasks", "chat.set_topic",
                                 "--instances", "1", "--max-turns", "1", "--retries", "0", "--json")
    result = json.loads(out)
    assert result["agent"]["stop"] == "turn limit" and result["agent"]["turns"] == 1


def test_an_unreachable_endpoint_is_an_agent_error_not_a_crash(capsys):
    code, out, err = run_cli(capsys, "--base-url", "http://127.0.0.1:9/v1", "--retries", "0", "--tasks",
                             "chat.set_topic", "--instances", "1", "--json")
    result = json.loads(out)
    assert code == 0 and result["success"] is False and "Connection" in result["agent_error"]
