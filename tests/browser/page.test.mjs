// Page tests in a real browser: Debian's headless Chromium driven by playwright-core.
//
//   node page.test.mjs --dist build/wasm/dist --cli build/native/cli/vramcalc [--out DIR] [--measure]
//
// Serves the static folder under a sub-path (as GitHub Pages does), then checks what a user sees:
// the page loads without console errors and shows a bill; the JS API answers exactly what the CLI
// answers; a URL hash round-trips; a broken hash shows an error and the page keeps working; the
// embedded layout and the docs' embedding example work; screenshots are not blank; idle means no
// redraws. --measure prints the page's figures (transfer size, first frame, idle frames, catalog solve).
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {chromium} from 'playwright-core';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1] && !all[i + 1].startsWith('--') ? all[i + 1] : true]);
  return acc;
}, []));
const dist = path.resolve(args.dist || 'build/wasm/dist');
const cli = path.resolve(args.cli || 'build/native/cli/vramcalc');
const out = path.resolve(args.out || path.join(os.tmpdir(), 'vramcalc-browser'));
fs.mkdirSync(out, {recursive: true});
const SUB = '/tools/vramcalc/';  // any sub-path must work

const types = {'.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json',
               '.png': 'image/png', '.css': 'text/css'};
const served = [];
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (!url.pathname.startsWith(SUB)) { res.writeHead(404).end(); return; }
  let rel = decodeURIComponent(url.pathname.slice(SUB.length)) || 'index.html';
  const file = path.join(dist, rel);
  if (!file.startsWith(dist) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) { res.writeHead(404).end(); return; }
  served.push(rel);
  res.writeHead(200, {'Content-Type': types[path.extname(file)] || 'application/octet-stream'});
  res.end(fs.readFileSync(file));
});
await new Promise(r => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}${SUB}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});

