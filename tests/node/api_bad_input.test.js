// The JS API (web/api_post.js over web/api.cpp) under 10,000 bad inputs: each must be a JS Error with
// .problems naming a field, never a bare WebAssembly.Exception, never a dead instance; afterwards a good
// scenario still gets the same bill as before. Run by the wasm build's CTest:
//   node --no-experimental-fetch api_bad_input.test.js <vramcalc-api-node.js>
// First the scenario cases of the bad-input corpus (tests/data/bad/manifest.json), as the CLI and the
// core tests run them.
'use strict';
const path = require('path');
const fs = require('fs');
const assert = require('assert');

require(path.resolve(process.argv[2]));
const good = {model: 'llama-3.1-8b', method: 'lora', micro_batch: 2, seq_len: 2048};

function circular() { const o = {model: 'gpt2'}; o.self = o; return o; }
const bigExtra = JSON.stringify({model: 'llama-3.1-8b', extra: 'x'.repeat(1310670), seq_len: null});
const overLimit = 'x'.repeat(9 * 1024 * 1024);
const overLimitMultibyte = '\u00e9'.repeat(4200000);  // 8.4 MB of UTF-8 in 4.2 M characters
const deep = '{"model": ' + '['.repeat(100000) + ']'.repeat(100000) + '}';

// Each generator gives [what, input, field the first problem must name (or null: any)].
// The two slow inputs (the 1.3 MiB text takes ~80 ms to read in the test build, measuring 4.2 M characters
// of UTF-8 ~16 ms) are each every 250th input (40 of the 10,000), not every 25th, which kept this the
// suite's longest test (68 s) for no more coverage.
const bigCases = [i => ['1.3 MiB text with a null number', bigExtra, 'seq_len'],
                  i => ['huge multibyte (8.4 MB UTF-8)', overLimitMultibyte, 'scenario']];
const cases = [
  i => ['huge (9 MiB)', overLimit, 'scenario'],
  i => ['lone surrogate (not UTF-8)', '{"model": "gpt2\ud800' + i + '"}', null],
  i => ['lone surrogate before the quote', '{"model": "gpt2' + i + '\ud800"}', null],
  i => ['lone trail surrogate', '{"model": "\udc00gpt2' + i + '"}', null],
  i => ['lone surrogate in a key', {model: 'gpt2', ['k\udc00' + i]: 1, seq_len: 'x'}, null],
  i => ['NUL then text', '{"model": "gpt2"}\u0000{"seq_len": ' + i + '}', 'scenario'],
  i => ['NUL in a string', '{"model": "gpt2\u0000' + i + '"}', 'scenario'],
  i => ['deep nesting', deep, 'scenario'],
  i => ['NaN', {model: 'llama-3.1-8b', seq_len: NaN}, 'seq_len'],
  i => ['Infinity', {model: 'llama-3.1-8b', micro_batch: Infinity}, 'micro_batch'],
  i => ['-Infinity', {model: 'llama-3.1-8b', workload: 'infer', batch: -Infinity}, 'batch'],
  i => ['undefined', undefined, 'scenario'],
  i => ['null', null, 'scenario'],
  i => ['number', i, 'scenario'],
  i => ['BigInt', {model: 'gpt2', seq_len: BigInt(i)}, 'scenario'],
  i => ['circular', circular(), 'scenario'],
  i => ['cut UTF-8 in a message', {model: 'llama-3.1-8b', workload: 'infer', weights: 'a' + '\u00e9'.repeat(30 + i % 7)}, 'weights'],
  i => ['empty text', '', 'scenario'],
  i => ['duplicate key', '{"model": "gpt2", "seq_len": 1024, "seq_len": ' + (i + 1) + '}', 'scenario'],
  i => ['ep beyond GPUs', {model: 'mixtral-8x7b-v0.1', ep: 8}, 'ep'],
  i => ['pp beyond layers', {model: 'gpt2', num_gpus: 64, pp: 64}, 'pp'],
  i => ['tp 4096', {model: 'llama-3.1-8b', num_gpus: 4096, tp: 4096}, 'tp'],
  i => ['unknown preset', {model: 'no-such-model-' + i}, 'model'],
];

