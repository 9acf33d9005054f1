"""Bad input for every sheets tool, as the editor of "Zz Budget" meets it (and, where it matters, its
owner, its viewer or a stranger it is not shared with): bad A1 references, formulas that do not parse,
ranges over the read and write limits, wrong types, unknown workbooks, sheets, names and views,
refused permissions. Each call must be an is_error result that says what was wrong, and change no row
at all. Part 1: workbooks, shares, sheets and cells; part 2 (test_sheets_bad_input_more.py): rows and
columns, moving cells, named ranges, filter views, summaries, import and export, and the guard that
every sheets tool has cases."""

from __future__ import annotations

import pytest

from officegym.apps.sheets import services
from test_sheets_tools import BOOK, roles, world  # noqa: F401  (world is a fixture)


@pytest.fixture
def sheets_world(world):
    """test_sheets_tools' scene plus, made by the owner: the name Amounts (Data!C2:C5), the filter view
    "Big deals" on Data!A1:C5, and "Zz Single", a workbook of one sheet (Only) shared with nobody."""

    def make(who: str):
        actor, scene = world(who)
        with actor.episode.session("setup") as s:
            owner = roles(s)["owner"]
            services.define_named_range(s, owner, scene["book"], "Amounts", "Data!C2:C5")
            services.create_filter_view(s, owner, scene["book"], "Big deals", "A1:C5",
                                        [{"column": "C", "op": ">", "value": "60"}])
            services.create_workbook(s, owner, "Zz Single", ["Only"])
        return actor, scene

    return make


def case(tool: str, why: str, args: dict, says: str, who: str = "editor", book: str | None = BOOK):
    """One row of the table: `args` (text may name the scene's people as {stranger} ...) go to the
    workbook `book` (None: no workbook argument); `who` is owner, editor, viewer or stranger."""
    given = args if book is None else {"workbook": book, **args}
    return pytest.param(tool, given, says, who, id=f"{tool}-{why}")


def refuse(make, tool: str, args: dict, says: str, who: str) -> None:
    """The call, as `who` in a fresh scene, is refused saying `says` and changes nothing."""
    actor, scene = make(who)
    actor.fails(tool, {k: v.format(**scene) if isinstance(v, str) else v for k, v in args.items()}, says)


