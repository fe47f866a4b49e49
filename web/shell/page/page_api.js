// What the page shares: window.vramcalc (the JS API's stand-in) and window.vramcalcPage (for
// web/main_web.cpp and the tests).

// window.vramcalc, the JS API (docs/embedding.md), is the headless vramcalc-api.js: loaded the first
// time a script reads vramcalc.ready (the calculator itself never needs it). Its post-js then replaces
// this stand-in's members; until then a call says what to wait for.
var api = window.vramcalc = {};
['estimate', 'solveCatalog', 'presets', 'importConfig'].forEach(function (name) {
  api[name] = function () { throw new Error('vramcalc is still loading: wait for vramcalc.ready'); };
});
Object.defineProperty(api, 'ready', {configurable: true, enumerable: true, get: function () {
  return loadOnce('vramcalc-api.js').then(function () { return api.ready; }, function () {
    throw new Error('vramcalc-api.js could not be loaded (offline, or the page was moved without it)');
  });
}});

window.vramcalcPage = {
  embed: params.get('embed') === '1',
  firstFrameMs: null,
  copyText: copyText,
  download: download,
  openFile: openFile,
  fetchText: fetchText,
  readCheckpoint: readCheckpoint,
  importConfig: importConfig,
  readModel: readModel,
  convertRepr: convertRepr,
  rasterGlyphs: rasterGlyphs,
  setHash: setHash,
  pageLink: pageLink,
  openUrl: openUrl,
  setSummary: function (text) { summary.textContent = text; },
  textInputWanted: textInputWanted,
  requestFrame: requestFrame,
  contentHeight: function (cssPixels) {  // ?embed=1: the host sizes the frame (docs/embedding.md)
    if (window.parent !== window) window.parent.postMessage({type: 'vramcalc:height', height: Math.ceil(cssPixels)}, '*');
  },
  saveSetting: function (key, value) { try { localStorage.setItem('vramcalc.' + key, value); } catch (e) { /* storage disabled */ } },
  loadSetting: function (key) { try { return localStorage.getItem('vramcalc.' + key) || ''; } catch (e) { return ''; } },
  firstFrame: function () {
    window.vramcalcPage.firstFrameMs = performance.now();
    loading.style.display = 'none';
    resize();
    if (!window.vramcalcPage.embed) canvas.focus({preventScroll: true});  // keys work at once (an iframe leaves the host's focus alone)
  },
  framesDrawn: function () { return ready() ? Module._vramcalc_frames_drawn() : 0; },
  navFocus: function () { return ready() ? UTF8ToString(Module._vramcalc_nav_focus()) : ''; },  // tests: the focused control
  status: function () { return ready() ? UTF8ToString(Module._vramcalc_status()) : ''; },  // tests: the status line
  activeText: function () { return ready() ? UTF8ToString(Module._vramcalc_active_text()) : ''; },
  rectOf: function (label) {  // tests: [x0, y0, x1, y1] in CSS pixels of a control, a popup's row, or "popup"
    var r = ready() ? Module.ccall('vramcalc_rect_of', 'string', ['string'], [label]) : '';
    return r ? r.split(',').map(Number) : null;
  },
  controlAt: function (label) {  // tests: [x, y] of a control's centre in CSS pixels, or null
    var r = ready() ? Module.ccall('vramcalc_control_at', 'string', ['string'], [label]) : '';
    return r ? r.split(',').map(Number) : null;
  },
  formField: function (ptr) {  // tests: {value, error} the form shows at a scenario key's JSON pointer
    return ready() ? JSON.parse(Module.ccall('vramcalc_form_field', 'string', ['string'], [ptr])) : null;
  },
  embedSnippet: function () { return ready() ? UTF8ToString(Module._vramcalc_embed_snippet()) : ''; },
  scrollOf: function (x, y) { return ready() ? Module._vramcalc_scroll_of(x, y) : -1; },         // tests: the scroll of the window at x, y
  computeMs: function () { return ready() ? Module._vramcalc_compute_ms() : -1; },  // report: the last change's compute time
  timeCatalogSolve: function (repeats) { return Module.ccall('vramcalc_time_catalog_solve', 'number', ['number'], [repeats || 20]); },
  startMs: t0,
  toC: function (s) { return toModule(Module, s); },  // a malloc'ed UTF-8 copy for C++ (web/main_web.cpp frees it)
};