let clean = 0;
const perCase = {};
const fieldsSeen = {};

// The corpus's documents too large to commit, built as tests/unit-bad-input.cpp builds them.
function generated(what) {
  if (what === 'over-limit') return '{"model": "gpt2", "extra": "' + 'x'.repeat(9 * 1024 * 1024) + '"}';
  if (what === 'deep-nesting') return '{"model": ' + '['.repeat(100000) + ']'.repeat(100000) + '}';
  return '{"extra": [' + '0,'.repeat(2 * 1024 * 1024) + '0], "model": "gpt2", "micro_batch": 0}';
}

function corpus(api) {
  const dir = path.join(__dirname, '..', 'data', 'bad');
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  let errors = 0, warnings = 0, skipped = 0;
  for (const c of manifest.cases) {
    if (c.kind !== 'scenario') continue;
    let input;
    if (c.file) {
      const bytes = fs.readFileSync(path.join(dir, c.file));
      try {
        input = new TextDecoder('utf-8', {fatal: true}).decode(bytes);
      } catch (e) {
        ++skipped;  // not UTF-8: a JS string cannot hold it (the lone-surrogate cases below stand in)
        continue;
      }
    } else {
      input = generated(c.generate);
    }
    const what = c.file || c.generate;
    if (c.expect === 'warning') {
      const bill = api.estimate(input);
      assert.ok(bill.warnings.some(w => w.includes(c.reason)), `${what}: no warning '${c.reason}' in ${JSON.stringify(bill.warnings)}`);
      ++warnings;
      continue;
    }
    let threw = null;
    try { api.estimate(input); } catch (e) { threw = e; }
    assert.ok(threw && Array.isArray(threw.problems), `${what}: expected an Error with .problems, got ${threw}`);
    assert.ok(threw.problems.some(p => p.field === c.field && p.message.includes(c.reason)),
              `${what}: expected '${c.field}: ...${c.reason}', got ${JSON.stringify(threw.problems).slice(0, 400)}`);
    ++errors;
  }
  console.log(`corpus: ${errors} errors and ${warnings} warnings as expected, ${skipped} not UTF-8 (skipped under JS)`);
}

// Seeded mutations of good scenario texts (a small fuzzer of the JS-side string entry points): code
// units flipped, NULs, lone surrogates, non-ASCII and long runs inserted, text cut. Each call must give
// a bill or an Error with .problems; nothing else.
function fuzz(api, n) {
  let seed = 18;
  const rnd = k => { seed = (seed * 1103515245 + 12345) >>> 0; return seed % k; };
  const seeds = [JSON.stringify(good), JSON.stringify({model: 'mixtral-8x7b-v0.1', num_gpus: 8, ep: 8, tp: 1}),
                 JSON.stringify({model: 'gpt2', workload: 'infer', framework: 'vllm', batch: 4, weights: 'fp8'}),
                 JSON.stringify({model: 'llama-3.1-8b', method: 'qlora', lora: {targets: 'all-linear', rank: 16}})];
  const inserts = ['\u0000', '\ud800', '\udfff', '\u00e9', '\uffff', '"', '{', '[', ']', '}', ',', ':', 'null', 'NaN', '1e999',
                   '-0', '\\', '\\u0000', '\\ud800'];
  let bills = 0, errors = 0;
  for (let i = 0; i < n; ++i) {
    let t = seeds[rnd(seeds.length)];
    for (let m = 1 + rnd(3); m > 0; --m) {
      const at = rnd(t.length + 1);
      switch (rnd(5)) {
        case 0: t = t.slice(0, at) + inserts[rnd(inserts.length)] + t.slice(at); break;
        case 1: t = t.slice(0, at) + String.fromCharCode(rnd(0x10000)) + t.slice(at + 1); break;
        case 2: t = t.slice(0, at); break;
        case 3: t = t.slice(0, at) + inserts[rnd(inserts.length)].repeat(1 + rnd(5000)) + t.slice(at); break;
        default: t = t.slice(0, at) + t.slice(at + 1 + rnd(4)); break;
      }
    }
    try {
      (i % 8 === 1 ? api.solveCatalog : api.estimate)(t);
      ++bills;
    } catch (e) {
      assert.ok(e instanceof Error && Array.isArray(e.problems) && e.problems.length > 0,
                `fuzz #${i}: ${JSON.stringify(t).slice(0, 200)} threw ${e}`);
      ++errors;
    }
  }
  console.log(`fuzz: ${n} mutated texts, ${bills} bills, ${errors} errors with .problems, 0 crashes`);
}

