// The page's state shared by its platform files: main_web.cpp (the frame loop, WebGL, the browser's
// services) and input_web.cpp (pointer, wheel, touch and keys from shell/page.js into Dear ImGui).
#pragma once

#include <cfloat>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <imgui.h>

#include "vramcalc_ui/app.hpp"
#include "vramcalc_ui/platform.hpp"

namespace vramcalc::web {

class WebPlatform final : public ui::Platform {
public:
    const char* name() const override { return "web"; }
    void copy_text(const std::string& text) override;
    std::string save_text(const std::string& file, const std::string& mime, const std::string& text) override;
    void open_file_dialog() override;
    bool can_fetch() const override { return true; }
    void fetch_text(const std::string& url) override;
    void read_checkpoint(const std::string& base, const std::string& file, const std::string& if_missing) override;
    bool import_config(const std::string& name, const std::string& text) override;
    bool convert_repr(const std::string& text, const std::string& input_json) override;
    void set_url_state(const std::string& hash) override;
    std::string share_link(const std::string& hash) const override;
    void open_url(const std::string& url) override;
    void set_summary(const std::string& text) override;
    void save_setting(const std::string& key, const std::string& value) override;
    std::string load_setting(const std::string& key) const override;

    std::string clipboard;  // what Ctrl+V pastes: the browser's last paste event, or our last copy
};

// A touch or a key reaches ImGui one step per frame, as a mouse or keyboard would have: ImGui 1.86 reads
// the state once per frame, so a press and a release in one frame are lost.
struct Step {
    enum Kind { Pointer,
                Key } kind = Pointer;
    float x = -FLT_MAX, y = -FLT_MAX;  // pointer: framebuffer pixels (-FLT_MAX: no pointer)
    bool down = false;                 // pointer: button held; key: pressed
    int key = 0;                       // key: the DOM keyCode (input_web.cpp's key map)
    long after = -1;                   // not before the frame after this one was drawn
};

// The canvas as page.js sized it: device pixels, and CSS pixels.
struct Canvas {
    int width = 1, height = 1;
    double css_width = 1, css_height = 1;
    float scale() const { return css_width > 0 ? static_cast<float>(width / css_width) : 1.0f; }  // device per CSS pixel
};

struct Page {
    WebPlatform platform;
    std::unique_ptr<ui::App> app;
    Canvas canvas;
    float dpr = 0;
    int frames_left = 0;  // frames still to draw before the loop stops asking for animation frames
    long frames_drawn = 0;
    double last_time = 0;  // ms, of the last frame
    bool first = true;
    std::deque<Step> steps;
    std::vector<int> pressed;          // keys pressed since the last frame began
    ImVec2 mouse{-FLT_MAX, -FLT_MAX};  // the mouse in framebuffer pixels (-FLT_MAX: not over the canvas)
    bool mouse_down[3] = {};
    bool mouse_clicked[3] = {};  // pressed since the last frame (a click shorter than a frame still counts)
    bool touch_pointer = false;  // the last pointer was a finger: the mouse position is stale
    int text_kind = -1;          // ui::text_input_kind() as the page was last told
    int cursor = ImGuiMouseCursor_Arrow;
    float content_height = 0;  // ?embed=1: the last height sent to the host (CSS pixels)
    std::string reply;         // strings returned to JS (valid until the next call)
};
Page& page();

// Asks for frames until the UI has settled (shell/page.js requests the animation frames).
void wake();
// input_web.cpp: ImGui's key map; before ImGui::NewFrame(), the mouse and the next touch or key step.
void setup_keys(ImGuiIO& io);
void apply_input(ImGuiIO& io);
// Draws one frame now.
void draw();

}  // namespace vramcalc::web
