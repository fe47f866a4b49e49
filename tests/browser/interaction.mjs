// Issue 41's checks of the page as a person uses it: on a 390x844 phone (scroll anchoring, the verdict
// strip, flings, the copy confirmation, the keyboard each field raises, the edited field kept in view,
// combo rows a fingertip can hit inside the screen), on a desktop (the importer in sight, Ctrl+V and drop
// anywhere, a status line that goes stale, wheel latching) and from the keyboard (a combo opens on its
// current row, type-ahead, digits on a focused number field, Enter on the only search match).
// Called by page.test.mjs with its harness.
// The wording checks of item 8 and the embed's tooltip are in wording_checks.mjs.
import fs from 'node:fs';
import path from 'node:path';
import {centre, queries as page} from './harness.mjs';

const phone = [{width: 390, height: 844}, {deviceScaleFactor: 3, hasTouch: true, isMobile: true}];

async function touchOf(p) {
  const cdp = await p.context().newCDPSession(p);
  const send = (type, pts) => cdp.send('Input.dispatchTouchEvent', {type, touchPoints: pts});
  return {
    cdp,
    async tap([x, y]) {
      await send('touchStart', [{x, y}]);
      await send('touchEnd', []);
      await p.waitForTimeout(150);
    },
    // A drag from y0 to y1 at x in moves of `px`; `hold` ms of a still finger before it lifts (no fling).
    async drag(x, y0, y1, hold, px = 20) {
      await send('touchStart', [{x, y: y0}]);
      const step = y1 < y0 ? -px : px;
      for (let y = y0 + step; step < 0 ? y >= y1 : y <= y1; y += step) await send('touchMove', [{x, y}]);
      if (hold) await p.waitForTimeout(hold);
      await send('touchEnd', []);
    },
    // The same drag with the events' own times set, as a phone's touch screen stamps them: one move every
    // `every` ms, the lift `hold` ms after the last move. The page reads the fling's speed from these
    // stamps (event.timeStamp), so a busy machine that delivers the events late cannot change it.
    async timedDrag(x, y0, y1, {px = 20, every = 16, hold = 0} = {}) {
      let at = await p.evaluate(() => (performance.timeOrigin + performance.now()) / 1000);  // CDP: seconds since 1970
      const timed = (type, pts) => cdp.send('Input.dispatchTouchEvent', {type, touchPoints: pts, timestamp: at});
      await timed('touchStart', [{x, y: y0}]);
      const step = y1 < y0 ? -px : px;
      for (let y = y0 + step; step < 0 ? y >= y1 : y <= y1; y += step) {
        at += every / 1000;
        await timed('touchMove', [{x, y}]);
      }
      at += Math.max(hold, every) / 1000;
      await timed('touchEnd', []);
    },
  };
}
// Scrolls the phone's page with still-finger drags until the control is between 200 and 650 px.
async function bringIntoView(p, t, label) {
  const q = page(p);
  for (let i = 0; i < 12; i++) {
    const r = await q.rect(label);
    if (r && r[1] > 200 && r[3] < 650) return r;
    // A drag by what brings the control to the middle of the screen (the whole way where it is not drawn yet,
    // below), in 40 px moves, each of which the page draws. A downward drag starts under the verdict strip.
    const dy = r ? Math.max(-530, Math.min(660, (r[1] + r[3]) / 2 - 425)) : 660;
    const y0 = dy > 0 ? 780 : 250;
    await t.drag(200, y0, y0 - dy, 150, 40);
    await p.waitForTimeout(300);
  }
  throw new Error(label + ' never came into view');
}

// A 390x844 touch page on `hash`, its summary computed; `fn(p, q, t)` gets the page, its queries and its touch
// input, and the page is closed whatever happens.
async function onPhone({base, open, waitSummary}, hash, fn) {
  const p = await open(base + hash, ...phone);
  const q = page(p), t = await touchOf(p);
  try {
    await waitSummary(p, s => /GiB/.test(s));
    await fn(p, q, t);
  } finally {
    await t.cdp.detach();
    await p.close();
  }
}

export async function interactionChecks(ctx) {
  await phoneScrollChecks(ctx);
  await phoneFormChecks(ctx);
  await desktopChecks(ctx);
  await keyboardCheck(ctx);
}

