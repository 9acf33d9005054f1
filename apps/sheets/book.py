"""Between the database and the formula engine: load a workbook's cells into a graph.Book, turn a
cell row into a value and back, and store inputs and recomputed values.

Every write of cells goes through `store_inputs` (small edits: only what depends on them is
recalculated) or `replace_cells` (structural edits: the workbook's cells are rewritten and all
formulas recalculated).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace

from sqlalchemy import delete, event, insert, select, tuple_, update
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.errors import Invalid

from .formula.a1 import BadReference, cell_text, parse_area
from .formula.graph import Book, Context, Key
from .formula.parser import FormulaError, parse, read_input
from .formula.values import CellError
from .models import Cell, NamedRange, Revision, Sheet, Workbook


def cell_value(kind: str, number: float | None, text: str | None, note: str = ""):
    """The value stored in a cell's typed columns."""
    if kind == "n":
        return number
    if kind == "s":
        return text
    if kind == "b":
        return bool(number)
    if kind == "e":
        return CellError(text or "#VALUE!", note)
    return None


def value_columns(value) -> dict:
    """A value as the typed columns of a cell row."""
    if value is None:
        return {"kind": "", "number": None, "text": None, "note": ""}
    if isinstance(value, bool):
        return {"kind": "b", "number": 1.0 if value else 0.0, "text": None, "note": ""}
    if isinstance(value, (int, float)):
        return {"kind": "n", "number": float(value), "text": None, "note": ""}
    if isinstance(value, CellError):
        return {"kind": "e", "number": None, "text": value.code, "note": value.detail[:300]}
    return {"kind": "s", "number": None, "text": str(value), "note": ""}


def sheets_of(session: Session, workbook: Workbook) -> list[Sheet]:
    """The workbook's sheets in tab order."""
    return list(session.scalars(select(Sheet).where(Sheet.workbook_id == workbook.id).order_by(Sheet.position)))


def names_of(session: Session, workbook: Workbook, sheets: dict[int, str]) -> dict:
    """Named ranges as areas carrying their sheet's name."""
    found = {}
    for named in session.scalars(select(NamedRange).where(NamedRange.workbook_id == workbook.id)):
        try:
            area = parse_area(named.ref)
        except BadReference:
            continue
        found[named.name] = replace(area, sheet=sheets.get(named.sheet_id, ""))
    return found


def formula_of(raw: str):
    """The syntax tree of a stored input, None for a literal, or an error value for a broken one."""
    if not (raw.startswith("=") and len(raw) > 1):
        return None
    try:
        return parse(raw[1:])
    except FormulaError as bad:
        return ("err_text", str(bad))


# Books kept between calls, by (database, workbook): (version, book). A write takes its book out and
# changes it; the book is kept under the new version once its transaction commits. One writer at a
# time takes a version (`hold_workbook`), so a version names one committed state in every process.
# Keys name the episode's own database, so episodes never share a book.
_KEPT: OrderedDict[tuple[str, int], tuple[int, Book]] = OrderedDict()
_KEPT_LOCK = threading.Lock()
KEEP_BOOKS = 32
_PENDING = "officegym.sheets.books"  # session.info: the books this transaction changed, by key
_HELD = "officegym.sheets.held"  # session.info: the workbooks this transaction holds


def _kept_key(session: Session, workbook: Workbook) -> tuple[str, int]:
    return (str(session.get_bind().url), workbook.id)


def hold_workbook(session: Session, workbook: Workbook) -> None:
    """Hold the workbook for this transaction's writes: its row is locked (on SQLite, the database's
    write lock is taken), so another writer of it waits until this transaction ends, and the row is
    read again, so that what follows sees every write committed before."""
    held = session.info.setdefault(_HELD, set())
    if workbook.id in held:
        return
    session.flush()
    table = Workbook.__table__
    session.execute(update(table).where(table.c.id == workbook.id).values(version=table.c.version))
    session.refresh(workbook)
    held.add(workbook.id)


def keep_book(session: Session, workbook: Workbook, book: Book) -> None:
    """Mark the workbook changed (version + 1) and keep its book, for this transaction and, once it
    commits, for the next calls."""
    hold_workbook(session, workbook)
    workbook.version = (workbook.version or 0) + 1
    session.info.setdefault(_PENDING, {})[_kept_key(session, workbook)] = (workbook.version, book)


