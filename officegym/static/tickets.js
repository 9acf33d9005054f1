/* Tickets pages, enhanced. Every control here is already a working link or form without JavaScript:
   - fields edited in place: a pencil link opens the field's form (`?edit=<field>` without JS) with
     its current value selected, so typing replaces it; Cancel (a link back to the ticket) or Escape
     closes it again without saving;
   - menus (<details>): opening one closes the others; Escape or a click elsewhere closes it.
   Dragging board cards is board_drag.js's. */
(function () {
  "use strict";

  function showEditor(form, open) {
    var field = form.closest('.inline-field');
    var shown = field && field.querySelector('.inline-show');
    form.hidden = !open;
    if (shown) { shown.hidden = open; }
    if (open) {
      var first = form.querySelector('input:not([type="hidden"]), select, textarea');
      if (first) {
        first.focus();
        if (first.select && first.type !== 'number' && first.type !== 'date') { first.select(); }
      }
    } else {
      form.reset();
      var pencil = field && field.querySelector('[data-inline-open]');
      if (pencil) { pencil.focus(); }
    }
  }

  function closeEditors(except) {
    document.querySelectorAll('form.inline-form:not([hidden])').forEach(function (form) {
      if (form !== except) { showEditor(form, false); }
    });
  }

  document.addEventListener('click', function (event) {
    var pencil = event.target.closest('[data-inline-open]');
    if (pencil) {
      var form = document.getElementById(pencil.getAttribute('data-inline-open'));
      if (form) {
        event.preventDefault();
        closeEditors(form);
        showEditor(form, true);
      }
      return;
    }
    var cancel = event.target.closest('[data-inline-cancel]');
    if (cancel && cancel.closest('form.inline-form')) {
      event.preventDefault();
      showEditor(cancel.closest('form.inline-form'), false);
      return;
    }
    document.querySelectorAll('details.menu[open]').forEach(function (menu) {
      if (!menu.contains(event.target)) { menu.open = false; }
    });
  });

  document.addEventListener('keydown', function (event) {
    if (event.key !== 'Escape') { return; }
    var form = event.target.closest && event.target.closest('form.inline-form');
    var list = form && form.querySelector('[role="combobox"][aria-expanded="true"]');
    if (form && !list) {
      event.preventDefault();
      showEditor(form, false);
      return;
    }
    var menu = event.target.closest && event.target.closest('details.menu[open]');
    if (menu) {
      menu.open = false;
      menu.querySelector('summary').focus();
    }
  });

  document.querySelectorAll('details.menu').forEach(function (menu) {
    menu.addEventListener('toggle', function () {
      if (!menu.open) { return; }
      document.querySelectorAll('details.menu[open]').forEach(function (other) {
        if (other !== menu) { other.open = false; }
      });
    });
  });
}());
