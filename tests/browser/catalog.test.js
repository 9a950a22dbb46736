// eggcat's web catalog in headless Chromium (playwright-core, the system Chromium).
// Run by crates/cli/tests/it/browser.rs, which starts the servers and sets:
//   EGGCAT_URLS        comma-separated base URLs to test (eggcat serve, nginx), no trailing slash
//   EGGCAT_HOSTILE     slug of the hostile egg
//   EGGCAT_SCREENSHOTS folder for screenshots (390 px and 1280 px wide)
//   CHROMIUM           the browser binary (default /usr/lib/chromium/chromium)
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');

const URLS = (process.env.EGGCAT_URLS || 'http://127.0.0.1:8080').split(',').filter(Boolean);
const HOSTILE = process.env.EGGCAT_HOSTILE || '';
const SHOTS = process.env.EGGCAT_SCREENSHOTS || '';
let browser;

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/lib/chromium/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--no-first-run'],
  });
});
after(async () => { if (browser) await browser.close(); });

// A page that records console errors, dialogs and every request, and fails on any of them
// that should not happen.
async function open(base, width = 1280) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  const log = { errors: [], dialogs: [], requests: [] };
  page.on('console', (m) => { if (m.type() === 'error') log.errors.push(m.text()); });
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('dialog', (d) => { log.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  page.on('request', (r) => log.requests.push(r.url()));
  return { context, page, log };
}

function clean(base, log) {
  assert.deepEqual(log.errors, [], 'console errors');
  assert.deepEqual(log.dialogs, [], 'dialogs');
  const foreign = log.requests.filter((u) => !u.startsWith(base + '/') && !u.startsWith('data:'));
  assert.deepEqual(foreign, [], 'requests to another origin');
}

async function summary(base) {
  const r = await fetch(base + '/api/v1/eggs/_summary.json');
  assert.equal(r.status, 200);
  return r.json();
}

async function axe(page) {
  // Evaluated through the DevTools protocol, so the page's CSP (no inline script) stays on.
  await page.evaluate(fs.readFileSync(require.resolve('axe-core'), 'utf8'));
  const result = await page.evaluate(() => window.axe.run());
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')})`);
}

// Every egg the list shows, after "Show all" when the list holds only its first page.
async function shown(page) {
  if (await page.isVisible('#more')) await page.click('#more');
  return page.$$eval('#eggs > li', (lis) => lis.map((li) => li.id.slice(2)));
}

for (const base of URLS) {
  const host = new URL(base).host;

  test(`${host}: search, filters, URL state and back`, async () => {
    const items = await summary(base);
    const { context, page, log } = await open(base);
    await page.goto(base + '/');
    await page.waitForSelector('#search:not([hidden])');
    assert.equal((await shown(page)).length, items.length, 'every egg listed');

    // A name match ranks first.
    const target = items.find((i) => i.name.length > 4 && /^[a-z0-9 ]+$/i.test(i.name));
    const query = target.name.toLowerCase();
    await page.fill('#q', query);
    const hits = await shown(page);
    const expected = items.filter((i) => [i.name, i.description, i.tags.join(' '), i.category,
      i.owner + '/' + i.repo, i.images.join(' ')].join('\n').toLowerCase().includes(query));
    assert.equal(hits.length, expected.length, 'search hits');
    const first = items.find((i) => i.slug === hits[0]);
    assert.ok(first.name.toLowerCase().includes(query), `a name match first, got ${first.name}`);
    // The URL follows the list a moment later (off the keystroke's path).
    await page.waitForFunction((q) => new URLSearchParams(location.search).get('q') === q, query);

    // Each filter narrows to exactly the eggs with that value, and counts agree.
    await page.fill('#q', '');
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('q'));
    for (const f of ['source', 'category', 'format', 'importable']) {
      const sel = await page.$(`#f-${f}`);
      if (!sel) continue;
      const options = await sel.$$eval('option', (os) => os.map((o) => [o.value, o.textContent]));
      const [value, label] = options[options.length - 1];
      await sel.selectOption(value);
      const ids = await shown(page);
      const want = items.filter((i) => f === 'importable' ? i.importable[value] : i[f] === value);
      assert.equal(ids.length, want.length, `filter ${f}=${value}`);
      assert.ok(label.endsWith(`(${want.length})`), `count shown for ${f}=${value}: ${label}`);
      assert.equal(new URL(page.url()).searchParams.get(f), value);
      await sel.selectOption('');
    }

    // Sort by recently updated.
    await page.selectOption('#sort', 'updated');
    const order = await shown(page);
    const times = order.map((s) => items.find((i) => i.slug === s).indexedAt);
    assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');

    // State in the URL: a link restores it, back undoes a filter.
    const cat = items[0].category;
    await page.goto(`${base}/?q=&category=${encodeURIComponent(cat)}`);
    await page.waitForSelector('#search:not([hidden])');
    assert.equal(await page.inputValue('#f-category'), cat);
    await page.fill('#q', 'zzzz-nothing');
    assert.equal((await shown(page)).length, 0);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('q') === 'zzzz-nothing');
    await page.goBack();
    await page.waitForFunction(() => document.getElementById('q').value === '');
    assert.equal((await shown(page)).length, items.filter((i) => i.category === cat).length);
    clean(base, log);
    await context.close();
  });

  test(`${host}: an egg page shows its egg document`, async () => {
    const items = await summary(base);
    const pick = items.filter((i) => i.slug !== HOSTILE).sort((a, b) => b.images.length - a.images.length)[0];
    const doc = await (await fetch(`${base}/api/v1/eggs/${pick.slug}.json`)).json();
    const { context, page, log } = await open(base);
    await page.goto(`${base}/eggs/${pick.slug}/`);
    assert.equal(await page.textContent('h1'), doc.meta.name);
    const images = await page.$$eval('.images code', (cs) => cs.map((c) => c.textContent));
    const want = Array.isArray(doc.egg.docker_images) ? doc.egg.docker_images : Object.values(doc.egg.docker_images);
    assert.deepEqual(images, want);
    for (const v of doc.egg.variables) {
      const row = await page.$(`tr[id="var-${v.env_variable}"]`);
      assert.ok(row, `variable ${v.env_variable}`);
      assert.ok((await row.textContent()).includes(v.name));
    }
    const commands = doc.egg.startup_commands ? Object.values(doc.egg.startup_commands) : [doc.egg.startup];
    const shownCmds = await page.$$eval('pre.cmd', (ps) => ps.map((p) => p.textContent));
    assert.deepEqual(shownCmds, commands);
    // Each {{VARIABLE}} of the egg links to its row.
    const links = await page.$$eval('pre.cmd a.var', (as) => as.map((a) => a.getAttribute('href')));
    for (const l of links) assert.ok(await page.$(`tr[id="${l.slice(1)}"]`), l);

    // Each copy button puts its URL on the clipboard: the panels' import files (as the egg
    // document's meta.import names them) and the egg document.
    const copiedAll = [];
    const buttons = page.locator('button.copy');
    for (let i = 0; i < await buttons.count(); i++) {
      const button = buttons.nth(i);
      await button.click();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      assert.equal(copied, await button.getAttribute('data-copy'));
      copiedAll.push(copied);
    }
    const imports = doc.meta.import;
    const importUrls = [imports.pelican.yaml, imports.pelican.json, imports.pterodactyl.json].filter(Boolean);
    assert.ok(importUrls.length > 0, `${pick.slug} has import files`);
    for (const url of importUrls) assert.ok(copiedAll.includes(url), `copy button for ${url}`);
    assert.ok(copiedAll.some((u) => u.endsWith(`/api/v1/eggs/${pick.slug}.json`)), copiedAll.join(' '));
    // The import file behind the button is served, with its media type.
    const yaml = await fetch(imports.pelican.yaml ?? imports.pelican.json);
    assert.equal(yaml.status, 200);
    assert.match(yaml.headers.get('content-type'), /^application\/(yaml|json)/);
    clean(base, log);
    await context.close();
  });

  test(`${host}: README renders, the hostile egg stays inert`, async () => {
    const items = await summary(base);
    let withReadme;
    for (const i of items.filter((x) => x.slug !== HOSTILE)) {
      const doc = await (await fetch(`${base}/api/v1/eggs/${i.slug}.json`)).json();
      if (doc.readme && /^#+ /m.test(doc.readme)) { withReadme = i; break; }
    }
    const { context, page, log } = await open(base);
    if (withReadme) {
      await page.goto(`${base}/eggs/${withReadme.slug}/`);
      const headings = await page.$$eval('.readme h2, .readme h3, .readme h4', (hs) => hs.length);
      assert.ok(headings > 0, `the README of ${withReadme.slug} renders its headings`);
    }
    if (HOSTILE) {
      await page.goto(`${base}/eggs/${HOSTILE}/`);
      assert.ok((await page.textContent('h1')).includes('<script>'), 'the name shows as text');
      assert.equal(await page.$$eval('.readme script, .readme [onerror], .readme iframe, .readme form', (x) => x.length), 0);
      const hrefs = await page.$$eval('a[href]', (as) => as.map((a) => a.getAttribute('href')));
      assert.ok(hrefs.every((h) => !/^\s*(javascript|data|vbscript):/i.test(h)), 'no script links');
      assert.equal(await page.$('img.icon.big'), null, 'the SVG icon is refused');
      await page.click('text=click me').catch(() => {});
      await page.waitForTimeout(300);
      assert.equal(await page.evaluate(() => window.pwned), undefined);
    }
    clean(base, log);
    await context.close();
  });

  test(`${host}: no console errors and no serious accessibility violations`, async () => {
    const items = await summary(base);
    const pages = ['/', `/eggs/${items[0].slug}/`, '/status/'];
    for (const p of pages) {
      const { context, page, log } = await open(base);
      await page.goto(base + p);
      if (p === '/') await page.waitForSelector('#search:not([hidden])');
      assert.deepEqual(await axe(page), [], `axe on ${p}`);
      clean(base, log);
      await context.close();
    }
  });

  if (SHOTS) {
    test(`${host}: screenshots`, async () => {
      fs.mkdirSync(SHOTS, { recursive: true });
      const items = await summary(base);
      const egg = items.find((i) => i.icon && i.slug !== HOSTILE) || items[0];
      const tag = host.replace(/[^a-z0-9]+/gi, '-');
      for (const width of [390, 1280]) {
        const { context, page } = await open(base, width);
        await page.goto(base + '/');
        await page.waitForSelector('#search:not([hidden])');
        await page.screenshot({ path: path.join(SHOTS, `${tag}-catalog-${width}.png`) });
        await page.goto(`${base}/eggs/${egg.slug}/`);
        await page.screenshot({ path: path.join(SHOTS, `${tag}-egg-${width}.png`) });
        await page.goto(`${base}/status/`);
        await page.screenshot({ path: path.join(SHOTS, `${tag}-status-${width}.png`) });
        await context.close();
      }
    });
  }
}
