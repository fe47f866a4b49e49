// Issue 41 item 8's checks that what the page says reads right, and the embed's tooltip that must go when the
// pointer leaves the frame. Called by page.test.mjs with its harness, after interaction.mjs.
import fs from 'node:fs';
import path from 'node:path';
import {centre, queries as page} from './harness.mjs';

export async function wordingChecks(ctx) {
  await wordingFormChecks(ctx);
  await wordingCountChecks(ctx);
  await embedTooltipCheck(ctx);
}

// The page's summary (#summary, what a screen reader reads) carries the lines drawn under the verdict and in
// "Largest batch and context", so the checks read what a person sees; the screenshots show the same.
const shotIn = async (out, p, name) => fs.writeFileSync(path.join(out, name), await p.screenshot());
const summaryOf = p => p.$eval('#summary', el => el.textContent);

// The form's labels and the link it writes.
async function wordingFormChecks(ctx) {
  const {base, open, openHost, check, assert, out, waitSummary} = ctx;
  const shot = (p, name) => shotIn(out, p, name);
  await check('wording: the AdamW step shows its default; inference names its charts without "training step"', async () => {
    const p = await open(base + '#v=1&model=llama-3.1-8b&method=full&optimizer=adamw', {width: 1400, height: 900});
    const q = page(p);
    await q.until(() => q.field('/adamw_impl'), v => typeof v === 'string' && v.length > 0, 'the AdamW step is blank');
    await p.close();
    const r = await open(base + '#v=1&model=qwen2.5-7b&workload=infer&framework=vllm', {width: 1400, height: 900});
    const qr = page(r);
    await qr.until(() => qr.rect('Memory curves###curves'), x => x !== null, 'the inference charts title is not "Memory curves"');
    await r.close();
  });

  await check('wording: a link carries only the keys that apply (a vLLM link no method, lora, seq_len or sharding) and opens on the same bill', async () => {
    // 2400 px tall: every control on screen.
    const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora&lora.rank=16&seq_len=4096&sharding=zero2&micro_batch=2', {width: 1400, height: 2400});
    const q = page(p);
    await waitSummary(p, s => /GiB/.test(s));
    // Switch to serving with vLLM as a person would: the Inference radio, then vllm in the Framework list.
    await p.mouse.click(...centre(await q.until(() => q.rect('Inference'), r => r !== null, 'no Inference radio')));
    await q.until(() => q.field('/workload'), w => w === 'infer', 'the Inference radio did not switch');
    await p.mouse.click(...centre(await q.until(() => q.rect('Framework'), r => r !== null, 'no Framework list')));
    await q.until(() => q.rect('popup'), r => r !== null, 'the Framework list did not open');
    await p.keyboard.type('vllm');
    await p.keyboard.press('Enter');
    await q.until(() => q.field('/framework'), f => f === 'vllm', 'vllm was not picked');
    const hash = await q.until(() => p.evaluate(() => location.hash), h => /framework=vllm/.test(h), 'the link did not follow');
    for (const gone of ['method=', 'lora.', 'seq_len=', 'sharding=', 'micro_batch='])
      assert(!hash.includes('&' + gone), `the vLLM link still carries ${gone}: ${hash}`);
    assert(/&workload=infer/.test(hash) && /&model=llama-3.1-8b/.test(hash), 'the link lost what applies: ' + hash);
    // The link opens on the same bill and the same answers.
    const answers = await summaryOf(p);
    const r = await open(base + hash, {width: 1400, height: 2400});
    await waitSummary(r, s => s === answers);
    assert(r.errors.length === 0 && p.errors.length === 0, 'console errors: ' + [...p.errors, ...r.errors].join(' | '));
    await r.close();
    await p.close();
  });

  await check('wording: the longest context stops at max_model_len (with a note) and the GPU table stops there too', async () => {
    const p = await open(base + '#v=1&model=llama-3.1-8b&workload=infer&framework=vllm&max_model_len=8192', {width: 1400, height: 1400});
    const s = await waitSummary(p, t => /Longest context/.test(t));
    assert(/Longest context at batch \d+: 8192 tokens/.test(s), 'the longest context is not max_model_len: ' + s);
    const api = await p.evaluate(async () => {
      const v = await window.vramcalc.ready;
      const sc = {model: 'llama-3.1-8b', workload: 'infer', framework: 'vllm', max_model_len: 8192};
      return {notes: v.estimate(sc).notes || [], contexts: v.solveCatalog(sc).map(f => f.max_context),
              gpt2: v.solveCatalog({model: 'gpt2', method: 'full'}).map(f => f.max_seq_len)};
    });
    assert(api.notes.some(n => n.startsWith('longest context capped at max_model_len 8192')), 'no note: ' + api.notes);
    assert(Math.max(...api.contexts) === 8192, 'the catalog goes past max_model_len: ' + Math.max(...api.contexts));
    assert(Math.max(...api.gpt2) === 1024, "the catalog's longest sequence goes past GPT-2's 1024 positions: " + Math.max(...api.gpt2));
    await shot(p, 'screenshot-max-model-len.png');
    await p.close();
  });
}

