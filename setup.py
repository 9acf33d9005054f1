"""Packages are discovered from the source tree, so a new sub-package is in the wheel without a list to
update: pyproject.toml maps each top-level folder to its dotted name (`package-dir`), and every folder
below one of them (caches aside) becomes a package, Python code or the templates and static files the
apps serve. Everything else about the distribution is declared in pyproject.toml."""

import tomllib
from pathlib import Path

from setuptools import find_namespace_packages, setup

ROOT = Path(__file__).resolve().parent
FOLDERS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]


def discovered_packages() -> list[str]:
    """Every mapped folder and each folder below it, by the dotted name it installs under."""
    packages = []
    for name, folder in FOLDERS.items():
        packages.append(name)
        below = find_namespace_packages(str(ROOT / folder), exclude=["__pycache__", "*.__pycache__"])
        packages.extend(f"{name}.{package}" for package in below)
    return sorted(packages)


setup(packages=discovered_packages())
