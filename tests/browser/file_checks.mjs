// Files and text a person brings to the page, checked in a real browser (called by page.test.mjs with
// its harness): checkpoint headers read over HTTP Range from a fake Hub (and the Hub servers that cannot
// serve them), the serving matrix, another tool's config dropped on the page, the files and links the
// page refuses, and a print(model) pasted into the layer-stack editor. Each is checked against the CLI.
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {checkpoints, fakeHub} from './fake_hub.mjs';

const READ = 'Read exact weight bytes from the checkpoint';
const dtypes = s => Object.fromEntries([...(s.split('\nCheckpoint: ')[1] || '').matchAll(/; (\S+) (\d+) B/g)].map(m => [m[1], Number(m[2])]));
const servingScenario = '#v=1&model=llama-3-8b&workload=infer&framework=vllm&gpu=h100-80gb';
// The imports test data: the fixtures and the manifest of what the CLI's import gives for each.
const importsDir = new URL('../data/imports/', import.meta.url).pathname;
function flat(obj, prefix = '') {
  return Object.entries(obj).flatMap(([k, v]) => v && typeof v === 'object' && !Array.isArray(v) ? flat(v, prefix + k + '.') :
                                                Array.isArray(v) ? [] : [[prefix + k, v]]);
}

// What the CLI reads from a checkpoint's headers (`vramcalc weights DIR --json`), the page's figures to match.
function cliWeights(cli, dir) {
  return JSON.parse(execFileSync(cli, ['weights', path.join(checkpoints, dir), '--json'], {encoding: 'utf8'}));
}
// Opens the Hub section of the model panel, types a Hub id and clicks a button there.
async function hubAction({waitAt, assert}, p, id, button) {
  const at = label => p.evaluate(l => window.vramcalcPage.controlAt(l), label);
  if (!await at('##hub')) await p.mouse.click(...await waitAt(p, 'Any Hugging Face model, or a config you run with'));
  let typed = '';
  for (let attempt = 0; attempt < 5 && typed !== id; attempt++) {  // a busy machine may drop the click: again
    await p.mouse.click(...await waitAt(p, '##hub'));
    await p.waitForTimeout(100);
    await p.keyboard.press('Control+A');
    // Pasted, as a Hub id copied from the Hub's page usually is: on the clipboard, then Ctrl+V into the field
    // (typed, it took a drawn frame per key: 4 s an id on a 2-core machine).
    await p.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await p.evaluate(text => navigator.clipboard.writeText(text), id);
    await p.keyboard.press('Control+V');
    for (let i = 0; i < 40 && typed !== id; i++) {
      await p.waitForTimeout(50);
      typed = await p.evaluate(() => window.vramcalcPage.activeText());
    }
  }
  assert(typed === id, `typed ${JSON.stringify(typed)} into the Hub id field, wanted ${id}`);
  await p.mouse.click(...await waitAt(p, button));
}

export async function fileChecks(ctx) {
  await checkpointCheck(ctx);     // exact bytes from a fake Hub over HTTP Range
  await hubFailureChecks(ctx);    // a Hub server without Range or CORS
  await servingMatrixCheck(ctx);
  await droppedConfigCheck(ctx);  // another tool's config
  await refusedInputCheck(ctx);
  await reprPasteCheck(ctx);      // a print(model) pasted
}

async function checkpointCheck({base, out, cli, served, metrics, check, assert, open, waitSummary, waitAt}) {
  await check('checkpoint headers over HTTP Range: exact bytes per dtype (GPTQ, FP8 sharded, bf16, GGUF) as the CLI reads them', async () => {
    const hub = await fakeHub();
    const p = await open(base + servingScenario, {width: 1400, height: 1100}, {}, hub.url);
    await waitSummary(p, t => /GiB/.test(t));
    await p.waitForTimeout(1000);
    assert(hub.log.length === 0, 'the page asked the Hub for something before any click: ' + JSON.stringify(hub.log));
    assert(!served.includes('vramcalc-checkpoint.js'), 'the checkpoint reader was loaded before any click');
    // The config first (the Hub's config.json, as a user fetches it), then the checkpoint's headers.
    await hubAction({waitAt, assert}, p, 'neuralmagic/Meta-Llama-3-8B-Instruct-FP8', 'Fetch');
    await waitSummary(p, t => hub.log.length > 0);
    const cases = [['neuralmagic/Meta-Llama-3-8B-Instruct-FP8', 'hub/neuralmagic/Meta-Llama-3-8B-Instruct-FP8'],
                   ['Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4', 'hub/Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4'],
                   ['Qwen/Qwen2.5-0.5B', 'hub/Qwen/Qwen2.5-0.5B'],
                   ['fixtures/checkpoints/q4_k-layer.gguf', 'q4_k-layer.gguf']];
    for (const [id, dir] of cases) {
      const before = hub.log.length;
      await hubAction({waitAt, assert}, p, id, READ);
      const repo = id.split('/').slice(0, 2).join('/');
      const s = await waitSummary(p, t => t.includes('\nCheckpoint: ' + repo + ':') || t.includes('of ' + repo + ':'));
      const want = cliWeights(cli, dir);
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
}

async function hubFailureChecks({base, metrics, check, assert, open, cliBill, waitSummary, waitAt}) {
  for (const [what, options, message] of [['without Range support', {range: false}, /ignored the Range request \(HTTP 200/],
                                          ['without CORS headers', {cors: false}, /no CORS headers/]]) {
    await check(`a Hub server ${what} gives a clear message and the weights stay counted from the config`, async () => {
      const hub = await fakeHub(options);
      const p = await open(base + servingScenario + '&checkpoint_bytes=1000', {width: 1400, height: 1100}, {}, hub.url);
      await waitSummary(p, t => /GiB/.test(t));
      await hubAction({waitAt, assert}, p, 'neuralmagic/Meta-Llama-3-8B-Instruct-FP8', READ);
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
}

async function servingMatrixCheck({base, out, check, assert, open, cliBill, waitSummary}) {
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
        await p.mouse.wheel(0, (at && at[1] < 40 ? -0.6 : 0.6) * h);  // less than the band it must land in
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
}

async function droppedConfigCheck({base, out, served, check, assert, open, waitSummary, waitStatus, dropFile}) {
  // Another tool's config dropped on the page, as a person drags a file from their desktop: the importer
  // (vramcalc-import.js) loads on that drop, not before, and the scenario takes what the CLI's import gives.
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
}

async function refusedInputCheck({base, out, browser, check, assert, open, waitSummary, waitStatus, dropFile}) {
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
}

async function reprPasteCheck({base, check, assert, open, cliBill, waitSummary, waitAt, waitStatus}) {
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
}
