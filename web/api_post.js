// window.vramcalc: the calculator as a JS API (docs/embedding.md). Appended to both the page's module
// and the headless vramcalc-api.js by Emscripten (--post-js), so both offer the same object.
(function () {
  'use strict';
  var root = typeof window !== 'undefined' ? window : globalThis;
  var resolveReady;
  var ready = new Promise(function (resolve) { resolveReady = resolve; });

  function call(fn, arg) {
    if (!runtimeInitialized) throw new Error('vramcalc is still loading: wait for vramcalc.ready');
    var out = JSON.parse(Module.ccall(fn, 'string', arg === undefined ? [] : ['string'], arg === undefined ? [] : [arg]));
    if (!out.ok) {
      var err = new Error(out.errors.map(function (p) { return (p.field ? p.field + ': ' : '') + p.message; }).join('\n'));
      err.problems = out.errors;
      throw err;
    }
    return out;
  }
  function text(scenario) {
    return typeof scenario === 'string' ? scenario : JSON.stringify(scenario);
  }

  var api = root.vramcalc || {};
  api.version = '0.1.0';
  api.ready = ready;
  // The bill for a scenario (object or JSON text in the names of docs/scenario: the same JSON as the CLI's --json).
  api.estimate = function (scenario) { return call('vramcalc_api_estimate', text(scenario)).bill; };
  // The scenario on every GPU of the catalog: [{gpu, name, memory_bytes, fits, device_bytes, max_batch, max_seq_len}].
  api.solveCatalog = function (scenario) { return call('vramcalc_api_solve_catalog', text(scenario)).catalog; };
  // The model and GPU presets: {models: [...], gpus: [...]}.
  api.presets = function () { var p = call('vramcalc_api_presets'); return {models: p.models, gpus: p.gpus}; };
  root.vramcalc = api;

  var previous = Module.onRuntimeInitialized;
  Module.onRuntimeInitialized = function () {
    if (previous) previous();
    resolveReady(api);
  };
  if (runtimeInitialized) resolveReady(api);
})();
