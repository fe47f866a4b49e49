// vramcalc-desktop: the calculator offline. This file is the desktop platform (GLFW + OpenGL 3.3 core):
// window, clipboard, files, settings, the event-driven loop. Everything else is imgui_app/src.
//
//   vramcalc-desktop [--scenario FILE] [--screenshot OUT.png] [--size WxH]
//   --screenshot renders a few frames, writes the window to OUT.png, prints the bill summary and exits.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#ifndef _WIN32
#include <sys/wait.h>
#endif

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include "converters.hpp"
#include "fonts.hpp"
#include "png_writer.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/presets.hpp"
#include "vramcalc_ui/app.hpp"
#include "vramcalc_ui/input.hpp"

// glReadPixels/glViewport come from the backend's loader (imgui_impl_opengl3_loader.h declares them).
#include <imgui_impl_opengl3_loader.h>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string read_file(const fs::path& p, bool& ok) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    ok = static_cast<bool>(in) || in.eof();
    return ss.str();
}

// $XDG_CONFIG_HOME/vramcalc (or ~/.config/vramcalc) holds settings.json.
fs::path config_dir() {
    if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return fs::path(x) / "vramcalc";
    if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".config" / "vramcalc";
    return fs::current_path() / ".vramcalc";
}

class DesktopPlatform final : public vramcalc::ui::Platform {
public:
    GLFWwindow* window = nullptr;
    vramcalc::ui::App* app = nullptr;
    std::string summary;
    json settings;

    DesktopPlatform() {
        bool ok = false;
        const std::string text = read_file(config_dir() / "settings.json", ok);
        settings = json::parse(text, nullptr, false);
        if (!settings.is_object()) settings = json::object();
    }

    const char* name() const override { return "desktop"; }
    // The importer and the print(model) converter run in-process here (converters.hpp); the page loads them.
    bool import_config(const std::string& name, const std::string& text) override {
        const std::string answer = vramcalc::desktop::import_config_answer(text);
        if (answer.empty()) return false;
        app->on_imported(name, answer);
        return true;
    }
    bool convert_repr(const std::string& text, const std::string& input_json) override {
        app->on_repr(vramcalc::desktop::convert_repr_answer(text, input_json));
        return true;
    }
    void copy_text(const std::string& text) override { glfwSetClipboardString(window, text.c_str()); }
    std::string save_text(const std::string& file_name, const std::string&, const std::string& text) override {
        fs::path dir = fs::current_path();
        if (const char* h = std::getenv("HOME"); h && *h) dir = fs::path(h);
        const fs::path out = dir / file_name;
        std::ofstream f(out, std::ios::binary);
        f << text;
        return f ? "Saved " + out.string() : "Could not write " + out.string();
    }
    bool can_open_file() const override { return true; }
    // GLFW has no file dialog; zenity (GNOME) or kdialog (KDE) provide the native one where installed.
    void open_file_dialog() override {
#ifdef _WIN32
        app->on_file("open", "");  // no dialog helper on Windows yet: the message says to drop the file
#else
        const char* cmds[] = {"zenity --file-selection --title='Open config.json or scenario' --file-filter='*.json' 2>/dev/null",
                              "kdialog --getopenfilename . '*.json' 2>/dev/null"};
        for (const char* cmd : cmds) {
            std::FILE* p = popen(cmd, "r");
            if (!p) continue;
            char buf[4096];
            std::string path;
            while (std::fgets(buf, sizeof buf, p)) path += buf;
            const int rc = pclose(p);
            while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
            if (rc == 0 && !path.empty()) {
                open_path(path);
                return;
            }
            if (rc == 0 || (WIFEXITED(rc) && WEXITSTATUS(rc) == 1)) return;  // the dialog ran and the user cancelled
        }
        app->on_file("open", "");  // no dialog program: the message says to drop the file instead
#endif
    }
    bool can_fetch() const override { return false; }  // an offline tool: drop or open a downloaded config.json
    void fetch_text(const std::string&) override {}
    void set_url_state(const std::string&) override {}
    std::string share_link(const std::string& hash) const override {
        // The published page (docs/embedding.md); the link opens this scenario there.
        return std::string(VRAMCALC_PAGE_URL) + "#" + hash;
    }
    void open_url(const std::string& url) override {
        const std::string cmd = "xdg-open '" + url + "' >/dev/null 2>&1 &";
        if (std::system(cmd.c_str()) != 0) app->state().status = "Could not open a browser; the link is: " + url;
    }
    void set_summary(const std::string& text) override { summary = text; }
    void save_setting(const std::string& key, const std::string& value) override {
        settings[key] = value;
        std::error_code ec;
        fs::create_directories(config_dir(), ec);
        std::ofstream(config_dir() / "settings.json") << settings.dump(2);
    }
    std::string load_setting(const std::string& key) const override {
        auto it = settings.find(key);
        return it != settings.end() && it->is_string() ? it->get<std::string>() : "";
    }
    void open_path(const std::string& path) {
        bool ok = false;
        const std::string bytes = read_file(path, ok);
        if (!ok) {
            app->state().status = "Could not read " + path;
            app->state().status_is_error = true;
            return;
        }
        app->on_file(fs::path(path).filename().string(), bytes);
    }
};

