"""Conditional aggregates: COUNTIF, COUNTIFS, SUMIF, SUMIFS, AVERAGEIF, AVERAGEIFS, MINIFS, MAXIFS.

Criteria are read by criteria.matcher. In the *IFS forms every range must have the same size
(#VALUE! otherwise). SUMIF's optional sum range is read from its top-left cell at the size of the
criteria range, as in Excel; cells beyond what the formula passed count as empty. Errors in a
criteria range simply do not match; an error in a cell that would be added is the result.
"""

from __future__ import annotations

import math

from .criteria import equality_keys, matcher
from .fn_common import OMITTED, cells, shape
from .values import CellError, Grid, div0, is_number, na, scalar, value_error


def _area(value):
    """A range argument as a Grid; an error passed as the range (such as #REF!) is the result."""
    return value if isinstance(value, CellError) else cells(value)


def _same_size(name: str, areas: list) -> CellError | None:
    """The first error among the ranges, or #VALUE! when their sizes differ."""
    for area in areas:
        if isinstance(area, CellError):
            return area
        if (area.height, area.width) != (areas[0].height, areas[0].width):
            return value_error(f"{name} ranges must all be the same size; got {shape(areas[0])} and {shape(area)}.")
    return None


def _chosen(name: str, pairs) -> list[int] | CellError:
    """The positions (row by row, ascending) meeting every (range, criterion) pair; all ranges the
    same size. Kept ranges answer from their index instead of testing every cell."""
    areas = [_area(area) for area, _ in pairs]
    error = _same_size(name, areas)
    if error is not None:
        return error
    for _, criterion in pairs:
        if isinstance(criterion, Grid) and (criterion.height, criterion.width) != (1, 1):
            return value_error(f"{name} needs a single value as each criterion, not a range.")
    criteria = [scalar(criterion) for _, criterion in pairs]
    found = sorted((_kept_positions(area, criterion) for area, criterion in zip(areas, criteria)
                    if area.entry is not None), key=len)
    chosen = found[0] if found else None
    for other in found[1:]:
        members = set(other)
        chosen = [i for i in chosen if i in members]
    for area, criterion in zip(areas, criteria):
        if area.entry is None:
            test, values = matcher(criterion), area.flat()
            chosen = ([i for i, value in enumerate(values) if test(value)] if chosen is None
                      else [i for i in chosen if test(values[i])])
    return chosen


def _kept_positions(area: Grid, criterion) -> list[int]:
    """The positions of a kept range's cells meeting a criterion (maybe the kept list: read only)."""
    keys = equality_keys(criterion)
    found = None if keys is None else area.entry.positions(keys)
    if found is not None:
        return found
    if isinstance(criterion, str):
        return area.entry.matching(criterion, matcher(criterion))
    test = matcher(criterion)
    return [i for i, value in enumerate(area.entry.flat) if test(value)]


def _pairs(name: str, args) -> list | CellError:
    if len(args) % 2:
        return na(f"{name} needs range/criterion pairs; got {len(args)} arguments.")
    return [(args[i], args[i + 1]) for i in range(0, len(args), 2)]


def _picked(chosen: list[int], values: list) -> list[float] | CellError:
    """The numbers at the chosen positions, in order; an error there is the result."""
    picked = [values[i] for i in chosen]
    found = [value for value in picked if type(value) is float]  # the usual case, at C speed
    if len(found) < len(picked) and any(isinstance(value, CellError) or is_number(value)
                                        for value in picked if type(value) is not float):
        found = []  # an error, or numbers that are not floats: one by one, in order
        for value in picked:
            if isinstance(value, CellError):
                return value
            if is_number(value):
                found.append(float(value))
    return found


def _values_at_size(area, height: int, width: int) -> list | CellError:
    """A sum/average range read from its top-left corner at the criteria range's size."""
    area = _area(area)
    if isinstance(area, CellError):
        return area
    if (area.height, area.width) == (height, width):
        return area.flat()
    return [area.rows[r][c] if r < area.height and c < area.width else None
            for r in range(height) for c in range(width)]


def _conditional(name: str, area, criterion, target, average: bool):
    chosen = _chosen(name, [(area, criterion)])
    if isinstance(chosen, CellError):
        return chosen
    grid = cells(area)
    values = grid.flat() if target is OMITTED else _values_at_size(target, grid.height, grid.width)
    if isinstance(values, CellError):
        return values
    return _total(name, chosen, values, average)


def _total(name: str, chosen: list[int], values: list, average):
    found = _picked(chosen, values)
    if isinstance(found, CellError):
        return found
    if average in ("min", "max"):  # MINIFS/MAXIFS give 0 when nothing meets the criteria
        return (min if average == "min" else max)(found) if found else 0.0
    if not average:
        return math.fsum(found)
    if not found:
        return div0(f"{name} found no numbers meeting the criteria.")
    return math.fsum(found) / len(found)


def countif(ctx, area, criterion):
    """COUNTIF: how many cells of a range meet a criterion."""
    chosen = _chosen("COUNTIF", [(area, criterion)])
    return chosen if isinstance(chosen, CellError) else float(len(chosen))


def countifs(ctx, *args):
    """COUNTIFS: how many positions meet every range/criterion pair."""
    pairs = _pairs("COUNTIFS", args)
    chosen = pairs if isinstance(pairs, CellError) else _chosen("COUNTIFS", pairs)
    return chosen if isinstance(chosen, CellError) else float(len(chosen))


def sumif(ctx, area, criterion, sum_area=OMITTED):
    """SUMIF: the total of the cells (of sum_range, else the range) where the range meets a criterion."""
    return _conditional("SUMIF", area, criterion, sum_area, average=False)


def averageif(ctx, area, criterion, average_area=OMITTED):
    """AVERAGEIF: the mean of the cells where the range meets a criterion; #DIV/0! if none."""
    return _conditional("AVERAGEIF", area, criterion, average_area, average=True)


def _ifs(name: str, args, average):
    pairs = _pairs(name, args[1:])
    if isinstance(pairs, CellError):
        return na(f"{name} needs a range to add up followed by range/criterion pairs; got {len(args)} arguments.")
    target = _area(args[0])
    error = _same_size(name, [target] + [_area(area) for area, _ in pairs])
    if error is not None:
        return error
    chosen = _chosen(name, pairs)
    if isinstance(chosen, CellError):
        return chosen
    return _total(name, chosen, target.flat(), average)


def sumifs(ctx, *args):
    """SUMIFS: the total of sum_range where every range/criterion pair is met."""
    return _ifs("SUMIFS", args, average=False)


def averageifs(ctx, *args):
    """AVERAGEIFS: the mean of average_range where every range/criterion pair is met."""
    return _ifs("AVERAGEIFS", args, average=True)


def minifs(ctx, *args):
    """MINIFS: the smallest number of min_range where every range/criterion pair is met (0 if none)."""
    return _ifs("MINIFS", args, average="min")


def maxifs(ctx, *args):
    """MAXIFS: the largest number of max_range where every range/criterion pair is met (0 if none)."""
    return _ifs("MAXIFS", args, average="max")


SPECS = {
    "MINIFS": (minifs, 3, None),
    "MAXIFS": (maxifs, 3, None),
    "COUNTIF": (countif, 2, 2),
    "COUNTIFS": (countifs, 2, None),
    "SUMIF": (sumif, 2, 3),
    "SUMIFS": (sumifs, 3, None),
    "AVERAGEIF": (averageif, 2, 3),
    "AVERAGEIFS": (averageifs, 3, None),
}
