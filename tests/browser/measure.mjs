// --measure: the page's figures, printed after the checks (tools/dev.sh report reads them): transfer
// size, first paint and first frame, idle frames and main-thread time, catalog solve, the largest input
// a change can carry, and the figures the checks gathered in `metrics` on their way.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export async function measurePage({base, dist, served, page, metrics, open, waitAt, waitStatus, dropFile}) {
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
