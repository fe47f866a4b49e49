// window.vramcalc: the calculator as a JS API (docs/embedding.md), appended by Emscripten (--post-js,
// after call_post.js) to the headless vramcalc-api.js. The page loads that same file the first time a
// script reads vramcalc.ready (shell/page.js), so the page's own wasm carries no API entry points.
// Every failure is a JS Error with .problems ([{field, message}]), never a bare WebAssembly.Exception.
(function () {
  'use strict';
  var root = typeof window !== 'undefined' ? window : globalThis;
  var resolveReady, rejectReady;
  var ready = new Promise(function (resolve, reject) { resolveReady = resolve; rejectReady = reject; });
  var problem = Module.vramcalcProblem, callWithStrings = Module.vramcalcCallWithStrings;

  function call(fn, arg) {
    if (!runtimeInitialized) throw new Error('vramcalc is still loading: wait for vramcalc.ready');
    var answer;
    try {
      answer = arg === undefined ? UTF8ToString(Module.ccall(fn, 'number', [], []))
                                 : callWithStrings(fn, 'string', ['string'], [arg]);
    } catch (e) {
      if (e && e.problems) throw e;
      throw problem('scenario', 'the calculator failed on this input (' + (e && e.message ? e.message : String(e)) + ')');
    }
    var out = JSON.parse(answer);
    if (!out.ok) {
      var err = new Error(out.errors.map(function (p) { return (p.field ? p.field + ': ' : '') + p.message; }).join('\n'));
      err.problems = out.errors;
      throw err;
    }
    return out;
  }
  // JSON text of a scenario: a string as it is, an object through JSON.stringify (which turns NaN,
  // Infinity into null and drops undefined: the reader refuses an explicit null for a number key).
  function text(scenario) {
    if (typeof scenario === 'string') return scenario;
    if (scenario === null || typeof scenario !== 'object')
      throw problem('scenario', 'got ' + (scenario === null ? 'null' : typeof scenario) + ', expected a scenario object or its JSON text');
    try {
      return JSON.stringify(scenario);
    } catch (e) {
      throw problem('scenario', 'cannot be written as JSON (' + (e && e.message ? e.message : String(e)) + ')');
    }
  }

  var api = root.vramcalc || {};
  api.version = '0.1.0';
  // A data property: the page's stand-in object (shell/page.js) has `ready` as a getter that loads this file.
  Object.defineProperty(api, 'ready', {value: ready, writable: true, enumerable: true, configurable: true});
  api.maxInputBytes = Module.vramcalcMaxInputBytes;
  // The bill for a scenario (object or JSON text in the names of docs/scenario: the same JSON as the CLI's --json).
  api.estimate = function (scenario) { return call('vramcalc_api_estimate', text(scenario)).bill; };
  // The scenario on every GPU of the catalog: [{gpu, name, memory_bytes, fits, device_bytes, max_batch, max_seq_len}].
  api.solveCatalog = function (scenario) { return call('vramcalc_api_solve_catalog', text(scenario)).catalog; };
  // The model and GPU presets: {models: [...], gpus: [...]}.
  api.presets = function () { var p = call('vramcalc_api_presets'); return {models: p.models, gpus: p.gpus}; };
  // A config people already have (a `vllm serve` line, a DeepSpeed JSON, a LLaMA-Factory/axolotl/torchtune
  // YAML, ...) as {format, scenario, read, ignored, unknown, notes} (docs/imports.md): scenario is what
  // estimate() takes once it has a model; unknown lists every key the importer did not recognise.
  api.importConfig = function (configText) {
    if (typeof configText !== 'string') throw problem('config', 'got ' + typeof configText + ', expected the text of a config file');
    var r = call('vramcalc_api_import', configText);
    return {format: r.format, scenario: r.scenario, read: r.read, ignored: r.ignored, unknown: r.unknown, notes: r.notes};
  };
  root.vramcalc = api;

  var previous = Module.onRuntimeInitialized;
  Module.onRuntimeInitialized = function () {
    if (previous) previous();
    resolveReady(api);
  };
  // A wasm that cannot be fetched or compiled ends in Emscripten's abort(): ready rejects with the reason
  // instead of never settling (issue 42).
  var previousAbort = Module.onAbort;
  Module.onAbort = function (what) {
    if (previousAbort) previousAbort(what);
    rejectReady(new Error('vramcalc could not start: ' + (what && what.message ? what.message : String(what))));
  };
  if (runtimeInitialized) resolveReady(api);
})();