// On a 390x844 phone: the form under the finger, the verdict strip, flings.
async function phoneScrollChecks(ctx) {
  const {base, open, openHost, check, assert, out, waitSummary} = ctx;
  await check('phone: the control tapped stays under the finger when Apply rows appear above it (scroll anchoring)', async () => {
    // micro-batch 2 fits the 90 % target; 4 does not, and the verdict grows three Apply rows above the form.
    await onPhone(ctx, '#v=1&model=llama-3.1-8b&method=lora&micro_batch=2', async (p, q, t) => {
      const field = await bringIntoView(p, t, 'Micro-batch');
      const h = field[3] - field[1], plus = [field[2] + 4 + h + 4 + h / 2, (field[1] + field[3]) / 2];
      await t.tap(plus);
      await q.until(() => q.field('/micro_batch'), v => v === 4, 'the + did not double the micro-batch');
      await p.waitForTimeout(400);
      const after = await q.rect('Micro-batch');
      fs.writeFileSync(path.join(out, 'screenshot-phone-anchored.png'), await p.screenshot());
      assert(Math.abs(after[1] - field[1]) < 2, `the micro-batch field moved from y ${field[1]} to ${after[1]} under the finger`);
      // The verdict is off screen now: the strip over the top names it and scrolls back to it when tapped.
      const strip = await q.until(() => q.rect('verdict strip'), r => r !== null, 'no verdict strip after scrolling down');
      assert(strip[1] < 200, `the verdict strip is at y ${strip[1]}`);
      await t.tap(centre(strip));
      await q.until(() => q.scroll(200, 600), s => s === 0, 'tapping the verdict strip did not scroll back to the verdict');
      assert(await q.rect('verdict strip') === null, 'the strip stayed with the verdict in sight');
      assert(p.errors.length === 0, 'console errors: ' + p.errors.join(' | '));
    });
  });

  await check('phone: a swipe flings (the content glides on after the finger lifts), a held finger does not', async () => {
    await onPhone(ctx, '#v=1&model=llama-3.1-8b&method=lora', async (p, q, t) => {
      await p.waitForTimeout(300);
      const s0 = await q.scroll(200, 400);
      // A quick 240 px swipe up, lifted while moving: moves of 20 px 16 ms apart by the events' own clock, as
      // a phone sends them (0.94 px/ms), whenever the busy test machine gets round to delivering them.
      await t.timedDrag(200, 700, 460, {px: 20, every: 16});
      const s1 = await q.scroll(200, 400);
      const s2 = await q.until(async () => {  // the glide ends (it decays with a time constant of 325 ms)
        const a = await q.scroll(200, 400);
        await p.waitForTimeout(300);
        const b = await q.scroll(200, 400);
        return a === b ? b : null;
      }, v => v !== null, 'the content never came to rest');
      assert(s2 - s0 > 300, `a 240 px swipe scrolled ${s2 - s0} px in all (want a fling past the finger's 240)`);
      assert(s2 > s1, `nothing moved after the finger lifted (${s1} -> ${s2})`);
      await t.timedDrag(200, 700, 460, {px: 20, every: 16, hold: 400});  // the same drag, held still 400 ms before lifting
      const h1 = await q.scroll(200, 400);
      await p.waitForTimeout(800);
      assert(Math.abs(await q.scroll(200, 400) - h1) < 1, 'a held finger flung');
    });
  });
}

// On a 390x844 phone: the copy confirmation, the keyboard each field raises, combo rows a fingertip can hit.
async function phoneFormChecks(ctx) {
  const {base, open, openHost, check, assert, out, waitSummary} = ctx;
  await check('phone: Copy link confirms on the button; number fields raise a numeric or decimal keyboard; the field stays in view when the keyboard takes the bottom', async () => {
    await onPhone(ctx, '#v=1&model=llama-3.1-8b&method=lora', async (p, q, t) => {
      await p.waitForTimeout(300);
      await t.tap(centre(await q.rect('Copy link###link')));
      await q.until(() => q.rect('Link copied###link'), r => r !== null, 'the button does not say the link was copied');
      const mode = () => p.evaluate(() => document.activeElement.id + ':' + document.getElementById('text-input').inputMode);
      await t.tap(centre(await bringIntoView(p, t, 'Micro-batch')));
      await q.until(mode, m => m === 'text-input:numeric', 'an integer field did not raise the numeric keyboard');
      await t.tap(centre(await bringIntoView(p, t, 'Dataset tokens')));
      await q.until(mode, m => m === 'text-input:decimal', 'a decimal field did not raise the decimal keyboard');
      // The keyboard takes the bottom 400 px: the field being edited is scrolled into what is left.
      const field = await bringIntoView(p, t, 'Epochs');
      await t.tap(centre(field));
      await q.until(mode, m => m === 'text-input:decimal', 'Epochs is not being edited');
      await p.setViewportSize({width: 390, height: 444});
      const r = await q.until(() => q.rect('Epochs'), r => r && r[3] <= 444 && r[1] >= 0, 'the edited field is not in the visible part');
      fs.writeFileSync(path.join(out, 'screenshot-phone-keyboard.png'), await p.screenshot());
      assert(r[3] <= 444, 'field below the keyboard');
    });
  });

  await check('phone: a combo\'s rows are at least 44 CSS px tall, the GPU list stays inside the screen and is opaque', async () => {
    await onPhone(ctx, '#v=1&model=llama-3.1-8b&method=lora', async (p, q, t) => {
      await t.tap(centre(await bringIntoView(p, t, 'GPU selector')));
      const pop = await q.until(() => q.rect('popup'), r => r !== null, 'the GPU list did not open');
      const row = await q.rect('popup-row');
      fs.writeFileSync(path.join(out, 'screenshot-phone-gpu-list.png'), await p.screenshot());
      assert(pop[0] >= 0 && pop[2] <= 390 && pop[1] >= 0 && pop[3] <= 844, `the GPU list at ${pop} leaves the 390x844 screen`);
      assert(row[3] - row[1] >= 44 - 8, `a row is ${row[3] - row[1]} px tall (want 44 with the spacing)`);
    });
  });
}

