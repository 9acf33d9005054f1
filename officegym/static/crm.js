/* CRM enhancements; every page works without them.
   - Record sections become ARIA tabs (Details / Related / Activity): arrows move between tabs,
     the URL fragment keeps the open one. Without JavaScript they are anchored sections.
   - A field's pencil opens its inline editor (a real form posting to the update view); Cancel
     or Escape closes it unchanged. Without JavaScript the pencil opens the edit form.
   Dragging Kanban cards is board_drag.js's. */
(function () {
  "use strict";

  function setUpTabs(list) {
    var tabs = Array.prototype.slice.call(list.querySelectorAll('[data-tab]'));
    var panels = tabs.map(function (tab) { return document.getElementById(tab.getAttribute('data-tab')); });
    if (!tabs.length || panels.indexOf(null) >= 0) { return; }
    list.setAttribute('role', 'tablist');
    function select(index, focus, remember) {
      tabs.forEach(function (tab, i) {
        var on = i === index;
        tab.setAttribute('aria-selected', on ? 'true' : 'false');
        tab.setAttribute('tabindex', on ? '0' : '-1');
        panels[i].hidden = !on;
      });
      if (focus) { tabs[index].focus(); }
      if (remember && window.history.replaceState) {
        window.history.replaceState(null, '', '#' + panels[index].id);
      }
    }
    tabs.forEach(function (tab, i) {
      tab.setAttribute('role', 'tab');
      tab.setAttribute('aria-controls', panels[i].id);
      panels[i].setAttribute('role', 'tabpanel');
      panels[i].setAttribute('aria-labelledby', tab.id);
      var title = panels[i].querySelector('.panel-title');
      if (title) { title.classList.add('visually-hidden'); }
      tab.addEventListener('click', function (event) { event.preventDefault(); select(i, false, true); });
      tab.addEventListener('keydown', function (event) {
        var next = {ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1}[event.key];
        if (next === undefined) { return; }
        event.preventDefault();
        select((next + tabs.length) % tabs.length, true, true);
      });
    });
    var target = window.location.hash ? document.getElementById(window.location.hash.slice(1)) : null;
    var start = 0;
    panels.forEach(function (panel, i) { if (target && panel.contains(target)) { start = i; } });
    select(start, false, false);
  }

  function setUpInlineEdit(pencil) {
    var field = pencil.closest('.field');
    var form = field && field.querySelector('[data-inline-form]');
    var view = field && field.querySelector('.field-view');
    if (!form || !view) { return; }
    var input = form.querySelector('input:not([type=hidden]), select, textarea');
    function close(restoreFocus) {
      form.reset();
      form.hidden = true;
      view.hidden = false;
      if (restoreFocus) { pencil.focus(); }
    }
    function unchanged() {
      if (input.tagName === 'SELECT') {
        return Array.prototype.every.call(input.options, function (o) { return o.selected === o.defaultSelected; });
      }
      return input.value === input.defaultValue;
    }
    pencil.addEventListener('click', function (event) {
      event.preventDefault();
      document.querySelectorAll('[data-inline-form]:not([hidden])').forEach(function (other) {
        var cancel = other.querySelector('[data-inline-cancel]');
        if (cancel) { cancel.click(); }
      });
      view.hidden = true;
      form.hidden = false;
      input.focus();
      if (input.select && input.tagName === 'INPUT') { input.select(); }
    });
    form.querySelector('[data-inline-cancel]').addEventListener('click', function () { close(true); });
    form.addEventListener('keydown', function (event) {
      if (event.key === 'Escape' && input.getAttribute('aria-expanded') !== 'true') {
        event.preventDefault();
        close(true);
      }
    });
    form.addEventListener('submit', function (event) {
      if (unchanged()) { event.preventDefault(); close(true); }
    });
  }

  document.querySelectorAll('[data-tablist]').forEach(setUpTabs);
  document.querySelectorAll('[data-inline-edit]').forEach(setUpInlineEdit);
}());
