// Page tests in a real browser: Debian's headless Chromium driven by playwright-core.
//
//   node page.test.mjs --dist build/wasm/dist --cli build/native/cli/vramcalc [--out DIR] [--measure] [--only REGEX]
//
// Serves the static folder under a sub-path (as GitHub Pages does), then checks what a user sees:
// the page loads without console errors and shows a bill; the JS API answers exactly what the CLI
// answers; a URL hash round-trips; a broken hash shows an error and the page keeps working; a bad
// value marks its own field and the form keeps the rest; the embedded layout and the docs' embedding
// example work; screenshots are not blank; idle means no
// animation frames at all. Input as a person gives it (real wheel, touch and key events): a wheel notch
// scrolls the panel under the pointer down by a sane amount, a finger drag scrolls on a phone, an
// embedded frame lets its host page scroll once it is at its end, Tab reaches the GPU selector.
// --measure prints the page's figures (transfer size, first frame, idle frames and main-thread time,
// catalog solve).
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {chromium} from 'playwright-core';
import {interactionChecks} from './interaction.mjs';

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
  if (rel === 'test-host.html') {  // a tall docs page with the calculator embedded in an 800x500 frame
    res.writeHead(200, {'Content-Type': 'text/html'});
    res.end('<!doctype html><html><body style="margin:0;font:16px sans-serif"><div style="height:300px">docs text</div>' +
            '<iframe id="calc" src="index.html?embed=1#v=1&amp;model=llama-3.1-8b&amp;method=lora&amp;gpu=rtx-4090" width="800" height="500" ' +
            'style="border:0;display:block"></iframe><div style="height:3000px">more docs text</div>' +
            '<script>window.heights=[];addEventListener("message",e=>{if(e.data&&e.data.type==="vramcalc:height")heights.push(e.data.height)});</script>' +
            '</body></html>');
    return;
  }
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
  if (args.only && !new RegExp(args.only).test(name)) return;  // --only REGEX: the checks whose names match
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
// Counts requestAnimationFrame callbacks (window.rafCount) from before the page's own scripts run.
const countFrames = () => {
  window.rafCount = 0;
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = cb => raf(t => { window.rafCount++; cb(t); });
};
async function open(url, viewport = {width: 1360, height: 900}, options = {}, hubBase = null) {
  const page = await browser.newPage({viewport, deviceScaleFactor: 1, ...options});
  await page.addInitScript(countFrames);
  // The "Hub URL" setting (localStorage, as the page's field saves it): a local fake Hub for the tests.
  if (hubBase) await page.addInitScript(b => localStorage.setItem('vramcalc.hub_base', b), hubBase);
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
  // vLLM on an AMD GPU (the caching-allocator replay), Unsloth's profile, torchtitan with float8.
  {model: 'qwen3-235b-a22b', workload: 'infer', framework: 'vllm', gpu: 'mi300x', num_gpus: 4, tp: 4, weights: 'bf16',
   vllm_rocm_load_measure: 'total-free'},
  {model: 'llama-3.1-8b', framework: 'unsloth', seq_len: 16384},
  {model: 'llama-3.1-8b', framework: 'torchtitan', method: 'full', num_gpus: 8, micro_batch: 2, seq_len: 8192, compile: true,
   float8: 'rowwise'},
];

// The skeleton shown before the calculator runs names the scenario from the link and shows no figure
// (a number there would be one the estimator did not compute); it is gone with the first frame, and the
// preloaded wasm is fetched once.
await check('the loading skeleton names the scenario, has no figures, and goes with the first frame', async () => {
  const p = await browser.newPage({viewport: {width: 1400, height: 900}});
  let wasmFetches = 0;
  p.on('request', r => { if (r.url().endsWith('/vramcalc.wasm')) wasmFetches++; });
  await p.route('**/vramcalc.js', async route => { await new Promise(r => setTimeout(r, 400)); await route.continue(); });
  await p.goto(base + '#v=1&model=qwen2.5-7b&method=qlora&gpu=rtx-4090');
  const text = await p.$eval('#loading', el => el.innerText);
  assert(/Computing the memory bill for qwen2\.5-7b, qlora, rtx-4090/.test(text), 'skeleton: ' + text);
  const figures = text.replace(/qwen2\.5-7b|rtx-4090/g, '').match(/\d/g);
  assert(!figures, 'the skeleton shows figures: ' + text);
  await p.waitForFunction(() => window.vramcalcPage && window.vramcalcPage.firstFrameMs !== null, null, {timeout: 20000});
  assert(await p.$eval('#loading', el => getComputedStyle(el).display === 'none'), 'the skeleton stays after the first frame');
  assert(wasmFetches === 1, `vramcalc.wasm fetched ${wasmFetches} times (the preload is not reused)`);
  await p.close();
});

