// The web page's platform: Emscripten's GLFW + WebGL2 under Dear ImGui, the browser's clipboard,
// downloads, file picker, fetch, URL hash and localStorage (the JS halves are in shell/page.js).
// The UI itself is imgui_app/src; this file only connects it to the browser.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <deque>
#include <memory>
#include <vector>
#include <string>

#include <emscripten/emscripten.h>
#include <emscripten/html5.h>
#define GLFW_INCLUDE_ES3
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>  // ClearActiveID

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
EM_JS(void, js_text_input, (int want), { vramcalcPage.textInputWanted(want != 0); });
// A start-up failure, on the page where the loading message was (shell/page.js) and in the console.
// Not emscripten_log: its printf-style formatter and stack walker are 3 KB of the page's gzip JS.
EM_JS(void, js_fatal, (const char* text), {
    console.error(UTF8ToString(text));
    Module.onAbort(UTF8ToString(text));
});
EM_JS(void, js_content_height, (double css_pixels), { vramcalcPage.contentHeight(css_pixels); });

namespace {

std::string take(char* p) {  // strings from stringToNewUTF8 are ours to free
    std::string s = p ? p : "";
    std::free(p);
    return s;
}

class WebPlatform final : public vramcalc::ui::Platform {
public:
    const char* name() const override { return "web"; }
    void copy_text(const std::string& text) override {
        clipboard = text;
        js_copy_text(text.c_str());
    }
    std::string save_text(const std::string& file, const std::string& mime, const std::string& text) override {
        js_download(file.c_str(), mime.c_str(), text.c_str());
        return "Downloaded " + file;
    }
    void open_file_dialog() override { js_open_file(); }
    bool can_fetch() const override { return true; }
    void fetch_text(const std::string& url) override { js_fetch(url.c_str()); }
    void read_checkpoint(const std::string& base, const std::string& file, const std::string& if_missing) override {
        js_read_checkpoint(base.c_str(), file.c_str(), if_missing.c_str());
    }
    bool import_config(const std::string& name, const std::string& text) override {
        js_import_config(name.c_str(), text.c_str());
        return true;
    }
    void set_url_state(const std::string& hash) override { js_set_hash(hash.c_str()); }
    std::string share_link(const std::string& hash) const override { return take(js_page_link()) + "#" + hash; }
    void open_url(const std::string& url) override { js_open_url(url.c_str()); }
    void set_summary(const std::string& text) override { js_set_summary(text.c_str()); }
    void save_setting(const std::string& key, const std::string& value) override { js_save_setting(key.c_str(), value.c_str()); }
    std::string load_setting(const std::string& key) const override { return take(js_load_setting(key.c_str())); }

