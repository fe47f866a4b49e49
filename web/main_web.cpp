// The web page's platform: WebGL2 under Dear ImGui, the frame loop, the browser's clipboard, downloads,
// file picker, fetch, URL hash and localStorage (the JS halves are in shell/page.js; input_web.cpp takes
// the pointer and keys). No GLFW: page.js owns the DOM events and asks for animation frames only while
// the UI changes. The UI itself is imgui_app/src; this file only connects it to the browser.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include <emscripten/emscripten.h>
#include <GLES3/gl3.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>

#include "browser_fonts.hpp"
#include "page.hpp"
#include "vramcalc/model_reader_page.hpp"
#include "vramcalc/presets.hpp"
#include "vramcalc_ui/app.hpp"
#include "vramcalc_ui/input.hpp"

// JS side (shell/page.js defines window.vramcalcPage with these functions).
EM_JS(void, js_copy_text, (const char* text), { vramcalcPage.copyText(UTF8ToString(text)); });
EM_JS(void, js_download, (const char* name, const char* mime, const char* text),
      { vramcalcPage.download(UTF8ToString(name), UTF8ToString(mime), UTF8ToString(text)); });
EM_JS(void, js_open_file, (), { vramcalcPage.openFile(); });
EM_JS(void, js_fetch, (const char* url), { vramcalcPage.fetchText(UTF8ToString(url)); });
EM_JS(void, js_read_checkpoint, (const char* base, const char* file, const char* if_missing),
      { vramcalcPage.readCheckpoint(UTF8ToString(base), UTF8ToString(file), UTF8ToString(if_missing)); });
EM_JS(void, js_import_config, (const char* name, const char* text),
      { vramcalcPage.importConfig(UTF8ToString(name), UTF8ToString(text)); });
EM_JS(void, js_read_model, (const char* key, const char* config, const char* name, const char* prefix),
      { vramcalcPage.readModel(UTF8ToString(key), UTF8ToString(config), UTF8ToString(name), UTF8ToString(prefix)); });
EM_JS(void, js_convert_repr, (const char* text, const char* input_json),
      { vramcalcPage.convertRepr(UTF8ToString(text), UTF8ToString(input_json)); });
EM_JS(void, js_set_hash, (const char* hash), { vramcalcPage.setHash(UTF8ToString(hash)); });
EM_JS(void, js_open_url, (const char* url), { vramcalcPage.openUrl(UTF8ToString(url)); });
EM_JS(void, js_set_summary, (const char* text), { vramcalcPage.setSummary(UTF8ToString(text)); });
EM_JS(void, js_save_setting, (const char* key, const char* value),
      { vramcalcPage.saveSetting(UTF8ToString(key), UTF8ToString(value)); });
// Strings to C: malloc'ed copies that take() frees (Emscripten 3.1.6 has no stringToNewUTF8 export).
EM_JS(char*, js_load_setting, (const char* key), { return vramcalcPage.toC(vramcalcPage.loadSetting(UTF8ToString(key))); });
EM_JS(char*, js_page_link, (), { return vramcalcPage.toC(vramcalcPage.pageLink()); });
EM_JS(char*, js_initial_hash, (), { return vramcalcPage.toC(location.hash || ""); });
EM_JS(int, js_embed_mode, (), { return vramcalcPage.embed ? 1 : 0; });
EM_JS(void, js_first_frame, (), { vramcalcPage.firstFrame(); });
// The text field being edited: -1 none, 0 digits, 1 a decimal number, 2 text (the phone's keyboard).
EM_JS(void, js_text_input, (int kind), { vramcalcPage.textInputWanted(kind); });
// A start-up failure, on the page where the loading message was (shell/page.js) and in the console.
// Not emscripten_log: its printf-style formatter and stack walker are 3 KB of the page's gzip JS.
EM_JS(void, js_fatal, (const char* text), {
    console.error(UTF8ToString(text));
    Module.onAbort(UTF8ToString(text));
});
EM_JS(void, js_content_height, (double css_pixels), { vramcalcPage.contentHeight(css_pixels); });
EM_JS(void, js_request_frame, (), { vramcalcPage.requestFrame(); });
EM_JS(void, js_set_cursor, (const char* css), { Module.canvas.style.cursor = UTF8ToString(css); });
EM_JS(double, js_device_pixel_ratio, (), { return window.devicePixelRatio || 1; });
EM_JS(void, js_canvas_size, (int* w, int* h, double* css_w, double* css_h), {
    var c = Module.canvas;
    HEAP32[w >> 2] = c.width;
    HEAP32[h >> 2] = c.height;
    HEAPF64[css_w >> 3] = c.clientWidth;
    HEAPF64[css_h >> 3] = c.clientHeight;
});
// A WebGL 2 context on the canvas, made current for the gl* calls (Emscripten's GL object).
EM_JS(int, js_create_gl_context, (), {
    var h = GL.createContext(Module.canvas, {majorVersion : 2, minorVersion : 0, alpha : true, depth : false, stencil : false, antialias : false, premultipliedAlpha : true, preserveDrawingBuffer : false});
    return h && GL.makeContextCurrent(h) ? h : 0;
});