def forget_book(session: Session, workbook: Workbook) -> None:
    """Mark the workbook changed without keeping a book (the next call reloads from the database)."""
    hold_workbook(session, workbook)
    workbook.version = (workbook.version or 0) + 1
    key = _kept_key(session, workbook)
    session.info.get(_PENDING, {}).pop(key, None)
    with _KEPT_LOCK:
        _KEPT.pop(key, None)


@event.listens_for(Session, "after_commit")
def _keep_committed(session: Session) -> None:
    """The books a committed transaction changed join the kept ones."""
    pending = session.info.pop(_PENDING, None)
    session.info.pop(_HELD, None)
    if not pending:
        return
    with _KEPT_LOCK:
        for key, kept in pending.items():
            _KEPT[key] = kept
            _KEPT.move_to_end(key)
        while len(_KEPT) > KEEP_BOOKS:
            _KEPT.popitem(last=False)


@event.listens_for(Session, "after_soft_rollback")
def _drop_rolled_back(session: Session, previous_transaction) -> None:  # noqa: ANN001 - SQLAlchemy's hook
    """A rollback (of the transaction or of a savepoint) drops the books changed in it."""
    session.info.pop(_PENDING, None)
    session.info.pop(_HELD, None)


def load_book(session: Session, workbook: Workbook) -> Book:
    """Every cell of the workbook, with its formulas indexed, as stored now (taken from this
    transaction's books or the books kept between calls when its version is current)."""
    key = _kept_key(session, workbook)
    kept = session.info.get(_PENDING, {}).pop(key, None)
    if kept is None:
        with _KEPT_LOCK:
            kept = _KEPT.pop(key, None)
    if kept is not None and kept[0] == workbook.version:
        kept[1].ctx = Context(clock.now(session).date())
        return kept[1]
    return read_book(session, workbook)


def read_book(session: Session, workbook: Workbook) -> Book:
    """Every cell of the workbook loaded afresh from the database (never from the kept books), for
    readers such as graders that change the book in memory to see how its formulas respond."""
    sheets = {s.id: s.name for s in sheets_of(session, workbook)}
    book = Book(sheets, clock.now(session).date(), names_of(session, workbook, sheets))
    rows = session.execute(select(Cell.sheet_id, Cell.row, Cell.col, Cell.raw, Cell.kind, Cell.number, Cell.text,
                                  Cell.note).where(Cell.sheet_id.in_(list(sheets)))).all()
    loaded = []
    for sheet_id, row, col, raw, kind, number, text, note in rows:
        tree = formula_of(raw) if raw[:1] == "=" else None
        if tree is not None and tree[0] == "err_text":
            tree = ("err", "#NAME?")
        value = number if kind == "n" else (text if kind == "s" else cell_value(kind, number, text, note))
        loaded.append(((sheet_id, row, col), raw, tree, value))
    book.load(loaded)
    return book


@dataclass
class Change:
    """A cell input to store: where, the new input, and the number format to give it ("" keeps)."""

    sheet: Sheet
    row: int
    col: int
    raw: str
    number_format: str | None = None


def parse_inputs(changes: list[Change]) -> list[tuple[Change, object]]:
    """Each change with its parsed input; refuses the whole batch at the first broken formula."""
    parsed = []
    for change in changes:
        try:
            parsed.append((change, read_input(change.raw)))
        except FormulaError as bad:
            raise Invalid(f"{change.sheet.name}!{cell_text(change.row, change.col)}: the formula "
                          f"{change.raw!r} does not parse. {bad}") from None
    return parsed


