// bench/search.sh's figures in Chromium: `node search/bench.js URL` prints, for the catalog
// served at URL, one `name value` line per figure (measure.js says how each is measured):
//   found N TOTAL SHARE    queries of queries.json found in the first 3 cards
//   kind KIND N TOTAL      the same per kind of query
//   miss QUERY => CARDS    each query not found, with the first 3 cards
//   exact OK NAMES         exact-name queries that list every egg of that name first
//   exactfail NAME => CARDS
//   keys RATE N P95 MAX    keystroke times (ms) with the CPU slowed RATE times
//   floor RATE N P95 MAX   the same keystrokes with the page's input handler held back: what
//                          the browser takes for the box alone (measure.js, `alone`)
//   listed SHOWN TOTAL     the list followed the queries: eggs shown after "zzzz" (must be 0)
//                          and after the empty query (must be more than 0)
// With --keys-only, only the keystroke lines (the 10x catalog).
'use strict';
const m = require('./measure.js');

(async () => {
  const base = process.argv[2];
  const keysOnly = process.argv.includes('--keys-only');
  const { browser, page } = await m.openCatalog(base);
  try {
    if (!keysOnly) {
      const f = await m.found(page);
      console.log(`found ${f.found} ${f.total} ${(100 * f.share).toFixed(1)}`);
      for (const [kind, k] of Object.entries(f.byKind)) console.log(`kind ${kind} ${k.found} ${k.n}`);
      for (const x of f.misses) console.log(`miss ${x.q} => ${x.top3.join(' | ')}`);
      const e = await m.exactNames(page);
      console.log(`exact ${e.ok} ${e.names}`);
      for (const x of e.fails) console.log(`exactfail ${x.name} => ${x.first.join(' | ')}`);
    }
    for (const rate of [1, 4]) {
      const k = await m.keystrokes(page, m.QUERIES, rate);
      const s = m.stats(k.times);
      console.log(`keys ${rate} ${s.n} ${s.p95.toFixed(2)} ${s.max.toFixed(2)}`);
    }
    for (const rate of [1, 4]) {
      const s = m.stats((await m.keystrokes(page, m.QUERIES, rate, true)).times);
      console.log(`floor ${rate} ${s.n} ${s.p95.toFixed(2)} ${s.max.toFixed(2)}`);
    }
    // The list follows the box: the keystrokes timed a real filter.
    const listed = await page.evaluate(() => {
      const box = document.getElementById('q');
      box.value = 'zzzz';
      box.dispatchEvent(new Event('input', { bubbles: true }));
      const none = document.getElementById('eggs').children.length;
      box.value = '';
      box.dispatchEvent(new Event('input', { bubbles: true }));
      return [none, document.getElementById('eggs').children.length];
    });
    console.log(`listed ${listed[0]} ${listed[1]}`);
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
