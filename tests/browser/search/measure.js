// How well and how fast the catalog page's search finds the egg a person means (issue 40),
// measured in a real page: the browser test (catalog.test.js) and bench/search.sh share it.
//
// - openCatalog(base): the catalog served at `base` in headless Chromium, 1280x900, once its
//   script has started: { browser, page } (bench.js and trace.js; the caller closes the browser).
// - found(page, queries): each query of queries.json typed into the search box as a person
//   types it (the input event the box fires), and the first 3 cards of the list read back; a
//   query is found when one of them names an accepted egg (an egg "X (Pterodactyl)", the
//   Pterodactyl twin of "X", counts as "X").
// - exactNames(page): every distinct egg name of the catalog typed exactly; it passes when the
//   first cards are every egg of that name (as many as the catalog has, up to the 60 the list
//   shows first), before any other.
// - keystrokes(page, queries, rate, alone): every prefix of each query typed in turn; each
//   keystroke timed from the input event to the end of the frame that paints the new list, the
//   first screen of its cards (the rest follows when the browser is idle: docs/web.md) (the
//   event is dispatched at the start of a frame, in a requestAnimationFrame callback, and the
//   time is taken by a message posted from there, which runs once that frame's style, layout
//   and paint are done), with the CPU slowed `rate` times through the DevTools protocol (1: not
//   slowed).
//   With `alone`, the page's own input handler is held back (a listener on the window, in the
//   capture phase, stops the event before it reaches the box): the same keystrokes then time
//   what the browser does for the box alone, the floor under the page's own work on this
//   machine at that moment (bench/README.md).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const QUERIES = JSON.parse(fs.readFileSync(path.join(__dirname, 'queries.json'), 'utf8')).queries;

async function openCatalog(base) {
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/lib/chromium/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(base + '/');
    await page.waitForSelector('#search:not(.pending)');
    return { browser, page };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

// The display name of a card without the Pterodactyl twin's suffix.
function base(name) { return name.replace(/ \(pterodactyl\)$/i, ''); }

async function found(page, queries = QUERIES) {
  const tops = await page.evaluate((qs) => {
    const box = document.getElementById('q');
    const out = [];
    for (const q of qs) {
      box.value = q;
      box.dispatchEvent(new Event('input', { bubbles: true }));
      out.push([...document.querySelectorAll('#eggs > li h2 a')].slice(0, 3).map((a) => a.textContent));
    }
    box.value = '';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    return out;
  }, queries.map((x) => x.q));
  const byKind = {};
  const misses = [];
  let hits = 0;
  queries.forEach((x, i) => {
    const k = byKind[x.kind] || (byKind[x.kind] = { n: 0, found: 0 });
    k.n += 1;
    if (tops[i].some((name) => x.accept.includes(base(name)))) {
      hits += 1;
      k.found += 1;
    } else {
      misses.push({ q: x.q, kind: x.kind, top3: tops[i] });
    }
  });
  return { total: queries.length, found: hits, share: hits / queries.length, byKind, misses };
}

async function exactNames(page) {
  return page.evaluate(async () => {
    const summary = await (await fetch('api/v1/eggs/_summary.json')).json();
    const count = {};
    for (const it of summary) count[it.name] = (count[it.name] || 0) + 1;
    const box = document.getElementById('q');
    const fails = [];
    const names = Object.keys(count);
    for (const name of names) {
      box.value = name;
      box.dispatchEvent(new Event('input', { bubbles: true }));
      const first = [...document.querySelectorAll('#eggs > li h2 a')]
        .slice(0, Math.min(count[name], 60)).map((a) => a.textContent);
      if (first.length < Math.min(count[name], 60) || first.some((n) => n !== name)) {
        fails.push({ name, first });
      }
    }
    box.value = '';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    return { names: names.length, ok: names.length - fails.length, fails };
  });
}

async function keystrokes(page, queries = QUERIES, rate = 1, alone = false) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  try {
    return await page.evaluate(async ([qs, alone]) => {
      const box = document.getElementById('q');
      const hold = (e) => { if (e.target === box) e.stopImmediatePropagation(); };
      if (alone) window.addEventListener('input', hold, true);
      const list = document.getElementById('eggs');
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      const times = [];
      const shown = {};
      // One keystroke: dispatched at a frame's start, timed to the message that runs after
      // that frame is painted.
      const key = (value) => new Promise((resolve) => {
        requestAnimationFrame(() => {
          const t0 = performance.now();
          box.value = value;
          box.dispatchEvent(new Event('input', { bubbles: true }));
          const ch = new MessageChannel();
          ch.port1.onmessage = () => resolve(performance.now() - t0);
          ch.port2.postMessage(0);
        });
      });
      for (const q of qs) {
        for (let i = 1; i <= q.length; i++) times.push(await key(q.slice(0, i)));
        shown[q] = list.children.length;
        box.value = '';
        box.dispatchEvent(new Event('input', { bubbles: true }));
        await frame();
      }
      window.removeEventListener('input', hold, true);
      return { times, shown, total: list.children.length };
    }, [queries.map((x) => x.q), alone]);
  } finally {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    await cdp.detach();
  }
}

// p95 and max of a list of times, in ms.
function stats(times) {
  const s = [...times].sort((a, b) => a - b);
  return { n: s.length, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))], max: s[s.length - 1] };
}

module.exports = { QUERIES, openCatalog, found, exactNames, keystrokes, stats, base };