def store_inputs(session: Session, actor: Person, workbook: Workbook, changes: list[Change],
                 action: str = "") -> set[Key]:
    """Write cell inputs, recalculate what depends on them and record revisions; returns the cells
    whose value changed."""
    parsed = parse_inputs(changes)
    hold_workbook(session, workbook)
    book = load_book(session, workbook)
    keys = [(c.sheet.id, c.row, c.col) for c, _ in parsed]
    existing = {(c.sheet_id, c.row, c.col): c for c in session.scalars(
        select(Cell).where(tuple_(Cell.sheet_id, Cell.row, Cell.col).in_(keys))
        .execution_options(populate_existing=True))} if keys else {}
    now = clock.now(session)
    for (change, meaning), key in zip(parsed, keys):
        old = existing.get(key)
        if old is not None and old.raw != change.raw:
            session.add(Revision(workbook_id=workbook.id, sheet_name=change.sheet.name, cell=cell_text(key[1], key[2]),
                                 action=action, old_raw=old.raw, new_raw=change.raw, changed_by_id=actor.id,
                                 changed_at=now))
        elif old is None and change.raw:
            session.add(Revision(workbook_id=workbook.id, sheet_name=change.sheet.name, cell=cell_text(key[1], key[2]),
                                 action=action, old_raw="", new_raw=change.raw, changed_by_id=actor.id, changed_at=now))
        book.put(key, change.raw, meaning.formula, None if meaning.formula is not None else meaning.value)
    changed = book.recalculate(keys) | set(keys)
    session.flush()
    for (change, meaning), key in zip(parsed, keys):
        old = existing.get(key)
        fmt = change.number_format
        if fmt is None:
            fmt = old.number_format if old is not None and old.number_format else meaning.implied_format
        if not change.raw and not fmt:
            if old is not None:
                session.delete(old)
            continue
        columns = {"raw": change.raw, "number_format": fmt, **value_columns(book.value(key))}
        if old is None:
            session.add(Cell(sheet_id=key[0], row=key[1], col=key[2], **columns))
        else:
            for name, value in columns.items():
                setattr(old, name, value)
    session.flush()
    _write_values(session, book, changed - set(keys))
    workbook.updated_at = now
    keep_book(session, workbook, book)
    return changed


def _write_values(session: Session, book: Book, keys) -> None:
    params = [{"sheet_id": k[0], "row": k[1], "col": k[2], **value_columns(book.value(k))} for k in sorted(keys)
              if k in book.cells]
    if params:
        session.execute(update(Cell), params)


def replace_cells(session: Session, actor: Person | None, workbook: Workbook, rows: list[dict], action: str) -> None:
    """Replace every cell of the workbook by `rows` (dicts of sheet_id, row, col, raw, number_format),
    recalculating everything; one revision describes the action (none when `actor` is None: the
    seeder fills workbooks this way)."""
    hold_workbook(session, workbook)
    sheets = {s.id: s.name for s in sheets_of(session, workbook)}
    book = Book(sheets, clock.now(session).date(), names_of(session, workbook, sheets))
    for item in rows:
        tree = formula_of(item["raw"])
        if isinstance(tree, tuple) and tree[0] == "err_text":
            tree = ("err", "#NAME?")
        literal = None if tree is not None else read_input(item["raw"]).value
        book.put((item["sheet_id"], item["row"], item["col"]), item["raw"], tree, literal)
    book.recalculate(book.formula_keys())
    session.execute(delete(Cell).where(Cell.sheet_id.in_(list(sheets))))
    values = [{**item, **value_columns(book.value((item["sheet_id"], item["row"], item["col"])))} for item in rows]
    if values:
        session.execute(insert(Cell), values)
    if actor is not None:
        now = clock.now(session)
        session.add(Revision(workbook_id=workbook.id, action=action[:200], changed_by_id=actor.id, changed_at=now))
        workbook.updated_at = now
    keep_book(session, workbook, book)


def all_rows(session: Session, workbook: Workbook) -> list[dict]:
    """Every stored cell of the workbook as plain dicts (sheet_id, row, col, raw, number_format)."""
    sheet_ids = select(Sheet.id).where(Sheet.workbook_id == workbook.id)
    return [{"sheet_id": s, "row": r, "col": c, "raw": raw, "number_format": fmt} for s, r, c, raw, fmt in
            session.execute(select(Cell.sheet_id, Cell.row, Cell.col, Cell.raw, Cell.number_format)
                            .where(Cell.sheet_id.in_(sheet_ids)).order_by(Cell.sheet_id, Cell.row, Cell.col))]


def recalculate_all(session: Session, actor: Person, workbook: Workbook, action: str) -> None:
    """Recompute every formula (after a sheet or a name changes what references mean)."""
    forget_book(session, workbook)  # sheets or names changed what references mean: start from the database
    book = load_book(session, workbook)
    _write_values(session, book, book.recalculate(book.formula_keys()))
    now = clock.now(session)
    session.add(Revision(workbook_id=workbook.id, action=action[:200], changed_by_id=actor.id, changed_at=now))
    workbook.updated_at = now
    keep_book(session, workbook, book)
