"""`officegym tasks export` as trainers read it: each row's tools as OpenAI function definitions and
a chat-format prompt, as JSON lines that `datasets` loads, or as Parquet."""

from __future__ import annotations

import json

import datasets
import pyarrow.parquet as pq

from officegym.cli import main
from officegym.episodes import tool_set

TASK = "chat.set_topic"


def export(tmp_path, capsys, fmt: str) -> list[dict] | object:
    path = tmp_path / f"rows.{fmt}"
    code = main(["tasks", "export", "--tasks", TASK, "--instances", "2", "--format", fmt, "--output", str(path)])
    assert code == 0, capsys.readouterr().err
    return path


def test_rows_carry_tool_definitions_and_a_chat_prompt_and_load_with_datasets(tmp_path, capsys):
    path = export(tmp_path, capsys, "jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["instance"] for r in rows] == [0, 1]
    for row in rows:
        assert [t["function"]["name"] for t in row["tools"]] == list(tool_set("task", TASK))
        assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in row["tools"])
        assert row["prompt"] == [{"role": "system", "content": row["system_prompt"]},
                                 {"role": "user", "content": row["instruction"]}]
        assert "solution" not in row
    loaded = datasets.load_dataset("json", data_files=str(path), split="train")
    assert loaded.num_rows == 2 and loaded[1]["prompt"][1]["content"] == rows[1]["instruction"]
    assert loaded[0]["tools"][0]["function"]["parameters"] == rows[0]["tools"][0]["function"]["parameters"]


def test_parquet_keeps_each_tool_definition_as_it_is(tmp_path, capsys):
    table = pq.read_table(export(tmp_path, capsys, "parquet")).to_pylist()
    jsonl = [json.loads(line) for line in export(tmp_path, capsys, "jsonl").read_text().splitlines()]
    assert len(table) == 2 and [json.loads(row["tools"]) for row in table] == [row["tools"] for row in jsonl]
    assert [row["prompt"] for row in table] == [row["prompt"] for row in jsonl]
    assert main(["tasks", "export", "--tasks", TASK, "--format", "parquet"]) == 2
    assert "--output" in capsys.readouterr().err
