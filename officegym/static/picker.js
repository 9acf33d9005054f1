/* Typeahead pickers. Any text input with data-picker="people|invitees|accounts|opportunities|channels|tickets"
   becomes a combobox (WAI-ARIA 1.2 pattern): typing asks the episode's lookup service and lists up
   to eight suggestions; arrows move, Enter or a click picks, Escape closes. Picking writes the value
   the field accepts (a handle, a name, a channel, a ticket key). With data-picker-multi the field
   holds a comma-separated list and a pick replaces the entry being typed; "invitees" are the people
   not yet in the channel of data-picker-channel. Without JavaScript the
   field is a plain text input that takes the same values typed by hand. */
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="officegym-lookup"]');
  if (!meta) { return; }
  var endpoint = meta.getAttribute('content');
  var counter = 0;

  function currentTerm(input) {
    if (!input.hasAttribute('data-picker-multi')) { return input.value.trim(); }
    var parts = input.value.split(',');
    return parts[parts.length - 1].trim();
  }

  function enhance(input) {
    counter += 1;
    var id = input.id || ('picker-' + counter);
    input.id = id;
    var list = document.createElement('ul');
    list.id = id + '-listbox';
    list.className = 'picker-list';
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', 'Suggestions');
    list.hidden = true;
    input.insertAdjacentElement('afterend', list);
    var status = document.createElement('span');
    status.className = 'visually-hidden';
    status.setAttribute('role', 'status');
    list.insertAdjacentElement('afterend', status);
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-expanded', 'false');
    input.setAttribute('aria-controls', list.id);
    input.setAttribute('autocomplete', 'off');
    var results = [], active = -1, timer = null, asked = 0;

    function close() {
      list.hidden = true;
      list.textContent = '';
      results = [];
      active = -1;
      input.setAttribute('aria-expanded', 'false');
      input.removeAttribute('aria-activedescendant');
    }

    function highlight(index) {
      var options = list.querySelectorAll('[role="option"]');
      options.forEach(function (option, i) { option.setAttribute('aria-selected', i === index ? 'true' : 'false'); });
      active = index;
      if (index >= 0 && options[index]) {
        input.setAttribute('aria-activedescendant', options[index].id);
        options[index].scrollIntoView({block: 'nearest'});
      } else {
        input.removeAttribute('aria-activedescendant');
      }
    }

    function pick(index) {
      var chosen = results[index];
      if (!chosen) { return; }
      if (input.hasAttribute('data-picker-multi')) {
        var parts = input.value.split(',').map(function (p) { return p.trim(); }).filter(Boolean);
        parts.pop();
        parts.push(chosen.value);
        input.value = parts.join(', ') + ', ';
      } else {
        input.value = chosen.value;
      }
      close();
      status.textContent = chosen.label + ' chosen';
      input.dispatchEvent(new CustomEvent('picker:chosen', {bubbles: true, detail: chosen}));
      input.focus();
    }

    function show(found) {
      list.textContent = '';
      results = found;
      found.forEach(function (item, i) {
        var option = document.createElement('li');
        option.id = id + '-option-' + i;
        option.setAttribute('role', 'option');
        option.setAttribute('aria-selected', 'false');
        var label = document.createElement('span');
        label.className = 'picker-label';
        label.textContent = item.label;
        option.appendChild(label);
        if (item.detail) {
          var detail = document.createElement('span');
          detail.className = 'picker-detail';
          detail.textContent = ' ' + item.detail;
          option.appendChild(detail);
        }
        option.addEventListener('mousedown', function (event) { event.preventDefault(); });
        option.addEventListener('click', function () { pick(i); });
        list.appendChild(option);
      });
      list.hidden = found.length === 0;
      input.setAttribute('aria-expanded', found.length ? 'true' : 'false');
      status.textContent = found.length ? found.length + ' suggestions' : 'No suggestions';
      highlight(-1);
    }

    function ask() {
      var term = currentTerm(input);
      if (!term) { close(); return; }
      asked += 1;
      var ticket = asked;
      var url = endpoint.replace('KIND', encodeURIComponent(input.getAttribute('data-picker'))) +
        '?q=' + encodeURIComponent(term) +
        (input.hasAttribute('data-picker-channel') ? '&channel=' + encodeURIComponent(input.getAttribute('data-picker-channel')) : '');
      fetch(url, {credentials: 'same-origin', headers: {'Accept': 'application/json'}})
        .then(function (response) { return response.ok ? response.json() : {results: []}; })
        .then(function (body) { if (ticket === asked) { show(body.results || []); } })
        .catch(function () { if (ticket === asked) { close(); } });
    }

    input.addEventListener('input', function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(ask, 120);
    });
    input.addEventListener('keydown', function (event) {
      if (list.hidden) {
        if (event.key === 'ArrowDown' && currentTerm(input)) { ask(); event.preventDefault(); }
        return;
      }
      if (event.key === 'ArrowDown') {
        highlight(Math.min(active + 1, results.length - 1));
        event.preventDefault();
      } else if (event.key === 'ArrowUp') {
        highlight(Math.max(active - 1, 0));
        event.preventDefault();
      } else if (event.key === 'Enter' && active >= 0) {
        pick(active);
        event.preventDefault();
      } else if (event.key === 'Escape') {
        close();
        event.preventDefault();
      }
    });
    input.addEventListener('blur', function () { window.setTimeout(close, 150); });
  }

  function enhanceAll(root) {
    root.querySelectorAll('input[data-picker]:not([role="combobox"])').forEach(enhance);
  }
  enhanceAll(document);
  window.officegymPickers = {enhance: enhanceAll};
}());