const page = await open(base);
await check('default page loads without console errors and shows a bill', async () => {
  const s = await waitSummary(page, t => /GiB/.test(t));
  assert(/of [\d.]+ GiB per GPU/.test(s) && /fits|does not fit/.test(s), 'summary: ' + s);
  assert(page.errors.length === 0, 'console errors: ' + page.errors.join(' | '));
});
await check('the JS API gives the same bill JSON as the CLI', async () => {
  // The page's window.vramcalc is the headless vramcalc-api.js, fetched on the first read of vramcalc.ready.
  const apiFetches = () => page.evaluate(() => performance.getEntriesByType('resource').filter(e => /vramcalc-api\.(js|wasm)$/.test(e.name)).length);
  assert(await apiFetches() === 0, 'vramcalc-api.js fetched before vramcalc.ready was read');
  const early = await page.evaluate(() => { try { window.vramcalc.estimate({model: 'gpt2'}); return 'no error'; } catch (e) { return e.message; } });
  assert(/wait for vramcalc\.ready/.test(early), 'a call before ready: ' + early);
  await page.evaluate(() => window.vramcalc.ready);
  await page.evaluate(() => window.vramcalc.ready);
  assert(await apiFetches() === 2, `vramcalc-api.js + .wasm fetched ${await apiFetches()} times, expected once each`);
  for (const s of scenarios) {
    const fromPage = await page.evaluate(sc => window.vramcalc.estimate(sc), s);
    const fromCli = cliBill(s);
    assert(JSON.stringify(fromPage) === JSON.stringify(fromCli), `differs for ${JSON.stringify(s)}:\n page ${JSON.stringify(fromPage).slice(0, 300)}\n cli  ${JSON.stringify(fromCli).slice(0, 300)}`);
  }
});
await check('the JS API reports bad scenarios as errors naming the field', async () => {
  const msg = await page.evaluate(() => { try { window.vramcalc.estimate({model: 'no-such-model'}); return 'no error'; } catch (e) { return e.message; } });
  assert(/model/.test(msg), msg);
  // JSON text that does not parse is an error too, and the page lives on (a build that compiled the UI
  // without exception support aborted here).
  const bad = await page.evaluate(() => { try { window.vramcalc.estimate('{bad json'); return 'no error'; } catch (e) { return e.message; } });
  assert(/not valid JSON/.test(bad), 'bad JSON text: ' + bad);
  const cat = await page.evaluate(() => window.vramcalc.solveCatalog({model: 'llama-3.1-8b', method: 'lora'}));
  assert(cat.length >= 20 && cat.every(r => typeof r.max_batch === 'number'), 'catalog rows: ' + cat.length);
  // The API module carries the importer, so importConfig works in the page as in the headless file.
  const imp = await page.evaluate(() => window.vramcalc.importConfig('vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 8192'));
  assert(imp.format && imp.scenario.tp === 2 && imp.scenario.max_model_len === 8192, 'importConfig: ' + JSON.stringify(imp).slice(0, 300));
  assert(page.errors.length === 0, 'console errors with both modules on the page: ' + page.errors.join(' | '));
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
  // A pasted model or GPU whose keys have the wrong JSON type: the bill or the reader's error, no crash
  // (the form once read a layer stack's "name": 5 as a string, and the page stopped drawing).
  const b64 = j => Buffer.from(JSON.stringify(j)).toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  await p.evaluate(h => { location.hash = h; }, '#v=1&config=' + b64({input: [3, 32, 32], layers: [{type: 'flatten'}], name: 5}));
  await waitSummary(p, t => /^layer stack on .* GiB/.test(t));
  await p.evaluate(() => { location.hash = '#v=1&model=gpt2&gpu.name=5&gpu.memory_gib=%22abc%22'; });
  await waitSummary(p, t => /gpu\.name: got 5/.test(t) && /gpu\.memory_gib/.test(t));
  assert(p.errors.length === 0, 'console errors: ' + p.errors.join(' | '));
  await p.close();
});
// The page's wasm carries no config.json or layer-stack reader (core/src/model/config_reader.hpp): its model
// presets arrive read, and a config.json or layer stack a scenario names (a layer-stack preset too) is read by
// the importer's module, loaded then and not before.
await check('a link carrying a config.json, or naming a layer-stack preset, loads the model reader then, says so meanwhile, and gives the CLI\'s bill', async () => {
  const config = JSON.parse(fs.readFileSync(new URL('../../presets/models/qwen2.5-0.5b.json', import.meta.url), 'utf8')).config;
  const b64 = j => Buffer.from(JSON.stringify(j)).toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  const p = await browser.newPage({viewport: {width: 1360, height: 900}});
  p.errors = [];
  p.on('pageerror', e => p.errors.push(String(e)));
  let release;
  const held = new Promise(r => { release = r; });
  await p.route('**/vramcalc-import.js', async route => { await held; await route.continue(); });
  await p.goto(base + '#v=1&config=' + b64(config) + '&method=lora&gpu=rtx-4090');
  await p.waitForFunction(() => window.vramcalcPage && window.vramcalcPage.firstFrameMs !== null, null, {timeout: 20000});
  const waiting = await waitSummary(p, t => /reading this model/.test(t));
  assert(/model reader is loading/.test(waiting), 'while the reader loads: ' + waiting);
  fs.writeFileSync(path.join(out, 'screenshot-model-reader-loading.png'), await p.screenshot());
  release();
  const bill = cliBill({model: config, method: 'lora', gpu: 'rtx-4090'});
  const gib = (bill.per_gpu.device_bytes / 2 ** 30).toFixed(2) + ' GiB';
  let s = '';
  for (let i = 0; i < 400 && !s.includes(gib); i++) { s = await summary(p); await p.waitForTimeout(50); }
  assert(s.includes(gib) && !/reading this model/.test(s), `summary ${s}\n lacks the CLI's ${gib}`);
  assert(p.errors.length === 0, 'console errors: ' + p.errors.join(' | '));
  await p.close();
  // A layer-stack preset is read by the same module on first use, to the CLI's bill.
  const r = await open(base + '#v=1&model=resnet50&method=full&micro_batch=32&gpu=rtx-4090');
  const cnn = cliBill({model: 'resnet50', method: 'full', micro_batch: 32, gpu: 'rtx-4090'});
  const cnnGib = (cnn.per_gpu.device_bytes / 2 ** 30).toFixed(2) + ' GiB';
  s = '';
  for (let i = 0; i < 400 && !s.includes(cnnGib); i++) { s = await summary(r); await r.waitForTimeout(50); }
  assert(s.includes(cnnGib), `ResNet-50: summary ${s}\n lacks the CLI's ${cnnGib}`);
  assert(r.errors.length === 0, 'console errors: ' + r.errors.join(' | '));
  await r.close();
  // A preset scenario starts without it.
  const q = await open(base + '#v=1&model=qwen2.5-0.5b&method=lora&gpu=rtx-4090');
  await waitSummary(q, t => /GiB/.test(t));
  await q.waitForTimeout(300);
  const loaded = await q.evaluate(() => performance.getEntriesByType('resource').filter(e => /vramcalc-import\./.test(e.name)).length);
  assert(loaded === 0, 'a preset scenario loaded the model reader');
  await q.close();
});
await check('a bad value marks its own field and the form keeps every other value', async () => {
  const good = '#v=1&model=llama-3.1-8b&method=qlora&seq_len=4096';
  const p = await open(base + good);
  await waitSummary(p, t => /GiB/.test(t));
  const field = ptr => p.evaluate(q => vramcalcPage.formField(q), ptr);
  const keys = ['/method', '/seq_len', '/framework', '/precision', '/optimizer', '/lora/rank'];
  const before = {};
  for (const k of keys) before[k] = (await field(k)).value;
  assert(before['/method'] === 'qlora' && before['/seq_len'] === 4096, 'the valid scenario shows ' + JSON.stringify(before));
  await p.evaluate(h => { location.hash = h + '&micro_batch=abc&gpu=no-such-gpu'; }, good);
  await waitSummary(p, t => /problems/.test(t) && /micro_batch/.test(t));
  const mb = await field('/micro_batch');
  assert(/abc/.test(mb.error) && Number.isInteger(mb.value), 'micro_batch not marked, or no value shown: ' + JSON.stringify(mb));
  for (const k of keys) {
    const f = await field(k);
    assert(f.value === before[k] && !f.error, `${k} shows ${JSON.stringify(f)} beside the bad values, ${before[k]} without them`);
  }
  // A model the default workload refuses (hybrid Mamba: inference only) keeps the form filled too.
  await p.evaluate(() => { location.hash = '#v=1&model=nvidia-nemotron-3-nano-30b-a3b'; });
  await waitSummary(p, t => /problems/.test(t) && /Mamba/.test(t));
  for (const ptr of ['/framework', '/method', '/precision', '/optimizer', '/seq_len']) {
    const f = await field(ptr);
    assert(f.value !== null && f.value !== '', `${ptr} is blank after the refusal: ${JSON.stringify(f)}`);
  }
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
// Idle: the page must schedule no animation frame at all (not merely skip drawing).
async function idleFrames(p, ms) {
  await p.waitForTimeout(800);  // the frames after the last input settle
  const before = await p.evaluate(() => window.rafCount);
  const cdp = await p.context().newCDPSession(p);
  await cdp.send('Performance.enable');
  const m0 = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map(m => [m.name, m.value]));
  await p.waitForTimeout(ms);
  const m1 = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map(m => [m.name, m.value]));
  const after = await p.evaluate(() => window.rafCount);
  await cdp.detach();
  return {frames: after - before, taskMsPerS: 1000 * (m1.TaskDuration - m0.TaskDuration) / (ms / 1000)};
}
await check('idle: no requestAnimationFrame callback in 5 s without input', async () => {
  const idle = await idleFrames(page, 5000);
  metrics.idle_raf_per_s = idle.frames / 5;
  metrics.idle_main_thread_ms_per_s = +idle.taskMsPerS.toFixed(2);
  assert(idle.frames === 0, `${idle.frames} animation frames in 5 idle seconds`);
});
await check('input wakes the page and a click changes the scenario', async () => {
  const before = await page.evaluate(() => window.vramcalcPage.framesDrawn());
  await page.mouse.move(300, 300);
  await page.mouse.move(320, 310);
  let after = before;
  for (let i = 0; i < 40 && after === before; i++) {  // polled: a loaded 2-core runner may take a while to draw
    await page.waitForTimeout(50);
    after = await page.evaluate(() => window.vramcalcPage.framesDrawn());
  }
  assert(after > before, 'no frame within 2 s of mouse movement');
  const idle = await idleFrames(page, 1500);
  assert(idle.frames === 0, `the page did not go idle again: ${idle.frames} frames`);
});

