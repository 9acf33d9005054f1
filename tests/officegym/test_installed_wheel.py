"""The package as users get it: the wheel, built and installed by scripts/install-package (the step the
Docker image runs too) into a fresh virtualenv with every adapter's extra, then used from an empty
folder with no source on the path. Every module imports, every template is listed, oracle episodes of
each app, a cross-app task and a workflow succeed, and `officegym serve` answers /healthz."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from officegym.tasks.registry import all_tasks
from test_import_cycles import modules

ROOT = Path(__file__).resolve().parents[2]
EXTRAS = "verifiers,gymnasium,browsergym,openenv"
SOURCE_LEFTOVERS = (".git", ".venv", ".officegym", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis",
                    ".pytest_cache", "tests", "benchmarks")
# Folders of files besides Python code that the apps serve.
DATA_FOLDERS = [ROOT / "officegym" / "templates", ROOT / "officegym" / "static",
                *sorted((ROOT / "apps").glob("*/templates"))]

pytestmark = pytest.mark.xdist_group("installed_wheel")


def _uv() -> str:
    """The uv of the test environment (a dev dependency), else the one on PATH."""
    beside = Path(sys.executable).with_name("uv")
    return str(beside) if beside.exists() else shutil.which("uv") or pytest.fail("uv is not installed")


class Installed:
    """A fresh virtualenv holding the installed wheel, and a clean way to run its commands."""

    def __init__(self, venv: Path, wheel: Path, build_output: str, workdir: Path):
        self.venv, self.wheel, self.build_output, self.workdir = venv, wheel, build_output, workdir

    def env(self, home: Path | None = None) -> dict[str, str]:
        """The environment of a user of the venv: no source on the path, only the venv's commands first."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin"
        if home is not None:
            env["OFFICEGYM_HOME"] = str(home)
        return env

    def run(self, *argv: str, home: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
        """Run a command of the venv from the empty folder."""
        return subprocess.run([str(self.venv / "bin" / argv[0]), *argv[1:]], cwd=self.workdir, env=self.env(home),
                              capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    """Build the wheel from a copy of the source (no build leftovers) and install it in a fresh venv."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*SOURCE_LEFTOVERS))
    venv = base / "venv"
    made = subprocess.run([_uv(), "venv", "--quiet", "--python", sys.executable, str(venv)],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    built = subprocess.run(["sh", str(source / "scripts" / "install-package"), str(source), str(venv / "bin" / "python"),
                            EXTRAS], capture_output=True, text=True, timeout=900, env={**os.environ, "UV": _uv()})
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    [wheel] = (source / "dist").glob("officegym-*.whl")
    workdir = base / "empty"
    workdir.mkdir()
    return Installed(venv, wheel, built.stdout + built.stderr, workdir)


def test_the_wheel_builds_without_warnings_and_carries_every_template_and_static_file(installed):
    assert "absent from the `packages` configuration" not in installed.build_output
    assert "would be ignored" not in installed.build_output
    carried = set(zipfile.ZipFile(installed.wheel).namelist())
    for folder in DATA_FOLDERS:
        for path in folder.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                relative = path.relative_to(ROOT)
                in_wheel = ("officegym/apps/" + str(relative.relative_to("apps")) if relative.parts[0] == "apps"
                            else str(relative))
                assert in_wheel in carried, f"{relative} is not in the wheel"


def test_the_wheel_carries_the_license_and_names_it_in_its_metadata(installed):
    wheel = zipfile.ZipFile(installed.wheel)
    info = next(name.split("/")[0] for name in wheel.namelist() if name.endswith(".dist-info/METADATA"))
    metadata = wheel.read(f"{info}/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata.splitlines()
    assert wheel.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
    assert "Apache License" in (ROOT / "LICENSE").read_text()[:200]


def test_the_docker_image_installs_the_package_with_the_same_script():
    instructions = (ROOT / "Dockerfile").read_text().replace("\\\n", " ").splitlines()
    steps = [line for line in instructions if line.startswith("RUN")]
    assert any("scripts/install-package" in step for step in steps)


def test_every_module_of_the_source_is_installed_and_imports(installed):
    walk = ("import importlib, json, pkgutil, officegym\n"
            "names = sorted(m.name for m in pkgutil.walk_packages(officegym.__path__, 'officegym.'))\n"
            "for name in names: importlib.import_module(name)\n"
            "print(json.dumps({'file': officegym.__file__, 'modules': names}))\n")
    done = installed.run("python", "-c", walk)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert Path(report["file"]).is_relative_to(installed.venv), "officegym was imported from outside the venv"
    expected = {name for name in modules() if name.startswith("officegym.")}  # benchmarks stay out
    missing = sorted(expected - set(report["modules"]))
    assert not missing, f"modules of the source that the wheel lacks: {missing}"


def test_officegym_tasks_lists_every_template(installed, tmp_path):
    listed = installed.run("officegym", "tasks", home=tmp_path)
    assert listed.returncode == 0, listed.stderr[-3000:]
    ids = [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]
    assert ids == [task.id for task in all_tasks()]


def _one_per_kind() -> list[str]:
    """The first template of each app, of the cross-app tasks and of the workflows."""
    chosen: dict[str, str] = {}
    for task in all_tasks():
        chosen.setdefault(task.id.split(".")[0], task.id)
    return [chosen[prefix] for prefix in ("chat", "crm", "sheets", "tickets", "x", "w")]


def test_oracle_episodes_of_every_app_a_cross_app_task_and_a_workflow_succeed(installed):
    # The test run's world cache: these worlds are the same whichever install builds them.
    home = Path(os.environ["OFFICEGYM_HOME"])
    chosen = _one_per_kind()
    played = installed.run("officegym", "run", "--agent", "oracle", "--tasks", ",".join(chosen), "--instances", "1",
                           "--json", home=home, timeout=900)
    assert played.returncode == 0, played.stderr[-3000:]
    grades = [json.loads(line) for line in played.stdout.splitlines() if line.startswith("{")]
    assert sorted(g["task_id"] for g in grades) == sorted(chosen)
    assert all(g["success"] for g in grades), [(g["task_id"], g["status"], g["score"]) for g in grades]


def test_serve_builds_its_world_and_answers_healthz_then_stops_cleanly(installed, tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen([str(installed.venv / "bin" / "officegym"), "serve", "--scale", "tiny", "--port", str(port)],
                              cwd=installed.workdir, env=installed.env(tmp_path / "home"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while True:
            assert server.poll() is None, server.communicate()[1][-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
                    assert answer.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline, "serve never answered /healthz"
                time.sleep(0.5)
    finally:
        server.send_signal(signal.SIGTERM)
        out, err = server.communicate(timeout=60)
    assert server.returncode == 128 + signal.SIGTERM, err[-3000:]  # the shell's code for "ended by SIGTERM"
    assert "Traceback" not in err
    assert "/mcp" in out
