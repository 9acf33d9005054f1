/* Drag and drop on a board (the CRM's Kanban, a tickets board). Every page works without this file:
   each card has a menu whose items move it. A card ([data-drag-card]) let go over a column
   ([data-drop-column="<value>"]) takes the card's own item that leads there (the element of the card
   with data-to="<value>": a form, a button of a form, or a link). The card is the one the pointer pressed
   and the column the one under the pointer where it is let go, even when the page scrolled in between
   (the browser then starts the drag on whatever lies under the pointer's old place, or on nothing). */
(function () {
  "use strict";

  var pressed = null, from = null, dragged = null;

  function itemFor(card, column) {
    if (!card || !column) { return null; }
    var value = column.getAttribute('data-drop-column');
    var items = card.querySelectorAll('[data-to]');
    for (var i = 0; i < items.length; i += 1) {
      if (items[i].getAttribute('data-to') === value) { return items[i]; }
    }
    return null;
  }

  function take(item) {
    /* Once the drag is over: a navigation started inside a drop handler may be dropped. */
    window.setTimeout(function () {
      if (item.tagName === 'FORM') { item.requestSubmit(); }
      else if (item.tagName === 'BUTTON') { item.form.requestSubmit(item); }
      else { window.location.assign(item.href); }
    }, 0);
  }

  function unmark() {
    document.querySelectorAll('[data-drop-column].drop-target').forEach(function (column) {
      column.classList.remove('drop-target');
    });
  }

  document.querySelectorAll('[data-drag-card]').forEach(function (card) {
    if (card.querySelector('[data-to]')) { card.setAttribute('draggable', 'true'); }
  });

  document.addEventListener('pointerdown', function (event) {
    pressed = event.target.closest('[data-drag-card]');
    from = {x: event.clientX, y: event.clientY};
  }, true);

  document.addEventListener('dragstart', function (event) {
    dragged = pressed || event.target.closest('[data-drag-card]');
    if (!dragged) { return; }
    dragged.classList.add('dragging');
    event.dataTransfer.effectAllowed = 'move';
    event.dataTransfer.setData('text/plain', dragged.getAttribute('data-drag-card'));
  });

  document.addEventListener('dragover', function (event) {
    var column = event.target.closest && event.target.closest('[data-drop-column]');
    unmark();
    if (itemFor(dragged, column)) {
      event.preventDefault();
      column.classList.add('drop-target');
    }
  });

  document.addEventListener('drop', function (event) {
    var item = itemFor(dragged, event.target.closest && event.target.closest('[data-drop-column]'));
    unmark();
    if (!item) { return; }
    event.preventDefault();
    take(item);
  });

  document.addEventListener('dragend', function () {
    if (dragged) { dragged.classList.remove('dragging'); }
    unmark();
    dragged = pressed = null;
  });

  /* No drag started (the press and the let-go were far apart, nothing draggable under the old place). */
  document.addEventListener('pointerup', function (event) {
    var card = pressed;
    pressed = null;
    if (!card || dragged || Math.abs(event.clientX - from.x) + Math.abs(event.clientY - from.y) < 12) { return; }
    var under = document.elementFromPoint(event.clientX, event.clientY);
    var item = itemFor(card, under && under.closest('[data-drop-column]'));
    if (item) { take(item); }
  }, true);
}());