// The wheel, as a mouse gives it: deltaY 100 is one notch down (Chromium's size of a notch).
const scrollAt = (p, x, y) => p.evaluate(([x, y]) => window.vramcalcPage.scrollOf(x, y), [x, y]);
await check('one wheel notch down over the inputs scrolls them down, by less than a panel', async () => {
  const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora', {width: 1400, height: 900});
  const [x, y] = [230, 560];  // the inputs panel (left column), below the model list
  await p.mouse.move(x, y);
  await p.waitForTimeout(200);
  const top = await scrollAt(p, x, y);
  await p.mouse.wheel(0, -100);  // up at the top: nothing to scroll
  await p.waitForTimeout(200);
  assert(await scrollAt(p, x, y) === top, 'a notch up at the top moved the panel');
  await p.mouse.wheel(0, 100);
  let moved = 0;
  for (let i = 0; i < 40 && moved === 0; i++) {
    await p.waitForTimeout(50);
    moved = (await scrollAt(p, x, y)) - top;
  }
  metrics.wheel_notch_px = moved;
  assert(moved > 20 && moved < 700, `one notch down moved the inputs by ${moved} px (want down, less than a panel)`);
  await p.mouse.wheel(0, 3);  // a trackpad's small step moves about as much
  let small = 0;
  for (let i = 0; i < 40 && small === 0; i++) {
    await p.waitForTimeout(50);
    small = (await scrollAt(p, x, y)) - top - moved;
  }
  metrics.trackpad_3px_step_px = small;
  assert(small >= 1 && small <= 6, `a 3 px trackpad step moved ${small} px`);
  await p.mouse.wheel(0, -100);
  let back = Infinity;
  for (let i = 0; i < 40 && back >= 2; i++) {
    await p.waitForTimeout(50);
    back = Math.abs((await scrollAt(p, x, y)) - top - small);
  }
  assert(back < 2, 'a notch up did not come back');
  await p.close();
});

await check('a one-finger drag scrolls on a 390x844 phone (3x, touch)', async () => {
  const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora', {width: 390, height: 844},
                       {deviceScaleFactor: 3, hasTouch: true, isMobile: true});
  await waitSummary(p, t => /GiB/.test(t));
  await p.waitForTimeout(300);
  const before = await scrollAt(p, 200, 400);
  const cdp = await p.context().newCDPSession(p);
  const touch = (type, y) => cdp.send('Input.dispatchTouchEvent', {type, touchPoints: type === 'touchEnd' ? [] : [{x: 200, y}]});
  await touch('touchStart', 650);
  for (let y = 630; y >= 350; y -= 20) await touch('touchMove', y);
  await p.waitForTimeout(150);  // the finger held still before it lifts: no fling
  await touch('touchEnd');
  let after = before;
  for (let i = 0; i < 60 && after === before; i++) {
    await p.waitForTimeout(50);
    after = await scrollAt(p, 200, 400);
  }
  metrics.touch_drag_300px_scrolls_px = after - before;
  assert(after - before > 200 && after - before < 400, `a 300 px drag upwards scrolled ${after - before} px (want ~300, content following the finger)`);
  // A tap on the canvas is a click: it must not scroll.
  await cdp.send('Input.dispatchTouchEvent', {type: 'touchStart', touchPoints: [{x: 20, y: 20}]});
  await cdp.send('Input.dispatchTouchEvent', {type: 'touchEnd', touchPoints: []});
  await p.waitForTimeout(200);
  assert(Math.abs((await scrollAt(p, 200, 400)) - after) < 1, 'a tap scrolled');
  const png = await p.screenshot();
  fs.writeFileSync(path.join(out, 'screenshot-phone-scrolled.png'), png);
  assert(p.errors.length === 0, 'console errors: ' + p.errors.join(' | '));
  await cdp.detach();
  await p.close();
});

