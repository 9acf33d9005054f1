"""The distribution builds cleanly: `pip wheel .` gives no setuptools warning about folders it would
leave out, and the wheel carries every template and static file the apps serve."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA_FOLDERS = [ROOT / "officegym" / "templates", ROOT / "officegym" / "static",
                *sorted((ROOT / "apps").glob("*/templates"))]


def test_the_wheel_builds_without_warnings_and_carries_every_template_and_static_file(tmp_path):
    source = tmp_path / "source"  # a copy without build leftovers, which setuptools would pack too
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", ".officegym", "build", "*.egg-info",
                                                               "__pycache__", ".hypothesis", ".pytest_cache"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-v", "-w", str(tmp_path)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    printed = built.stdout + built.stderr
    assert "absent from the `packages` configuration" not in printed
    assert "Package would be ignored" not in printed
    [wheel] = tmp_path.glob("officegym-*.whl")
    carried = set(zipfile.ZipFile(wheel).namelist())
    for folder in DATA_FOLDERS:
        for path in folder.rglob("*"):
            if path.is_file():
                relative = path.relative_to(ROOT)
                installed = ("officegym/apps/" + str(relative.relative_to("apps")) if relative.parts[0] == "apps"
                             else str(relative))
                assert installed in carried, f"{relative} is not in the wheel"