    std::string clipboard;  // what Ctrl+V pastes: the browser's last paste event, or our last copy
};

// A touch or a key from the hidden text input reaches ImGui one step per frame, as a mouse or keyboard
// would have: ImGui 1.86 reads the state once per frame, so a press and a release in one frame are lost.
struct Step {
    enum Kind { Pointer, Key } kind = Pointer;
    float x = -FLT_MAX, y = -FLT_MAX;  // pointer: framebuffer pixels (-FLT_MAX: no pointer)
    bool down = false;                 // pointer: button held; key: pressed
    int key = 0;                       // key: GLFW key code
    long after = -1;                   // not before the frame after this one was drawn
};

constexpr int kSettleFrames = 4;  // frames drawn after the last input, so ImGui's layout and popups settle

struct Page {
    GLFWwindow* window = nullptr;
    WebPlatform platform;
    std::unique_ptr<vramcalc::ui::App> app;
    float dpr = 0;
    int frames_left = kSettleFrames;  // frames still to draw before the main loop pauses
    bool paused = false;              // the main loop is paused: no requestAnimationFrame at all
    long frames_drawn = 0;
    bool first = true;
    std::deque<Step> steps;
    std::vector<int> pressed;         // keys pressed since the last frame began
    bool touch_pointer = false;       // the last pointer was a finger: GLFW's (mouse) position is stale
    double mouse_x = 0, mouse_y = 0;  // GLFW's cursor when the finger took over
    bool want_text = false;           // io.WantTextInput as the page was last told
    float content_height = 0;         // ?embed=1: the last height sent to the host (CSS pixels)
    std::string reply;                // strings returned to JS (valid until the next call)
};
Page g_page;

// Framebuffer pixels per CSS pixel (the canvas holds device pixels, page.js sizes it).
float css_scale() {
    int w = 0, h = 0;
    double cw = 0, ch = 0;
    emscripten_get_canvas_element_size("#canvas", &w, &h);
    emscripten_get_element_css_size("#canvas", &cw, &ch);
    return cw > 0 ? static_cast<float>(w / cw) : 1.0f;
}

void wake() {
    Page& p = g_page;
    p.frames_left = std::max(p.frames_left, kSettleFrames);
    if (p.paused) {
        p.paused = false;
        emscripten_resume_main_loop();
    }
}

// Before ImGui::NewFrame(): the next touch or key step, over what GLFW reported.
void apply_steps(ImGuiIO& io) {
    Page& p = g_page;
    double mx = 0, my = 0;
    glfwGetCursorPos(p.window, &mx, &my);
    if (p.touch_pointer && (mx != p.mouse_x || my != p.mouse_y)) p.touch_pointer = false;  // a mouse moved: it leads again
    if (!p.steps.empty() && p.steps.front().after < p.frames_drawn) {
        const Step s = p.steps.front();
        p.steps.pop_front();
        if (s.kind == Step::Key) {
            ImGui_ImplGlfw_KeyCallback(p.window, s.key, 0, s.down ? GLFW_PRESS : GLFW_RELEASE, 0);
        } else {
            p.touch_pointer = true;
            p.mouse_x = mx;
            p.mouse_y = my;
            io.MousePos = ImVec2(s.x, s.y);
            io.MouseDown[0] = s.down;
            return;
        }
    }
    if (p.touch_pointer) {
        io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        io.MouseDown[0] = false;
    }
}

void draw() {
    Page& p = g_page;
    int w = 0, h = 0;
    emscripten_get_canvas_element_size("#canvas", &w, &h);
    const float dpr = static_cast<float>(emscripten_get_device_pixel_ratio());
    if (dpr != p.dpr) {  // first frame, or the window moved to a screen of another density: new font atlas
        p.dpr = dpr;
        vramcalc::ui::setup_style(dpr);
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    p.app->update();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(w), static_cast<float>(h));  // the canvas is sized in device pixels
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = std::max(io.DeltaTime, 1e-4f);  // frames run back to back for a tap
    apply_steps(io);
    vramcalc::ui::prepare_input(p.app->state());
    ImGui::NewFrame();
    p.pressed.clear();
    p.app->draw_frame();
    ImGui::Render();
    glViewport(0, 0, w, h);
    glClearColor(1, 1, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++p.frames_drawn;

    if (io.WantTextInput != p.want_text) {
        p.want_text = io.WantTextInput;
        js_text_input(p.want_text ? 1 : 0);
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
}

// The main loop's callback (requestAnimationFrame). With nothing left to do it pauses the loop itself:
// an idle page schedules no animation frames; wake() resumes it.
void tick(void*) {
    Page& p = g_page;
    const bool more = p.frames_left > 0 || !p.steps.empty() || p.app->state().dirty || p.app->busy();
    if (!more) {
        p.paused = true;
        emscripten_pause_main_loop();
        return;
    }
    draw();
    p.frames_left = std::max(0, p.frames_left - 1);
}

// Keys from GLFW: a key pressed and released before a frame (a quick tap, a test's key press) would be
// lost to ImGui 1.86, which reads key states once per frame; its release waits for the next frame.
void key_callback(GLFWwindow* window, int key, int scancode, int action, int mods) {
    Page& p = g_page;
    if (action == GLFW_RELEASE && std::find(p.pressed.begin(), p.pressed.end(), key) != p.pressed.end()) {
        p.steps.push_back({Step::Key, 0, 0, false, key, p.frames_drawn});
    } else {
        if (action == GLFW_PRESS) p.pressed.push_back(key);
        ImGui_ImplGlfw_KeyCallback(window, key, scancode, action, mods);
    }
    wake();
}

const char* get_clipboard(void*) { return g_page.platform.clipboard.c_str(); }
void set_clipboard(void*, const char* text) { g_page.platform.copy_text(text ? text : ""); }

}  // namespace

// Called from shell/page.js.
extern "C" {
EMSCRIPTEN_KEEPALIVE void vramcalc_wake() { wake(); }
EMSCRIPTEN_KEEPALIVE long vramcalc_frames_drawn() { return g_page.frames_drawn; }
EMSCRIPTEN_KEEPALIVE void vramcalc_on_paste(const char* text) {
    g_page.platform.clipboard = text ? text : "";
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
EMSCRIPTEN_KEEPALIVE void vramcalc_on_fetched(int ok, const char* url, const char* body, const char* error) {
    if (g_page.app) g_page.app->on_fetched(ok != 0, url ? url : "", body ? body : "", error ? error : "");
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_checkpoint(const char* report_json) {  // read_checkpoint's reports
    if (g_page.app) g_page.app->on_checkpoint(report_json ? report_json : "");
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_imported(const char* name, const char* result_json) {  // import_config's answer
    if (g_page.app) g_page.app->on_imported(name ? name : "config", result_json ? result_json : "");
    wake();
}
// A wheel or a finger's drag at (x, y) by (dx, dy), in CSS pixels (deltaMode 1: lines, 2: pages), positive
// dy moving the content up as in the browser. Returns 1 when a window scrolled (the page then cancels
// the event), 0 when the window there is already at its end that way (the browser scrolls the host page).
EMSCRIPTEN_KEEPALIVE int vramcalc_scroll(double x, double y, double dx, double dy, int mode) {
    if (!g_page.app) return 0;
    const float scale = css_scale();
    double unit = 1;                      // CSS pixels per delta unit
    if (mode == 1) unit = 33;             // lines: 3 lines (Firefox's notch) scroll 100 px (Chrome's notch)
    if (mode == 2) {                      // pages: most of the visible height
        double cw = 0, ch = 0;
        emscripten_get_element_css_size("#canvas", &cw, &ch);
        unit = ch * 0.875;
    }
    const bool moved = vramcalc::ui::scroll_at(g_page.app->state(), ImVec2(static_cast<float>(x) * scale, static_cast<float>(y) * scale),
                                               ImVec2(static_cast<float>(dx * unit) * scale, static_cast<float>(dy * unit) * scale));
    if (moved) wake();
    return moved ? 1 : 0;
}
// A finger's tap at (x, y) CSS pixels: hover, press, release, leave, drawn at once so that what the
// click starts happens inside the browser's touch event. Returns whether ImGui now wants text typed.
EMSCRIPTEN_KEEPALIVE int vramcalc_tap(double x, double y) {
    Page& p = g_page;
    if (!p.app) return 0;
    const float scale = css_scale();
    const float fx = static_cast<float>(x) * scale, fy = static_cast<float>(y) * scale;
    p.steps.push_back({Step::Pointer, fx, fy, false, 0});
    p.steps.push_back({Step::Pointer, fx, fy, true, 0});
    p.steps.push_back({Step::Pointer, fx, fy, false, 0});
    p.steps.push_back({Step::Pointer, -FLT_MAX, -FLT_MAX, false, 0});
    for (int i = 0; i < 8 && !p.steps.empty(); ++i) draw();
    wake();
    return ImGui::GetIO().WantTextInput ? 1 : 0;
}
// From the hidden text input: characters, and keys a phone keyboard sends (backspace, enter, arrows).
EMSCRIPTEN_KEEPALIVE void vramcalc_text(const char* utf8) {
    if (utf8) ImGui::GetIO().AddInputCharactersUTF8(utf8);
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_key(int glfw_key, int shift) {
    Page& p = g_page;
    if (shift) p.steps.push_back({Step::Key, 0, 0, true, GLFW_KEY_LEFT_SHIFT});
    p.steps.push_back({Step::Key, 0, 0, true, glfw_key});
    p.steps.push_back({Step::Key, 0, 0, false, glfw_key});
    if (shift) p.steps.push_back({Step::Key, 0, 0, false, GLFW_KEY_LEFT_SHIFT});
    wake();
}
// The hidden input lost the focus (the keyboard was closed): stop editing, as a click elsewhere would.
EMSCRIPTEN_KEEPALIVE void vramcalc_text_input_blurred() {
    g_page.want_text = false;
    if (ImGui::GetIO().WantTextInput) ImGui::ClearActiveID();
    wake();
}
// Tests: the focused control's label, the vertical scroll (CSS pixels) at a point, the embed snippet.
EMSCRIPTEN_KEEPALIVE const char* vramcalc_nav_focus() { return g_page.app ? g_page.app->state().nav.focus_label.c_str() : ""; }
EMSCRIPTEN_KEEPALIVE double vramcalc_scroll_of(double x, double y) {
    const float scale = css_scale();
    return vramcalc::ui::scroll_y_at(ImVec2(static_cast<float>(x) * scale, static_cast<float>(y) * scale)) / scale;
}
EMSCRIPTEN_KEEPALIVE const char* vramcalc_status() {  // tests: the status line ("Imported ...", an error)
    return g_page.app ? g_page.app->state().status.c_str() : "";
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
    const float scale = css_scale();
    for (const auto& s : g_page.app->state().nav.collecting)  // the last frame drawn
        if (s.label == label) {
            g_page.reply = std::to_string((s.x0 + s.x1) * 0.5f / scale) + "," + std::to_string((s.y0 + s.y1) * 0.5f / scale);
            break;
        }
    return g_page.reply.c_str();
}
EMSCRIPTEN_KEEPALIVE const char* vramcalc_embed_snippet() {
    g_page.reply = g_page.app ? vramcalc::ui::embed_snippet(g_page.app->state()) : "";
    return g_page.reply.c_str();
}
// Milliseconds for one full-catalog solve of the current scenario (the page's measurement command).
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
    if (!glfwInit()) return 1;
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    int w = 0, h = 0;
    emscripten_get_canvas_element_size("#canvas", &w, &h);
    g_page.window = glfwCreateWindow(std::max(w, 320), std::max(h, 240), "vramcalc", nullptr, nullptr);
    if (!g_page.window) return 1;
    glfwMakeContextCurrent(g_page.window);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no filesystem on the page; settings live in localStorage
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    ImGui_ImplGlfw_InitForOpenGL(g_page.window, true);
    glfwSetScrollCallback(g_page.window, nullptr);
    glfwSetKeyCallback(g_page.window, key_callback);  // the wheel is page.js's (raw deltaY would reach ImGui as notches)
    ImGui_ImplOpenGL3_Init("#version 300 es");
    io.GetClipboardTextFn = get_clipboard;  // Emscripten's GLFW has no clipboard: use the browser's
    io.SetClipboardTextFn = set_clipboard;

    g_page.app = std::make_unique<vramcalc::ui::App>(*catalog, g_page.platform);
    g_page.app->state().embed = js_embed_mode() != 0;
    g_page.app->load_url_state(take(js_initial_hash()));
    emscripten_set_main_loop_arg(tick, nullptr, 0, false);
    return 0;
}