await check('on a phone a tap on a text field opens the keyboard, and what is typed reaches the field', async () => {
  const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora', {width: 390, height: 844},
                       {deviceScaleFactor: 3, hasTouch: true, isMobile: true});
  await waitSummary(p, t => /GiB/.test(t));
  await p.waitForTimeout(300);
  const cdp = await p.context().newCDPSession(p);
  const tap = async ([x, y]) => {
    await cdp.send('Input.dispatchTouchEvent', {type: 'touchStart', touchPoints: [{x, y}]});
    await cdp.send('Input.dispatchTouchEvent', {type: 'touchEnd', touchPoints: []});
    await p.waitForTimeout(150);
  };
  const at = label => p.evaluate(l => window.vramcalcPage.controlAt(l), label);
  // Software rendering of a 3x phone canvas is slow on a busy machine: wait for each effect, up to 3 s.
  const until = async (fn, what) => {
    let last;
    for (let i = 0; i < 60; i++) {
      last = await p.evaluate(fn);
      if (last === what) return;
      await p.waitForTimeout(50);
    }
    throw new Error(`wanted ${JSON.stringify(what)}, last ${JSON.stringify(last)}`);
  };
  const focused = () => document.activeElement && document.activeElement.id;
  const typed = () => window.vramcalcPage.activeText();
  const tree = await at('Choose another model');
  assert(tree, 'the folded model list is not on the first screen');
  await tap(tree);
  let field = null;
  for (let i = 0; i < 60 && !field; i++) {
    field = await at('##filter');
    if (!field) await p.waitForTimeout(50);
  }
  assert(field, 'a tap did not unfold the model list');
  await tap(field);
  await until(focused, 'text-input');  // a DOM input has the focus: the on-screen keyboard opens
  await p.keyboard.type('qwen');
  await until(typed, 'qwen');
  await p.keyboard.press('Backspace');
  await until(typed, 'qwe');
  await p.keyboard.press('Enter');
  await until(focused, 'canvas');      // editing ended: the keyboard closes
  await tap(field);                    // a tap selects the search's text: what is typed replaces it
  await until(focused, 'text-input');
  await p.keyboard.type('l');
  await until(typed, 'l');
  await p.keyboard.press('Enter');
  await until(focused, 'canvas');
  assert(p.errors.length === 0, 'console errors: ' + p.errors.join(' | '));
  await cdp.detach();
  await p.close();
});

await check('an embedded 800x500 frame lets its host page scroll with the wheel over it', async () => {
  const host = await browser.newPage({viewport: {width: 1000, height: 700}});
  await host.goto(base + 'test-host.html');
  const frame = await (await host.waitForSelector('#calc')).contentFrame();
  await frame.waitForFunction(() => window.vramcalcPage && window.vramcalcPage.firstFrameMs !== null, null, {timeout: 20000});
  await host.waitForTimeout(300);
  await host.mouse.move(400, 500);  // over the frame (it spans 300..800 of the host)
  let scrolled = 0;
  for (let i = 0; i < 30 && scrolled === 0; i++) {
    await host.mouse.wheel(0, 100);
    await host.waitForTimeout(60);
    scrolled = await host.evaluate(() => window.scrollY);
  }
  assert(scrolled > 0, 'the host page never scrolled with the wheel over the frame');
  const heights = await host.evaluate(() => window.heights);
  assert(heights.length > 0 && heights[heights.length - 1] > 100, 'no content height posted to the host: ' + JSON.stringify(heights));
  metrics.embed_content_height_px = heights[heights.length - 1];
  await host.close();
});

await check('Tab walks the controls across both panels and reaches the GPU selector', async () => {
  const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora', {width: 1400, height: 900});
  assert(await p.evaluate(() => document.activeElement && document.activeElement.id === 'canvas'), 'the canvas has no focus on load');
  const seen = [];
  for (let i = 0; i < 80; i++) {
    const before = seen.length ? seen[seen.length - 1] : null;
    await p.keyboard.press('Tab');
    let f = before;
    for (let j = 0; j < 40 && f === before; j++) {  // until the frame that moves the focus has run
      await p.waitForTimeout(25);
      f = await p.evaluate(() => window.vramcalcPage.navFocus());
    }
    seen.push(f);
    if (f === 'GPU selector') break;
  }
  assert(seen[seen.length - 1] === 'GPU selector', 'Tab never reached the GPU selector: ' + seen.join(' | '));
  metrics.tabs_to_gpu_selector = seen.length;
  await p.keyboard.press('Shift+Tab');
  let back = 'GPU selector';
  for (let j = 0; j < 40 && back === 'GPU selector'; j++) {  // until the frame that moves the focus has run (a 2-core CI runner is slow)
    await p.waitForTimeout(25);
    back = await p.evaluate(() => window.vramcalcPage.navFocus());
  }
  assert(back !== 'GPU selector', 'Shift+Tab did not move back within 1 s');
  await p.keyboard.press('Tab');
  await p.waitForTimeout(100);
  fs.writeFileSync(path.join(out, 'screenshot-keyboard-focus.png'), await p.screenshot());
  await p.close();
});