struct Options {
    std::string scenario, screenshot;
    int width = 1360, height = 900;
};

int usage(const std::string& why) {
    std::cerr << "vramcalc-desktop: " << why << "\nusage: vramcalc-desktop [--scenario FILE] [--screenshot OUT.png] [--size WxH]\n";
    return 2;
}

// The command line into `opt`; a return value is the exit status of a bad or --help command line.
std::optional<int> parse_args(int argc, char** argv, Options& opt) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if ((a == "--scenario" || a == "--screenshot" || a == "--size") && i + 1 >= argc) return usage(a + " needs a value");
        if (a == "--scenario") opt.scenario = argv[++i];
        else if (a == "--screenshot") opt.screenshot = argv[++i];
        else if (a == "--size") {
            if (std::sscanf(argv[++i], "%dx%d", &opt.width, &opt.height) != 2 || opt.width < 320 || opt.height < 240 ||
                opt.width > 16384 || opt.height > 16384)
                return usage("--size wants WIDTHxHEIGHT between 320x240 and 16384x16384");
        } else if (a == "--help" || a == "-h") {
            usage("the GPU memory calculator, offline");
            return 0;
        } else return usage("unknown argument '" + a + "'");
    }
    return std::nullopt;
}

// An OpenGL 3.3 window of the saved size (or --size for a screenshot) that takes dropped files, with Dear ImGui
// set up on it; nullptr when there is no display.
GLFWwindow* open_window(const Options& opt, DesktopPlatform& platform) {
    glfwSetErrorCallback([](int code, const char* msg) { std::cerr << "GLFW error " << code << ": " << msg << "\n"; });
    if (!glfwInit()) return nullptr;
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    int w = opt.width, h = opt.height;
    if (opt.screenshot.empty()) {
        json size = json::parse(platform.load_setting("window"), nullptr, false);
        if (size.is_array() && size.size() == 2 && size[0].is_number_integer() && size[1].is_number_integer()) {
            w = std::clamp(size[0].get<int>(), 480, 8192);
            h = std::clamp(size[1].get<int>(), 360, 8192);
        }
    }
    GLFWwindow* window = glfwCreateWindow(w, h, "vramcalc: GPU memory calculator", nullptr, nullptr);
    if (!window) {
        std::cerr << "vramcalc-desktop: no OpenGL 3.3 window (is a display available?)\n";
        glfwTerminate();
        return nullptr;
    }
    platform.window = window;
    glfwMakeContextCurrent(window);
    glfwSwapInterval(1);
    glfwSetWindowUserPointer(window, &platform);
    glfwSetDropCallback(window, [](GLFWwindow* win, int count, const char** paths) {
        auto* p = static_cast<DesktopPlatform*>(glfwGetWindowUserPointer(win));
        if (count > 0) p->open_path(paths[0]);
    });

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; settings go to settings.json
    ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    float xs = 1, ys = 1;
    glfwGetWindowContentScale(window, &xs, &ys);
    vramcalc::ui::setup_style(xs);
    vramcalc::desktop::add_fonts(xs);
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330");
    return window;
}