// On a desktop: the importer in sight, paste and drag anywhere, the wheel latched to its panel.
async function desktopChecks(ctx) {
  const {base, open, openHost, check, assert, out, waitSummary} = ctx;
  await check('desktop: the importer is in sight, Ctrl+V of a vllm line imports it, its status goes stale after an edit, a dragged file shows where to drop', async () => {
    const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora', {width: 1400, height: 900});
    const q = page(p);
    const paste = await q.until(() => q.rect('Paste a config...'), r => r !== null, 'no importer button');
    assert(paste[3] < 900, 'the importer is below the first screen');
    await p.evaluate(() => {
      const dt = new DataTransfer();
      dt.setData('text/plain', 'vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192');
      window.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt}));
    });
    await q.until(() => q.field('/framework'), f => f === 'vllm', 'the pasted vllm line was not imported');
    await q.until(q.status, s => /vllm|Imported/i.test(s), 'no status for the import');
    const gpus = await q.rect('GPUs');
    await p.mouse.click(gpus[2] + 4 + (gpus[3] - gpus[1]) * 1.5 + 4, (gpus[1] + gpus[3]) / 2);  // GPUs' +
    await q.until(() => q.field('/num_gpus'), n => n === 2, 'the GPUs + did not count');
    await q.until(q.status, s => s === '', 'the import\'s status line stayed after an edit');
    const shown = () => p.evaluate(() => getComputedStyle(document.getElementById('drop')).display);
    await p.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['{}'], 'config.json', {type: 'application/json'}));
      window.dispatchEvent(new DragEvent('dragenter', {dataTransfer: dt}));
    });
    assert(await shown() === 'flex', 'no drop cover while a file is dragged over the page');
    fs.writeFileSync(path.join(out, 'screenshot-drag-over.png'), await p.screenshot());
    await p.evaluate(() => window.dispatchEvent(new DragEvent('dragleave')));
    assert(await shown() === 'none', 'the drop cover stayed after the drag left');
    assert(p.errors.length === 0, 'console errors: ' + p.errors.join(' | '));
    await p.close();
  });

  await check('desktop: a wheel gesture stays with the panel it started on when the model list slides under the pointer', async () => {
    const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora', {width: 1400, height: 900});
    const q = page(p);
    const filter = await q.until(() => q.rect('##filter'), r => r !== null, 'no model search');
    await p.mouse.move(200, (filter[1] + filter[3]) / 2);
    await p.waitForTimeout(200);
    const low = [230, 820], top = await q.scroll(...low);
    for (let i = 0; i < 4; i++) { await p.mouse.wheel(0, 100); await p.waitForTimeout(40); }
    const moved = await q.until(() => q.scroll(...low), s => s - top >= 300, 'the inputs panel did not take the whole gesture') - top;
    assert(moved >= 300, `the panel moved ${moved} px`);
    await p.close();
  });
}

// From the keyboard alone.
async function keyboardCheck(ctx) {
  const {base, open, openHost, check, assert, out, waitSummary} = ctx;
  await check('keyboard: Enter opens the GPU list on the current GPU, type-ahead finds a row, digits edit a focused number field, Enter picks the only search match', async () => {
    const p = await open(base + '#v=1&model=llama-3.1-8b&method=lora&gpu=h100', {width: 1400, height: 900});
    const q = page(p);
    const tabTo = async label => {
      for (let i = 0; i < 80; i++) {
        const before = await q.focus();
        await p.keyboard.press('Tab');
        const f = await q.until(q.focus, f => f !== before, 'Tab did not move');
        if (f === label) return i + 1;
      }
      throw new Error('Tab never reached ' + label);
    };
    const tabs = await tabTo('GPU selector');
    assert(tabs <= 15, `the GPU selector is Tab number ${tabs}`);
    await p.keyboard.press('Enter');
    await q.until(q.focus, f => /H100/.test(f), 'the GPU list did not open on the current GPU');
    await p.keyboard.type('amd');
    await q.until(q.focus, f => /^AMD/.test(f), 'typing "amd" did not find an AMD row');
    await p.keyboard.press('Enter');
    await q.until(() => q.field('/gpu'), g => typeof g === 'string' && /^mi/.test(g), 'Enter did not pick the AMD GPU');
    await tabTo('Micro-batch');
    await p.keyboard.type('16');
    await q.until(() => q.field('/micro_batch'), v => v === 16, 'digits typed on the focused micro-batch did not set it');
    await p.keyboard.press('Enter');
    await p.mouse.move(230, 500);
    await p.mouse.wheel(0, -5000);  // back to the top of the inputs, where the model search is
    await p.mouse.click(...centre(await q.until(() => q.rect('##filter'), r => r !== null, 'the model search is not drawn')));
    await p.keyboard.type('mixtral');
    await p.keyboard.press('Enter');
    await q.until(() => q.field('/model'), m => /mixtral/.test(m), 'Enter did not pick the only match');
    await p.close();
  });
}