await check('the embed snippet the page offers is the one docs/embedding.md shows', async () => {
  const docs = fs.readFileSync(new URL('../../docs/embedding.md', import.meta.url), 'utf8');
  const block = docs.match(/```html\n(<iframe[\s\S]*?<\/iframe>)\n```/);
  assert(block, 'docs/embedding.md has no iframe snippet');
  const offered = await page.evaluate(() => window.vramcalcPage.embedSnippet());
  const norm = t => t.replace(/src="[^"]*"/, 'src="…"');
  assert(norm(offered) === norm(block[1]), `differs:\n page: ${offered}\n docs: ${block[1]}`);
  assert(/[?&]embed=1#v=1&amp;/.test(offered), 'the offered src is not an embed link: ' + offered);
});

// Screenshots at the sizes people use; nothing of the verdict may be cut off (it wraps).
for (const [name, viewport, options, url] of [
  ['1400x900', {width: 1400, height: 900}, {}, ''],
  ['1280x720', {width: 1280, height: 720}, {}, ''],
  ['390x844', {width: 390, height: 844}, {deviceScaleFactor: 3, hasTouch: true, isMobile: true}, ''],
  ['embed-800x500', {width: 800, height: 500}, {}, '?embed=1'],
]) {
  await check(`screenshot ${name} is not blank`, async () => {
    const p = await open(base + url + '#v=1&model=qwen2.5-7b&method=lora&lora.rank=16&lora.targets=all-linear&micro_batch=4&seq_len=2048&gpu=rtx-4090', viewport, options);
    await waitSummary(p, t => /RTX 4090/.test(t));
    await p.waitForTimeout(300);
    const png = await p.screenshot();
    fs.writeFileSync(path.join(out, `screenshot-${name}.png`), png);
    const st = await pixelStats(p, png);
    assert(st.colours > 20 && st.ink > 0.03, `looks blank: ${JSON.stringify(st)}`);
    assert(p.errors.length === 0, 'console errors: ' + p.errors.join(' | '));
    await p.close();
  });
}


// A fake Hugging Face Hub on another origin serving tests/data/checkpoints/hub/<org>/<model>/<file> (and
// tests/data/checkpoints/<file> as fixtures/checkpoints): header-only files whose data region is virtual
// (zeros up to the end the header states), so Range requests are answered as a real server would without
// the weights existing. `range: false` answers every request with the whole file (200), `cors: false`
// sends no Access-Control-Allow-Origin. Every request is logged; a 200 body records how much was sent.
const checkpoints = new URL('../data/checkpoints/', import.meta.url).pathname;
function virtualSize(file) {
  const b = fs.readFileSync(file);
  if (file.endsWith('.safetensors')) {
    const n = Number(b.readBigUInt64LE(0));
    const h = JSON.parse(b.subarray(8, 8 + n).toString());
    return 8 + n + Math.max(0, ...Object.entries(h).filter(([k]) => k !== '__metadata__').map(([, t]) => t.data_offsets[1]));
  }
  return file.endsWith('.gguf') ? b.length + (16 << 20) : b.length;
}
async function fakeHub({range = true, cors = true} = {}) {
  const log = [];
  const srv = http.createServer((req, res) => {
    const entry = {method: req.method, path: decodeURIComponent(new URL(req.url, 'http://x').pathname), range: req.headers.range || null};
    log.push(entry);
    const head = cors ? {'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Range'} : {};
    if (req.method === 'OPTIONS') { res.writeHead(204, head).end(); return; }
    const m = entry.path.match(/^\/([^/]+)\/([^/]+)\/resolve\/main\/(.+)$/);
    const file = m && (m[1] === 'fixtures' && m[2] === 'checkpoints' ? path.join(checkpoints, m[3]) : path.join(checkpoints, 'hub', m[1], m[2], m[3]));
    if (!file || !file.startsWith(checkpoints) || !fs.existsSync(file)) { res.writeHead(404, head).end(); return; }
    const bytes = fs.readFileSync(file), size = file.endsWith('.json') ? bytes.length : virtualSize(file);
    const slice = (a, b) => {  // bytes a..b-1 of the virtual file
      const out = Buffer.alloc(b - a);
      if (a < bytes.length) bytes.copy(out, 0, a, Math.min(b, bytes.length));
      return out;
    };
    const r = range && entry.range && entry.range.match(/^bytes=(\d+)-(\d+)$/);
    if (r) {
      const a = Number(r[1]), b = Math.min(Number(r[2]) + 1, size);
      if (a >= size) { res.writeHead(416, head).end(); return; }
      res.writeHead(206, {...head, 'Content-Range': `bytes ${a}-${b - 1}/${size}`, 'Content-Length': b - a});
      res.end(slice(a, b));
      return;
    }
    // The whole file: streamed 1 MiB at a time as the client reads it, so a client that stops reading
    // (the page aborts) stops the server too; entry.sent says how far it got.
    res.writeHead(200, {...head, 'Content-Length': size});
    entry.sent = 0;
    const more = () => {
      while (entry.sent < size && !res.destroyed) {
        const n = Math.min(1 << 20, size - entry.sent);
        const ok = res.write(slice(entry.sent, entry.sent + n));
        entry.sent += n;
        if (!ok) { res.once('drain', more); return; }
      }
      if (entry.sent >= size) res.end();
    };
    res.on('close', () => { entry.closed = true; });
    more();
  });
  await new Promise(r => srv.listen(0, '127.0.0.1', r));
  return {url: `http://127.0.0.1:${srv.address().port}`, log, close: () => { srv.closeAllConnections(); srv.close(); }};
}
function cliWeights(dir) {
  return JSON.parse(execFileSync(cli, ['weights', path.join(checkpoints, dir), '--json'], {encoding: 'utf8'}));
}
// Opens the Hub section of the model panel, types a Hub id and clicks a button there.
// The centre of the control labelled `label` once the page draws it.
async function waitAt(p, label) {
  for (let i = 0; i < 60; i++) {
    const c = await p.evaluate(l => window.vramcalcPage.controlAt(l), label);
    if (c) return c;
    await p.waitForTimeout(50);
  }
  throw new Error('control not drawn: ' + label);
}
async function hubAction(p, id, button) {
  const at = label => p.evaluate(l => window.vramcalcPage.controlAt(l), label);
  if (!await at('##hub')) await p.mouse.click(...await waitAt(p, 'Any Hugging Face model, or a config you run with'));
  let typed = '';
  for (let attempt = 0; attempt < 5 && typed !== id; attempt++) {  // a busy machine may drop a key: type again
    await p.mouse.click(...await waitAt(p, '##hub'));
    await p.waitForTimeout(100);
    await p.keyboard.press('Control+A');
    await p.keyboard.type(id, {delay: 5});
    for (let i = 0; i < 40 && typed !== id; i++) {
      await p.waitForTimeout(50);
      typed = await p.evaluate(() => window.vramcalcPage.activeText());
    }
  }
  assert(typed === id, `typed ${JSON.stringify(typed)} into the Hub id field, wanted ${id}`);
  await p.mouse.click(...await waitAt(p, button));
}
const READ = 'Read exact weight bytes from the checkpoint';
const dtypes = s => Object.fromEntries([...(s.split('\nCheckpoint: ')[1] || '').matchAll(/; (\S+) (\d+) B/g)].map(m => [m[1], Number(m[2])]));
const servingScenario = '#v=1&model=llama-3-8b&workload=infer&framework=vllm&gpu=h100-80gb';

await check('checkpoint headers over HTTP Range: exact bytes per dtype (GPTQ, FP8 sharded, bf16, GGUF) as the CLI reads them', async () => {
  const hub = await fakeHub();
  const p = await open(base + servingScenario, {width: 1400, height: 1100}, {}, hub.url);
  await waitSummary(p, t => /GiB/.test(t));
  await p.waitForTimeout(1000);
  assert(hub.log.length === 0, 'the page asked the Hub for something before any click: ' + JSON.stringify(hub.log));
  assert(!served.includes('vramcalc-checkpoint.js'), 'the checkpoint reader was loaded before any click');
  // The config first (the Hub's config.json, as a user fetches it), then the checkpoint's headers.
  await hubAction(p, 'neuralmagic/Meta-Llama-3-8B-Instruct-FP8', 'Fetch');
  await waitSummary(p, t => hub.log.length > 0);
  const cases = [['neuralmagic/Meta-Llama-3-8B-Instruct-FP8', 'hub/neuralmagic/Meta-Llama-3-8B-Instruct-FP8'],
                 ['Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4', 'hub/Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4'],
                 ['Qwen/Qwen2.5-0.5B', 'hub/Qwen/Qwen2.5-0.5B'],
                 ['fixtures/checkpoints/q4_k-layer.gguf', 'q4_k-layer.gguf']];
  for (const [id, dir] of cases) {
    const before = hub.log.length;
    await hubAction(p, id, READ);
    const repo = id.split('/').slice(0, 2).join('/');
    const s = await waitSummary(p, t => t.includes('\nCheckpoint: ' + repo + ':') || t.includes('of ' + repo + ':'));
    const want = cliWeights(dir);
    const got = dtypes(s);
    assert(JSON.stringify(got) === JSON.stringify(Object.fromEntries(Object.entries(want.by_dtype).map(([d, v]) => [d, v.bytes]))),
           `${id}: page ${JSON.stringify(got)} vs CLI ${JSON.stringify(want.by_dtype)}`);
    const hash = await p.evaluate(() => location.hash);
    assert(hash.includes('checkpoint_bytes=' + want.checkpoint_bytes), `${id}: hash lacks checkpoint_bytes=${want.checkpoint_bytes}: ${hash}`);
    // Headers only: every weights-file request is a Range request, a few KB each; no 200 body of weights.
    const reqs = hub.log.slice(before).filter(r => r.method === 'GET');
    const files = reqs.filter(r => !r.path.endsWith('.json'));
    assert(files.length > 0 && files.every(r => r.range && r.sent === undefined), `${id}: a weights file was asked for without Range: ${JSON.stringify(reqs)}`);
    assert(files[0].range === 'bytes=0-7', `${id}: the first range is ${files[0].range}`);
    metrics[`checkpoint_${id.split('/')[1]}_requests`] = reqs.length;
  }
  // FP8: the index, then bytes 0-7 and the header of each of its two shards.
  const fp8 = hub.log.filter(r => r.path.includes('FP8') && r.method === 'GET' && !r.path.endsWith('config.json'));
  assert(fp8.length === 5 && fp8[0].path.endsWith('model.safetensors.index.json') && fp8[0].range === null, 'FP8 requests: ' + JSON.stringify(fp8));
  fs.writeFileSync(path.join(out, 'screenshot-checkpoint.png'), await p.screenshot());
  // The browser logs the index's 404 of the single-file repositories (the reader then reads model.safetensors).
  const errors = p.errors.filter(e => !/status of 404/.test(e));
  assert(errors.length === 0, 'console errors: ' + errors.join(' | '));
  await p.close();
  hub.close();
});

for (const [what, options, message] of [['without Range support', {range: false}, /ignored the Range request \(HTTP 200/],
                                        ['without CORS headers', {cors: false}, /no CORS headers/]]) {
  await check(`a Hub server ${what} gives a clear message and the weights stay counted from the config`, async () => {
    const hub = await fakeHub(options);
    const p = await open(base + servingScenario + '&checkpoint_bytes=1000', {width: 1400, height: 1100}, {}, hub.url);
    await waitSummary(p, t => /GiB/.test(t));
    await hubAction(p, 'neuralmagic/Meta-Llama-3-8B-Instruct-FP8', READ);
    const s = await waitSummary(p, t => /Could not read the checkpoint/.test(t));
    assert(message.test(s) && /model-0000[12]-of-00002\.safetensors|model\.safetensors\.index\.json/.test(s) && /counted from config\.json/.test(s),
           'message: ' + s);
    const hash = await p.evaluate(() => location.hash);
    assert(!hash.includes('checkpoint_bytes'), 'checkpoint_bytes kept after the failure: ' + hash);
    const bill = cliBill({model: 'llama-3-8b', workload: 'infer', framework: 'vllm', gpu: 'h100-80gb'});
    assert(s.includes((bill.per_gpu.device_bytes / 2 ** 30).toFixed(2) + ' GiB'), 'the bill is not the config count: ' + s);
    if (options.range === false) {  // the whole-file answer was cut off, not downloaded
      await p.waitForTimeout(300);
      const whole = hub.log.filter(r => r.sent !== undefined && !r.path.endsWith('.json'));
      assert(whole.length === 1 && whole[0].sent < (64 << 20) && whole[0].closed, 'the 200 body was not aborted: ' + JSON.stringify(whole));
      metrics.no_range_bytes_sent_before_abort = whole[0].sent;
    }
    assert(p.errors.filter(e => !/CORS|Failed to load resource|net::ERR/.test(e)).length === 0, 'console errors: ' + p.errors.join(' | '));
    await p.close();
    hub.close();
  });
}

await check('the serving matrix is drawn for vLLM and llama.cpp scenarios, at 1400 px and on a 390 px phone', async () => {
  for (const [fw, viewport, options, name] of [['vllm', {width: 1400, height: 1100}, {}, 'serving-1400'],
                                               ['llama.cpp', {width: 390, height: 844}, {deviceScaleFactor: 3, hasTouch: true, isMobile: true}, 'serving-390']]) {
    const p = await open(base + `#v=1&model=llama-3.1-8b&workload=infer&framework=${fw}&gpu=rtx-4090`, viewport, options);
    const s = await waitSummary(p, t => /Serving, the most concurrent sequences per context: 1k \d+/.test(t));
    const bill = cliBill({model: 'llama-3.1-8b', workload: 'infer', framework: fw, gpu: 'rtx-4090'});
    const m = bill.serving_matrix;
    const line = m.contexts.map((c, i) => `${c % 1024 ? c : c / 1024 + 'k'} ${m.max_concurrency[i]}`).join(', ');
    assert(s.includes(line), `summary ${s}\n lacks the CLI's matrix ${line}`);
    // Wheel the answers (the right column; a phone has one) until the grid is drawn on screen.
    const x = viewport.width > 600 ? viewport.width * 0.7 : viewport.width / 2, h = viewport.height;
    await p.mouse.move(x, h / 2);
    let at = null;
    for (let i = 0; i < 80; i++) {
      at = await p.evaluate(() => window.vramcalcPage.controlAt('serving matrix'));
      if (at && at[1] > 40 && at[1] < h - 40) break;
      await p.mouse.wheel(0, at && at[1] < 40 ? -200 : 200);
      await p.waitForTimeout(80);
      at = null;
    }
    assert(at, 'the serving matrix was never drawn');
    await p.waitForTimeout(200);
    fs.writeFileSync(path.join(out, `screenshot-${name}.png`), await p.screenshot());
    assert(p.errors.length === 0, 'console errors: ' + p.errors.join(' | '));
    await p.close();
  }
});

// Another tool's config dropped on the page, as a person drags a file from their desktop: the importer
// (vramcalc-import.js) loads on that drop, not before, and the scenario takes what the CLI's import gives.
const importsDir = new URL('../data/imports/', import.meta.url).pathname;
async function dropFile(p, name, text) {
  const dt = await p.evaluateHandle(([n, t]) => { const d = new DataTransfer(); d.items.add(new File([t], n)); return d; }, [name, text]);
  await p.dispatchEvent('#canvas', 'drop', {dataTransfer: dt});
}
async function waitStatus(p, pred) {
  let s = '';
  for (let i = 0; i < 200; i++) {
    s = await p.evaluate(() => window.vramcalcPage.status());
    if (pred(s)) return s;
    await p.waitForTimeout(50);
  }
  throw new Error('status never matched; last: ' + s);
}
function flat(obj, prefix = '') {
  return Object.entries(obj).flatMap(([k, v]) => v && typeof v === 'object' && !Array.isArray(v) ? flat(v, prefix + k + '.') :
                                                Array.isArray(v) ? [] : [[prefix + k, v]]);
}
await check("another tool's config dropped on the page loads the importer then, and imports as the CLI does", async () => {
  const servedBefore = served.length;  // earlier checks load it too (a config.json is read by the same module)
  const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora&gpu=rtx-4090');
  await waitSummary(p, t => /GiB/.test(t));
  assert(!served.slice(servedBefore).includes('vramcalc-import.js'), 'the importer was loaded before any config was dropped');
  const manifest = JSON.parse(fs.readFileSync(path.join(importsDir, 'manifest.json'), 'utf8'));
  for (const file of ['vllm_serve_qwen3_14b.sh', 'deepspeed_ds_z3_offload_config.json', 'axolotl_llama3_qlora.yml']) {
    const want = manifest.fixtures.find(f => f.file === file);
    await dropFile(p, file, fs.readFileSync(path.join(importsDir, file), 'utf8'));
    const status = await waitStatus(p, t => t.startsWith('Imported') && t.includes(file));
    const line = `Imported ${want.format} config ${file}: ${want.read} keys read, ${want.ignored} ignored, ${want.unknown.length} unknown`;
    assert(status.startsWith(line), `status "${status}"\n wanted "${line}"`);
    await p.waitForTimeout(100);
    const hash = Object.fromEntries((await p.evaluate(() => location.hash)).slice(1).split('&').map(kv => kv.split('=').map(decodeURIComponent)));
    for (const [k, v] of flat(want.scenario)) {
      const got = hash[k];
      assert(typeof v === 'number' ? Number(got) === v : got === String(v), `${file}: the page's ${k} is ${got}, the CLI's import gives ${v}`);
    }
    // The training recipes after the vLLM line: the server's tensor parallelism does not carry over.
    if (want.scenario.workload === 'train') assert(!('tp' in hash), `${file}: the serving line's tp stayed: ${JSON.stringify(hash)}`);
  }
  // Text that is no supported config: an error naming why, and the scenario stays.
  const before = await p.evaluate(() => location.hash);
  await dropFile(p, 'broken.yaml', 'trainer:\n  lr: [1, 2\n');
  const status = await waitStatus(p, t => t.startsWith('broken.yaml: '));
  assert(/line \d+/.test(status), 'the error does not name the line: ' + status);
  assert(await p.evaluate(() => location.hash) === before, 'a config that failed to import changed the scenario');
  assert(served.slice(servedBefore).filter(f => f === 'vramcalc-import.js').length === 1, 'the importer was fetched more than once');
  fs.writeFileSync(path.join(out, 'screenshot-import-error.png'), await p.screenshot());
  assert(p.errors.length === 0, 'console errors: ' + p.errors.join(' | '));
  await p.close();
});

// Issue 42: input the page refuses is refused on the page, by name and reason, and the scenario stays:
// a file past the 8 MiB limit, a NUL byte, duplicate keys (the CLI's and the API's checks), and a link too
// long to share. The JS API's ready rejects when its wasm cannot be fetched.
await check('files and links the page refuses say why on the page, and vramcalc.ready rejects when its wasm is missing', async () => {
  const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora&gpu=rtx-4090');
  await waitSummary(p, t => /GiB/.test(t));
  const before = await p.evaluate(() => location.hash);
  const cases = [
    ['huge.json', '{"model": "gpt2", "pad": "' + 'x'.repeat(9 << 20) + '"}', /huge\.json: is 9\.0 MiB; a config or scenario is at most 8 MiB/],
    ['nul.json', '{"model": "gpt2"}\u0000{"model": "llama-3.1-8b"}', /nul\.json: holds a NUL byte at offset 17/],
    ['twice.json', '{"model": "gpt2", "model": "llama-3.1-8b"}', /twice\.json: duplicate key "model"/],
    ['config.json', '{"model_type": "llama", "hidden_size": 64, "hidden_size": 128}', /config\.json: duplicate key "hidden_size"/],
  ];
  for (const [name, text, want] of cases) {
    await dropFile(p, name, text);
    const status = await waitStatus(p, t => t.startsWith(name + ': '));
    assert(want.test(status), `${name}: status "${status.slice(0, 200)}"`);
    assert(await p.evaluate(() => location.hash) === before, `${name} changed the scenario`);
  }
  fs.writeFileSync(path.join(out, 'screenshot-refused-input.png'), await p.screenshot());
  assert(p.errors.length === 0, 'console errors: ' + p.errors.join(' | '));
  await p.close();

  const q = await browser.newPage();
  await q.route('**/vramcalc-api.wasm', r => r.fulfill({status: 404, body: 'gone'}));
  await q.goto(base);
  const outcome = await q.evaluate(() => Promise.race([
    window.vramcalc.ready.then(() => 'resolved', e => 'rejected: ' + e.message),
    new Promise(r => setTimeout(() => r('never settled'), 15000))]));
  assert(outcome.startsWith('rejected: vramcalc could not start'), 'vramcalc.ready: ' + outcome);
  await q.close();
});

await check('a print(model) pasted into the layer-stack editor is converted by the importer module, and the stack is used', async () => {
  // print(nn.Sequential(...)) of a small CNN on 32x32 inputs (tests/unit-torch-repr.cpp converts the same repr).
  const repr = ['Sequential(',
    '  (0): Conv2d(3, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))',
    '  (1): BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)',
    '  (2): ReLU(inplace=True)',
    '  (3): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)',
    '  (4): Flatten(start_dim=1, end_dim=-1)',
    '  (5): Linear(in_features=4096, out_features=10, bias=True)',
    ')'].join('\n');
  const p = await open(base + '#v=1&model=llama-3.1-8b', {width: 1400, height: 1100});
  await p.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await waitSummary(p, t => /GiB/.test(t));
  await p.mouse.click(...await waitAt(p, 'Layer stack (CNN, ViT, your own layers) as JSON'));
  // The repr through the clipboard, as a person pastes it (Ctrl+V in the field).
  await p.mouse.click(...await waitAt(p, '##repr'));
  await p.evaluate(t => navigator.clipboard.writeText(t), repr);
  await p.keyboard.press('Control+V');
  for (let i = 0; i < 40 && (await p.evaluate(() => window.vramcalcPage.activeText())) !== repr; i++) await p.waitForTimeout(50);
  assert(await p.evaluate(() => window.vramcalcPage.activeText()) === repr, 'the pasted repr did not reach the field');
  let typed = '';
  for (let attempt = 0; attempt < 5 && typed !== '3, 32, 32'; attempt++) {
    await p.mouse.click(...await waitAt(p, 'input shape per sample'));
    await p.keyboard.press('Control+A');
    await p.keyboard.type('3, 32, 32', {delay: 5});
    for (let i = 0; i < 40 && typed !== '3, 32, 32'; i++) {
      await p.waitForTimeout(50);
      typed = await p.evaluate(() => window.vramcalcPage.activeText());
    }
  }
  assert(typed === '3, 32, 32', 'typed input shape: ' + typed);
  await p.mouse.click(...await waitAt(p, 'Convert to layers'));
  await waitStatus(p, t => t.startsWith('Converted'));
  await p.mouse.click(...await waitAt(p, 'Use this stack'));
  const model = await (async () => {
    for (let i = 0; i < 60; i++) {
      const m = (await p.evaluate(() => window.vramcalcPage.formField('/model'))).value;
      if (m && typeof m === 'object') return m;
      await p.waitForTimeout(50);
    }
    return null;
  })();
  assert(model && JSON.stringify(model.input) === '[3,32,32]' && model.layers.length === 6, 'the stack in use: ' + JSON.stringify(model));
  // The page's bill for the converted stack is the CLI's for the same stack (the page's default workload).
  const gib = (cliBill({model}).per_gpu.device_bytes / 2 ** 30).toFixed(2);
  await waitSummary(p, t => t.includes(gib + ' GiB'));
  assert(p.errors.length === 0, 'console errors: ' + p.errors.join(' | '));
  await p.close();
});

await interactionChecks({base, open, check, assert, out, waitSummary, browser});

if (args.measure) {
  const pageFiles = ['index.html', 'page.js', 'vramcalc.js', 'vramcalc.wasm'];
  metrics.transfer_gzip_bytes = pageFiles.reduce((n, f) => n + zlib.gzipSync(fs.readFileSync(path.join(dist, f)), {level: 9}).length, 0);
  metrics.transfer_raw_bytes = pageFiles.reduce((n, f) => n + fs.statSync(path.join(dist, f)).size, 0);
  // First paint: the browser's first contentful paint, which is the HTML skeleton naming the scenario
  // (no figures: the skeleton test above); the calculator's first frame on the canvas, with the
  // verdict, is reported beside it.
  const firsts = [], fcps = [];
  for (let i = 0; i < 5; i++) {
    const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora');
    firsts.push(await p.evaluate(() => window.vramcalcPage.firstFrameMs));
    fcps.push(await p.evaluate(() => (performance.getEntriesByName('first-contentful-paint')[0] || {startTime: NaN}).startTime));
    await p.close();
  }
  firsts.sort((a, b) => a - b);
  fcps.sort((a, b) => a - b);
  metrics.first_paint_ms_median_of_5 = Math.round(fcps[2]);
  metrics.first_paint_ms_all = fcps.map(Math.round);
  metrics.canvas_first_frame_ms_median_of_5 = Math.round(firsts[2]);
  metrics.canvas_first_frame_ms_all = firsts.map(Math.round);
  metrics.catalog_solve_ms_in_page = +(await page.evaluate(() => window.vramcalcPage.timeCatalogSolve(50))).toFixed(3);
  // The largest input a change can carry (issue 42: each change within 100 ms of main thread): a 5,000-layer
  // stack of about 1 MB (the layer limit) dropped as a scenario, then the same stack at another micro-batch.
  {
    const layers = Array.from({length: 4990}, (_, i) => ({type: 'linear', out_features: 16, name: 'l' + i + '_' + 'x'.repeat(150)}));
    const stack = mb => JSON.stringify({model: {input: [16], layers}, workload: 'train', gpu: 'rtx-3060-12gb', micro_batch: mb});
    const p = await open(base + '#v=1&model=llama-3.1-8b', {width: 1360, height: 2400});  // every control on screen
    const cdp = await p.context().newCDPSession(p);
    await cdp.send('Performance.enable');
    const task = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map(m => [m.name, m.value])).TaskDuration;
    const times = [];
    // The same kind of change on the default scenario first: headless Chromium draws WebGL in software
    // (SwiftShader), so most of a change's main thread is drawing, the same for any scenario.
    {
      const t0 = await task();
      await p.mouse.click(...await waitAt(p, '+'));
      await p.waitForTimeout(800);
      metrics.default_form_change = {compute_ms: +(await p.evaluate(() => window.vramcalcPage.computeMs())).toFixed(1),
                                     main_thread_ms: Math.round(1000 * (await task() - t0))};
    }
    for (const [name, mb] of [['stack-a.json', 65536], ['stack-b.json', 4096]]) {
      const t0 = await task();
      await dropFile(p, name, stack(mb));
      await waitStatus(p, t => t.includes(name));
      await p.waitForTimeout(300);
      times.push({compute_ms: +(await p.evaluate(() => window.vramcalcPage.computeMs())).toFixed(1), main_thread_ms: Math.round(1000 * (await task() - t0))});
    }
    // A form change on that stack: the first "+" drawn (the GPU count's).
    const before = await p.evaluate(() => window.vramcalcPage.computeMs());
    const t0 = await task();
    await p.mouse.click(...await waitAt(p, '+'));
    await p.waitForTimeout(800);
    times.push({compute_ms: +(await p.evaluate(() => window.vramcalcPage.computeMs())).toFixed(1), main_thread_ms: Math.round(1000 * (await task() - t0)),
                recomputed: before !== await p.evaluate(() => window.vramcalcPage.computeMs())});
    metrics.largest_stack_form_change = times[2];
    metrics.largest_stack_bytes = stack(65536).length;
    metrics.largest_stack_first_drop = times[0];
    metrics.largest_stack_change = times[1];
    await cdp.detach();
    await p.close();
  }
  metrics.files_requested = [...new Set(served)].filter(f => !f.startsWith('examples/') && f !== 'test-host.html');
  console.log('page metrics: ' + JSON.stringify(metrics, null, 1));
  const gz = f => (zlib.gzipSync(fs.readFileSync(path.join(dist, f)), {level: 9}).length / 1024).toFixed(1);
  console.log(`page files, KiB gzip: ${pageFiles.map(f => `${f} ${gz(f)}`).join(', ')}`);
  console.log(`page: ${metrics.transfer_gzip_bytes} B = ${(metrics.transfer_gzip_bytes / 1024).toFixed(1)} KiB gzip (html + js + wasm), first paint ` +
              `${metrics.first_paint_ms_median_of_5} ms (the skeleton naming the scenario, median of 5; the canvas's first frame with ` +
              `the verdict at ${metrics.canvas_first_frame_ms_median_of_5} ms), idle ${metrics.idle_raf_per_s} frames/s and ` +
              `${metrics.idle_main_thread_ms_per_s} ms/s main thread, catalog solve ${metrics.catalog_solve_ms_in_page} ms in the page, ` +
              `wheel notch ${metrics.wheel_notch_px} px`);
}
await browser.close();
server.close();
console.log(`${passed} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
