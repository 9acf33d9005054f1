/* Chat's message menus, enhanced: every page works without this file (a message's "More actions"
   button and "Add reaction" are links to pages of their own). The page holds one actions menu, a
   <template> written for a message yet to be named; pressing a message's button fills it in for that
   message (its address, author, the actions its row allows, the reactions already yours) and opens it
   inside the row. One menu is open at a time; Escape or a click elsewhere closes it and gives the
   focus back to its button; React opens the emoji grid inside the menu. */
(function () {
  "use strict";

  var template = document.getElementById('message-menu-template');
  if (!template) { return; }
  var open = null; /* {button, menu} */

  function fill(value, article, here) {
    return value.split('__id__').join(article.getAttribute('data-message-id'))
      .split('__author__').join(encodeURIComponent(article.getAttribute('data-author')))
      .split('__channel__').join(encodeURIComponent(article.getAttribute('data-channel')))
      .split('__next__').join(encodeURIComponent(here));
  }

  function mineEmoji(article) {
    var mine = {};
    article.querySelectorAll('[data-testid="reaction"][aria-pressed="true"]').forEach(function (chip) {
      mine[chip.getAttribute('data-emoji')] = true;
    });
    return mine;
  }

  /* The page's menu, filled in for the message of `article`. */
  function build(article) {
    var menu = template.content.firstElementChild.cloneNode(true);
    var here = template.getAttribute('data-next') + '#' + article.id;
    ['href', 'action', 'formaction', 'data-unreact'].forEach(function (attribute) {
      menu.querySelectorAll('[' + attribute + ']').forEach(function (element) {
        element.setAttribute(attribute, fill(element.getAttribute(attribute), article, here));
      });
    });
    menu.querySelectorAll('input[name="next"]').forEach(function (field) { field.value = here; });
    var allowed = (article.getAttribute('data-actions') || '').split(/\s+/);
    menu.querySelectorAll('[data-action]').forEach(function (item) {
      if (allowed.indexOf(item.getAttribute('data-action')) < 0) { item.remove(); }
    });
    var author = article.querySelector('[data-testid="message-author"]');
    menu.querySelector('[data-testid="action-profile"] span').textContent = author ? author.textContent : '';
    var grid = menu.querySelector('.emoji-grid');
    if (grid) {
      var mine = mineEmoji(article);
      grid.querySelectorAll('.emoji-pick').forEach(function (pick) {
        if (!mine[pick.value]) { return; }
        pick.setAttribute('aria-pressed', 'true');
        pick.setAttribute('formaction', grid.getAttribute('data-unreact'));
        pick.setAttribute('aria-label', pick.getAttribute('data-remove'));
      });
    }
    return menu;
  }

  function close(giveFocus) {
    if (!open) { return; }
    open.menu.remove();
    open.button.setAttribute('aria-expanded', 'false');
    if (giveFocus) { open.button.focus(); }
    open = null;
  }

  function place(menu) {
    /* Open upwards when the menu would run past the bottom of its scrolling pane. */
    var pane = menu.closest('.thread-pane, .chat-main');
    if (pane && menu.getBoundingClientRect().bottom > pane.getBoundingClientRect().bottom) {
      menu.classList.add('menu-up');
    }
  }

  function toggle(button, emojiOnly) {
    var same = open && open.button === button;
    close(false);
    if (same) { return; }
    var article = button.closest('article.msg');
    var menu = build(article);
    if (emojiOnly) {
      var grid = menu.querySelector('.emoji-grid');
      grid.setAttribute('data-testid', 'reaction-emoji-grid');
      menu.textContent = '';
      menu.appendChild(grid);
      menu.classList.add('react-panel');
    }
    button.insertAdjacentElement('afterend', menu);
    button.setAttribute('aria-expanded', 'true');
    open = {button: button, menu: menu};
    place(menu);
    var first = menu.querySelector('a, button');
    if (first) { first.focus(); }
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest('article.msg .menu-button, article.msg .react-more');
    if (button) {
      event.preventDefault();
      toggle(button, button.classList.contains('react-more'));
      return;
    }
    var react = event.target.closest('.msg-menu .react-toggle');
    if (react && open && open.menu.contains(react)) {
      event.preventDefault();
      var panel = open.menu.querySelector('.emoji-panel');
      panel.hidden = !panel.hidden;
      react.setAttribute('aria-expanded', panel.hidden ? 'false' : 'true');
      if (!panel.hidden) { panel.querySelector('.emoji-pick').focus(); }
      return;
    }
    if (open && !open.menu.contains(event.target)) { close(false); }
  });

  document.addEventListener('menu-done', function () { close(true); });

  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape' && open) {
      close(true);
      event.preventDefault();
    } else if (event.key === ' ' && event.target.matches && event.target.matches('a[role="button"]')) {
      event.preventDefault(); /* a link that acts as a button is pressed with Space too */
      event.target.click();
    }
  });
}());
