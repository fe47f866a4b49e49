// Idle and input, checked in a real browser (called by page.test.mjs with its harness): idle means no
// animation frames at all, and input as a person gives it (real wheel, touch and key events) wakes the
// page: a wheel notch scrolls the panel under the pointer down by a sane amount, a finger drag scrolls on
// a phone and a tap on a text field opens its keyboard, an embedded frame lets its host page scroll once
// it is at its end, Tab reaches the GPU selector. Figures go to `metrics` for --measure.
import fs from 'node:fs';
import path from 'node:path';

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
// The scroll offset of the panel under the point (x, y), as the page reports it.
const scrollAt = (p, x, y) => p.evaluate(([x, y]) => window.vramcalcPage.scrollOf(x, y), [x, y]);

export async function inputChecks(ctx) {
  await idleChecks(ctx);          // no frame when idle; input wakes the page
  await wheelCheck(ctx);
  await phoneDragCheck(ctx);
  await phoneKeyboardCheck(ctx);
  await hostScrollCheck(ctx);     // an embedded frame lets its host page scroll
  await tabCheck(ctx);
}

async function idleChecks({metrics, page, check, assert}) {
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
}

async function wheelCheck({base, metrics, check, assert, open}) {
  // The wheel, as a mouse gives it: deltaY 100 is one notch down (Chromium's size of a notch).
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
}

async function phoneDragCheck({base, out, metrics, check, assert, open, waitSummary}) {
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
}

async function phoneKeyboardCheck({base, check, assert, open, waitSummary}) {
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
}

async function hostScrollCheck({openHost, metrics, check, assert}) {
  await check('an embedded 800x500 frame lets its host page scroll with the wheel over it', async () => {
    const {host, frame} = await openHost({width: 1000, height: 700});
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
}

async function tabCheck({base, out, metrics, check, assert, open}) {
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
}