// The rule of thumb, counts of nothing, a CNN's units.
async function wordingCountChecks(ctx) {
  const {base, open, openHost, check, assert, out, waitSummary} = ctx;
  const shot = (p, name) => shotIn(out, p, name);
  await check('wording: the rule of thumb compares like with like under vLLM and ZeRO-3', async () => {
    const p = await open(base + '#v=1&model=llama-3.1-8b&workload=infer&framework=vllm&gpu=h100-80gb', {width: 1400, height: 900});
    let s = await waitSummary(p, t => /Rule of thumb/.test(t));
    let m = s.match(/Rule of thumb: [\d.]+ GiB, ([+-]\d+) % against this bill without the KV blocks vLLM reserves beyond the batch/);
    assert(m && Math.abs(+m[1]) <= 20, 'vLLM: ' + s);
    await shot(p, 'screenshot-rule-of-thumb-vllm.png');
    await p.close();
    const z = await open(base + '#v=1&model=qwen2.5-7b&method=full&num_gpus=8&sharding=zero3', {width: 1400, height: 900});
    s = await waitSummary(z, t => /Rule of thumb/.test(t));
    m = s.match(/Rule of thumb: ([\d.]+) GiB, ([+-]\d+) % against this bill/);
    // 16 B per parameter over 8 ranks (ZeRO paper Sec. 5), not the whole model's 16 B on each GPU.
    assert(m && Math.abs(+m[1] - 14.19) < 0.05 && +m[2] < 0, 'ZeRO-3: ' + s);
    await z.close();
  });

  await check('wording: counts say "none, not even 1" where nothing fits, never "0"', async () => {
    const p = await open(base + '#v=1&model=llama-3.1-70b&workload=infer&gpu=rtx-3060-12gb', {width: 1400, height: 1100});
    const s = await waitSummary(p, t => /Most concurrent/.test(t));
    assert(/Most concurrent sequences on the .*: none, not even 1/.test(s), s);
    assert(/Longest context at batch \d+: none fits/.test(s), s);
    assert(!/: 0( |$|\n)/m.test(s), 'a count of 0: ' + s);
    await shot(p, 'screenshot-none-fits.png');
    await p.close();
    // A model known only by its size has no batch or length to solve for: said so, not "0" or "none".
    const c = await open(base + '#v=1&model.name=mine&model.parameters=7000000000', {width: 1400, height: 900});
    const t = await waitSummary(c, x => /parameter count/.test(x));
    assert(/No largest batch or longest sequence: a model known only by its parameter count/.test(t) && !/: 0( |$|\n)/m.test(t), t);
    await c.close();
  });

  await check('wording: a CNN shows images and images/s, no sequence length', async () => {
    const p = await open(base + '#v=1&model=resnet50&micro_batch=64', {width: 1400, height: 1400});
    const q = page(p);
    const s = await waitSummary(p, t => /images\/s/.test(t));
    assert(!/tokens/.test(s), 'a CNN speaks of tokens: ' + s);
    await q.until(() => q.rect('Micro-batch'), r => r !== null, 'no micro-batch field');
    assert(await q.rect('Sequence length') === null, 'a CNN shows a sequence length');
    assert(await q.rect('Dataset images') !== null, 'the dataset is not counted in images');
    await shot(p, 'screenshot-cnn.png');
    await p.close();
  });
}
// A hover answer (the bar's tooltip) must not stay in an embedded frame once the pointer has left it: by
// moving out, by the host scrolling the frame away, by leaving the window, by a drag that ends outside.
async function embedTooltipCheck(ctx) {
  const {base, open, openHost, check, assert, out, waitSummary} = ctx;
  await check('embed: a tooltip goes when the pointer leaves the frame', async () => {
    const {host, frame} = await openHost({width: 1000, height: 900});
    await host.waitForTimeout(500);
    const calc = host.locator('#calc');
    const before = await calc.screenshot();
    // The bill's bar under the verdict answers a hover with a tooltip (charts.cpp).
    let shown = null;
    for (const y of [350, 370, 390, 410, 430]) {
      await host.mouse.move(100, y, {steps: 2});
      await host.waitForTimeout(400);
      const now = await calc.screenshot();
      if (!now.equals(before)) { shown = y; break; }
    }
    fs.writeFileSync(path.join(out, 'screenshot-embed-tooltip.png'), await host.screenshot());
    assert(shown !== null, 'no hover answer found over the embed');
    // The host page scrolls the frame away from under a still pointer, and back.
    await host.evaluate(() => window.scrollTo(0, 700));
    await host.waitForTimeout(600);
    await host.evaluate(() => window.scrollTo(0, 0));
    await host.waitForTimeout(600);
    fs.writeFileSync(path.join(out, 'screenshot-embed-scrolled.png'), await host.screenshot());
    const scrolledAway = (await calc.screenshot()).equals(before);
    await host.mouse.move(100, shown, {steps: 1});
    await host.waitForTimeout(400);
    await host.mouse.move(100, 150, {steps: 1});  // out of the frame, up into the host's text
    await host.waitForTimeout(800);
    fs.writeFileSync(path.join(out, 'screenshot-embed-left.png'), await host.screenshot());
    const movedAway = (await calc.screenshot()).equals(before);
    await host.mouse.move(100, shown, {steps: 1});
    await host.waitForTimeout(400);
    await host.mouse.move(-5, -5, {steps: 1});  // out of the window
    await host.waitForTimeout(800);
    const outOfWindow = (await calc.screenshot()).equals(before);
    await host.mouse.move(100, shown, {steps: 1});
    await host.waitForTimeout(400);
    await host.mouse.down();
    await host.mouse.move(100, 150, {steps: 3});
    await host.mouse.up();
    await host.waitForTimeout(800);
    fs.writeFileSync(path.join(out, 'screenshot-embed-dragged-out.png'), await host.screenshot());
    const draggedOut = (await calc.screenshot()).equals(before);
    const stale = Object.entries({scrolledAway, movedAway, outOfWindow, draggedOut}).filter(([, gone]) => !gone).map(([k]) => k);
    assert(stale.length === 0, 'the frame still shows the hover answer after the pointer left: ' + stale.join(', '));
    await host.close();
  });
}
