// Where a keystroke's frame goes, read from a Chromium trace (bench/README.md, issue 40): `node
// search/trace.js URL [RATE] [--alone]` types the query set into the catalog served at URL as
// bench.js does (measure.js's `keystrokes`, the CPU slowed RATE times, 4 unless given; with
// --alone the page's input handler held back), traced, and prints for the middle half of the
// keystrokes and for the slowest ones (the 90th to 99th percentile, which set the p95) the mean
// time per keystroke of each part of the main thread's work:
//   handler script, handler style, handler layout
//              the input event's dispatch: the page's script, and the style and layout it asks
//              for itself (`fit` reads the cards' places)
//   style, layout, pre-paint, paint, layerize, commit
//              the frame's own lifecycle after the handler
//   the rest   the keystroke's time in none of these: setting the box's value (bench.js's
//              requestAnimationFrame callback), the CPU throttling's pauses between tasks
// Each part counts its outermost events only (a Paint of the document holds the Paint of its
// root element). A keystroke's window is measure.js's own: performance.now() is wrapped to put a
// user-timing mark at each of its two readings, so the keystrokes and their times are
// measure.js's unchanged. A diagnosis, not a target: the figures move with the machine as the
// keystroke times do.
'use strict';
const m = require('./measure.js');

const PARTS = {
  EventDispatch: 'handler',
  UpdateLayoutTree: 'style',
  Layout: 'layout',
  PrePaint: 'pre-paint',
  Paint: 'paint',
  Layerize: 'layerize',
  Commit: 'commit',
};

// The outermost events of the given names among `events` (sorted by start): an event inside
// another of the same name is part of it.
function outermost(events, name) {
  const out = [];
  let end = -1;
  for (const e of events) {
    if (e.name !== name) continue;
    if (e.ts >= end) { out.push(e); end = e.ts + e.dur; }
  }
  return out;
}

// The parts of the keystroke from `from` to `to` (trace time) among `events`, sorted by start:
// only the events that start in it are read, found by bisection.
function parts(events, from, to) {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (events[mid].ts < from) lo = mid + 1; else hi = mid; }
  const inWindow = [];
  for (let i = lo; i < events.length && events[i].ts <= to; i++) {
    if (events[i].ts + events[i].dur <= to) inWindow.push(events[i]);
  }
  const handlers = outermost(inWindow, 'EventDispatch');
  const inHandler = (e) => handlers.some((h) => e.ts >= h.ts && e.ts + e.dur <= h.ts + h.dur);
  const d = {};
  for (const [name, part] of Object.entries(PARTS)) {
    for (const e of outermost(inWindow, name)) {
      const key = name !== 'EventDispatch' && inHandler(e) ? `handler ${part}` : part;
      d[key] = (d[key] || 0) + e.dur / 1000;
    }
  }
  // The handler's own script: its time less the style and layout inside it.
  if (d.handler !== undefined) {
    d['handler script'] = d.handler - (d['handler style'] || 0) - (d['handler layout'] || 0);
    delete d.handler;
  }
  return d;
}

function report(label, keys) {
  const sum = {};
  let wall = 0;
  for (const k of keys) {
    wall += k.wall;
    for (const [p, v] of Object.entries(k.parts)) sum[p] = (sum[p] || 0) + v;
  }
  console.log(`${label}: ${keys.length} keystrokes, mean ${(wall / keys.length).toFixed(2)} ms`);
  let counted = 0;
  for (const [p, v] of Object.entries(sum).sort((a, b) => b[1] - a[1])) {
    counted += v;
    console.log(`  ${p.padEnd(16)} ${(v / keys.length).toFixed(2)} ms`);
  }
  console.log(`  ${'the rest'.padEnd(16)} ${((wall - counted) / keys.length).toFixed(2)} ms`);
}

(async () => {
  const base = process.argv[2];
  const rate = Number(process.argv.find((a, i) => i > 2 && /^\d+$/.test(a)) || 4);
  const alone = process.argv.includes('--alone');
  if (!base) throw new Error('usage: node search/trace.js URL [RATE] [--alone]');
  const { browser, page } = await m.openCatalog(base);
  try {
    // As bench.js: the query set typed once at full speed before the slowed run.
    await m.keystrokes(page, m.QUERIES, 1, alone);
    await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing'] });
    await page.evaluate(() => {
      const now = performance.now.bind(performance);
      let k = 0;
      let open = false;
      performance.now = () => {
        const t = now();
        performance.mark(open ? `ke${k++}` : `ks${k}`);
        open = !open;
        return t;
      };
    });
    const run = await m.keystrokes(page, m.QUERIES, rate, alone);
    await page.evaluate(() => { delete performance.now; });
    const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
    const marks = events.filter((e) => /^k[se]\d+$/.test(e.name));
    if (!marks.length) throw new Error('the trace holds no keystroke marks');
    const { pid, tid } = marks[0];
    const main = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e.dur)
      .sort((a, b) => a.ts - b.ts);
    const at = {};
    for (const e of marks) (at[e.name.slice(2)] ||= {})[e.name[1]] = e.ts;
    const keys = Object.values(at).filter((w) => w.s && w.e)
      .map((w) => ({ wall: (w.e - w.s) / 1000, parts: parts(main, w.s, w.e + 1) }))
      .sort((a, b) => a.wall - b.wall);
    const n = keys.length;
    const s = m.stats(run.times);
    console.log(`${alone ? 'the box alone' : 'the page'}, CPU slowed ${rate}x: ${s.n} keystrokes, p95 ${s.p95.toFixed(2)} ms, max ${s.max.toFixed(2)} ms`);
    report('middle half', keys.slice(Math.floor(n * 0.25), Math.floor(n * 0.75)));
    report('90th to 99th percentile', keys.slice(Math.floor(n * 0.9), Math.floor(n * 0.99)));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