let failures = 0, passed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}\n     ${String(e && e.stack || e).split('\n').slice(0, 4).join('\n     ')}`);
  }
}
function assert(cond, msg) { if (!cond) throw new Error(msg); }

// A page with its console errors collected; resolves once the first frame is on screen.
async function open(url, viewport = {width: 1360, height: 900}) {
  const page = await browser.newPage({viewport, deviceScaleFactor: 1});
  page.errors = [];
  page.on('console', m => { if (m.type() === 'error') page.errors.push(m.text()); });
  page.on('pageerror', e => page.errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.vramcalcPage && window.vramcalcPage.firstFrameMs !== null, null, {timeout: 20000});
  return page;
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
function cliBill(scenario) {
  const file = path.join(out, 'scenario.json');
  fs.writeFileSync(file, JSON.stringify(scenario));
  return JSON.parse(execFileSync(cli, ['estimate', file, '--json'], {encoding: 'utf8'}));
}

const scenarios = [
  {model: 'llama-3.1-8b', method: 'lora', precision: 'bf16', micro_batch: 4},
  {model: 'gpt2', method: 'full', precision: 'fp32', optimizer: 'adamw', micro_batch: 8, seq_len: 1024, attention: 'eager'},
  {model: 'mistral-7b-v0.1', method: 'qlora', quantization: 'nf4', gpu: 'rtx-4090', checkpointing: 'full', framework: 'litgpt'},
  {model: 'qwen2.5-7b', workload: 'infer', weights: 'bf16', batch: 8, prompt_len: 4096, gen_len: 512, gpu: 'a100-80gb'},
  {model: 'llama-3.1-8b', method: 'full', precision: 'bf16-mixed', gpu: {name: 'my card', memory_gib: 96}, loss: 'chunked'},
];

const page = await open(base);
await check('default page loads without console errors and shows a bill', async () => {
  const s = await waitSummary(page, t => /GiB/.test(t));
  assert(/of [\d.]+ GiB per GPU/.test(s) && /fits|does not fit/.test(s), 'summary: ' + s);
  assert(page.errors.length === 0, 'console errors: ' + page.errors.join(' | '));
});
await check('the JS API gives the same bill JSON as the CLI', async () => {
  await page.evaluate(() => window.vramcalc.ready);
  for (const s of scenarios) {
    const fromPage = await page.evaluate(sc => window.vramcalc.estimate(sc), s);
    const fromCli = cliBill(s);
    assert(JSON.stringify(fromPage) === JSON.stringify(fromCli), `differs for ${JSON.stringify(s)}:\n page ${JSON.stringify(fromPage).slice(0, 300)}\n cli  ${JSON.stringify(fromCli).slice(0, 300)}`);
  }
});
await check('the JS API reports bad scenarios as errors naming the field', async () => {
  const msg = await page.evaluate(() => { try { window.vramcalc.estimate({model: 'no-such-model'}); return 'no error'; } catch (e) { return e.message; } });
  assert(/model/.test(msg), msg);
  const cat = await page.evaluate(() => window.vramcalc.solveCatalog({model: 'llama-3.1-8b', method: 'lora'}));
  assert(cat.length >= 20 && cat.every(r => typeof r.max_batch === 'number'), 'catalog rows: ' + cat.length);
});
await check('a URL hash opens that scenario and the hash round-trips', async () => {
  const hash = '#v=1&model=qwen2.5-7b&method=full&precision=bf16&micro_batch=2&seq_len=1024&gpu=a100-80gb';
  const p = await open(base + hash);
  const s = await waitSummary(p, t => /Qwen/.test(t));
  const bill = cliBill({model: 'qwen2.5-7b', method: 'full', precision: 'bf16', micro_batch: 2, seq_len: 1024, gpu: 'a100-80gb'});
  const gib = (bill.per_gpu.device_bytes / 2 ** 30).toFixed(2);
  assert(s.includes(gib + ' GiB') && /A100/.test(s), `summary ${s} lacks ${gib} GiB`);
  const now = await p.evaluate(() => location.hash);
  for (const kv of ['model=qwen2.5-7b', 'micro_batch=2', 'gpu=a100-80gb', 'seq_len=1024'])
    assert(now.includes(kv), `hash after load lost ${kv}: ${now}`);
  // The rewritten link opens the same bill again.
  const q = await open(base + now);
  assert((await waitSummary(q, t => /Qwen/.test(t))) === s, 'reopened link differs');
  assert(p.errors.length === 0 && q.errors.length === 0, 'console errors: ' + p.errors.concat(q.errors).join(' | '));
  await p.close();
  await q.close();
});
await check('a broken hash shows an error and the page keeps working', async () => {
  const p = await open(base + '#v=1&micro_batch=%ZZ&model');
  const s = await waitSummary(p, t => /could not be read/.test(t));
  assert(/GiB/.test(s), 'no bill beside the error: ' + s);
  await p.evaluate(() => { location.hash = '#v=1&model=no-such-model'; });
  await waitSummary(p, t => /problems/.test(t) && /model/.test(t));
  await p.evaluate(() => { location.hash = '#v=1&model=gpt2&micro_batch=4'; });
  await waitSummary(p, t => /GPT-2|gpt2/i.test(t));
  await p.close();
});
await check('the default page screenshot is not blank', async () => {
  await page.mouse.move(5, 5);
  await page.waitForTimeout(300);
  const png = await page.screenshot();
  fs.writeFileSync(path.join(out, 'screenshot-page.png'), png);
  const st = await pixelStats(page, png);
  assert(st.colours > 30 && st.ink > 0.05, `looks blank: ${JSON.stringify(st)}`);
});
await check('the embedded layout renders compactly', async () => {
  const p = await open(base + '?embed=1#v=1&model=llama-3.1-8b&method=qlora&gpu=rtx-4090&checkpointing=full', {width: 760, height: 520});
  await waitSummary(p, t => /RTX 4090/.test(t));
  await p.waitForTimeout(200);
  const png = await p.screenshot();
  fs.writeFileSync(path.join(out, 'screenshot-embed.png'), png);
  const st = await pixelStats(p, png);
  assert(st.colours > 20 && st.ink > 0.03, `looks blank: ${JSON.stringify(st)}`);
  const link = await p.evaluate(() => window.vramcalcPage.pageLink());
  assert(!link.includes('embed'), 'the full-page link keeps embed: ' + link);
  await p.close();
});
if (fs.existsSync(path.join(dist, 'examples', 'embed.html'))) {
  await check("the docs' embedding example gets numbers from the headless API", async () => {
    const p = await browser.newPage();
    const errors = [];
    p.on('pageerror', e => errors.push(String(e)));
    await p.goto(base + 'examples/embed.html');
    await p.waitForFunction(() => /GiB/.test((document.getElementById('api-result') || {}).textContent || ''), null, {timeout: 20000});
    assert(errors.length === 0, errors.join(' | '));
    await p.close();
  });
}
let metrics = {};
await check('idle: at most 2 frames per second without input', async () => {
  await page.waitForTimeout(500);
  const before = await page.evaluate(() => window.vramcalcPage.framesDrawn());
  await page.waitForTimeout(5000);
  const after = await page.evaluate(() => window.vramcalcPage.framesDrawn());
  metrics.idle_frames_5s = after - before;
  assert(after - before <= 10, `${after - before} frames in 5 idle seconds`);
});
await check('input wakes the page and a click changes the scenario', async () => {
  const before = await page.evaluate(() => window.vramcalcPage.framesDrawn());
  await page.mouse.move(300, 300);
  await page.mouse.move(320, 310);
  await page.waitForTimeout(200);
  const after = await page.evaluate(() => window.vramcalcPage.framesDrawn());
  assert(after > before, 'no frame after mouse movement');
});

if (args.measure) {
  const pageFiles = ['index.html', 'page.js', 'vramcalc.js', 'vramcalc.wasm'];
  metrics.transfer_gzip_bytes = pageFiles.reduce((n, f) => n + zlib.gzipSync(fs.readFileSync(path.join(dist, f)), {level: 9}).length, 0);
  metrics.transfer_raw_bytes = pageFiles.reduce((n, f) => n + fs.statSync(path.join(dist, f)).size, 0);
  const firsts = [];
  for (let i = 0; i < 5; i++) {
    const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora');
    firsts.push(await p.evaluate(() => window.vramcalcPage.firstFrameMs));
    await p.close();
  }
  firsts.sort((a, b) => a - b);
  metrics.first_frame_ms_median_of_5 = Math.round(firsts[2]);
  metrics.first_frame_ms_all = firsts.map(Math.round);
  metrics.catalog_solve_ms_in_page = +(await page.evaluate(() => window.vramcalcPage.timeCatalogSolve(50))).toFixed(3);
  metrics.files_requested = [...new Set(served)].filter(f => !f.startsWith('examples/'));
  console.log('page metrics: ' + JSON.stringify(metrics, null, 1));
}
await browser.close();
server.close();
console.log(`${passed} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