(async () => {
  const api = await globalThis.vramcalc.ready;
  corpus(api);
  fuzz(api, 1500);
  const before = api.estimate(good);
  assert.ok(before.per_gpu.device_bytes > 0);
  const t0 = Date.now();
  const N = 10000;
  for (let i = 0; i < N; ++i) {
    const gen = i % 125 === 2 ? bigCases[(i / 125 | 0) % 2] : cases[i % cases.length];
    const [what, input, field] = gen(i);
    let threw = null;
    try {
      (i % 3 === 2 ? api.solveCatalog : api.estimate)(input);
    } catch (e) {
      threw = e;
    }
    assert.ok(threw, `#${i} ${what}: accepted silently`);
    assert.ok(threw instanceof Error, `#${i} ${what}: threw a ${Object.prototype.toString.call(threw)}, not an Error`);
    assert.ok(Array.isArray(threw.problems) && threw.problems.length > 0, `#${i} ${what}: no .problems (${threw.message})`);
    for (const p of threw.problems) {
      assert.strictEqual(typeof p.message, 'string', `#${i} ${what}: problem without a message`);
      assert.ok(p.message.length > 0 && p.message.length < 2000, `#${i} ${what}: message of ${p.message.length} chars`);
    }
    if (field !== null)
      assert.ok(threw.problems.some(p => p.field === field),
                `#${i} ${what}: expected a problem naming '${field}', got ${JSON.stringify(threw.problems).slice(0, 300)}`);
    perCase[what] = (perCase[what] || 0) + 1;
    fieldsSeen[threw.problems[0].field] = true;
    ++clean;
  }
  const after = api.estimate(good);
  assert.strictEqual(after.per_gpu.device_bytes, before.per_gpu.device_bytes, 'the bill changed after the bad inputs');
  assert.deepStrictEqual(after, before);
  assert.ok(api.presets().models.length > 0);
  // A layer stack (issue 21): ResNet-50 at micro-batch 64 gives a bill with its largest micro-batch, and a
  // stack whose shapes do not line up names the layer and the shapes.
  const resnet = api.estimate({model: 'resnet50', micro_batch: 64});
  assert.ok(resnet.max_micro_batch > 64, `resnet50 max_micro_batch ${resnet.max_micro_batch}`);
  assert.ok(api.presets().models.some(m => m.id === 'resnet50' && m.layer_stack === true));
  let stackErr = null;
  try {
    api.estimate({model: {input: [3, 8, 8], layers: [{type: 'flatten'}, {type: 'linear', in_features: 100, out_features: 10}]}});
  } catch (e) { stackErr = e; }
  assert.ok(stackErr && stackErr.problems.some(p => p.field === 'model.layers[1] (1)' && /got 192/.test(p.message)),
            `bad stack: ${stackErr && JSON.stringify(stackErr.problems)}`);
  console.log(`${N} bad inputs (${cases.length} kinds): ${clean} clean errors with .problems, 0 silent accepts, ` +
              `0 crashes; a good scenario still gives ${after.per_gpu.device_bytes} bytes (${Date.now() - t0} ms)`);
})().catch(e => { console.error(e && e.stack || e); process.exit(1); });