namespace vramcalc::web {

namespace {
std::string take(char* p) {  // strings from toC are ours to free
    std::string s = p ? p : "";
    std::free(p);
    return s;
}
Page g_page;
constexpr int kSettleFrames = 4;  // frames drawn after the last input, so ImGui's layout and popups settle
}  // namespace

Page& page() { return g_page; }

void WebPlatform::copy_text(const std::string& text) {
    clipboard = text;
    js_copy_text(text.c_str());
}
std::string WebPlatform::save_text(const std::string& file, const std::string& mime, const std::string& text) {
    js_download(file.c_str(), mime.c_str(), text.c_str());
    return "Downloaded " + file;
}
void WebPlatform::open_file_dialog() { js_open_file(); }
void WebPlatform::fetch_text(const std::string& url) { js_fetch(url.c_str()); }
void WebPlatform::read_checkpoint(const std::string& base, const std::string& file, const std::string& if_missing) {
    js_read_checkpoint(base.c_str(), file.c_str(), if_missing.c_str());
}
bool WebPlatform::import_config(const std::string& name, const std::string& text) {
    js_import_config(name.c_str(), text.c_str());
    return true;
}
bool WebPlatform::convert_repr(const std::string& text, const std::string& input_json) {
    js_convert_repr(text.c_str(), input_json.c_str());
    return true;
}
void WebPlatform::set_url_state(const std::string& hash) { js_set_hash(hash.c_str()); }
std::string WebPlatform::share_link(const std::string& hash) const { return take(js_page_link()) + "#" + hash; }
void WebPlatform::open_url(const std::string& url) { js_open_url(url.c_str()); }
void WebPlatform::set_summary(const std::string& text) { js_set_summary(text.c_str()); }
void WebPlatform::save_setting(const std::string& key, const std::string& value) { js_save_setting(key.c_str(), value.c_str()); }
std::string WebPlatform::load_setting(const std::string& key) const { return take(js_load_setting(key.c_str())); }

void wake() {
    g_page.frames_left = std::max(g_page.frames_left, kSettleFrames);
    js_request_frame();
}

namespace {

void update_canvas() {
    Canvas& c = g_page.canvas;
    js_canvas_size(&c.width, &c.height, &c.css_width, &c.css_height);
    c.width = std::max(c.width, 1);
    c.height = std::max(c.height, 1);
}

// ImGui's cursor as the canvas's CSS cursor, set when it changes.
void update_cursor() {
    const int cursor = ImGui::GetMouseCursor();
    if (cursor == g_page.cursor) return;
    g_page.cursor = cursor;
    static const char* const css[] = {"default", "text", "move", "ns-resize", "ew-resize", "nesw-resize", "nwse-resize", "pointer", "not-allowed"};
    js_set_cursor(cursor >= 0 && cursor < IM_ARRAYSIZE(css) ? css[cursor] : "none");
}

}  // namespace

void draw() {
    Page& p = g_page;
    update_canvas();
    const float dpr = static_cast<float>(js_device_pixel_ratio());
    if (dpr != p.dpr) {  // first frame, or the window moved to a screen of another density: new font atlas
        p.dpr = dpr;
        ui::setup_style(dpr);
        add_browser_fonts(dpr);
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    p.app->update();
    ImGui_ImplOpenGL3_NewFrame();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(p.canvas.width), static_cast<float>(p.canvas.height));  // device pixels
    io.DisplayFramebufferScale = ImVec2(1, 1);
    const double now = emscripten_get_now();
    io.DeltaTime = p.last_time > 0 ? std::max(static_cast<float>((now - p.last_time) / 1000.0), 1e-4f) : 1.0f / 60;
    p.last_time = now;
    apply_input(io);
    p.app->state().touch = p.touch_pointer;  // a finger's taps: rows a fingertip can hit
    ui::prepare_input(p.app->state());
    ImGui::NewFrame();
    p.pressed.clear();
    p.app->draw_frame();
    ImGui::Render();
    glViewport(0, 0, p.canvas.width, p.canvas.height);
    glClearColor(1, 1, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++p.frames_drawn;
    update_cursor();

    if (const int kind = ui::text_input_kind(p.app->state()); kind != p.text_kind) {
        p.text_kind = kind;
        js_text_input(kind);
    }
    const auto& st = p.app->state();
    if (st.embed && std::fabs(st.content_height / dpr - p.content_height) >= 1) {
        p.content_height = st.content_height / dpr;
        js_content_height(p.content_height);
    }
    if (p.first) {
        p.first = false;
        js_first_frame();
    }
    // The config.json files this frame's scenarios named that the page has not read yet: its model reader
    // module reads them (core/src/model/config_reader.hpp), and vramcalc_on_model recomputes with each answer.
    for (const auto& r : vramcalc::take_model_requests())
        js_read_model(r.key.c_str(), r.config.c_str(), r.name.c_str(), r.field_prefix.c_str());
}

}  // namespace vramcalc::web

using namespace vramcalc::web;

namespace {
const char* get_clipboard(void*) { return g_page.platform.clipboard.c_str(); }
void set_clipboard(void*, const char* text) { g_page.platform.copy_text(text ? text : ""); }
}  // namespace

// Called from shell/page.js.
extern "C" {
// One animation frame: draws when something may have changed. Returns 1 to be called again next frame,
// 0 when the UI has settled (page.js then requests no frames until the next wake()).
EMSCRIPTEN_KEEPALIVE int vramcalc_frame() {
    Page& p = g_page;
    if (!p.app) return 0;
    const bool more = p.frames_left > 0 || !p.steps.empty() || p.app->state().dirty || p.app->busy();
    if (!more) {
        p.last_time = 0;  // the next frame after a pause is not a long one
        return 0;
    }
    draw();
    p.frames_left = std::max(0, p.frames_left - 1);
    return 1;
}
EMSCRIPTEN_KEEPALIVE void vramcalc_wake() { wake(); }
// The visible area changed (a phone's keyboard opened, the window was resized): the next frame scrolls
// the field being edited into view.
EMSCRIPTEN_KEEPALIVE void vramcalc_reveal_active() {
    if (!g_page.app || !ImGui::GetIO().WantTextInput) return;
    g_page.app->state().reveal_active = true;
    wake();
}
EMSCRIPTEN_KEEPALIVE long vramcalc_frames_drawn() { return g_page.frames_drawn; }
// A paste: what Ctrl+V gives a text field; with no field being edited, a config pasted on the page is
// imported (App::on_paste), as a dropped file is.
EMSCRIPTEN_KEEPALIVE void vramcalc_on_paste(const char* text) {
    g_page.platform.clipboard = text ? text : "";
    if (g_page.app && !ImGui::GetIO().WantTextInput) g_page.app->on_paste(g_page.platform.clipboard);
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_hash(const char* hash) {
    if (g_page.app) g_page.app->load_url_state(hash ? hash : "");
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_file(const char* name, const char* bytes) {
    if (g_page.app) g_page.app->on_file(name ? name : "file", bytes ? bytes : "");
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_file_refused(const char* name, const char* why) {  // too large, not text
    if (g_page.app) g_page.app->on_file_refused(name ? name : "file", why ? why : "");
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_fetched(int ok, const char* url, const char* body, const char* error) {
    if (g_page.app) g_page.app->on_fetched(ok != 0, url ? url : "", body ? body : "", error ? error : "");
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_checkpoint(const char* report_json) {  // read_checkpoint's reports
    if (g_page.app) g_page.app->on_checkpoint(report_json ? report_json : "");
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_repr(const char* answer_json) {  // convert_repr's answer
    if (g_page.app) g_page.app->on_repr(answer_json ? answer_json : "");
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_model(const char* key, const char* answer_json) {  // read_model's answer
    vramcalc::answer_model_request(key ? key : "", answer_json ? answer_json : "");
    if (g_page.app) g_page.app->state().dirty = true;
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_imported(const char* name, const char* result_json) {  // import_config's answer
    if (g_page.app) g_page.app->on_imported(name ? name : "config", result_json ? result_json : "");
    wake();
}
// Tests: the focused control's label, the vertical scroll (CSS pixels) at a point, the embed snippet.
EMSCRIPTEN_KEEPALIVE const char* vramcalc_nav_focus() { return g_page.app ? g_page.app->state().nav.focus_label.c_str() : ""; }
EMSCRIPTEN_KEEPALIVE double vramcalc_scroll_of(double x, double y) {
    const float scale = g_page.canvas.scale();
    return vramcalc::ui::scroll_y_at(ImVec2(static_cast<float>(x) * scale, static_cast<float>(y) * scale)) / scale;
}
EMSCRIPTEN_KEEPALIVE const char* vramcalc_status() {  // tests: the status line ("Imported ...", an error) as shown
    if (!g_page.app) return "";
    const auto& st = g_page.app->state();
    return st.status_edits == st.edits ? st.status.c_str() : "";
}
EMSCRIPTEN_KEEPALIVE const char* vramcalc_active_text() {  // the text field being edited, empty when none
    const ImGuiContext& g = *GImGui;
    g_page.reply = ImGui::GetIO().WantTextInput && g.InputTextState.TextA.Size > 0 ? g.InputTextState.TextA.Data : "";
    return g_page.reply.c_str();
}
// Tests: the centre of a control (by its focus label) in CSS pixels, "" when it was not drawn.
EMSCRIPTEN_KEEPALIVE const char* vramcalc_control_at(const char* label) {
    g_page.reply.clear();
    if (!g_page.app || !label) return "";
    const float scale = g_page.canvas.scale();
    for (const auto& s : g_page.app->state().nav.collecting)  // the last frame drawn
        if (s.label == label) {
            g_page.reply = std::to_string((s.x0 + s.x1) * 0.5f / scale) + "," + std::to_string((s.y0 + s.y1) * 0.5f / scale);
            break;
        }
    return g_page.reply.c_str();
}
// Tests: the rectangle "x0,y0,x1,y1" (CSS pixels) of a control or an open popup's row by its label, of the
// front-most open popup ("popup") and its first row ("popup-row"); "" when none was drawn.
EMSCRIPTEN_KEEPALIVE const char* vramcalc_rect_of(const char* label) {
    g_page.reply.clear();
    if (!g_page.app || !label) return "";
    const float s = g_page.canvas.scale();
    const auto put = [s](float x0, float y0, float x1, float y1) {
        g_page.reply = std::to_string(x0 / s) + "," + std::to_string(y0 / s) + "," + std::to_string(x1 / s) + "," + std::to_string(y1 / s);
    };
    const auto& nav = g_page.app->state().nav;
    if (std::string(label) == "popup-row" && !nav.popup_items.empty()) {
        const auto& t = nav.popup_items.front();
        put(t.x0, t.y0, t.x1, t.y1);
        return g_page.reply.c_str();
    }
    if (std::string(label) == "popup") {
        const ImGuiContext& g = *GImGui;
        if (g.OpenPopupStack.Size > 0 && g.OpenPopupStack.back().Window) {
            const ImRect r = g.OpenPopupStack.back().Window->Rect();
            put(r.Min.x, r.Min.y, r.Max.x, r.Max.y);
        }
        return g_page.reply.c_str();
    }
    for (const auto* list : {&nav.collecting, &nav.popup_items})
        for (const auto& t : *list)
            if (t.label == label && g_page.reply.empty()) put(t.x0, t.y0, t.x1, t.y1);
    return g_page.reply.c_str();
}
EMSCRIPTEN_KEEPALIVE const char* vramcalc_form_field(const char* ptr) {  // tests: {"value", "error"} of a field
    g_page.reply = g_page.app && ptr ? vramcalc::ui::form_field(g_page.app->state(), ptr).dump() : "{}";
    return g_page.reply.c_str();
}
EMSCRIPTEN_KEEPALIVE const char* vramcalc_embed_snippet() {
    g_page.reply = g_page.app ? vramcalc::ui::embed_snippet(g_page.app->state()) : "";
    return g_page.reply.c_str();
}
// Milliseconds for one full-catalog solve of the current scenario (the page's measurement command).
// Milliseconds the last change's bill, catalog, advice and curves took (the footer's "Computed in").
EMSCRIPTEN_KEEPALIVE double vramcalc_compute_ms() { return g_page.app ? g_page.app->state().results.compute_ms : -1; }
EMSCRIPTEN_KEEPALIVE double vramcalc_time_catalog_solve(int repeats) {
    if (!g_page.app || !g_page.app->state().results.ok) return -1;
    const auto& sc = g_page.app->state().results.scenario;
    const double t0 = emscripten_get_now();
    std::size_t sink = 0;
    for (int i = 0; i < repeats; ++i) sink += vramcalc::solve_catalog(sc, g_page.app->state().catalog->gpus()).size();
    return sink > 0 ? (emscripten_get_now() - t0) / repeats : -1;
}
}

int main() {
    const auto& catalog = vramcalc::builtin_catalog();
    if (!catalog.ok()) {
        js_fatal(("the built-in presets are broken: " + catalog.error_text()).c_str());
        return 1;
    }
    if (!js_create_gl_context()) {
        js_fatal("this browser gives no WebGL 2 context (it may be switched off, or the graphics driver blocked)");
        return 1;
    }
    update_canvas();

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no filesystem on the page; settings live in localStorage
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    io.BackendFlags |= ImGuiBackendFlags_HasMouseCursors;
    io.BackendPlatformName = "vramcalc_web";
    setup_keys(io);
    ImGui_ImplOpenGL3_Init("#version 300 es");
    io.GetClipboardTextFn = get_clipboard;  // the browser's clipboard, through page.js
    io.SetClipboardTextFn = set_clipboard;

    g_page.app = std::make_unique<vramcalc::ui::App>(*catalog, g_page.platform);
    g_page.app->state().embed = js_embed_mode() != 0;
    g_page.app->load_url_state(take(js_initial_hash()));
    wake();
    return 0;
}
