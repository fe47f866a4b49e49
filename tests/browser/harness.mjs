// The page tests' shared helpers: a page opened with its console errors collected, the summary and the
// status line polled until they match, a drawn control found by its label, a file dropped on the canvas,
// a screenshot's ink measured, and the CLI's bill for a scenario. Used by page.test.mjs and its check
// modules; harness() binds the helpers that need the run's browser, base URL, output folder and CLI.
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export function harness({browser, out, cli, base}) {
  return {
    open: (url, viewport, options, hubBase) => openPage(browser, url, viewport, options, hubBase),
    openHost: viewport => openHost(browser, base, viewport),
    cliBill: scenario => cliBill(cli, out, scenario),
    summary, waitSummary, pixelStats, waitAt, waitStatus, dropFile,
  };
}

// A page with its console errors collected; resolves once the first frame is on screen.
// Counts requestAnimationFrame callbacks (window.rafCount) from before the page's own scripts run.
const countFrames = () => {
  window.rafCount = 0;
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = cb => raf(t => { window.rafCount++; cb(t); });
};
const firstFrame = () => window.vramcalcPage && window.vramcalcPage.firstFrameMs !== null;
async function openPage(browser, url, viewport = {width: 1360, height: 900}, options = {}, hubBase = null) {
  const page = await browser.newPage({viewport, deviceScaleFactor: 1, ...options});
  await page.addInitScript(countFrames);
  // The "Hub URL" setting (localStorage, as the page's field saves it): a local fake Hub for the tests.
  if (hubBase) await page.addInitScript(b => localStorage.setItem('vramcalc.hub_base', b), hubBase);
  page.errors = [];
  page.on('console', m => { if (m.type() === 'error') page.errors.push(m.text()); });
  page.on('pageerror', e => page.errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(firstFrame, null, {timeout: 20000});
  return page;
}
// The tall docs page of the static server (test-host.html) with the calculator embedded in an 800x500 frame,
// once the frame has drawn its first frame.
async function openHost(browser, base, viewport) {
  const host = await browser.newPage({viewport});
  await host.goto(base + 'test-host.html');
  const frame = await (await host.waitForSelector('#calc')).contentFrame();
  await frame.waitForFunction(firstFrame, null, {timeout: 20000});
  return {host, frame};
}
async function summary(page) { return page.$eval('#summary', el => el.textContent); }
async function waitSummary(page, pred) {
  for (let i = 0; i < 100; i++) {
    const s = await summary(page);
    if (pred(s)) return s;
    await page.waitForTimeout(50);
  }
  throw new Error('summary never matched; last: ' + await summary(page));
}
// Distinct colours and the share of non-white pixels of a PNG, measured by the browser's own decoder.
async function pixelStats(page, png) {
  return page.evaluate(async b64 => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = new OffscreenCanvas(img.width, img.height);
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, img.width, img.height).data;
    const colours = new Set();
    let ink = 0;
    for (let i = 0; i < d.length; i += 4 * 7) {
      colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      if (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235) ink++;
    }
    return {colours: colours.size, ink: ink / (d.length / 28)};
  }, png.toString('base64'));
}
// The bill the CLI prints for a scenario (`vramcalc estimate FILE --json`), the page's numbers to match.
function cliBill(cli, out, scenario) {
  const file = path.join(out, 'scenario.json');
  fs.writeFileSync(file, JSON.stringify(scenario));
  return JSON.parse(execFileSync(cli, ['estimate', file, '--json'], {encoding: 'utf8'}));
}
// The centre of the control labelled `label` once the page draws it.
async function waitAt(p, label) {
  for (let i = 0; i < 60; i++) {
    const c = await p.evaluate(l => window.vramcalcPage.controlAt(l), label);
    if (c) return c;
    await p.waitForTimeout(50);
  }
  throw new Error('control not drawn: ' + label);
}
// A file dropped on the canvas, as a person drags one from their desktop (its bytes, never a path).
async function dropFile(p, name, text) {
  const dt = await p.evaluateHandle(([n, t]) => { const d = new DataTransfer(); d.items.add(new File([t], n)); return d; }, [name, text]);
  await p.dispatchEvent('#canvas', 'drop', {dataTransfer: dt});
}
// The status line once pred holds.
async function waitStatus(p, pred) {
  let s = '';
  for (let i = 0; i < 200; i++) {
    s = await p.evaluate(() => window.vramcalcPage.status());
    if (pred(s)) return s;
    await p.waitForTimeout(50);
  }
  throw new Error('status never matched; last: ' + s);
}

// Queries of the page's drawn state (window.vramcalcPage): a control's rectangle, a form field's value, the
// scroll offset under a point, the status line, the keyboard focus, and a poll until one matches.
export const queries = p => ({
  rect: label => p.evaluate(l => window.vramcalcPage.rectOf(l), label),
  field: ptr => p.evaluate(q => window.vramcalcPage.formField(q).value, ptr),
  scroll: (x, y) => p.evaluate(([x, y]) => window.vramcalcPage.scrollOf(x, y), [x, y]),
  status: () => p.evaluate(() => window.vramcalcPage.status()),
  focus: () => p.evaluate(() => window.vramcalcPage.navFocus()),
  // Polls fn() until pred holds (a 3x phone canvas drawn in software on a busy 2-core machine is slow).
  async until(fn, pred, what) {
    let last;
    for (let i = 0; i < 80; i++) {
      last = await fn();
      if (pred(last)) return last;
      await p.waitForTimeout(50);
    }
    throw new Error(`${what}: last ${JSON.stringify(last)}`);
  },
});
// The centre of a rectangle [x0, y0, x1, y1].
export const centre = r => [(r[0] + r[2]) / 2, (r[1] + r[3]) / 2];