NOT_SEEN, ONLY_VIEW = "No workbook", "You can only view"
BIG = 10**30
HUGE = "A1:Z1000"  # 26,000 cells
CASES = [
    case("sheets_list_workbooks", "limit-zero", {"limit": 0}, "greater than or equal to 1", book=None),
    case("sheets_list_workbooks", "query-too-long", {"query": "q" * 121}, "at most 120 characters", book=None),
    case("sheets_list_workbooks", "unknown-argument", {"owner": "me"}, "has no argument 'owner'", book=None),
    case("sheets_get_workbook", "unknown-title", {}, "No workbook 'Zz Nope'", book="Zz Nope"),
    case("sheets_get_workbook", "huge-id", {"workbook": BIG}, NOT_SEEN),
    case("sheets_get_workbook", "stranger", {}, NOT_SEEN, "stranger"),
    case("sheets_get_workbook", "empty", {}, "Name the workbook", book=" "),
    case("sheets_get_workbook", "bool", {"workbook": True}, "not true/false"),
    case("sheets_get_workbook", "missing", {}, "workbook: field required", book=None),
    case("sheets_create_workbook", "empty-title", {"title": "  "}, "Title is required", book=None),
    case("sheets_create_workbook", "duplicate-sheets", {"title": "Zz X", "sheets": ["Data", "data"]},
         "Two sheets may not share a name", book=None),
    case("sheets_create_workbook", "bad-sheet-name", {"title": "Zz X", "sheets": ["Q1/Q2"]}, "may not contain /",
         book=None),
    case("sheets_create_workbook", "too-many-sheets", {"title": "Zz X", "sheets": [f"S{i}" for i in range(51)]},
         "at most 50 items", book=None),
    case("sheets_create_workbook", "sheets-not-list", {"title": "Zz X", "sheets": "Data"}, "valid list", book=None),
    case("sheets_update_workbook", "nothing", {}, "Give a new title or description"),
    case("sheets_update_workbook", "viewer", {"title": "Zz Mine"}, ONLY_VIEW, "viewer"),
    case("sheets_update_workbook", "empty-title", {"title": " "}, "Title is required"),
    case("sheets_update_workbook", "stranger", {"title": "Zz Mine"}, NOT_SEEN, "stranger"),
    case("sheets_delete_workbook", "editor", {}, "Only the owner of 'Zz Budget'"),
    case("sheets_delete_workbook", "stranger", {}, NOT_SEEN, "stranger"),
    case("sheets_delete_workbook", "unknown-id", {"workbook": 10**9}, NOT_SEEN),
    case("sheets_share_workbook", "role-owner", {"person": "@{stranger}", "role": "owner"},
         "Role must be one of: viewer, editor"),
    case("sheets_share_workbook", "viewer", {"person": "@{stranger}"}, ONLY_VIEW, "viewer"),
    case("sheets_share_workbook", "with-owner", {"person": "@{owner}"}, "owns 'Zz Budget' already"),
    case("sheets_share_workbook", "same-role", {"person": "@{viewer}", "role": "viewer"}, "already shared with"),
    case("sheets_share_workbook", "unknown-person", {"person": "@nobody.here"}, "No person matches"),
    case("sheets_share_workbook", "role-too-long", {"person": "@{stranger}", "role": "administrator"},
         "at most 10 characters"),
    case("sheets_unshare_workbook", "not-shared", {"person": "@{stranger}"}, "is not shared with"),
    case("sheets_unshare_workbook", "viewer-removes-other", {"person": "@{editor}"}, ONLY_VIEW, "viewer"),
    case("sheets_unshare_workbook", "stranger", {"person": "@{stranger}"}, NOT_SEEN, "stranger"),
    case("sheets_list_revisions", "negative-offset", {"offset": -1}, "greater than or equal to 0"),
    case("sheets_list_revisions", "limit-too-big", {"limit": 201}, "less than or equal to 200"),
    case("sheets_list_revisions", "stranger", {}, NOT_SEEN, "stranger"),
    case("sheets_create_sheet", "duplicate", {"name": "data"}, "already has a sheet named 'data'"),
    case("sheets_create_sheet", "colon", {"name": "Q1:Q2"}, "may not contain :"),
    case("sheets_create_sheet", "quoted", {"name": "'Q1'"}, "leading or trailing quote"),
    case("sheets_create_sheet", "position-zero", {"name": "Zz", "position": 0}, "from 1 to 3"),
    case("sheets_create_sheet", "position-past-end", {"name": "Zz", "position": 9}, "from 1 to 3"),
    case("sheets_create_sheet", "name-too-long", {"name": "n" * 101}, "at most 100 characters"),
    case("sheets_create_sheet", "viewer", {"name": "Zz"}, ONLY_VIEW, "viewer"),
    case("sheets_rename_sheet", "same-name", {"sheet": "Data", "new_name": "Data"}, "already named 'Data'"),
    case("sheets_rename_sheet", "taken", {"sheet": "Data", "new_name": "q1 PLAN"}, "already has a sheet named"),
    case("sheets_rename_sheet", "unknown-sheet", {"sheet": "Nope", "new_name": "Zz"},
         "No sheet 'Nope' in 'Zz Budget'. Sheets: Data, Q1 plan"),
    case("sheets_rename_sheet", "blank-sheet", {"sheet": " ", "new_name": "Zz"}, "Name the sheet"),
    case("sheets_rename_sheet", "empty-name", {"sheet": "Data", "new_name": " "}, "A sheet needs a name"),
    case("sheets_move_sheet", "position-zero", {"sheet": "Data", "position": 0}, "from 1 to 2"),
    case("sheets_move_sheet", "position-past-end", {"sheet": "Data", "position": 3}, "from 1 to 2"),
    case("sheets_move_sheet", "position-text", {"sheet": "Data", "position": "first"}, "valid integer"),
    case("sheets_move_sheet", "blank-sheet", {"sheet": "", "position": 2}, "Name the sheet"),
    case("sheets_move_sheet", "unknown-sheet", {"sheet": "Nope", "position": 1}, "No sheet 'Nope'"),
    case("sheets_delete_sheet", "last-sheet", {"sheet": "Only"}, "keeps at least one sheet", "owner", "Zz Single"),
    case("sheets_delete_sheet", "blank-sheet", {"sheet": " "}, "Name the sheet. Sheets of 'Zz Budget': Data, Q1"),
    case("sheets_delete_sheet", "unknown-sheet", {"sheet": "Nope"}, "No sheet 'Nope'"),
    case("sheets_delete_sheet", "viewer", {"sheet": "Data"}, ONLY_VIEW, "viewer"),
    case("sheets_freeze_rows", "too-many-rows", {"rows": 21}, "Frozen rows must be a whole number from 0 to 20"),
    case("sheets_freeze_rows", "negative-columns", {"rows": 1, "columns": -1}, "from 0 to 10"),
    case("sheets_freeze_rows", "unknown-sheet", {"rows": 1, "sheet": "Nope"}, "No sheet 'Nope'"),
    case("sheets_freeze_rows", "viewer", {"rows": 1}, ONLY_VIEW, "viewer"),
    case("sheets_read_range", "four-letters", {"range": "ZZZZ1"}, "is not a cell or range in A1 notation"),
    case("sheets_read_range", "row-zero", {"range": "A0"}, "A0 is outside the sheet"),
    case("sheets_read_range", "past-last-column", {"range": "ZZZ1"}, "outside the sheet"),
    case("sheets_read_range", "half-range", {"range": "A1:B"}, "is not a cell or range in A1 notation"),
    case("sheets_read_range", "unknown-sheet", {"range": "Nope!A1"}, "No sheet 'Nope'"),
    case("sheets_read_range", "over-10k-cells", {"range": HUGE}, "read at most 10,000"),
    case("sheets_read_range", "empty", {"range": " "}, "Give the range in A1 notation"),
    case("sheets_read_range", "stranger", {"range": "A1"}, NOT_SEEN, "stranger"),
    case("sheets_write_cells", "value-object", {"cells": [{"cell": "A1", "value": {"x": 1}}]}, "valid string"),
    case("sheets_write_cells", "number-too-big", {"cells": [{"cell": "F1", "value": 10**400}]},
         "not one a cell can hold"),
    case("sheets_write_cells", "unclosed-call", {"cells": [{"cell": "F1", "value": "=SUM(A1,"}]},
         "the formula '=SUM(A1,' does not parse"),
    case("sheets_write_cells", "dangling-operator", {"cells": [{"cell": "F1", "value": "=1+"}]}, "does not parse"),
    case("sheets_write_cells", "one-bad-of-two", {"cells": [{"cell": "F1", "value": "kept?"},
                                                            {"cell": "F2", "value": "=(1"}]}, "Data!F2"),
    case("sheets_write_cells", "range", {"cells": [{"cell": "A1:B2", "value": 1}]}, "is a range"),
    case("sheets_write_cells", "twice", {"cells": [{"cell": "F1", "value": 1}, {"cell": "f1", "value": 2}]},
         "written twice"),
    case("sheets_write_cells", "unknown-sheet", {"cells": [{"cell": "Nope!A1", "value": 1}]}, "No sheet 'Nope'"),
    case("sheets_write_cells", "bad-cell", {"cells": [{"cell": "ZZZZ1", "value": 1}]}, "not a cell or range"),
    case("sheets_write_cells", "over-5k", {"cells": [{"cell": f"F{i}", "value": i} for i in range(1, 5002)]},
         "at most 5000 items"),
    case("sheets_write_cells", "empty-list", {"cells": []}, "at least 1 item"),
    case("sheets_write_cells", "extra-key", {"cells": [{"cell": "F1", "value": 1, "format": "0%"}]},
         "Extra inputs are not permitted"),
    case("sheets_write_cells", "input-too-long", {"cells": [{"cell": "F1", "value": "x" * 50_001}]},
         "the limit is 50,000"),
    case("sheets_write_cells", "viewer", {"cells": [{"cell": "F1", "value": 1}]}, ONLY_VIEW, "viewer"),
    case("sheets_write_range", "over-5k", {"start": "A10", "rows": [[1] * 100] * 51}, "write at most 5,000"),
    case("sheets_write_range", "past-the-edge", {"start": "ZY1", "rows": [[1, 2, 3]]}, "does not fit on the sheet"),
    case("sheets_write_range", "no-cells", {"start": "A10", "rows": [[], []]}, "Give rows as a list of lists"),
    case("sheets_write_range", "flat-list", {"start": "A10", "rows": [1, 2]}, "valid list"),
    case("sheets_write_range", "bad-formula", {"start": "A10", "rows": [["ok", "=SUM(("]]}, "does not parse"),
    case("sheets_write_range", "bad-start", {"start": "A0", "rows": [[1]]}, "The start cell 'A0' is not valid"),
    case("sheets_write_range", "viewer", {"start": "A10", "rows": [[1]]}, ONLY_VIEW, "viewer"),
    case("sheets_clear_range", "row-zero", {"range": "A0:B2"}, "outside the sheet"),
    case("sheets_clear_range", "unknown-sheet", {"range": "'Nope'!A1:B2"}, "No sheet 'Nope'"),
    case("sheets_clear_range", "viewer", {"range": "A1:C5"}, ONLY_VIEW, "viewer"),
    case("sheets_set_number_format", "unknown-format", {"range": "C2:C5", "number_format": "banana"},
         "Unknown number format 'banana'"),
    case("sheets_set_number_format", "over-20k", {"range": HUGE, "number_format": "0.00"}, "at most 20,000"),
    case("sheets_set_number_format", "viewer", {"range": "C2", "number_format": "0.00"}, ONLY_VIEW, "viewer"),
]


@pytest.mark.parametrize("tool, args, says, who", CASES)
def test_bad_input_is_refused_and_changes_nothing(sheets_world, tool, args, says, who):
    refuse(sheets_world, tool, args, says, who)