// One frame: input, the UI, drawing. Ctrl+V with no field being edited imports the clipboard's config or link
// (App::on_paste). Gives the framebuffer's size.
void draw_frame(GLFWwindow* window, vramcalc::ui::App& app, int& fw, int& fh) {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    vramcalc::ui::prepare_input(app.state());
    ImGui::NewFrame();
    const ImGuiIO& io = ImGui::GetIO();
    if (!io.WantTextInput && io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_V, false))
        if (const char* clip = glfwGetClipboardString(window)) app.on_paste(clip);
    app.draw_frame();
    ImGui::Render();
    glfwGetFramebufferSize(window, &fw, &fh);
    glViewport(0, 0, fw, fh);
    glClearColor(1, 1, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

bool save_screenshot(const std::string& path, int fw, int fh) {
    std::vector<unsigned char> pixels(static_cast<std::size_t>(fw) * fh * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, fw, fh, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    if (vramcalc::desktop::write_png(path, fw, fh, pixels)) return true;
    std::cerr << "vramcalc-desktop: cannot write " << path << "\n";
    return false;
}

// Event-driven: after any event draw a few frames (ImGui settles hover/animation state), then wait. With
// --screenshot, the sixth frame is saved and the window closes. False when the screenshot cannot be written.
bool run(GLFWwindow* window, vramcalc::ui::App& app, const Options& opt, std::chrono::steady_clock::time_point t0) {
    int frames_left = 3, frames_drawn = 0;
    bool first = true;
    while (!glfwWindowShouldClose(window)) {
        if (frames_left <= 0 && opt.screenshot.empty()) {
            glfwWaitEvents();
            frames_left = 3;
        } else {
            glfwPollEvents();
        }
        int fw = 0, fh = 0;
        draw_frame(window, app, fw, fh);
        ++frames_drawn;
        if (app.state().dirty || app.busy()) frames_left = 3;  // a click changed the scenario: show the new numbers
        --frames_left;
        if (!opt.screenshot.empty() && frames_drawn == 6) {
            if (!save_screenshot(opt.screenshot, fw, fh)) return false;
            glfwSetWindowShouldClose(window, GLFW_TRUE);
        }
        glfwSwapBuffers(window);
        if (first) {
            first = false;
            std::cerr << "first frame after "
                      << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() << " ms\n";
        }
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const auto t0 = std::chrono::steady_clock::now();
    Options opt;
    if (const auto status = parse_args(argc, argv, opt)) return *status;

    const auto& catalog = vramcalc::builtin_catalog();
    if (!catalog.ok()) {
        std::cerr << "vramcalc-desktop: the built-in presets are broken:\n"
                  << catalog.error_text() << "\n";
        return 1;
    }
    DesktopPlatform platform;
    vramcalc::ui::App app(*catalog, platform);
    platform.app = &app;
    if (!opt.scenario.empty()) {
        bool ok = false;
        const std::string text = read_file(opt.scenario, ok);
        json j = json::parse(text, nullptr, false);
        if (!ok || j.is_discarded() || !j.is_object()) return usage("--scenario " + opt.scenario + ": not a readable JSON object");
        app.set_scenario(std::move(j));
    }
    GLFWwindow* window = open_window(opt, platform);
    if (!window) return 1;
    if (!run(window, app, opt, t0)) return 1;

    const auto& r = app.state().results;
    if (r.ok)
        std::cout << platform.summary << "\n"
                  << "device_bytes=" << r.bill.device_bytes << " peak_allocated_bytes=" << r.bill.peak_allocated_bytes
                  << " peak_reserved_bytes=" << r.bill.peak_reserved_bytes << "\n";
    else
        std::cout << "scenario problems:\n"
                  << r.errors << "\n";
    if (opt.screenshot.empty()) {
        int w = 0, h = 0;
        glfwGetWindowSize(window, &w, &h);
        platform.save_setting("window", json::array({w, h}).dump());
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return r.ok ? 0 : 2;
}
