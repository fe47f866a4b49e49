// The drivers of the on-demand modules: the checkpoint reader and the importer (config, config.json,
// print(model)).

// Checkpoint headers over HTTP Range (imgui_app/src/panel_checkpoint.cpp): the core's reader is a
// separate module, loaded on this click; it names each range, this fetches it. A server that answers
// a Range request with the whole file (200) is cut off at once: the rest would be the weights.
function readCheckpoint(base, file, ifMissing) {
  function report(json) { call('vramcalc_on_checkpoint', ['string'], [json]); }
  loadModule('vramcalc-checkpoint.js', 'vramcalcCheckpoint').then(function (m) {
    var f = toModule(m, file), g = toModule(m, ifMissing);
    m._ckpt_open(f, g);
    m._free(f);
    m._free(g);
    (function step() {
      var json = m.UTF8ToString(m._ckpt_state()), q = JSON.parse(json), range = q.last >= 0, ctl = new AbortController();
      report(json);
      if (!q.busy) return;
      function fail(why) { var p = toModule(m, why); m._ckpt_fail(p); m._free(p); step(); }
      fetch(base + q.file, {credentials: 'omit', signal: ctl.signal, headers: range ? {Range: 'bytes=' + q.first + '-' + q.last} : {}}).then(function (r) {
        if (range && r.status === 200) {
          ctl.abort();
          return fail('the server ignored the Range request (HTTP 200 with the whole file, ' +
                      (r.headers.get('content-length') || 'unknown') + ' bytes), so the download was stopped');
        }
        if (r.status === 404) { m._ckpt_missing(); return step(); }
        if (!r.ok) return fail('HTTP ' + r.status + (r.status === 401 || r.status === 403 ? ' (the model is gated or private)' : ''));
        return r.arrayBuffer().then(function (b) {
          var p = m._malloc(b.byteLength + 1);
          m.HEAPU8.set(new Uint8Array(b), p);
          m._ckpt_receive(p, b.byteLength);
          m._free(p);
          step();
        });
      }).catch(function () {
        fail(navigator.onLine === false ? 'you are offline' :
             'network error: the server does not let this page read it (no CORS headers), or it cannot be reached');
      });
    })();
  }, function () {
    report('{"error":"the checkpoint reader (vramcalc-checkpoint.js) did not load"}');
  });
}

// Another tool's config (a `vllm serve` line, a DeepSpeed JSON, a YAML recipe) pasted, dropped or
// opened: the importer and its YAML parser are a separate module (web/import_module.cpp), loaded on
// the first such config so that they cost the page nothing until then.
function importConfig(name, text) {
  function report(json) { call('vramcalc_on_imported', ['string', 'string'], [name, json]); }
  loadModule('vramcalc-import.js', 'vramcalcImport').then(function (m) {
    var p = toModule(m, text), json = m.UTF8ToString(m._import_run(p, m.lengthBytesUTF8(text)));
    m._free(p);
    report(json);
  }, function () {
    report('{"ok":false,"errors":[{"field":"","message":"the config importer (vramcalc-import.js) did not load"}]}');
  });
}

// A config.json that a scenario names (pasted, dropped, fetched from the Hub, in a link or the saved
// scenario): the page's wasm has no config.json reader, the importer's module reads it
// (web/import_module.cpp model_run), loaded on the first such config; the page says so meanwhile.
function readModel(key, config, name, prefix) {
  function report(json) { call('vramcalc_on_model', ['string', 'string'], [key, json]); }
  loadModule('vramcalc-import.js', 'vramcalcImport').then(function (m) {
    var p = toModule(m, config), q = toModule(m, name), r = toModule(m, prefix);
    var json = m.UTF8ToString(m._model_run(p, m.lengthBytesUTF8(config), q, r));
    m._free(p);
    m._free(q);
    m._free(r);
    report(json);
  }, function () {
    report(JSON.stringify({errors: [{field: prefix, message: 'the model reader (vramcalc-import.js) did not load: reload the page to try again'}]}));
  });
}

// A PyTorch print(model) for the layer-stack editor: the converter is in the importer's module too.
function convertRepr(text, input) {
  function report(json) { call('vramcalc_on_repr', ['string'], [json]); }
  loadModule('vramcalc-import.js', 'vramcalcImport').then(function (m) {
    var p = toModule(m, text), q = toModule(m, input), json = m.UTF8ToString(m._repr_run(p, m.lengthBytesUTF8(text), q));
    m._free(p);
    m._free(q);
    report(json);
  }, function () {
    report('{"ok":false,"errors":[{"field":"","message":"the converter (vramcalc-import.js) did not load"}]}');
  });
}
