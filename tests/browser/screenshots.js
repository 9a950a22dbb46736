// Screenshots of the web catalog at 390 and 1280 px, for docs/img/ and for looking at a
// change: `node screenshots.js BASE OUT_DIR [EGG_SLUG]` against a running `eggcat serve`. The
// "changes" shot is the Changes section (its details open) of the egg with the most changes
// that can break servers, then the most versions.
// README's images come from the bundled demo catalog (docs/web.md, "Screenshots"), never from
// a catalog holding the test eggs.
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const { chromium } = require('playwright-core');

(async () => {
  const [base, out, slugArg] = process.argv.slice(2);
  if (!base || !out) {
    console.error('usage: node screenshots.js BASE OUT_DIR [EGG_SLUG]');
    process.exit(2);
  }
  fs.mkdirSync(out, { recursive: true });
  const items = await (await fetch(base + '/api/v1/eggs/_summary.json')).json();
  let slug = slugArg;
  if (!slug) {
    // The egg with the most variables shows the most of an egg page.
    let most = -1;
    for (const i of items) {
      const doc = await (await fetch(`${base}/api/v1/eggs/${i.slug}.json`)).json();
      const n = (doc.egg.variables || []).length;
      if (n > most) { most = n; slug = i.slug; }
    }
  }
  // The egg whose history shows the most: breaking changes first, then versions.
  let changesSlug = slug;
  let best = [-1, -1];
  for (const i of items) {
    const h = await (await fetch(`${base}/api/v1/eggs/${i.slug}/history.json`)).json();
    const breaking = h.versions.reduce((n, v) => n + v.changes.filter((c) => c.breaking).length, 0);
    const score = [breaking, h.versions.length];
    if (score[0] > best[0] || (score[0] === best[0] && score[1] > best[1])) { best = score; changesSlug = i.slug; }
  }
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/lib/chromium/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--no-first-run'],
  });
  for (const width of [390, 1280]) {
    const context = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 900 } });
    const page = await context.newPage();
    const shots = [['catalog', '/'], ['egg', `/eggs/${slug}/`], ['variables', `/eggs/${slug}/#variables`],
      ['status', '/status/'], ['404', '/eggs/nope/']];
    for (const [name, p] of shots) {
      await page.goto(base + p);
      if (p === '/') await page.waitForSelector('#search:not(.pending)');
      const file = path.join(out, `${name}-${width}.png`);
      await page.screenshot({ path: file });
      console.log(file);
    }
    await page.goto(`${base}/eggs/${changesSlug}/`);
    await page.$$eval('#changes details', (ds) => ds.forEach((d) => { d.open = true; }));
    const file = path.join(out, `changes-${width}.png`);
    await (await page.$('#changes')).screenshot({ path: file });
    console.log(file);
    await context.close();
  }
  await browser.close();
})().catch((e) => { console.error(e); process.exit(1); });
