/* Chat, enhanced: every page works without this file. It adds
   - "Copy link": copies the message's address instead of opening it, and says so;
   - @-mention suggestions in the composers (textarea[data-mentions]): typing "@al" asks the episode's
     people lookup and lists matches in a listbox below the composer; arrows move, Enter, Tab or a
     click inserts "@handle ", Escape closes. The composer stays a plain form. */
(function () {
  "use strict";

  var live = document.createElement('div');
  live.className = 'visually-hidden';
  live.setAttribute('role', 'status');
  document.body.appendChild(live);

  function say(text) {
    live.textContent = '';
    window.setTimeout(function () { live.textContent = text; }, 30);
  }

  /* ---------------------------------------------------------------- copy link */

  document.addEventListener('click', function (event) {
    var link = event.target.closest('[data-copy-link]');
    if (!link) { return; }
    event.preventDefault();
    var address = new URL(link.getAttribute('href'), window.location.href).href;
    var done = function () {
      say('Link copied');
      link.dispatchEvent(new CustomEvent('menu-done', {bubbles: true}));  /* chat_menu.js closes the menu */
    };
    var fallback = function () {
      var field = document.createElement('input');
      field.value = address;
      field.setAttribute('aria-hidden', 'true');
      document.body.appendChild(field);
      field.select();
      var copied = document.execCommand && document.execCommand('copy');
      field.remove();
      if (copied) { done(); } else { window.location.href = address; }
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(address).then(done, fallback);
    } else {
      fallback();
    }
  });

  /* ---------------------------------------------------------------- @-mention suggestions */

  var meta = document.querySelector('meta[name="officegym-lookup"]');
  var lookup = meta ? meta.getAttribute('content').replace('KIND', 'people') : null;
  var counter = 0;

  function mentionAt(box) {
    /* The "@word" being typed just before the caret, or null. */
    var before = box.value.slice(0, box.selectionStart);
    var found = /(^|[^\w@])@([a-z0-9._-]{1,40})$/i.exec(before);
    return found ? {start: before.length - found[2].length - 1, term: found[2]} : null;
  }

  function enhance(box) {
    counter += 1;
    var list = document.createElement('ul');
    list.id = 'mention-list-' + counter;
    list.className = 'mention-list';
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', 'People to mention');
    list.hidden = true;
    box.form.appendChild(list);
    box.setAttribute('aria-autocomplete', 'list');
    box.setAttribute('aria-controls', list.id);
    box.setAttribute('aria-expanded', 'false');
    var results = [], active = -1, asked = 0, timer = null, at = null;

    function close() {
      list.hidden = true;
      list.textContent = '';
      results = [];
      active = -1;
      box.setAttribute('aria-expanded', 'false');
      box.removeAttribute('aria-activedescendant');
    }

    function highlight(index) {
      var options = list.querySelectorAll('[role="option"]');
      options.forEach(function (option, i) { option.setAttribute('aria-selected', i === index ? 'true' : 'false'); });
      active = index;
      if (options[index]) { box.setAttribute('aria-activedescendant', options[index].id); }
    }

    function insert(index) {
      var chosen = results[index];
      if (!chosen || !at) { return; }
      var end = box.selectionStart;
      var text = '@' + chosen.value + ' ';
      box.value = box.value.slice(0, at.start) + text + box.value.slice(end);
      var caret = at.start + text.length;
      box.setSelectionRange(caret, caret);
      close();
      say(chosen.label + ' mentioned');
      box.focus();
    }

    function show(found) {
      results = found;
      list.textContent = '';
      if (!found.length) { close(); return; }
      found.forEach(function (person, i) {
        var option = document.createElement('li');
        option.id = list.id + '-' + i;
        option.setAttribute('role', 'option');
        option.setAttribute('aria-selected', 'false');
        option.textContent = person.label;
        var detail = document.createElement('span');
        detail.className = 'mention-detail';
        detail.textContent = '@' + person.value;
        option.appendChild(detail);
        option.addEventListener('mousedown', function (event) { event.preventDefault(); });
        option.addEventListener('click', function () { insert(i); });
        list.appendChild(option);
      });
      list.hidden = false;
      box.setAttribute('aria-expanded', 'true');
      highlight(0);
    }

    function ask() {
      at = mentionAt(box);
      if (!at || !lookup) { close(); return; }
      var ticket = ++asked;
      fetch(lookup + '?q=' + encodeURIComponent(at.term), {credentials: 'same-origin'})
        .then(function (response) { return response.ok ? response.json() : {results: []}; })
        .then(function (data) { if (ticket === asked) { show(data.results || []); } })
        .catch(function () { close(); });
    }

    box.addEventListener('input', function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(ask, 120);
    });
    box.addEventListener('keydown', function (event) {
      if (list.hidden) { return; }
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        var step = event.key === 'ArrowDown' ? 1 : -1;
        highlight((active + step + results.length) % results.length);
        event.preventDefault();
      } else if (event.key === 'Enter' || event.key === 'Tab') {
        insert(active < 0 ? 0 : active);
        event.preventDefault();
      } else if (event.key === 'Escape') {
        close();
        event.preventDefault();
        event.stopPropagation();
      }
    });
    box.addEventListener('blur', function () { window.setTimeout(close, 150); });
  }

  document.querySelectorAll('textarea[data-mentions]').forEach(enhance);
}());
