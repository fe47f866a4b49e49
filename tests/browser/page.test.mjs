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
//
// This file is the runner: the arguments, the static server, the browser, `check` / `assert` and the
// summary. The checks live in modules by concept, run in this order: page_checks.mjs (what the page
// shows), input_checks.mjs (idle and input), page_checks.mjs again (the embed snippet, screenshots),
// file_checks.mjs (checkpoints over a fake Hub, dropped configs, refused files, a pasted print(model)),
// interaction.mjs (issue 41's phone, desktop and keyboard use), wording_checks.mjs (what the page says, the
// embed's tooltip), then measure.mjs under --measure. They
// share harness.mjs's helpers through one context object.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {chromium} from 'playwright-core';
import {fileChecks} from './file_checks.mjs';
import {harness} from './harness.mjs';
import {inputChecks} from './input_checks.mjs';
import {interactionChecks} from './interaction.mjs';
import {wordingChecks} from './wording_checks.mjs';
import {measurePage} from './measure.mjs';
import {pageChecks, screenshotChecks} from './page_checks.mjs';

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
  const start = performance.now();
  try {
    await fn();
    passed++;
    console.log(`ok   ${name} (${((performance.now() - start) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}\n     ${String(e && e.stack || e).split('\n').slice(0, 4).join('\n     ')}`);
  }
}
function assert(cond, msg) { if (!cond) throw new Error(msg); }

// What every check module gets: the page's address, the folders and the CLI, the browser, the files the
// server sent, the figures --measure prints (the checks add to them), check / assert and the helpers.
const metrics = {};
const ctx = {base, dist, out, cli, browser, served, metrics, check, assert, ...harness({browser, out, cli, base})};
ctx.page = await pageChecks(ctx);  // the default page, open for the checks after
await inputChecks(ctx);
await screenshotChecks(ctx);
await fileChecks(ctx);
await interactionChecks(ctx);
await wordingChecks(ctx);
if (args.measure) await measurePage(ctx);
await browser.close();
server.close();
console.log(`${passed} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
