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

  // A card of the catalog's list shows one egg, as catalog_page.rs writes it: icon, name
  // (a link to its page), description, then its marks (category, source, format; the
  // repository and last upstream change when its game has other eggs; missing images and
  // downloads). A card is not tied to its egg: when the list changes, a card that leaves it
  // shows the next egg instead, its texts changed in place, which costs a frame less than a new
  // card (no style to compute, no boxes to make).

  // The marks of an egg, as [element, class, text, datetime].
  function marks(it) {
    var out = [['span', '', it.category], ['span', '', it.source], ['span', '', it.format]];
    // The game has other eggs: the repository and the last upstream change tell them apart at
    // a glance (catalog_page.rs writes the same).
    if (it.lookalike || it.gameEggs > 1) out.push(['span', 'repo', it.owner + '/' + it.repo]);
    if (it.gameEggs > 1) {
      var at = new Date(it.updatedAt).toISOString();
      var day = at.slice(0, 10);
      out.push(['time', 'updated', it.updatedFrom === 'before' ? 'Updated ' + day + ' or before'
        : it.updatedFrom === 'indexed' ? 'Read ' + day : 'Updated ' + day, at]);
      out.push(['span', 'game', plural(it.gameEggs, 'egg', 'eggs') + ' for this game']);
    }
    if (it.missingImages > 0) out.push(['span', 'image-missing', plural(it.missingImages, 'image missing', 'images missing')]);
    if (it.missingDownloads > 0) {
      out.push(['span', 'image-missing', plural(it.missingDownloads, 'install download missing', 'install downloads missing')]);
    }
    return out;
  }
  function element(name, className) {
    var el = document.createElement(name);
    if (className) el.className = className;
    return el;
  }
  function setText(el, text) {
    var t = el.firstChild;
    if (t && t.nodeType === 3 && !t.nextSibling) { if (t.data !== text) t.data = text; } else el.textContent = text;
  }
  // The egg's icon, made once per egg and moved to whichever card shows it: a new image each
  // time would show nothing until it is decoded again, and a changed `src` the last egg's icon.
  function iconOf(it) {
    if (!it.icon) return null;
    if (!it._icon) {
      var img = it._icon = element('img', 'icon');
      img.src = it.icon;
      img.alt = '';
      img.loading = 'lazy';
      img.width = 48;
      img.height = 48;
    }
    return it._icon;
  }
  // The parts of a card that change with its egg (a card of the HTML, or one made here).
  function cardParts(li) {
    var div = li.lastElementChild, h2 = div.firstElementChild;
    var icon = li.firstElementChild;
    return { icon: icon, none: icon.localName === 'span' ? icon : null, div: div, h2: h2,
      a: h2.firstElementChild, desc: div.querySelector('.desc'), tags: div.querySelector('.tags') };
  }
  // The place of a card's icon when its egg has none.
  function noIcon() {
    var span = element('span', 'icon none');
    span.setAttribute('aria-hidden', 'true');
    return span;
  }
  // A new card, empty until `show` gives it an egg.
  function card() {
    var li = element('li');
    var div = element('div'), h2 = element('h2');
    h2.appendChild(element('a'));
    div.appendChild(h2);
    div.appendChild(element('p', 'tags'));
    li.appendChild(noIcon());
    li.appendChild(div);
    return li;
  }
  // Makes the card show the egg, changing only what differs from the egg it showed.
  function show(li, it) {
    if (li._egg === it) return;
    var c = li._parts || (li._parts = cardParts(li));
    li._egg = it;
    li.id = 'e-' + it.slug;
    var icon = iconOf(it) || c.none || (c.none = noIcon());
    if (c.icon !== icon) {
      // The icon may have moved to another card since (its egg shows there now).
      if (c.icon.parentNode === li) li.replaceChild(icon, c.icon); else li.insertBefore(icon, li.firstChild);
      c.icon = icon;
    }
    c.a.href = 'eggs/' + it.slug + '/';
    setText(c.a, it.name);
    if (it.description) {
      if (!c.desc) { c.desc = element('p', 'desc'); c.div.insertBefore(c.desc, c.h2.nextSibling); }
      setText(c.desc, it.description);
    } else if (c.desc) {
      c.div.removeChild(c.desc);
      c.desc = null;
    }
    var want = it._marks || (it._marks = marks(it)), kids = c.tags.children;
    for (var k = 0; k < want.length; k++) {
      var m = want[k], el = kids[k];
      if (!el || el.localName !== m[0] || el.className !== m[1]) {
        var made = element(m[0], m[1]);
        if (el) c.tags.replaceChild(made, el); else c.tags.appendChild(made);
        el = made;
      }
      setText(el, m[2]);
      if (m[3] && el.dateTime !== m[3]) el.dateTime = m[3];
    }
    while (kids.length > want.length) c.tags.removeChild(c.tags.lastChild);
  }

  // The search (docs/web.md, "How the search ranks"): one implementation, this one. Every
  // field of an egg is cut into normalised words (the name's by the build: the summary item's
  // `nameForms`); a query word matches a word of the vocabulary exactly, as its prefix, as its
  // longer form, or with one typo; an egg's score for the word is the best match over its
  // fields, weighted by the field.
  var WEIGHT = { name: 10, tags: 4, category: 3, repo: 2, description: 1, images: 1 };
  var QUALITY = { exact: 1, prefix: 0.8, typo: 0.6, longer: 0.5 };

  // Lowercase, accents off, apostrophes dropped, every other run of non-letters and non-digits
  // a space: the build's rule for `nameForms` (eggcat-catalog's `games::name_forms`), which the
  // browser test compares with this one on every egg.
  function normalise(s) {
    return String(s || '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
      .replace(/['\u2019]/g, '').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  }
  function wordsOf(s) { var n = normalise(s); return n ? n.split(' ') : []; }
  // Whether a and the first lb letters of b are at most one edit apart (a letter changed,
  // added, removed, or two neighbours swapped).
  function oneEdit(a, b, lb) {
    var la = a.length;
    if (la - lb > 1 || lb - la > 1) return false;
    var i = 0;
    while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    if (i === la && i === lb) return true;
    var j, k;
    if (la === lb) {
      // Changed, or swapped with the next letter.
      for (j = i + 1; j < la && a.charCodeAt(j) === b.charCodeAt(j); j++);
      if (j === la) return true;
      if (a.charCodeAt(i) !== b.charCodeAt(i + 1) || a.charCodeAt(i + 1) !== b.charCodeAt(i)) return false;
      for (j = i + 2; j < la && a.charCodeAt(j) === b.charCodeAt(j); j++);
      return j === la;
    }
    // One letter more in the longer one, at i.
    for (j = i, k = i + 1; la > lb ? k < la : k < lb; j++, k++) {
      if (la > lb ? a.charCodeAt(k) !== b.charCodeAt(j) : a.charCodeAt(j) !== b.charCodeAt(k)) return false;
    }
    return true;
  }

  // The k largest of keys[0..m), in increasing order: Hoare's selection puts them after the
  // (m-k)-th, then only they are sorted. A keystroke's list needs its first 60 eggs in order,
  // not the order of all that match.
  function largest(keys, m, k) {
    var lo = 0, hi = m - 1, at = m - k;
    while (lo < hi) {
      var x = keys[lo], y = keys[(lo + hi) >> 1], z = keys[hi];
      var pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
      var i = lo, j = hi;
      while (i <= j) {
        while (keys[i] < pivot) i++;
        while (keys[j] > pivot) j--;
        if (i <= j) { var t = keys[i]; keys[i] = keys[j]; keys[j] = t; i++; j--; }
      }
      if (at <= j) hi = j; else if (at >= i) lo = i; else break;
    }
    return keys.subarray(at, m).sort();
  }

  function Index(items) {
    var words = [];      // the vocabulary
    var typoOk = [];     // whether a word may match with a typo or as a shorter form
    // Per word: egg, weight, loose weight, egg, ...: the heaviest field the egg has the word in,
    // and the heaviest of those where it may match with a typo or as a shorter form (0: none).
    var post = [];
    var ids = new Map();
    function add(egg, w, weight, loose) {
      if (!w) return;
      var id = ids.get(w);
      if (id === undefined) {
        id = words.length;
        ids.set(w, id);
        words.push(w);
        typoOk.push(false);
        post.push([]);
      }
      if (loose) typoOk[id] = true;
      var p = post[id], at = p.length - 3, lw = loose ? weight : 0;
      // One posting per egg and word: the heaviest field, and the heaviest loose one.
      if (at >= 0 && p[at] === egg) {
        if (p[at + 1] < weight) p[at + 1] = weight;
        if (p[at + 2] < lw) p[at + 2] = lw;
      } else p.push(egg, weight, lw);
    }
    items.forEach(function (it, e) {
      var f = it.nameForms;
      f.words.forEach(function (w) { add(e, w, WEIGHT.name, true); });
      f.initials.forEach(function (w) { add(e, w, WEIGHT.name, false); });
      (it.aliases || []).forEach(function (a) { add(e, a, WEIGHT.name, false); });
      (it.tags || []).forEach(function (t) { wordsOf(t).forEach(function (w) { add(e, w, WEIGHT.tags, true); }); });
      wordsOf(it.category).forEach(function (w) { add(e, w, WEIGHT.category, true); });
      wordsOf(it.owner + ' ' + it.repo).forEach(function (w) { add(e, w, WEIGHT.repo, false); });
      wordsOf(it.description).forEach(function (w) { add(e, w, WEIGHT.description, false); });
      (it.images || []).forEach(function (im) { wordsOf(im).forEach(function (w) { add(e, w, WEIGHT.images, false); }); });
    });
    this.words = words;
    this.typoOk = typoOk;
    this.post = post.map(function (p) { return Float64Array.from(p); });
    var n = this.n = items.length;
    this.cache = new Map();
    this.bests = new Map();
    this.firsts = new Map();
    this.ids = ids;
    // The vocabulary sorted, for the words a query word begins (a range of it), and the words
    // that may match with a typo (names, tags, categories: not descriptions).
    this.sorted = words.map(function (w, i) { return i; }).sort(function (a, b) { return words[a] < words[b] ? -1 : 1; });
    this.loose = words.map(function (w, i) { return i; }).filter(function (i) { return typoOk[i] && words[i].length >= 4; });
    // What rank fills in, kept from one keystroke to the next (a keystroke allocates little):
    // per egg the words matched and the score, and the eggs some query word matched.
    this.count = new Uint8Array(n);
    this.score = new Float32Array(n);
    this.found = new Int32Array(n);
    this.nFound = 0;
    this.mark = new Uint32Array(n);
    this.stamp = 0;
  }
  // The words of the vocabulary a query word matches, with how well: [id, quality, ...].
  Index.prototype.match = function (t) {
    var hit = this.cache.get(t);
    if (hit) return hit;
    var out = [];
    var words = this.words, sorted = this.sorted;
    var seen = new Set();
    // The word itself and the words it begins: a range of the sorted vocabulary.
    var lo = 0, hi = sorted.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (words[sorted[mid]] < t) lo = mid + 1; else hi = mid; }
    for (var i = lo; i < sorted.length && words[sorted[i]].lastIndexOf(t, 0) === 0; i++) {
      out.push(sorted[i], words[sorted[i]] === t ? QUALITY.exact : QUALITY.prefix);
      seen.add(sorted[i]);
    }
    // A longer form of a word ("postgresql" for "postgres"): the word at least half of it.
    for (var l = Math.max(4, Math.ceil(t.length / 2)); l < t.length; l++) {
      var id = this.ids.get(t.slice(0, l));
      if (id !== undefined && this.typoOk[id] && !seen.has(id)) { out.push(id, QUALITY.longer); seen.add(id); }
    }
    // One typo in a word of 5 letters or more, or in the part of a longer word typed so far.
    if (t.length >= 5) {
      var loose = this.loose, t0 = t.charCodeAt(0), t1 = t.charCodeAt(1);
      for (i = 0; i < loose.length; i++) {
        var w = words[loose[i]];
        if (w.length < t.length - 1 || seen.has(loose[i])) continue;
        // A typo keeps one of the first two letters in place, or swaps them.
        var c0 = w.charCodeAt(0), c1 = w.charCodeAt(1);
        if (c0 !== t0 && c1 !== t1 && c0 !== t1) continue;
        if (oneEdit(t, w, w.length) || (w.length > t.length && (oneEdit(t, w, t.length) || oneEdit(t, w, t.length + 1)))) {
          out.push(loose[i], QUALITY.typo);
        }
      }
    }
    if (this.cache.size > 500) this.cache.clear();
    this.cache.set(t, out);
    return out;
  };

  // Per egg, the best weighted match of query word t (0: none), times the word's rarity, and
  // the eggs it matches: { best, eggs }.
  Index.prototype.best = function (t, nameOnly) {
    // The words before the one being typed do not change from one keystroke to the next.
    var memo = (nameOnly ? ' ' : '') + t;
    var known = this.bests.get(memo) || this.firsts.get(memo);
    if (known) return known;
    if (this.bests.size > 64) this.bests.clear();
    var best = new Float32Array(this.n), eggs = [];
    var m = this.match(t);
    for (var k = 0; k < m.length; k += 2) {
      // A typo or a shorter form counts only where the egg has the word in a loose field.
      var p = this.post[m[k]], q = m[k + 1], w = q < QUALITY.prefix ? 2 : 1;
      for (var j = 0; j < p.length; j += 3) {
        var weight = p[j + w];
        if (!weight || (nameOnly && weight !== WEIGHT.name)) continue;
        var v = weight * q, e = p[j];
        if (v > best[e]) {
          if (!best[e]) eggs.push(e);
          best[e] = v;
        }
      }
    }
    // A query word few eggs match tells more than one most match ("server"): each egg's best
    // is multiplied by log(1 + eggs / eggs matched).
    if (eggs.length) {
      var idf = Math.log(1 + this.n / eggs.length);
      for (k = 0; k < eggs.length; k++) best[eggs[k]] *= idf;
    }
    known = { best: best, eggs: Int32Array.from(eggs) };
    (memo.length === 1 ? this.firsts : this.bests).set(memo, known);
    return known;
  };
  // The first letters' matches, worked out ahead (`idle` calls back when the browser is idle):
  // a search's first keystroke is one letter, which begins the most words (hundreds at 10x,
  // thousands of eggs), and its matches are kept for the next search.
  Index.prototype.warm = function (idle) {
    var self = this, letters = [];
    this.sorted.forEach(function (id) {
      var c = self.words[id].charAt(0);
      if (letters[letters.length - 1] !== c) letters.push(c);
    });
    idle(function next(deadline) {
      while (letters.length && deadline.timeRemaining() > 1) self.best(letters.shift(), false);
      if (letters.length) idle(next);
    });
  };
  // The rank of every egg for the query words: per egg how many words matched and the score
  // (two neighbouring words that match a name written together count as both). Only the eggs
  // that some word (or pair of words) matches are looked at: the others score nothing.
  Index.prototype.rank = function (tokens) {
    var self = this, i, k;
    var bests = tokens.map(function (t) { return self.best(t, false); });
    var pairs = [];
    for (i = 0; i + 1 < tokens.length; i++) pairs.push(this.best(tokens[i] + tokens[i + 1], true));
    var count = this.count, score = this.score, found = this.found, mark = this.mark;
    // The last query's eggs score nothing again.
    for (k = 0; k < this.nFound; k++) { count[found[k]] = 0; score[found[k]] = 0; }
    var stamp = ++this.stamp, nFound = 0;
    bests.concat(pairs).forEach(function (b) {
      for (var k = 0; k < b.eggs.length; k++) {
        var e = b.eggs[k];
        if (mark[e] !== stamp) { mark[e] = stamp; found[nFound++] = e; }
      }
    });
    this.nFound = nFound;
    for (k = 0; k < nFound; k++) {
      var e = found[k], c = 0, s = 0;
      for (i = 0; i < tokens.length; i++) {
        var v = bests[i].best[e];
        if (i + 1 < tokens.length) {
          var pair = pairs[i].best[e];
          if (pair > 0 && 2 * pair > v + bests[i + 1].best[e]) {
            c += 2; s += 2 * pair; i++;
            continue;
          }
        }
        if (v > 0) { c++; s += v; }
      }
      count[e] = c;
      score[e] = s;
    }
    return { count: count, score: score, found: found.subarray(0, nFound) };
  };

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
    var index = null;
    // The orders of eggs that rank alike (below, start), each the eggs in that order and every
    // egg's place in it.
    var orders = null;
    var keyBuffer = null;
    function orderOf(eggs) {
      var place = new Int32Array(eggs.length);
      eggs.forEach(function (it, i) { place[it._order] = i; });
      return { eggs: eggs, place: place };
    }
    // The eggs of each name as it is written, normalised, without "(Pterodactyl)" and written
    // together: the eggs whose name is the query (by index in `items`).
    var byName = new Map(), byNorm = new Map(), byNormBase = new Map(), byJoined = new Map();
    // Per egg whose name is the query, its tier: 3 for its very name, 2 for its name
    // normalised, 1 for its name without "(Pterodactyl)" or written together.
    function nameTiers(raw, phrase, joined) {
      var tiers = new Map();
      [[byJoined, joined, 1], [byNormBase, phrase, 1], [byNorm, phrase, 2], [byName, raw, 3]].forEach(function (x) {
        (x[0].get(x[1]) || []).forEach(function (e) { tiers.set(e, x[2]); });
      });
      return tiers;
    }
    var current = Array.prototype.slice.call(list.children);
    var typing = false;
    var timer = 0;
    var pushLater = false;
    var lastQuery = null;
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
      apply(true);
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

    // Whether the egg passes every chosen filter but `except`.
    function passes(it, chosen, except) {
      for (var f = 0; f < FILTERS.length; f++) {
        var name = FILTERS[f];
        if (name !== except && chosen[name] && values(it, name).indexOf(chosen[name]) < 0) return false;
      }
      return true;
    }

    // The first screen of cards: the rows from the list's top down to the window's bottom, so
    // many cards a keystroke's frame must paint. `rows` is a guess from the last keystroke (or
    // the start), `fit` makes it exact once the cards are in.
    var columns = 1, rows = 1;
    function measureScreen() {
      var kids = list.children;
      if (!kids.length) return;
      var top = kids[0].offsetTop;
      columns = 0;
      for (var i = 0; i < kids.length && kids[i].offsetTop === top; i++) columns++;
      rows = rowsTo(kids[0].getBoundingClientRect().top, kids[0].offsetHeight);
    }
    // How many rows of cards of height `row` it takes from `top` (in the window) to its bottom.
    function rowsTo(top, row) {
      return Math.max(1, Math.ceil((window.innerHeight - top) / Math.max(row, 32)));
    }
    // Without requestIdleCallback (Safari), a task soon, with 10 ms to spend.
    var idle = window.requestIdleCallback || function (f) {
      return setTimeout(function () {
        var end = Date.now() + 10;
        f({ timeRemaining: function () { return Math.max(0, end - Date.now()); } });
      }, 1);
    };
    var cancelIdle = window.cancelIdleCallback || clearTimeout;
    var fill = 0;
    // Cards taken out of the list, to show other eggs later.
    var spare = [];
    // Makes the list show the first `n` eggs of `shown`: its cards from the first that shows
    // another egg on are given the eggs in turn, cards added or taken out at its end.
    function setList(shown, n) {
      var i = 0;
      while (i < n && i < current.length && current[i]._egg === shown[i]) i++;
      if (i === n && current.length === n) return;
      for (; i < n && i < current.length; i++) show(current[i], shown[i]);
      while (current.length > n) {
        var li = current.pop();
        list.removeChild(li);
        li._egg = null;
        spare.push(li);
      }
      if (current.length === n) return;
      var frag = document.createDocumentFragment();
      for (; i < n; i++) {
        li = spare.pop() || card();
        show(li, shown[i]);
        frag.appendChild(li);
        current.push(li);
      }
      list.appendChild(frag);
    }
    // Whether a frame has shown the cards the last idle moment put in (below).
    var settled = true;
    // Puts the first `limit` eggs of `shown` in the list. On a keystroke (`whole` false) the
    // keystroke's frame gets the cards of the first screen, and the rest of the list comes in
    // the browser's next idle moment: a reader sees the top of the list, and a keystroke costs
    // the layout of a screen of cards, not of sixty. Below the first screen the list keeps the
    // cards that are still right if a frame has shown them (taking them out would cost the
    // keystroke more than keeping them), and no other: not those an idle moment put there that
    // no frame has shown yet, which the keystroke's frame would lay out and paint. `fit` then
    // adds rows if the guess fell short of the screen.
    function render(shown, limit, whole) {
      if (fill) { cancelIdle(fill); fill = 0; }
      var first = whole ? limit : Math.min(limit, columns * rows);
      if (settled) while (first < limit && first < current.length && current[first]._egg === shown[first]) first++;
      setList(shown, first);
      if (first < limit) {
        fill = idle(function () {
          fill = 0;
          setList(shown, limit);
          settled = false;
          requestAnimationFrame(function () { settled = true; });
        }, { timeout: 500 });
      }
    }
    // After a keystroke's changes to the page: while the last card of the list ends above the
    // window's bottom, the next rows go in too, so that the frame paints the whole first
    // screen. Reading a card's place lays the page out here instead of in the frame, once: the
    // frame's own layout then has nothing left to do (the keystroke changes nothing after it).
    function fit(shown, limit) {
      var n = current.length;
      if (!n) return;
      var top = current[0].getBoundingClientRect().top;
      for (;;) {
        var bottom = current[n - 1].getBoundingClientRect().bottom;
        var row = (bottom - top) / Math.ceil(n / columns);
        if (bottom >= window.innerHeight || n >= limit) break;
        n = Math.min(limit, n + columns * rowsTo(bottom, row));
        setList(shown, n);
      }
      rows = rowsTo(top, row);
    }

    // The list as `apply` chose it: every card at once (`whole`), or on a keystroke the cards of
    // the first screen in the keystroke's frame and the rest when the browser is next idle.
    function apply(whole) {
      var raw = q.value.trim();
      var tokens = wordsOf(raw).slice(0, 8);
      var chosen = {};
      FILTERS.forEach(function (f) { chosen[f] = selects[f] ? selects[f].value : ''; });
      var filtered = FILTERS.some(function (f) { return chosen[f]; });
      var ranked = tokens.length ? index.rank(tokens) : null;
      var n = items.length;
      // Eggs that rank alike: with a query, by name without "(Pterodactyl)", then the one
      // changed upstream most recently, then by repository; without one, the HTML's order;
      // "Recently updated" puts the most recently changed upstream first in either.
      var order = sort.value === 'updated' ? (ranked ? orders.updatedTie : orders.updated)
        : ranked ? orders.tie : orders.name;
      // The egg whose name is the query first (its very name, then its name normalised, then
      // its twin's or written together), then by score.
      var tiers = ranked ? nameTiers(raw, tokens.join(' '), tokens.join('')) : null;
      // Each egg shown gets one number to sort by, its rank and then its place among eggs that
      // rank alike (a typed array sorts fast: this is the keystroke's path).
      var keys = keyBuffer, m = 0, e, key;
      if (ranked) {
        var found = ranked.found, score = ranked.score;
        for (var i = 0; i < found.length; i++) {
          e = found[i];
          if (filtered && !passes(items[e], chosen, '')) continue;
          key = (tiers.get(e) || 0) * 1e7 + Math.round(score[e] * 100);
          keys[m++] = key * n + (n - 1 - order.place[e]);
        }
      } else {
        for (e = 0; e < n; e++) {
          if (filtered && !passes(items[e], chosen, '')) continue;
          keys[m++] = n - 1 - order.place[e];
        }
      }
      lastQuery = { ranked: ranked, chosen: chosen };
      var matched = m;
      var games = perGame && perGame.checked;
      // The list needs its first PAGE eggs in order, not all of them, until the reader asks
      // for all or for one row per game.
      var want = showAll || games ? m : Math.min(m, PAGE);
      var top = want < m ? largest(keys, m, want) : keys.subarray(0, m).sort();
      var shown = new Array(want);
      for (i = 0; i < want; i++) shown[i] = order.eggs[n - 1 - (top[top.length - 1 - i] % n)];
      // One row per game: the game's first egg in the order above stands for it (its card
      // says how many eggs the game has).
      if (games) {
        var seen = {};
        shown = shown.filter(function (it) {
          var key = it.game || it.slug;
          if (seen[key]) return false;
          seen[key] = true;
          return true;
        });
      }
      var total = games ? shown.length : matched;
      // Only the first PAGE results enter the list until the reader asks for all: the cost of
      // a keystroke is then the filter plus the layout of a few dozen items, not hundreds.
      var limit = showAll ? total : Math.min(total, PAGE);
      render(shown, limit, whole);
      more.hidden = limit === total;
      var moreLabel = 'Show all ' + (games ? plural(total, 'game', 'games') : plural(total, 'egg', 'eggs'));
      if (more.textContent !== moreLabel) more.textContent = moreLabel;
      var eggs = matched === items.length
        ? plural(items.length, 'egg', 'eggs')
        : matched + ' of ' + plural(items.length, 'egg', 'eggs');
      var said = games ? plural(total, 'game', 'games') + ', ' + eggs : eggs;
      if (count.textContent !== said) count.textContent = said;
      var active = FILTERS.filter(function (f) { return chosen[f]; }).length;
      if (toggle) {
        var label = active ? 'Filters (' + active + ')' : 'Filters';
        if (toggle.textContent !== label) toggle.textContent = label;
      }
      if (empty.hidden !== total > 0) empty.hidden = total > 0;
      if (!total) {
        var query = q.value.trim();
        emptyText.textContent = 'No egg matches ' +
          (query ? '\u201c' + query + '\u201d' + (active ? ' with ' + plural(active, 'filter', 'filters') : '')
            : active === 1 ? 'this filter' : 'these filters') + '.';
      }
      // Last, once the page holds everything this keystroke changes.
      if (!whole) fit(shown, limit);
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

    // Facet counts: each filter counts what the other filters and the query leave. Off the
    // keystroke's path: they follow the list a moment later.
    function facetCounts() {
      var counts = {};
      FILTERS.forEach(function (f) { counts[f] = {}; });
      var ranked = lastQuery.ranked, chosen = lastQuery.chosen;
      for (var i = 0; i < items.length; i++) {
        var it = items[i];
        if (ranked && !ranked.count[i]) continue;
        for (var f = 0; f < FILTERS.length; f++) {
          var name = FILTERS[f];
          if (!passes(it, chosen, name)) continue;
          var vs = values(it, name);
          for (var k = 0; k < vs.length; k++) counts[name][vs[k]] = (counts[name][vs[k]] || 0) + 1;
          counts[name][''] = (counts[name][''] || 0) + 1;
        }
      }
      return counts;
    }

    function showCounts() {
      if (!lastQuery) return;
      var counts = facetCounts();
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
        // The HTML's cards show the first eggs by name (their icons are the eggs' icons).
        var li = document.getElementById('e-' + it.slug);
        if (li) {
          li._egg = it;
          if (li.firstElementChild.localName === 'img') it._icon = li.firstElementChild;
        }
        it._name = it.name.toLowerCase();
        items.push(it);
      });
      // The server's order: by name, then slug (catalog_page.rs, by_name).
      items.sort(function (a, b) {
        if (a._name !== b._name) return a._name < b._name ? -1 : 1;
        return a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
      });
      items.forEach(function (it, i) { it._order = i; });
      index = new Index(items);
      // The order of eggs that rank alike in a search (docs/web.md): one game's eggs together.
      var tie = items.slice().sort(function (a, b) {
        var x = a.nameForms.base, y = b.nameForms.base;
        if (x !== y) return x < y ? -1 : 1;
        if (a.updatedAt !== b.updatedAt) return b.updatedAt - a.updatedAt;
        var ra = a.owner + '/' + a.repo, rb = b.owner + '/' + b.repo;
        if (ra !== rb) return ra < rb ? -1 : 1;
        return a._order - b._order;
      });
      tie.forEach(function (it, i) { it._tie = i; });
      // With "Recently updated", the most recently changed upstream first, then as above.
      function updated(by) {
        return function (a, b) { return a.updatedAt !== b.updatedAt ? b.updatedAt - a.updatedAt : a[by] - b[by]; };
      }
      orders = {
        name: orderOf(items),
        tie: orderOf(tie),
        updated: orderOf(items.slice().sort(updated('_order'))),
        updatedTie: orderOf(items.slice().sort(updated('_tie'))),
      };
      keyBuffer = new Float64Array(items.length);
      function put(map, key, e) {
        var eggs = map.get(key);
        if (eggs) eggs.push(e); else map.set(key, [e]);
      }
      items.forEach(function (it, e) {
        var f = it.nameForms;
        put(byName, it.name, e);
        put(byNorm, f.normalised, e);
        put(byNormBase, f.base, e);
        put(byJoined, f.base.replace(/ /g, ''), e);
      });
      readUrl();
      apply(true);
      measureScreen();
      window.addEventListener('resize', measureScreen);
      index.warm(idle);
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
        typing = false; showAll = false; apply(true); now(true);
        q.focus();
      });
      // The first keystroke of a search adds a history entry, the next ones replace it.
      q.addEventListener('input', function () { showAll = false; apply(false); later(!typing); typing = true; });
      form.addEventListener('change', function (e) {
        if (e.target === q) return;
        typing = false; showAll = false; apply(true); now(true);
      });
      form.addEventListener('submit', function (e) { e.preventDefault(); typing = false; now(false); });
      window.addEventListener('popstate', function () {
        clearTimeout(timer); pushLater = false; typing = false; showAll = false; readUrl(); apply(true); showCounts();
      });
      window.eggcat = { apply: apply, normalise: normalise };
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
