/* Sheets grid: optional enhancement. Without it every cell is a link that selects it and the
   formula bar is a plain form. With it a click selects a cell without reloading the page (the URL
   still follows), and Escape in the formula bar puts back the cell's input. */
(function () {
  "use strict";
  var grid = document.querySelector('.sheets table.grid');
  var bar = document.getElementById('formula-bar');
  if (!grid || !bar) { return; }
  var cellInput = document.getElementById('fx-cell');
  var valueInput = document.getElementById('fx-value');
  var info = document.querySelector('[data-testid="selected-info"]');

  function select(td, link) {
    var old = grid.querySelector('td.sel');
    if (old) {
      old.classList.remove('sel');
      var oldLink = old.querySelector('a');
      if (oldLink) { oldLink.removeAttribute('aria-current'); }
    }
    td.classList.add('sel');
    link.setAttribute('aria-current', 'true');
    cellInput.value = td.dataset.ref;
    valueInput.value = td.dataset.raw || '';
    valueInput.dataset.original = valueInput.value;
    if (info) {
      var shown = td.querySelector('.v');
      info.textContent = td.dataset.ref + ' shows \u201c' + (shown ? shown.textContent : '') + '\u201d' +
        (td.title ? ' \u00b7 ' + td.title : '');
    }
    if (window.history && window.history.replaceState) { window.history.replaceState(null, '', link.href); }
    valueInput.focus();
  }

  grid.addEventListener('click', function (event) {
    var link = event.target.closest('td[data-ref] > a');
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    event.preventDefault();
    select(link.parentElement, link);
  });

  valueInput.dataset.original = valueInput.value;
  valueInput.addEventListener('keydown', function (event) {
    if (event.key === 'Escape') { valueInput.value = valueInput.dataset.original || ''; }
  });
}());
