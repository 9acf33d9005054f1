/* Sheets grid: selection and movement (an enhancement: without it a reader selects a cell through
   the formula bar's Cell field or "Go to cell"). A click selects a cell, a drag or Shift+click a
   range; arrows move, Shift+arrows extend; the selected range shows in the Cell field, the page
   title and the tool forms' fields marked data-fill. Movement past the window's edge opens the next
   window. sheets_edit.js adds editing and the clipboard, sheets_menus.js the menus; both use the
   object this file puts on window.officegymSheets. */
(function () {
  "use strict";
  var grid = document.getElementById('grid');
  if (!grid) { return; }
  var cellField = document.getElementById('fx-cell');
  var valueField = document.getElementById('fx-value');
  var display = document.querySelector('[data-testid="selected-display"]');
  var message = document.getElementById('grid-message');
  var state = { anchor: null, focus: null, dragging: false };

  function rows() { return Array.prototype.slice.call(grid.querySelectorAll('tr[data-row]')); }
  function letters() {
    return Array.prototype.map.call(grid.querySelectorAll('th[data-col]'), function (th) { return th.dataset.col; });
  }
  function cellAt(pos) {
    var tr = rows()[pos[0]];
    return tr ? tr.cells[pos[1] + 1] || null : null;
  }
  function position(td) {
    var tr = td.parentElement;
    return [rows().indexOf(tr), td.cellIndex - 1];
  }
  function refAt(pos) { return letters()[pos[1]] + rows()[pos[0]].dataset.row; }
  function colIndex(name) {
    var n = 0;
    for (var i = 0; i < name.length; i++) { n = n * 26 + name.charCodeAt(i) - 64; }
    return n - 1;
  }
  function colName(index) {
    var name = '';
    for (index += 1; index > 0; index = Math.floor((index - 1) / 26)) {
      name = String.fromCharCode(65 + (index - 1) % 26) + name;
    }
    return name;
  }
  function bounds() {
    var a = state.anchor, f = state.focus;
    return { top: Math.min(a[0], f[0]), bottom: Math.max(a[0], f[0]), left: Math.min(a[1], f[1]),
             right: Math.max(a[1], f[1]) };
  }
  function rangeText() {
    var b = bounds(), first = refAt([b.top, b.left]), last = refAt([b.bottom, b.right]);
    return first === last ? first : first + ':' + last;
  }

  /* What the selection is, for the forms and the menus. */
  function selection() {
    if (!state.focus) { return null; }
    var b = bounds(), all = rows(), cols = letters();
    var top = +all[b.top].dataset.row, bottom = +all[b.bottom].dataset.row, gap = false;
    /* Frozen rows and columns sit beside a scrolled window, and a filter view skips rows: a range
       across such a seam would reach cells nobody sees. */
    for (var r = b.top; r < b.bottom; r++) { gap = gap || +all[r + 1].dataset.row !== +all[r].dataset.row + 1; }
    for (var c = b.left; c < b.right; c++) { gap = gap || colIndex(cols[c + 1]) !== colIndex(cols[c]) + 1; }
    return { sheet: grid.dataset.sheet, ref: refAt(state.focus), range: rangeText(), gap: gap,
             multi: rangeText().indexOf(':') > 0,
             row: top, bottom: bottom, below: bottom + 1, rows: bottom - top + 1, col: cols[b.left],
             right: colName(colIndex(cols[b.right]) + 1), cols: b.right - b.left + 1,
             colnumber: colIndex(cols[b.right]) + 1, bounds: b };
  }

  /* Whether a selection is cells side by side in the sheet; if not, say why nothing happens. */
  function adjacent(sel) {
    if (sel.gap) {
      say('The selection spans rows or columns this window does not show; select cells that sit side by side.', true);
    }
    return !sel.gap;
  }

  function paint() {
    Array.prototype.forEach.call(grid.querySelectorAll('[aria-selected], .active, .in-range'), function (el) {
      el.removeAttribute('aria-selected');
      el.classList.remove('active', 'in-range');
    });
    var b = bounds(), all = rows(), heads = grid.querySelectorAll('th[data-col]');
    for (var r = b.top; r <= b.bottom; r++) {
      all[r].cells[0].classList.add('in-range');
      for (var c = b.left; c <= b.right; c++) { all[r].cells[c + 1].setAttribute('aria-selected', 'true'); }
    }
    for (var k = b.left; k <= b.right; k++) { heads[k].classList.add('in-range'); }
    cellAt(state.focus).classList.add('active');
  }

  function fillForms(sel) {
    Array.prototype.forEach.call(document.querySelectorAll('[data-fill]'), function (field) {
      if (field.dataset.initial === undefined) { field.dataset.initial = field.value; }
      var kind = field.dataset.fill;
      if (kind === 'table') { field.value = sel.multi ? sel.range : field.dataset.initial; }
      else if (kind === 'cell') { field.value = sel.ref; }
      else if (kind === 'row') { field.value = String(sel.row); }
      else if (kind === 'col') { field.value = sel.col; }
      else { field.value = sel.range; }
    });
  }

  /* Select from `anchor` to `focus` (row and column positions in the window); focus the active cell. */
  function select(anchor, focus, keepFocus) {
    state.anchor = anchor;
    state.focus = focus || anchor;
    var td = cellAt(state.focus), old = grid.querySelector('td[tabindex="0"]');
    if (old && old !== td) { old.setAttribute('tabindex', '-1'); }
    td.setAttribute('tabindex', '0');
    paint();
    var sel = selection();
    if (cellField) { cellField.value = sel.range; }
    if (valueField) { valueField.value = td.dataset.raw || ''; }
    if (display) { display.textContent = sel.ref + ' shows \u201c' + td.textContent + '\u201d'; }
    document.title = grid.dataset.title + ' \u00b7 ' + sel.range + ' \u00b7 officegym';
    fillForms(sel);
    var url = new URL(window.location.href);
    url.searchParams.set('cell', sel.ref);
    window.history.replaceState(null, '', url.toString());
    if (!keepFocus) { td.focus(); }
    document.dispatchEvent(new CustomEvent('sheets:select', { detail: sel }));
  }

  /* Go to a cell outside the window: the page of the sheet that holds it, once pending writes are answered. */
  function visit(ref) {
    var url = new URL(window.location.href);
    ['r', 'c', 'offset'].forEach(function (k) { url.searchParams.delete(k); });
    url.searchParams.set('cell', ref);
    var api = window.officegymSheets, idle = api && api.idle ? api.idle() : Promise.resolve();
    idle.then(function () { window.location.assign(url.toString()); });
  }

  /* Move the active cell by (dr, dc); `extend` grows the range instead. */
  function move(dr, dc, extend) {
    var f = state.focus, to = [f[0] + dr, f[1] + dc], all = rows();
    if (to[0] < 0 || to[0] >= all.length || to[1] < 0 || to[1] >= letters().length) {
      if (extend || grid.dataset.filtered) { return false; }
      var row = +all[f[0]].dataset.row + dr, col = colIndex(letters()[f[1]]) + dc;
      if (row < 1 || col < 0) { return false; }
      visit(colName(col) + row);
      return true;
    }
    select(extend ? state.anchor : to, to);
    return true;
  }

  function say(text, isError) {
    if (!message) { return; }
    message.textContent = text;
    message.classList.toggle('err', !!isError);
  }

  function selectTarget(event) {
    var td = event.target.closest('td[data-ref]');
    if (td) { return select(event.shiftKey ? state.anchor : position(td), position(td)); }
    var th = event.target.closest('th');
    if (!th || !state.focus) { return; }
    var last = [rows().length - 1, letters().length - 1];
    if (th.dataset.col) { var c = th.cellIndex - 1; select([0, c], [last[0], c]); }
    else if (th.scope === 'row') { var r = rows().indexOf(th.parentElement); select([r, 0], [r, last[1]]); }
  }

  grid.addEventListener('mousedown', function (event) {
    if (event.button !== 0 || !event.target.closest('td[data-ref], th')) { return; }
    event.preventDefault();
    state.dragging = !!event.target.closest('td[data-ref]');
    selectTarget(event);
  });
  grid.addEventListener('mouseover', function (event) {
    var td = state.dragging && event.target.closest('td[data-ref]');
    if (td) { select(state.anchor, position(td)); }
  });
  document.addEventListener('mouseup', function () { state.dragging = false; });

  grid.addEventListener('keydown', function (event) {
    if (!event.target.matches('td[data-ref]') || event.ctrlKey || event.metaKey || event.altKey) { return; }
    var steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[event.key];
    if (steps) { event.preventDefault(); move(steps[0], steps[1], event.shiftKey); }
    else if (event.key === 'Tab') {  // within the window; at its edge Tab leaves the grid
      var to = state.focus[1] + (event.shiftKey ? -1 : 1);
      if (to >= 0 && to < letters().length) { event.preventDefault(); move(0, event.shiftKey ? -1 : 1, false); }
    }
  });

  /* The Cell field: Enter goes to the cell or range typed (instead of saving the value there). */
  if (cellField) {
    cellField.addEventListener('keydown', function (event) {
      if (event.key !== 'Enter') { return; }
      var typed = cellField.value.trim().toUpperCase().match(/^([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/);
      if (!typed) { return; }
      event.preventDefault();
      var find = function (col, row) {
        var r = rows().findIndex(function (tr) { return tr.dataset.row === row; });
        var c = letters().indexOf(col);
        return r < 0 || c < 0 ? null : [r, c];
      };
      var from = find(typed[1], typed[2]), to = typed[3] ? find(typed[3], typed[4]) : from;
      if (from && to) { select(from, to); } else { visit(typed[1] + typed[2]); }
    });
  }

  /* The page opened on a cell (?cell=, after Go to cell, a save or a move past the window) focuses it. */
  var start = grid.querySelector('td[aria-selected="true"]') || grid.querySelector('td[data-ref]');
  var asked = new URL(window.location.href).searchParams.has('cell');
  if (start) {
    select(position(start), null, true);
    if (asked) { start.focus({ preventScroll: true }); }
  }

  window.officegymSheets = {
    grid: grid, state: state, rows: rows, letters: letters, cellAt: cellAt, position: position,
    select: select, move: move, selection: selection, adjacent: adjacent, say: say, selectTarget: selectTarget,
    active: function () { return state.focus ? cellAt(state.focus) : null; }
  };
}());
