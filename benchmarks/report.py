"""The table: one row per benchmark, scale and backend, with the ratio of each tool call and UI
page to its small-world time and every target checked."""

from __future__ import annotations

import math
import re

from .timing import Figure

SCALE_ORDER = ("tiny", "small", "medium", "large")
RATIO_TARGET = "p50 <= 2x small"
HEADER = ("| benchmark | scale | backend | runs | p50 | p95 | unit | × small | queries | target | met | note |\n"
          "|---|---|---|---:|---:|---:|---|---:|---:|---|---|---|")


def _ratio(figure: Figure, small: dict[tuple[str, str], Figure]) -> float | None:
    """The row's p50 over the small world's: the one timed in turn with it when there is one
    (machine drift cancels out), else the small row's."""
    base = small.get((figure.backend, figure.name))
    base_p50 = figure.small_p50 or (base.p50 if base is not None else None)
    if figure.scale == "small" or not base_p50 or math.isnan(figure.p50):
        return None
    return figure.p50 / base_p50


def targets(figure: Figure, ratio: float | None) -> list[tuple[str, bool]]:
    """Each target of a row and whether it is met."""
    checks = []
    relative = re.fullmatch(r"p50 <= ([0-9.]+)x in process", figure.target)
    scaled = re.fullmatch(r"p50 >= ([0-9.]+)x 1 worker", figure.target)
    if relative:
        checks.append((figure.target, figure.p50 <= float(relative.group(1)) * figure.in_process_p50))
    elif scaled:
        checks.append((figure.target, figure.p50 >= float(scaled.group(1)) * figure.one_worker_p50))
    elif figure.target:
        match = re.fullmatch(r"p(50|95) <= ([0-9.]+) (ms|s|chars)", figure.target)
        value = figure.p50 if match.group(1) == "50" else figure.p95
        scale = {"ms": 1, "s": 1000, "chars": 1}
        checks.append((figure.target, value * scale[figure.unit] <= float(match.group(2)) * scale[match.group(3)]))
    if figure.kind and ratio is not None:
        checks.append((RATIO_TARGET, ratio <= 2))
    return checks


def _cell(text: str) -> str:
    """Text that keeps a Markdown table row on one line."""
    return " ".join(text.split()).replace("|", "\\|")


def _number(value: float | None, unit: str) -> str:
    if value is None or math.isnan(value):
        return ""
    if unit == "chars":
        return f"{value:.0f}"
    return f"{value:.1f}" if unit == "s" else f"{value:.2f}"


def ordered(figures: list[Figure], backends: list[str]) -> list[Figure]:
    """Rows grouped by benchmark (first appearance), then backend, then scale, so that a
    benchmark's scales sit together."""
    first: dict[str, int] = {}
    for figure in figures:
        first.setdefault(figure.name, len(first))
    return sorted(figures, key=lambda f: (first[f.name], backends.index(f.backend) if f.backend in backends else 99,
                                          SCALE_ORDER.index(f.scale) if f.scale in SCALE_ORDER else 99))


def table(figures: list[Figure], backends: list[str]) -> str:
    """The figures as a Markdown table, then the targets missed."""
    small = {(f.backend, f.name): f for f in figures if f.scale == "small"}
    lines, missed, met = [HEADER], [], 0
    for f in ordered(figures, backends):
        ratio = _ratio(f, small)
        checks = targets(f, ratio)
        met += sum(ok for _, ok in checks)
        missed += [f"{f.name} ({f.scale}, {f.backend}): {text}, got {_number(f.p50, f.unit)} {f.unit}"
                   + (f" = {ratio:.1f}x small" if text == RATIO_TARGET else "") for text, ok in checks if not ok]
        paired = f"small in turn {f.small_p50:.2f} ms" if f.small_p50 is not None else ""
        note = "; ".join(filter(None, [f.note, paired]))
        lines.append(f"| {f.name} | {f.scale} | {f.backend} | {f.runs} | {_number(f.p50, f.unit)} | "
                     f"{_number(f.p95, f.unit)} | {f.unit} | {'' if ratio is None else f'{ratio:.2f}'} | "
                     f"{'' if f.queries is None else f.queries} | {'; '.join(t for t, _ in checks)} | "
                     f"{'; '.join('met' if ok else 'MISSED' for _, ok in checks)} | {_cell(note)} |")
    lines.append(f"\nTargets: {met} met, {len(missed)} missed.")
    lines += [f"- missed: {line}" for line in missed]
    return "\n".join(lines)
