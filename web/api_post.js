// window.vramcalc: the calculator as a JS API (docs/embedding.md). Appended to both the page's module
// and the headless vramcalc-api.js by Emscripten (--post-js), so both offer the same object.
//
// Text reaches the module through the heap (_malloc + stringToUTF8), never through ccall's 'string'
// type: Emscripten 3.1.6 copies those onto its 5 MiB stack unchecked, and a 1.25 MiB text killed the
// instance for good. One size limit (8 MiB of UTF-8) is checked before anything is allocated. Every
// failure is a JS Error with .problems ([{field, message}]), never a bare WebAssembly.Exception.
(function () {
  'use strict';
  var root = typeof window !== 'undefined' ? window : globalThis;
  var resolveReady;
  var ready = new Promise(function (resolve) { resolveReady = resolve; });
  var MAX_INPUT_BYTES = 8 * 1024 * 1024;  // the core's kMaxInputBytes (vramcalc_api_max_input_bytes)

  function problem(field, message) {
    var err = new Error((field ? field + ': ' : '') + message);
    err.problems = [{field: field, message: message}];
    return err;
  }

  // Calls `fn` with each string argument written into the heap as (pointer, byte length), or as a
  // NUL-terminated pointer alone when `lengths` is false (the page's const char* entry points); numbers
  // pass as they are. Returns the C function's result (its returned string read back for 'string').
  function callWithStrings(fn, returnType, types, args, lengths) {
    if (lengths === undefined) lengths = true;
    var raw = [], rawTypes = [], owned = [];
    try {
      for (var i = 0; i < types.length; ++i) {
        if (types[i] !== 'string') { raw.push(args[i]); rawTypes.push(types[i]); continue; }
        var s = args[i] == null ? '' : String(args[i]);
        // A lone surrogate is not Unicode: Emscripten 3.1.6's stringToUTF8 pairs it with whatever code
        // unit follows (a closing quote included). Replaced by U+FFFD where the engine can.
        if (typeof s.toWellFormed === 'function') s = s.toWellFormed();
        // lengthBytesUTF8 is at most 3 x length: skip counting a string that is obviously too long.
        var n = s.length > MAX_INPUT_BYTES ? s.length : lengthBytesUTF8(s);
        if (n > MAX_INPUT_BYTES)
          throw problem('scenario', 'the text is ' + n + ' bytes or more, allowed: at most ' + MAX_INPUT_BYTES + ' bytes (8 MiB)');
        var p = Module._malloc(n + 1);
        if (!p) throw problem('scenario', 'out of memory for a text of ' + n + ' bytes');
        owned.push(p);
        stringToUTF8(s, p, n + 1);
        raw.push(p);
        rawTypes.push('number');
        if (lengths) { raw.push(n); rawTypes.push('number'); }
      }
      var out = Module.ccall(fn, returnType === 'string' ? 'number' : returnType, rawTypes, raw);
      return returnType === 'string' ? UTF8ToString(out) : out;
    } finally {
      for (var k = 0; k < owned.length; ++k) Module._free(owned[k]);
    }
  }
  Module.vramcalcCallWithStrings = callWithStrings;  // for the page's own entry points (paste, drop, hash, fetch)

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
  api.ready = ready;
  api.maxInputBytes = MAX_INPUT_BYTES;
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
  if (runtimeInitialized) resolveReady(api);
})();
