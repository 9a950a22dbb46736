// eggcat: the web catalog's one script. The catalog page's search, filters, sort and URL
// state (from _summary.json) over the list the HTML starts with, one row per game on request,
// and the copy buttons of the
// egg pages. Without it every page still works: the catalog links to the list of every egg.
'use strict';
(function () {
  var FILTERS = ['source', 'category', 'format', 'importable', 'platform'];
  // The HTML holds the first PAGE eggs by name (catalog_page.rs, PAGE): the list the script
  // shows before any search is exactly that one, so nothing moves when the script starts.
  var PAGE = 60;

  // "1 egg", "2 eggs", "0 eggs": the pages' rule (crates/web/src/words.rs).
  function plural(n, one, many) { return n === 1 ? '1 ' + one : n + ' ' + many; }

  // A list item of the catalog, as catalog_page.rs writes it, for an egg the HTML does not hold.
  function itemElement(it) {
    var li = document.createElement('li');
    li.id = 'e-' + it.slug;
    var icon;
    if (it.icon) {
      icon = document.createElement('img');
      icon.className = 'icon';
      icon.src = it.icon;
      icon.alt = '';
      icon.loading = 'lazy';
      icon.width = 48;
      icon.height = 48;
    } else {
      icon = document.createElement('span');
      icon.className = 'icon none';
      icon.setAttribute('aria-hidden', 'true');
    }
    var div = document.createElement('div');
    var h2 = document.createElement('h2');
    var a = document.createElement('a');
    a.href = 'eggs/' + it.slug + '/';
    a.textContent = it.name;
    h2.appendChild(a);
    div.appendChild(h2);
    if (it.description) {
      var p = document.createElement('p');
      p.className = 'desc';
      p.textContent = it.description;
      div.appendChild(p);
    }
    var tags = document.createElement('p');
    tags.className = 'tags';
    [it.category, it.source, it.format].forEach(function (t) {
      var s = document.createElement('span');
      s.textContent = t;
      tags.appendChild(s);
    });
    // Another egg for this game would show the same card: the repository tells them apart.
    if (it.lookalike) {
      var r = document.createElement('span');
      r.className = 'repo';
      r.textContent = it.owner + '/' + it.repo;
      tags.appendChild(r);
    }
    if (it.gameEggs > 1) {
      var g = document.createElement('span');
      g.className = 'game';
      g.textContent = plural(it.gameEggs, 'egg', 'eggs') + ' for this game';
      tags.appendChild(g);
    }
    if (it.missingImages > 0) {
      var m = document.createElement('span');
      m.className = 'image-missing';
      m.textContent = plural(it.missingImages, 'image missing', 'images missing');
      tags.appendChild(m);
    }
    if (it.missingDownloads > 0) {
      var d = document.createElement('span');
      d.className = 'image-missing';
      d.textContent = plural(it.missingDownloads, 'install download missing', 'install downloads missing');
      tags.appendChild(d);
    }
    div.appendChild(tags);
    li.appendChild(icon);
    li.appendChild(div);
    return li;
  }

  function copyButtons() {
    document.querySelectorAll('button.copy[data-copy]').forEach(function (b) {
      if (!navigator.clipboard) return;
      b.hidden = false;
      var label = b.innerHTML;
      b.addEventListener('click', function () {
        navigator.clipboard.writeText(b.getAttribute('data-copy')).then(function () {
          b.textContent = 'Copied';
          setTimeout(function () { b.innerHTML = label; }, 2000);
        }, function () {
          b.textContent = 'Copy failed';
        });
      });
    });
  }

  function catalog() {
    var form = document.getElementById('search');
    var list = document.getElementById('eggs');
    if (!form || !list) return;
    var q = document.getElementById('q');
    var sort = document.getElementById('sort');
    var count = document.getElementById('count');
    var empty = document.getElementById('empty');
    var emptyText = document.getElementById('empty-text');
    var toggle = document.getElementById('toggle');
    var all = document.getElementById('all');
    // "One row per game" (catalog_page.rs writes it only when a game has several eggs).
    var perGame = document.getElementById('per-game');
    var selects = {};
    FILTERS.forEach(function (f) { selects[f] = form.querySelector('[data-filter="' + f + '"]'); });
    var items = [];
    var current = Array.prototype.slice.call(list.children);
    var typing = false;
    var timer = 0;
    var pushLater = false;
    var lastCounts = null;
    var showAll = false;
    var more = document.createElement('button');
    more.type = 'button';
    more.id = 'more';
    more.className = 'more';
    more.hidden = true;
    list.after(more);
    more.addEventListener('click', function () {
      var next = list.children.length;
      showAll = true;
      apply();
      // Keyboard users continue where the new items start.
      var first = list.children[next] && list.children[next].querySelector('a');
      if (first) first.focus(); else q.focus();
    });

    function values(it, f) {
      if (f === 'importable') {
        var v = [];
        if (it.importable && it.importable.pelican) v.push('pelican');
        if (it.importable && it.importable.pterodactyl) v.push('pterodactyl');
        return v;
      }
      // "Runs on": the platforms one of the egg's images and its install container offer.
      if (f === 'platform') return it.runsOn || [];
      return [it[f]];
    }

    function readUrl() {
      var p = new URLSearchParams(location.search);
      q.value = p.get('q') || '';
      FILTERS.forEach(function (f) { if (selects[f]) selects[f].value = p.get(f) || ''; });
      sort.value = p.get('sort') === 'updated' ? 'updated' : 'name';
      if (perGame) perGame.checked = p.get('rows') === 'game';
      // A value the list no longer has (an old link) falls back to "all".
      FILTERS.forEach(function (f) { if (selects[f] && selects[f].selectedIndex < 0) selects[f].value = ''; });
    }

    function writeUrl(push) {
      var p = new URLSearchParams();
      if (q.value.trim()) p.set('q', q.value.trim());
      FILTERS.forEach(function (f) { if (selects[f] && selects[f].value) p.set(f, selects[f].value); });
      if (perGame && perGame.checked) p.set('rows', 'game');
      if (sort.value !== 'name') p.set('sort', sort.value);
      var s = p.toString();
      var url = location.pathname + (s ? '?' + s : '');
      if (url === location.pathname + location.search) return;
      if (push) history.pushState(null, '', url); else history.replaceState(null, '', url);
    }

    function apply() {
      var tokens = q.value.toLowerCase().split(/\s+/).filter(Boolean);
      var chosen = {};
      FILTERS.forEach(function (f) { chosen[f] = selects[f] ? selects[f].value : ''; });
      var counts = {};
      FILTERS.forEach(function (f) { counts[f] = {}; });
      var shown = [];
      for (var i = 0; i < items.length; i++) {
        var it = items[i];
        var score = 0;
        var ok = true;
        for (var t = 0; t < tokens.length; t++) {
          if (it._name.indexOf(tokens[t]) >= 0) continue;
          if (it._hay.indexOf(tokens[t]) < 0) { ok = false; break; }
          score += 1;
        }
        if (!ok) continue;
        if (tokens.length && it._name.indexOf(tokens.join(' ')) === 0) score -= 1;
        var miss = [];
        for (var f = 0; f < FILTERS.length; f++) {
          var name = FILTERS[f];
          if (chosen[name] && values(it, name).indexOf(chosen[name]) < 0) miss.push(name);
        }
        // Facet counts: each filter counts what the other filters and the query leave.
        for (f = 0; f < FILTERS.length; f++) {
          name = FILTERS[f];
          if (miss.length === 0 || (miss.length === 1 && miss[0] === name)) {
            var vs = values(it, name);
            for (var k = 0; k < vs.length; k++) counts[name][vs[k]] = (counts[name][vs[k]] || 0) + 1;
            counts[name][''] = (counts[name][''] || 0) + 1;
          }
        }
        if (miss.length === 0) shown.push({ it: it, score: score });
      }
      var byUpdated = sort.value === 'updated';
      shown.sort(function (a, b) {
        if (a.score !== b.score) return a.score - b.score;
        // When upstream last changed the file (updated.rs), not when eggcat first read it.
        if (byUpdated && a.it.updatedAt !== b.it.updatedAt) return b.it.updatedAt - a.it.updatedAt;
        return a.it._order - b.it._order;
      });
      // One row per game: the game's first egg in the order above stands for it (its card
      // says how many eggs the game has).
      var matched = shown.length;
      var games = perGame && perGame.checked;
      if (games) {
        var seen = {};
        shown = shown.filter(function (s) {
          var key = s.it.game || s.it.slug;
          if (seen[key]) return false;
          seen[key] = true;
          return true;
        });
      }
      // Only the first PAGE results enter the list until the reader asks for all: the cost of
      // a keystroke is then the filter plus the layout of a few dozen items, not hundreds.
      var limit = showAll ? shown.length : Math.min(shown.length, PAGE);
      var nodes = [];
      for (i = 0; i < limit; i++) {
        var el = shown[i].it;
        if (!el._el) el._el = itemElement(el);
        nodes.push(el._el);
      }
      more.hidden = limit === shown.length;
      more.textContent = 'Show all ' + (games ? plural(shown.length, 'game', 'games') : plural(shown.length, 'egg', 'eggs'));
      if (nodes.length !== current.length || nodes.some(function (n, i) { return n !== current[i]; })) {
        list.replaceChildren.apply(list, nodes);
        current = nodes;
      }
      var eggs = matched === items.length
        ? plural(items.length, 'egg', 'eggs')
        : matched + ' of ' + plural(items.length, 'egg', 'eggs');
      count.textContent = games ? plural(shown.length, 'game', 'games') + ', ' + eggs : eggs;
      var active = FILTERS.filter(function (f) { return chosen[f]; }).length;
      if (toggle) {
        var label = active ? 'Filters (' + active + ')' : 'Filters';
        if (toggle.textContent !== label) toggle.textContent = label;
      }
      empty.hidden = shown.length > 0;
      if (!shown.length) {
        var query = q.value.trim();
        emptyText.textContent = 'No egg matches ' +
          (query ? '\u201c' + query + '\u201d' + (active ? ' with ' + plural(active, 'filter', 'filters') : '')
            : active === 1 ? 'this filter' : 'these filters') + '.';
      }
      lastCounts = counts;
    }

    // The filters' counts and the URL follow the list a moment later, off the keystroke's
    // path: both cost more than the filter itself, and Chrome throttles frequent history calls.
    function later(push) {
      pushLater = pushLater || push;
      clearTimeout(timer);
      timer = setTimeout(function () { showCounts(); writeUrl(pushLater); pushLater = false; }, 250);
    }

    function now(push) {
      clearTimeout(timer);
      showCounts();
      writeUrl(push || pushLater);
      pushLater = false;
    }

    function showCounts() {
      var counts = lastCounts;
      if (!counts) return;
      FILTERS.forEach(function (name) {
        var sel = selects[name];
        if (!sel) return;
        for (var o = 0; o < sel.options.length; o++) {
          var opt = sel.options[o];
          var n = counts[name][opt.value] || 0;
          var text = opt.textContent.replace(/ \(\d+\)$/, '') + ' (' + n + ')';
          if (opt.textContent !== text) opt.textContent = text;
        }
      });
    }

    function start(summary) {
      summary.forEach(function (it) {
        it._el = document.getElementById('e-' + it.slug);
        it._name = it.name.toLowerCase();
        it._hay = [it.description, (it.tags || []).join(' '), it.category, it.owner + '/' + it.repo,
          (it.images || []).join(' ')].join('\n').toLowerCase();
        items.push(it);
      });
      // The server's order: by name, then slug (catalog_page.rs, by_name).
      items.sort(function (a, b) {
        if (a._name !== b._name) return a._name < b._name ? -1 : 1;
        return a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
      });
      items.forEach(function (it, i) { it._order = i; });
      readUrl();
      apply();
      showCounts();
      form.classList.remove('pending');
      // The button replaces the link to the list of every egg (the way without script), now
      // that the summary is here; if it never comes, the link stays.
      if (all) all.parentNode.hidden = true;
      if (toggle) {
        toggle.addEventListener('click', function () {
          var open = form.classList.toggle('open');
          toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
        });
      }
      document.getElementById('clear').addEventListener('click', function () {
        q.value = '';
        FILTERS.forEach(function (f) { if (selects[f]) selects[f].value = ''; });
        sort.value = 'name';
        if (perGame) perGame.checked = false;
        typing = false; showAll = false; apply(); now(true);
        q.focus();
      });
      // The first keystroke of a search adds a history entry, the next ones replace it.
      q.addEventListener('input', function () { showAll = false; apply(); later(!typing); typing = true; });
      form.addEventListener('change', function (e) {
        if (e.target === q) return;
        typing = false; showAll = false; apply(); now(true);
      });
      form.addEventListener('submit', function (e) { e.preventDefault(); typing = false; now(false); });
      window.addEventListener('popstate', function () {
        clearTimeout(timer); pushLater = false; typing = false; showAll = false; readUrl(); apply(); showCounts();
      });
      window.eggcat = { apply: apply };
    }

    fetch(form.getAttribute('data-summary') || 'api/v1/eggs/_summary.json')
      .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
      .then(start, function () { /* The full list stays: the page works as without script. */ });
  }

  // The egg page's choice of the panel's database: shows that database's import URLs only, and
  // is remembered for every egg page. Without the script every URL stays listed.
  function databaseChoice() {
    var choice = document.querySelector('[data-db-choice]');
    if (!choice) return;
    var KEY = 'eggcat.database';
    function show(db) {
      document.querySelectorAll('[data-db]').forEach(function (el) {
        el.hidden = el.getAttribute('data-db') !== db;
      });
    }
    var saved = null;
    try { saved = localStorage.getItem(KEY); } catch (e) { /* storage off: SQLite, as the page says */ }
    var radio = saved && choice.querySelector('input[value="' + saved.replace(/[^a-z]/g, '') + '"]');
    if (radio) radio.checked = true;
    var checked = choice.querySelector('input:checked');
    show(checked ? checked.value : 'sqlite');
    choice.hidden = false;
    choice.addEventListener('change', function (e) {
      show(e.target.value);
      try { localStorage.setItem(KEY, e.target.value); } catch (err) { /* not remembered */ }
    });
  }

  function ready() { copyButtons(); databaseChoice(); catalog(); }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
})();
