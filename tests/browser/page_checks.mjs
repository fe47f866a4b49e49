// What the page shows, checked in a real browser (called by page.test.mjs with its harness): the
// loading skeleton, the default bill without console errors, the JS API answering what the CLI answers,
// a URL hash that round-trips, broken hashes and bad values shown beside a working page, a config.json
// link read by the importer's module, the embedded layout and the docs' embedding example; then, after
// the input checks, the embed snippet the page offers and screenshots at the sizes people use.
import fs from 'node:fs';
import path from 'node:path';

// Scenarios the JS API and the CLI must bill alike, byte for byte.
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

// The checks up to the docs' embedding example; returns the default page, left open for the checks
// after (idle, input, the embed snippet, --measure).
export async function pageChecks(ctx) {
  await loadingCheck(ctx);
  const page = await ctx.open(ctx.base);
  await billChecks(ctx, page);    // the default page's bill; the JS API beside the CLI
  await linkChecks(ctx);          // a URL hash that round-trips; broken hashes
  await modelReaderCheck(ctx);    // a config.json link, a layer-stack preset
  await formCheck(ctx);           // a bad value marks its own field
  await layoutChecks(ctx, page);  // the default page's screenshot, the embedded layout, the docs' example
  return page;
}

async function loadingCheck({base, browser, check, assert}) {
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
}

async function billChecks({check, assert, cliBill, waitSummary}, page) {
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
}

async function linkChecks({base, check, assert, open, cliBill, waitSummary}) {
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
}

async function modelReaderCheck({base, out, browser, check, assert, open, cliBill, summary, waitSummary}) {
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
}

async function formCheck({base, check, assert, open, waitSummary}) {
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
}

async function layoutChecks({base, dist, out, browser, check, assert, open, waitSummary, pixelStats}, page) {
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
}


// The embed snippet the page offers, and screenshots at the sizes people use.
export async function screenshotChecks({base, out, page, check, assert, open, waitSummary, pixelStats}) {
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
}
