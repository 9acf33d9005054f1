"""Conditional aggregates: COUNTIF, COUNTIFS, SUMIF, SUMIFS, AVERAGEIF, AVERAGEIFS, MINIFS, MAXIFS.

Criteria are read by criteria.matcher. In the *IFS forms every range must have the same size
(#VALUE! otherwise). SUMIF's optional sum range is read from its top-left cell at the size of the
criteria range, as in Excel; cells beyond what the formula passed count as empty. Errors in a
criteria range simply do not match; an error in a cell that would be added is the result.
"""

from __future__ import annotations

import math

from .criteria import matcher
from .fn_common import OMITTED, cells, shape
from .values import CellError, Grid, div0, is_number, na, value_error


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


def _mask(name: str, pairs) -> list[bool] | CellError:
    """Which positions (row by row) meet every (range, criterion) pair; all ranges the same size."""
    areas = [_area(area) for area, _ in pairs]
    error = _same_size(name, areas)
    if error is not None:
        return error
    result = [True] * (areas[0].height * areas[0].width)
    for area, (_, criterion) in zip(areas, pairs):
        if isinstance(criterion, Grid) and (criterion.height, criterion.width) != (1, 1):
            return value_error(f"{name} needs a single value as each criterion, not a range.")
        test = matcher(criterion)
        for i, value in enumerate(area.values()):
            result[i] = result[i] and test(value)
    return result


def _pairs(name: str, args) -> list | CellError:
    if len(args) % 2:
        return na(f"{name} needs range/criterion pairs; got {len(args)} arguments.")
    return [(args[i], args[i + 1]) for i in range(0, len(args), 2)]


def _picked(mask: list[bool], values: list) -> list[float] | CellError:
    """The numbers at the positions the mask selects; an error there is the result."""
    found = []
    for chosen, value in zip(mask, values):
        if chosen:
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
    return [area.rows[r][c] if r < area.height and c < area.width else None
            for r in range(height) for c in range(width)]


def _conditional(name: str, area, criterion, target, average: bool):
    mask = _mask(name, [(area, criterion)])
    if isinstance(mask, CellError):
        return mask
    grid = cells(area)
    values = list(grid.values()) if target is OMITTED else _values_at_size(target, grid.height, grid.width)
    if isinstance(values, CellError):
        return values
    return _total(name, mask, values, average)


def _total(name: str, mask: list[bool], values: list, average):
    found = _picked(mask, values)
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
    mask = _mask("COUNTIF", [(area, criterion)])
    return mask if isinstance(mask, CellError) else float(sum(mask))


def countifs(ctx, *args):
    """COUNTIFS: how many positions meet every range/criterion pair."""
    pairs = _pairs("COUNTIFS", args)
    mask = pairs if isinstance(pairs, CellError) else _mask("COUNTIFS", pairs)
    return mask if isinstance(mask, CellError) else float(sum(mask))


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
    mask = _mask(name, pairs)
    if isinstance(mask, CellError):
        return mask
    return _total(name, mask, list(target.values()), average)


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
