"""`officegym run --agent openai` end to end: the `openai` client talks over real HTTP to a local
OpenAI-compatible server of the tests' own (scripted_model.py) whose "model" plays scripted policies,
well or badly, and whose endpoint fails on purpose; the runner shows it the standard prompt and the
episode's tools, runs its tool calls over MCP, grades, reports, and writes one transcript per episode."""

from __future__ import annotations

import json

import datasets
import pytest
from scripted_model import ScriptedModel, ScriptedModelServer

from officegym.cli import main
from officegym.tasks.registry import match_tasks
from officegym.transcripts import MAX_TEXT

CHAT = [t for t in match_tasks("chat.*")]
ONE = ["--tasks", "chat.set_topic", "--instances", "1"]


@pytest.fixture(scope="module")
def model(store) -> ScriptedModel:
    """The scripted model, knowing instance 0 and 1 of every chat task."""
    solutions = {}
    for template in CHAT:
        world = store.world(template.scale, 0)
        for k in (0, 1):
            inst = store.task_instance(world, template.id, k)
            solutions[inst.instruction] = inst.solution
    return ScriptedModel(solutions, hang_seconds=5)


@pytest.fixture(scope="module")
def server(model):
    with ScriptedModelServer(model) as running:
        yield running


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main(["run", "--agent", "openai", *args])
    out, err = capsys.readouterr()
    return code, out, err


def row_of(out: str, label: str, table: int = 0) -> list[str]:
    """A row of the summary table (0) or of the pass rates (1)."""
    return [line.split() for line in out.split("\n\n")[table].splitlines() if line.startswith(label)][0]


def test_the_reference_policy_passes_every_chat_task_with_transcripts_a_trainer_loads(server, model, capsys,
                                                                                       tmp_path):
    out_dir = tmp_path / "out"
    code, out, err = run_cli(capsys, "--base-url", server.base_url, "--tasks", "chat.*", "--instances", "1",
                             "--parallel", "2", "--trajectories", str(out_dir), "--temperature", "0.3",
                             "--sampling-seed", "7")
    assert code == 0, err
    assert f"{len(CHAT)}/{len(CHAT)} episodes, {len(CHAT)} passed" in err  # the progress bar's last state
    assert row_of(out, "all")[:6] == ["all", str(len(CHAT)), str(len(CHAT)), "1.000", "0", "0"]
    assert any(line.startswith("app chat") for line in out.splitlines())
    files = sorted(out_dir.iterdir())
    assert [f.name for f in files] == sorted(f"{t.id}-0-0.jsonl" for t in CHAT)
    for path in files:
        [record] = [json.loads(line) for line in path.read_text().splitlines()]
        roles = [m["role"] for m in record["messages"]]
        assert roles[:2] == ["system", "user"] and roles[-1] == "assistant" and "tool" in roles, path.name
        assert "company time" in record["messages"][0]["content"]
        calls = [c for m in record["messages"] if m["role"] == "assistant" for c in m.get("tool_calls", [])]
        answers = [m for m in record["messages"] if m["role"] == "tool"]
        assert [c["id"] for c in calls] == [m["tool_call_id"] for m in answers] == [c["id"] for c in record["calls"]]
        assert all(c["ok"] for c in record["calls"]) and all("\n " not in m["content"] for m in answers)
        assert {t["function"]["name"] for t in record["tools"]} >= {c["function"]["name"] for c in calls}
        assert len(record["turns"]) == roles.count("assistant")
        assert all(t["prompt_tokens"] > 0 and t["latency_ms"] > 0 for t in record["turns"])
        assert record["model"] == "default" and record["sampling"] == {"temperature": 0.3, "seed": 7}
        assert record["task_id"] == path.name.split("-")[0] and record["instance"] == 0 and record["seed"] == 0
        assert record["split"] in ("train", "test") and record["status"] == "passed" and record["success"] is True
        assert record["agent"]["stop"] == "answered" and record["checks"]
    loaded = datasets.load_dataset("json", data_files=[str(f) for f in files], split="train")
    assert loaded.num_rows == len(CHAT) and loaded[0]["messages"][0]["role"] == "system"
    first = model.requests[0]
    tools = [t["function"]["name"] for t in first["tools"]]
    assert 0 < len(tools) <= 100 and "submit_answer" in tools and not any(n.startswith("crm_") for n in tools)
    assert first["temperature"] == 0.3 and first["seed"] == 7


