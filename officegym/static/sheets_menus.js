/* Sheets: the menu bar (File, Edit, Insert, Format, Data) and the grid's context menu (right-click
   or Shift+F10 on a cell, a row number or a column letter). Items either run a grid action (copy,
   paste, fill down), follow a link to a workbook page, or open one of the page's existing tool forms
   in a dialog, its fields filled from the selection (data-values such as "row={below}&count={rows}"
   take the selection's numbers); the form's own submit button is the confirming step. */
(function () {
  "use strict";
  var S = window.officegymSheets, bar = document.querySelector('.sheets .menubar');
  var context = document.getElementById('grid-menu'), dialog = document.getElementById('tool-dialog');
  if (bar) { bar.hidden = false; }
  var open = null;  // { menu, button } of the open menu

  function items(menu) {
    return Array.prototype.filter.call(menu.querySelectorAll('[role=menuitem]'), function (item) {
      return !item.closest('li').hidden;
    });
  }
  function close(refocus) {
    if (!open) { return; }
    var was = open;
    open = null;
    was.menu.hidden = true;
    if (was.button) { was.button.setAttribute('aria-expanded', 'false'); }
    if (refocus && was.button) { was.button.focus(); } else if (refocus && S && S.active()) { S.active().focus(); }
  }
  function show(menu, button, first) {
    close(false);
    menu.hidden = false;
    open = { menu: menu, button: button };
    if (button) { button.setAttribute('aria-expanded', 'true'); }
    var list = items(menu);
    if (list.length) { list[first === 'last' ? list.length - 1 : 0].focus(); }
  }

  /* A tool form in the dialog, filled from the selection and the item's values. */
  var home = null;
  function openForm(item) {
    var form = document.querySelector('form[data-testid="' + item.dataset.form + '"]');
    if (!form || !dialog) { return; }
    var chosen = S && S.selection();
    if (chosen && !S.adjacent(chosen)) { return; }
    if (home) { closeDialog(); }
    home = document.createComment('form home');
    form.parentNode.insertBefore(home, form);
    dialog.querySelector('.tool-dialog-body').appendChild(form);
    dialog.querySelector('h2').textContent = item.textContent.replace(/\u2026$/, '').trim();
    var sel = S && S.selection();
    new URLSearchParams(item.dataset.values || '').forEach(function (value, name) {
      var field = form.elements[name];
      if (!field) { return; }
      field.value = sel ? value.replace(/\{(\w+)\}/g, function (all, key) { return sel[key]; }) : value;
    });
    dialog.showModal();
    var submit = item.dataset.submit && form.querySelector('[data-testid="' + item.dataset.submit + '"]');
    var field = form.querySelector('input:not([type=hidden]), select, textarea');
    (submit || field || form.querySelector('button')).focus();
  }
  function closeDialog() {
    var form = dialog.querySelector('.tool-dialog-body form');
    if (form && home) {
      form.reset();  // the menu's values do not stay behind in the page's own form
      home.parentNode.insertBefore(form, home);
      home.remove();
    }
    home = null;
  }
  if (dialog) {
    dialog.addEventListener('close', function () {
      closeDialog();
      if (S && S.active()) { S.active().focus(); }
    });
    dialog.querySelector('.tool-dialog-close').addEventListener('click', function () { dialog.close(); });
  }

  function run(item) {
    var action = item.dataset.action;
    close(false);
    if (item.dataset.form) { openForm(item); return; }
    if (S && S.active()) { S.active().focus(); }
    if (action === 'copy' && S.copy) { S.copy(); }
    else if (action === 'paste' && S.paste) { S.paste(); }
    else if (action === 'fill' && S.fillDown) { S.fillDown(); }
  }

  function onMenuKey(event) {
    var menu = event.target.closest('[role=menu]');
    if (!menu || !open) { return; }
    var list = items(menu), at = list.indexOf(event.target), key = event.key;
    if (key === 'ArrowDown' || key === 'ArrowUp') {
      event.preventDefault();
      list[(at + (key === 'ArrowDown' ? 1 : list.length - 1)) % list.length].focus();
    } else if (key === 'Home' || key === 'End') {
      event.preventDefault();
      list[key === 'Home' ? 0 : list.length - 1].focus();
    } else if (key === 'Escape') {
      event.preventDefault();
      close(true);
    } else if ((key === 'ArrowLeft' || key === 'ArrowRight') && open.button) {
      event.preventDefault();
      var tops = Array.prototype.slice.call(bar.querySelectorAll('[aria-haspopup=menu]'));
      var next = tops[(tops.indexOf(open.button) + (key === 'ArrowRight' ? 1 : tops.length - 1)) % tops.length];
      show(document.getElementById(next.getAttribute('aria-controls')), next);
    } else if (key === 'Tab') {
      close(false);
    }
  }

  if (bar) {
    bar.addEventListener('click', function (event) {
      var top = event.target.closest('[aria-haspopup=menu]');
      if (top) {
        var menu = document.getElementById(top.getAttribute('aria-controls'));
        if (open && open.menu === menu) { close(false); } else { show(menu, top); }
        return;
      }
      var item = event.target.closest('button[role=menuitem]');
      if (item) { run(item); }
    });
    bar.addEventListener('keydown', function (event) {
      var top = event.target.closest('[aria-haspopup=menu]');
      if (top && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
        event.preventDefault();
        show(document.getElementById(top.getAttribute('aria-controls')), top, event.key === 'ArrowUp' ? 'last' : 0);
      } else {
        onMenuKey(event);
      }
    });
  }

  /* The context menu: only the items for what was clicked (a cell, a row number, a column letter). */
  function showContext(scope, x, y) {
    if (!context) { return; }
    Array.prototype.forEach.call(context.querySelectorAll('li'), function (li) {
      li.hidden = !!li.dataset.scope && li.dataset.scope.split(' ').indexOf(scope) < 0;
    });
    context.style.left = Math.min(x, window.innerWidth - 260) + 'px';
    context.style.top = Math.min(y, Math.max(0, window.innerHeight - 460)) + 'px';
    show(context, null);
  }
  if (context && S) {
    S.grid.addEventListener('contextmenu', function (event) {
      var target = event.target.closest('td[data-ref], th');
      if (!target) { return; }
      event.preventDefault();
      var td = target.closest('td[data-ref]');
      if (!td || td.getAttribute('aria-selected') !== 'true') { S.selectTarget(event); }
      showContext(td ? 'cell' : (target.dataset.col ? 'col' : 'row'), event.clientX, event.clientY);
    });
    S.grid.addEventListener('keydown', function (event) {
      if ((event.key === 'F10' && event.shiftKey) || event.key === 'ContextMenu') {
        var td = event.target.closest('td[data-ref]');
        if (!td) { return; }
        event.preventDefault();
        var box = td.getBoundingClientRect();
        showContext('cell', box.left + 10, box.bottom);
      }
    });
    context.addEventListener('click', function (event) {
      var item = event.target.closest('button[role=menuitem]');
      if (item) { run(item); }
    });
    context.addEventListener('keydown', onMenuKey);
  }
  document.addEventListener('mousedown', function (event) {
    var inside = open && (open.menu.contains(event.target) || (open.button && open.button.contains(event.target)));
    if (open && !inside) { close(false); }
  });
}());
