/* Sheets grid: editing in place and the clipboard (for editors; sheets.js must run first).
   Typing on a selected cell starts editing it in an input laid over the cell; F2, Enter or a
   double-click edit its current input. Enter commits and moves down (Shift+Enter up), Tab right
   (Shift+Tab left), Escape cancels. A commit posts the formula bar's form (same route, same CSRF
   token) asking for JSON, then re-reads the page's window to show every value that changed.
   Delete clears the range, Ctrl+C / Ctrl+V copy and paste it, Ctrl+D fills down: each posts the
   existing form of that tool and shows the grid the answer brings back. */
(function () {
  "use strict";
  var S = window.officegymSheets, bar = document.getElementById('formula-bar');
  var editor = document.getElementById('cell-editor'), pad = document.getElementById('grid-clipboard');
  if (!S || !bar || !editor) { return; }
  var grid = S.grid, valueField = document.getElementById('fx-value');
  var edit = { td: null, mode: '', original: '' }, clip = null, pending = 0, queue = Promise.resolve();

  function busy(delta) {
    pending += delta;
    if (pending > 0) { grid.setAttribute('aria-busy', 'true'); } else { grid.removeAttribute('aria-busy'); }
  }
  function errorOf(html, status) {
    var doc = new DOMParser().parseFromString(html, 'text/html');
    var shown = doc.querySelector('[data-testid="error-message"], .flash-error');
    return shown ? shown.textContent.trim() : 'The server answered ' + status + '.';
  }

  /* Show a fresh copy of the page's grid: cells in place when the window is the same, else the whole table. */
  function apply(html) {
    var doc = new DOMParser().parseFromString(html, 'text/html'), fresh = doc.getElementById('grid');
    if (!fresh) { return; }
    var shape = function (table) {
      return Array.prototype.map.call(table.querySelectorAll('tr[data-row], th[data-col]'), function (el) {
        return el.dataset.row || el.dataset.col;
      }).join(',');
    };
    var sel = S.selection();
    if (shape(fresh) === shape(grid)) {
      var now = grid.querySelectorAll('td[data-ref]');
      Array.prototype.forEach.call(fresh.querySelectorAll('td[data-ref]'), function (td, i) {
        var old = now[i];
        old.className = td.className;
        ['data-raw', 'title', 'aria-label', 'aria-description'].forEach(function (name) {
          if (td.hasAttribute(name)) { old.setAttribute(name, td.getAttribute(name)); }
          else { old.removeAttribute(name); }
        });
        old.replaceChildren.apply(old, Array.prototype.map.call(td.childNodes, function (n) {
          return document.importNode(n, true);
        }));
      });
    } else {
      grid.replaceChildren.apply(grid, Array.prototype.map.call(fresh.children, function (n) {
        return document.importNode(n, true);
      }));
    }
    var where = '[data-testid="window-status"]', status = doc.querySelector(where), here = document.querySelector(where);
    if (status && here) { here.textContent = status.textContent; }
    var flash = doc.querySelector('[data-testid="flash-info"]');
    if (flash) { S.say(flash.textContent.trim(), false); }
    if (sel) {
      var limit = [S.rows().length - 1, S.letters().length - 1];
      var clampTo = function (p) { return [Math.min(p[0], limit[0]), Math.min(p[1], limit[1])]; };
      S.select(clampTo(S.state.anchor), clampTo(S.state.focus), document.activeElement !== document.body &&
               !grid.contains(document.activeElement));
    }
  }

  function refresh() {
    return fetch(window.location.href, { credentials: 'same-origin' })
      .then(function (r) { return r.text(); }).then(apply);
  }

  /* POST fields with the page's CSRF token to a form's route; `json` asks for a JSON answer (then the
     window is re-read), else the answer is the grid page a redirect brings back. */
  function post(action, fields, json) {
    var data = new FormData();
    data.append('csrf_token', bar.elements.csrf_token.value);
    data.append('sheet', grid.dataset.sheet);
    if (bar.elements.view) { data.append('view', bar.elements.view.value); }
    Object.keys(fields).forEach(function (k) { data.append(k, fields[k]); });
    busy(1);
    queue = queue.then(function () {
      return fetch(action, { method: 'POST', body: data, credentials: 'same-origin',
                             headers: { Accept: json ? 'application/json' : 'text/html' } })
        .then(function (response) {
          if (!response.ok) {
            return response.text().then(function (html) {
              S.say(errorOf(html, response.status), true);
              return refresh();
            });
          }
          if (json) {
            return response.json().then(function (answer) { S.say(answer.message, false); return refresh(); });
          }
          return response.text().then(apply);
        })
        .catch(function (err) { S.say('Not saved: ' + err, true); })
        .then(function () { busy(-1); });
    });
    return queue;
  }

  function place() {
    var td = edit.td, box = td.getBoundingClientRect(), wrap = grid.parentElement.getBoundingClientRect();
    var host = grid.parentElement;
    editor.style.left = (box.left - wrap.left + host.scrollLeft) + 'px';
    editor.style.top = (box.top - wrap.top + host.scrollTop) + 'px';
    editor.style.minWidth = box.width + 'px';
    editor.style.height = box.height + 'px';
  }

  function begin(mode, text) {
    var td = S.active();
    if (!td) { return; }
    edit = { td: td, mode: mode, original: td.dataset.raw || '' };
    editor.value = text === undefined ? edit.original : text;
    editor.setAttribute('aria-label', 'Edit cell ' + td.dataset.ref);
    editor.hidden = false;
    place();
    editor.focus();
    editor.setSelectionRange(editor.value.length, editor.value.length);
    if (valueField) { valueField.value = editor.value; }
  }

  function finish(save) {
    var td = edit.td;
    if (!td) { return; }
    edit.td = null;
    editor.hidden = true;
    var value = editor.value;
    if (save && value !== edit.original) {
      var text = document.createElement('span');
      text.setAttribute('aria-hidden', 'true');
      text.textContent = value;
      td.replaceChildren(text);
      td.setAttribute('aria-label', value);
      td.classList.add('pending');
      td.dataset.raw = value;
      post(grid.dataset.write, { cell: td.dataset.ref, value: value }, true);
    } else if (valueField) {
      valueField.value = edit.original;
    }
  }

  editor.addEventListener('input', function () { if (valueField) { valueField.value = editor.value; } });
  editor.addEventListener('blur', function () { finish(true); });
  editor.addEventListener('keydown', function (event) {
    var steps = { Enter: [event.shiftKey ? -1 : 1, 0], Tab: [0, event.shiftKey ? -1 : 1] }[event.key];
    if (edit.mode === 'enter' && !event.shiftKey) {
      steps = steps || { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[event.key];
    }
    if (event.key === 'Escape') {
      event.preventDefault();
      var td = edit.td;
      finish(false);
      if (td) { td.focus(); }
    } else if (steps) {
      event.preventDefault();
      var from = edit.td;
      finish(true);
      from.focus();
      S.move(steps[0], steps[1], false);
    }
  });

  function tsv() {
    var b = S.selection().bounds, lines = [];
    for (var r = b.top; r <= b.bottom; r++) {
      var line = [];
      for (var c = b.left; c <= b.right; c++) { line.push(S.cellAt([r, c]).textContent); }
      lines.push(line.join('\t'));
    }
    return lines.join('\n');
  }
  function quoted(sheet) {
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(sheet) ? sheet : "'" + sheet.replace(/'/g, "''") + "'";
  }

  function copy() {
    var sel = S.selection();
    if (!S.adjacent(sel)) { return ''; }
    clip = { source: quoted(sel.sheet) + '!' + sel.range, text: tsv() };
    S.say('Copied ' + sel.range + '.', false);
    return clip.text;
  }
  function paste(text) {
    var sel = S.selection();
    if (!S.adjacent(sel)) { return; }
    if (clip && (text === undefined || text.replace(/\r\n/g, '\n').replace(/\n$/, '') === clip.text)) {
      return post(grid.dataset.paste, { source: clip.source, target: sel.ref });
    }
    if (text) { return post(grid.dataset.block, { start: sel.ref, text: text }); }
    S.say('Nothing to paste: copy cells first (Ctrl+C), or press Ctrl+V to paste text.', true);
  }
  function fillDown() {
    var sel = S.selection(), b = sel.bounds, range = sel.range;
    if (!S.adjacent(sel)) { return; }
    if (sel.rows < 2) {
      if (sel.row < 2) { return S.say('Fill down needs a cell above to copy.', true); }
      range = S.letters()[b.left] + (sel.row - 1) + ':' + S.letters()[b.right] + sel.row;
    }
    return post(grid.dataset.fill, { range: range });
  }
  function clear() {
    var sel = S.selection();
    if (S.adjacent(sel)) { return post(grid.dataset.clear, { range: sel.range }); }
  }

  document.addEventListener('copy', function (event) {
    var back = event.target === pad ? S.active() : null;
    if (!back && !(event.target.matches && event.target.matches('td[data-ref]'))) { return; }
    event.preventDefault();
    event.clipboardData.setData('text/plain', copy());
    if (back) { back.focus(); }
  });
  document.addEventListener('paste', function (event) {
    var back = event.target === pad ? S.active() : null;
    if (!back && !(event.target.matches && event.target.matches('td[data-ref]'))) { return; }
    event.preventDefault();
    paste(event.clipboardData.getData('text/plain'));
    if (back) { back.focus(); }
  });

  grid.addEventListener('dblclick', function (event) { if (event.target.closest('td[data-ref]')) { begin('edit'); } });
  grid.addEventListener('keydown', function (event) {
    if (!event.target.matches('td[data-ref]')) { return; }
    var key = event.key, command = event.ctrlKey || event.metaKey;
    if (command && !event.altKey && (key === 'c' || key === 'v')) {
      var cell = event.target;
      pad.value = key === 'v' ? '' : tsv();
      pad.focus();
      pad.select();  // the browser's own copy or paste goes through the pad; the handlers above take it
      window.setTimeout(function () { if (document.activeElement === pad) { cell.focus(); } }, 0);
    } else if (command && key === 'd') {
      event.preventDefault();
      fillDown();
    } else if (key === 'F2' || (key === 'Enter' && !event.shiftKey)) {
      event.preventDefault();
      begin('edit');
    } else if (key === 'Enter') {
      event.preventDefault();
      S.move(-1, 0, false);
    } else if ((key === 'Delete' || key === 'Backspace') && !command) {
      event.preventDefault();
      clear();
    } else if (key.length === 1 && !command && !event.altKey) {
      event.preventDefault();
      begin('enter', key);
    }
  });
  grid.addEventListener('mousedown', function () { if (edit.td) { editor.blur(); } }, true);

  S.copy = copy;
  S.paste = function () { return paste(); };
  S.fillDown = fillDown;
  S.clear = clear;
  S.post = post;
  S.idle = function () { return queue; };
  S.edit = begin;
}());
