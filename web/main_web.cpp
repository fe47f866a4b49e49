// The web page's platform: Emscripten's GLFW + WebGL2 under Dear ImGui, the browser's clipboard,
// downloads, file picker, fetch, URL hash and localStorage (the JS halves are in shell/page.js).
// The UI itself is imgui_app/src; this file only connects it to the browser.
#include <cmath>
#include <memory>
#include <string>

#include <emscripten/emscripten.h>
#include <emscripten/html5.h>
#define GLFW_INCLUDE_ES3
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include "vramcalc/presets.hpp"
#include "vramcalc_ui/app.hpp"

// JS side (shell/page.js defines window.vramcalcPage with these functions).
EM_JS(void, js_copy_text, (const char* text), { vramcalcPage.copyText(UTF8ToString(text)); });
EM_JS(void, js_download, (const char* name, const char* mime, const char* text),
      { vramcalcPage.download(UTF8ToString(name), UTF8ToString(mime), UTF8ToString(text)); });
EM_JS(void, js_open_file, (), { vramcalcPage.openFile(); });
EM_JS(void, js_fetch, (const char* url), { vramcalcPage.fetchText(UTF8ToString(url)); });
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
    void set_url_state(const std::string& hash) override { js_set_hash(hash.c_str()); }
    std::string share_link(const std::string& hash) const override { return take(js_page_link()) + "#" + hash; }
    void open_url(const std::string& url) override { js_open_url(url.c_str()); }
    void set_summary(const std::string& text) override { js_set_summary(text.c_str()); }
    void save_setting(const std::string& key, const std::string& value) override { js_save_setting(key.c_str(), value.c_str()); }
    std::string load_setting(const std::string& key) const override { return take(js_load_setting(key.c_str())); }

    std::string clipboard;  // what Ctrl+V pastes: the browser's last paste event, or our last copy
};

struct Page {
    GLFWwindow* window = nullptr;
    WebPlatform platform;
    std::unique_ptr<vramcalc::ui::App> app;
    float dpr = 0;
    int frames_left = 3;     // frames still to draw after the last event
    long frames_drawn = 0;
    bool first = true;
};
Page g_page;

void frame(void*) {
    Page& p = g_page;
    int w = 0, h = 0;
    emscripten_get_canvas_element_size("#canvas", &w, &h);
    const float dpr = static_cast<float>(emscripten_get_device_pixel_ratio());
    if (dpr != p.dpr) {  // first frame, or the window moved to a screen of another density: new font atlas
        p.dpr = dpr;
        vramcalc::ui::setup_style(dpr);
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
        p.frames_left = 3;
    }
    p.app->update();
    if (p.frames_left <= 0) return;  // idle: draw nothing, the browser keeps the last frame

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(w), static_cast<float>(h));  // the canvas is sized in device pixels
    io.DisplayFramebufferScale = ImVec2(1, 1);
    ImGui::NewFrame();
    p.app->draw_frame();
    ImGui::Render();
    glViewport(0, 0, w, h);
    glClearColor(1, 1, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++p.frames_drawn;
    --p.frames_left;
    if (p.app->state().dirty) p.frames_left = 3;
    if (p.first) {
        p.first = false;
        js_first_frame();
    }
}

const char* get_clipboard(void*) { return g_page.platform.clipboard.c_str(); }
void set_clipboard(void*, const char* text) { g_page.platform.copy_text(text ? text : ""); }

}  // namespace

// Called from shell/page.js.
extern "C" {
EMSCRIPTEN_KEEPALIVE void vramcalc_wake() { g_page.frames_left = 3; }
EMSCRIPTEN_KEEPALIVE long vramcalc_frames_drawn() { return g_page.frames_drawn; }
EMSCRIPTEN_KEEPALIVE void vramcalc_on_paste(const char* text) {
    g_page.platform.clipboard = text ? text : "";
    vramcalc_wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_hash(const char* hash) {
    if (g_page.app) g_page.app->load_url_state(hash ? hash : "");
    vramcalc_wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_file(const char* name, const char* bytes) {
    if (g_page.app) g_page.app->on_file(name ? name : "file", bytes ? bytes : "");
    vramcalc_wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_on_fetched(int ok, const char* url, const char* body, const char* error) {
    if (g_page.app) g_page.app->on_fetched(ok != 0, url ? url : "", body ? body : "", error ? error : "");
    vramcalc_wake();
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
        emscripten_log(EM_LOG_ERROR, "vramcalc: the built-in presets are broken: %s", catalog.error_text().c_str());
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
    ImGui_ImplOpenGL3_Init("#version 300 es");
    io.GetClipboardTextFn = get_clipboard;  // Emscripten's GLFW has no clipboard: use the browser's
    io.SetClipboardTextFn = set_clipboard;

    g_page.app = std::make_unique<vramcalc::ui::App>(*catalog, g_page.platform);
    g_page.app->state().embed = js_embed_mode() != 0;
    g_page.app->load_url_state(take(js_initial_hash()));
    emscripten_set_main_loop_arg(frame, nullptr, 0, false);
    return 0;
}