def test_the_sft_conversion_keeps_successful_conversations_and_loads(server, capsys, tmp_path):
    code, out, err = run_cli(capsys, "--base-url", server.base_url, "--tasks", "chat.set_*", "--instances", "1",
                             "--trajectories", str(tmp_path / "good"))
    assert code == 0, err
    code, out, err = run_cli(capsys, "--base-url", server.base_url, "--model", "wrong", *ONE,
                             "--trajectories", str(tmp_path / "bad"))
    assert code == 0, err
    assert main(["trajectory", "--sft", str(tmp_path / "good"), str(tmp_path / "bad")]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == len([t for t in CHAT if t.id.startswith("chat.set_")]) and all(set(r) == {"messages", "tools"}
                                                                                        for r in rows)
    (tmp_path / "sft.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    loaded = datasets.load_dataset("json", data_files=str(tmp_path / "sft.jsonl"), split="train")
    assert loaded.num_rows == len(rows) and loaded[0]["tools"][0]["type"] == "function"


def test_a_wrong_policy_fails_and_says_so_in_the_table(server, capsys):
    code, out, err = run_cli(capsys, "--base-url", server.base_url, "--model", "wrong", "--tasks", "chat.set_*",
                             "--instances", "2", "--trials", "2", "--json")
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(results) == 2 * 2 * len([t for t in CHAT if t.id.startswith("chat.set_")])
    assert all(r["success"] is False and r["status"] == "failed" and r["agent"]["stop"] == "answered"
               for r in results)
    assert sorted({(r["instance"], r["trial"]) for r in results}) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_transport_errors_are_retried_and_the_turn_limit_holds(server, capsys):
    code, out, err = run_cli(capsys, "--base-url", server.base_url, "--model", "flaky", "--tasks", "chat.set_topic",
                             "--instances", "2", "--json")
    assert code == 0 and all(json.loads(line)["success"] for line in out.splitlines())
    code, out, err = run_cli(capsys, "--base-url", server.base_url, *ONE, "--max-turns", "1", "--retries", "0",
                             "--json")
    result = json.loads(out)
    assert result["agent"]["stop"] == "turn limit" and result["agent"]["turns"] == 1


@pytest.mark.parametrize("endpoint, failure", [
    ("unreachable", "APIConnectionError"), ("broken", "InternalServerError"), ("hang", "APITimeoutError"),
    ("refusing", "BadRequestError")])
def test_an_endpoint_that_fails_is_an_agent_error_never_a_score(server, capsys, endpoint, failure):
    base_url = "http://127.0.0.1:9/v1" if endpoint == "unreachable" else server.base_url
    code, out, err = run_cli(capsys, "--base-url", base_url, "--model", endpoint, *ONE, "--retries", "0",
                             "--request-timeout", "1")
    assert code == 1 and "1 agent error(s)" in err and failure in err
    assert row_of(out, "chat.set_topic")[1:] == ["1", "0", "0.000", "0", "1"]
    assert row_of(out, "all", 1)[1:] == ["0", "0", "-", "-", "-", "1"] and "1 agent error(s)" in out


def test_a_refusal_after_the_first_request_is_the_models_own_and_is_graded(server, capsys):
    code, out, err = run_cli(capsys, "--base-url", server.base_url, "--model", "overflow", *ONE, "--json")
    result = json.loads(out)
    assert code == 0 and result["status"] == "failed" and result["success"] is False
    assert result["agent"]["stop"] == "request refused" and "context window" in result["agent"]["refusal"]
    assert result["agent"]["turns"] == 2 and result["agent"]["tool_calls"] == 1


def test_allow_errors_exits_zero_and_json_says_agent_error(server, capsys):
    code, out, err = run_cli(capsys, "--base-url", server.base_url, "--model", "broken", *ONE, "--retries", "0",
                             "--json", "--allow-errors")
    result = json.loads(out)
    assert code == 0 and result["status"] == "agent_error" and result["success"] is None
    assert result["score"] is None and "500" in result["agent_error"]


def test_malformed_calls_are_answered_recorded_as_errors_and_graded(server, capsys, tmp_path):
    code, out, err = run_cli(capsys, "--base-url", server.base_url, "--model", "malformed", *ONE,
                             "--trajectories", str(tmp_path))
    assert code == 0, err
    [record] = [json.loads(p.read_text()) for p in tmp_path.iterdir()]
    assert [(c["name"], c["ok"]) for c in record["calls"]] == [
        ("org_get_me", False), ("no_such_tool", False), ("org_get_me", False)]
    assert "not valid JSON" in record["calls"][0]["error"] and record["calls"][0]["arguments"] == '{"unclosed": '
    assert "one JSON object" in record["calls"][2]["error"] and record["calls"][1]["error"]
    answers = [m["content"] for m in record["messages"] if m["role"] == "tool"]
    assert len(answers) == 3 and all(text.startswith("Error: ") for text in answers)
    assert record["status"] == "failed" and record["agent"]["stop"] == "answered"


def test_a_model_that_never_stops_is_stopped_by_the_turn_or_time_limit(server, capsys):
    code, out, err = run_cli(capsys, "--base-url", server.base_url, "--model", "endless", *ONE, "--max-turns", "4",
                             "--json")
    result = json.loads(out)
    assert result["agent"] == {"turns": 4, "tool_calls": 4, "stop": "turn limit", "final": ""}
    code, out, err = run_cli(capsys, "--base-url", server.base_url, "--model", "endless", *ONE,
                             "--max-turns", "100000", "--episode-timeout", "1.5", "--json")
    result = json.loads(out)
    assert result["agent"]["stop"] == "time limit" and 0 < result["agent"]["turns"] < 100000
    assert result["status"] == "failed"  # the endpoint answered: the time it took is the model's


def test_long_texts_are_cut_at_the_one_limit_and_reasoning_is_kept(server, capsys, tmp_path):
    code, out, err = run_cli(capsys, "--base-url", server.base_url, "--model", "chatty", *ONE,
                             "--trajectories", str(tmp_path), "--json")
    assert code == 0, err
    assert len(json.loads(out)["agent"]["final"]) < MAX_TEXT + 100
    [record] = [json.loads(p.read_text()) for p in tmp_path.iterdir()]
    final = record["messages"][-1]
    assert final["content"].startswith("x" * MAX_TEXT) and final["content"].endswith("has 400000 characters]")
    assert final["reasoning_content"] == "Thinking it over."


def test_resume_skips_the_finished_episodes_and_plays_the_failed_ones(server, model, capsys, tmp_path):
    args = ["--tasks", "chat.set_topic", "--instances", "2", "--trajectories", str(tmp_path), "--json"]
    code, out, err = run_cli(capsys, "--base-url", server.base_url, *args)
    assert code == 0 and len(list(tmp_path.iterdir())) == 2
    broken = tmp_path / "chat.set_topic-1-0.jsonl"
    broken.write_text(json.dumps({**json.loads(broken.read_text()), "status": "agent_error"}) + "\n")
    asked = len(model.requests)
    code, out, err = run_cli(capsys, "--base-url", server.base_url, *args, "--resume")
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [(r["instance"], r["status"], r.get("resumed", False)) for r in results] == [
        (0, "passed", True), (1, "passed", False)]
    assert len(model.requests) > asked and all(
        m["content"] != json.loads((tmp_path / "chat.set_topic-0-0.jsonl").read_text())["messages"][1]["content"]
        for request in model.requests[asked:] for m in request["messages"] if m["role"] == "user")


def test_tools_split_and_extra_body_reach_the_episode_and_the_endpoint(server, model, capsys):
    asked = len(model.requests)
    code, out, err = run_cli(capsys, "--base-url", server.base_url, *ONE, "--tools", "chat,answer", "--top-p", "0.9",
                             "--max-tokens", "256", "--extra-body", '{"top_k": 20}', "--json")
    assert code == 0, err
    request = model.requests[asked]
    assert {t["function"]["name"].split("_")[0] for t in request["tools"]} == {"chat", "submit"}
    assert (request["top_p"], request["max_tokens"], request["top_k"]) == (0.9, 256, 20)
    code, out, err = run_cli(capsys, "--base-url", server.base_url, *ONE, "--extra-body", "[1]")
    assert code == 2 and "--extra-body must be one JSON object" in err
    split = next(t.split for t in CHAT if t.id == "chat.set_topic")
    other = "train" if split == "test" else "test"
    code, out, err = run_cli(capsys, "--base-url", server.base_url, *ONE, "--split", other)
    assert code == 2 and f"in the {other} split" in err
