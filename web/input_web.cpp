// Input from shell/page.js into Dear ImGui: the mouse, the wheel, a finger's taps and drags, keys and
// typed text. page.js owns the DOM events (it knows the canvas, the hidden text input for phones, the
// embedding page); these functions turn them into ImGui's per-frame state. Positions arrive in CSS
// pixels and are kept in framebuffer pixels (the canvas holds device pixels).
#include <algorithm>
#include <initializer_list>

#include <emscripten/emscripten.h>
#include <imgui.h>
#include <imgui_internal.h>  // ClearActiveID

#include "page.hpp"
#include "vramcalc_ui/input.hpp"

namespace vramcalc::web {
namespace {

// DOM keyCodes (KeyboardEvent.keyCode) ImGui's key map and modifiers name; page.js sends these numbers.
enum DomKey {
    kBackspace = 8,
    kTab = 9,
    kEnter = 13,
    kShift = 16,
    kCtrl = 17,
    kAlt = 18,
    kEscape = 27,
    kSpace = 32,
    kPageUp = 33,
    kPageDown = 34,
    kEnd = 35,
    kHome = 36,
    kLeft = 37,
    kUp = 38,
    kRight = 39,
    kDown = 40,
    kInsert = 45,
    kDelete = 46,
    kA = 65,
    kC = 67,
    kV = 86,
    kX = 88,
    kY = 89,
    kZ = 90,
    kMetaLeft = 91,
    kMetaRight = 93,
    kMetaFirefox = 224  // Cmd works as Ctrl
};

bool valid_key(const ImGuiIO& io, int key) { return key > 0 && key < IM_ARRAYSIZE(io.KeysDown); }

}  // namespace

void setup_keys(ImGuiIO& io) {
    const int map[][2] = {{ImGuiKey_Tab, kTab}, {ImGuiKey_LeftArrow, kLeft}, {ImGuiKey_RightArrow, kRight}, {ImGuiKey_UpArrow, kUp}, {ImGuiKey_DownArrow, kDown}, {ImGuiKey_PageUp, kPageUp}, {ImGuiKey_PageDown, kPageDown}, {ImGuiKey_Home, kHome}, {ImGuiKey_End, kEnd}, {ImGuiKey_Insert, kInsert}, {ImGuiKey_Delete, kDelete}, {ImGuiKey_Backspace, kBackspace}, {ImGuiKey_Space, kSpace}, {ImGuiKey_Enter, kEnter}, {ImGuiKey_Escape, kEscape}, {ImGuiKey_KeyPadEnter, kEnter}, {ImGuiKey_A, kA}, {ImGuiKey_C, kC}, {ImGuiKey_V, kV}, {ImGuiKey_X, kX}, {ImGuiKey_Y, kY}, {ImGuiKey_Z, kZ}};
    for (const auto& m : map) io.KeyMap[m[0]] = m[1];
}

// Before ImGui::NewFrame(): the mouse as the events left it, then the next touch or key step over it.
void apply_input(ImGuiIO& io) {
    Page& p = page();
    // The modifiers are keys like the others (a quick Ctrl+A keeps its Ctrl until A's frame is drawn).
    const auto held = [&io](std::initializer_list<int> keys) {
        return std::any_of(keys.begin(), keys.end(), [&io](int k) { return io.KeysDown[k]; });
    };
    io.MousePos = p.touch_pointer ? ImVec2(-FLT_MAX, -FLT_MAX) : p.mouse;
    for (int i = 0; i < 3; ++i) {
        io.MouseDown[i] = p.mouse_down[i] || p.mouse_clicked[i];
        p.mouse_clicked[i] = false;
    }
    if (!p.steps.empty() && p.steps.front().after < p.frames_drawn) {
        const Step s = p.steps.front();
        p.steps.pop_front();
        if (s.kind == Step::Key && valid_key(io, s.key)) {
            io.KeysDown[s.key] = s.down;
        } else if (s.kind == Step::Pointer) {
            p.touch_pointer = true;
            io.MousePos = ImVec2(s.x, s.y);
            io.MouseDown[0] = s.down;
        }
    }
    io.KeyCtrl = held({kCtrl, kMetaLeft, kMetaRight, kMetaFirefox});
    io.KeyShift = held({kShift});
    io.KeyAlt = held({kAlt});
}

}  // namespace vramcalc::web

using namespace vramcalc::web;

// Called from shell/page.js.
extern "C" {
// The mouse over the canvas at (x, y) CSS pixels; x < 0 when it left.
EMSCRIPTEN_KEEPALIVE void vramcalc_mouse_move(double x, double y) {
    auto& p = page();
    const float s = p.canvas.scale();
    p.mouse = x < 0 ? ImVec2(-FLT_MAX, -FLT_MAX) : ImVec2(static_cast<float>(x) * s, static_cast<float>(y) * s);
    p.touch_pointer = false;
    wake();
}
EMSCRIPTEN_KEEPALIVE void vramcalc_mouse_button(int button, int down) {
    auto& p = page();
    if (button < 0 || button > 2) return;
    p.mouse_down[button] = down != 0;
    if (down) p.mouse_clicked[button] = true;
    p.touch_pointer = false;
    wake();
}
// A key (DOM keyCode, modifiers included) pressed or released. A key pressed and released before a frame
// (a quick tap, a test's key press) keeps its release for the next frame.
EMSCRIPTEN_KEEPALIVE void vramcalc_key_event(int key, int down) {
    auto& p = page();
    ImGuiIO& io = ImGui::GetIO();
    if (!valid_key(io, key)) return;
    if (!down && std::find(p.pressed.begin(), p.pressed.end(), key) != p.pressed.end()) {
        p.steps.push_back({Step::Key, 0, 0, false, key, p.frames_drawn});
    } else {
        if (down) p.pressed.push_back(key);
        io.KeysDown[key] = down != 0;
    }
    wake();
}
// The window lost the focus: nothing stays held (its key-up events go elsewhere).
EMSCRIPTEN_KEEPALIVE void vramcalc_blur() {
    auto& p = page();
    ImGuiIO& io = ImGui::GetIO();
    std::fill(std::begin(io.KeysDown), std::end(io.KeysDown), false);  // the modifiers with them (apply_input)
    std::fill(std::begin(p.mouse_down), std::end(p.mouse_down), false);
    wake();
}
// A wheel or a finger's drag at (x, y) by (dx, dy), in CSS pixels (deltaMode 1: lines, 2: pages), positive
// dy moving the content up as in the browser. Returns 1 when a window scrolled (the page then cancels
// the event), 0 when the window there is already at its end that way (the browser scrolls the host page).
// `ms` is the event's time (one gesture keeps the window it started on, ui::scroll_at).
EMSCRIPTEN_KEEPALIVE int vramcalc_scroll(double x, double y, double dx, double dy, int mode, double ms) {
    auto& p = page();
    if (!p.app) return 0;
    const float scale = p.canvas.scale();
    double unit = 1;                                    // CSS pixels per delta unit
    if (mode == 1) unit = 33;                           // lines: 3 lines (Firefox's notch) scroll 100 px (Chrome's notch)
    if (mode == 2) unit = p.canvas.css_height * 0.875;  // pages: most of the visible height
    const bool moved = vramcalc::ui::scroll_at(p.app->state(), ImVec2(static_cast<float>(x) * scale, static_cast<float>(y) * scale),
                                               ImVec2(static_cast<float>(dx * unit) * scale, static_cast<float>(dy * unit) * scale), ms);
    if (moved) wake();
    return moved ? 1 : 0;
}
// A finger's tap at (x, y) CSS pixels: hover, press, release, leave, drawn at once so that what the
// click starts happens inside the browser's touch event. Returns whether ImGui now wants text typed.
EMSCRIPTEN_KEEPALIVE int vramcalc_tap(double x, double y) {
    auto& p = page();
    if (!p.app) return 0;
    const float scale = p.canvas.scale();
    const float fx = static_cast<float>(x) * scale, fy = static_cast<float>(y) * scale;
    p.steps.push_back({Step::Pointer, fx, fy, false, 0});
    p.steps.push_back({Step::Pointer, fx, fy, true, 0});
    p.steps.push_back({Step::Pointer, fx, fy, false, 0});
    p.steps.push_back({Step::Pointer, -FLT_MAX, -FLT_MAX, false, 0});
    for (int i = 0; i < 8 && !p.steps.empty(); ++i) draw();
    wake();
    return ImGui::GetIO().WantTextInput ? 1 : 0;
}
// Typed characters (a keyboard's, or the hidden text input's on a phone: IME and paste included).
EMSCRIPTEN_KEEPALIVE void vramcalc_text(const char* utf8) {
    if (utf8) ImGui::GetIO().AddInputCharactersUTF8(utf8);
    wake();
}
// A key the phone's keyboard sends into the hidden text input (backspace, enter, arrows): one press.
EMSCRIPTEN_KEEPALIVE void vramcalc_key(int key, int shift) {
    auto& p = page();
    if (shift) p.steps.push_back({Step::Key, 0, 0, true, kShift});
    p.steps.push_back({Step::Key, 0, 0, true, key});
    p.steps.push_back({Step::Key, 0, 0, false, key});
    if (shift) p.steps.push_back({Step::Key, 0, 0, false, kShift});
    wake();
}
// The hidden input lost the focus (the keyboard was closed): stop editing, as a click elsewhere would.
EMSCRIPTEN_KEEPALIVE void vramcalc_text_input_blurred() {
    page().text_kind = -1;
    if (ImGui::GetIO().WantTextInput) ImGui::ClearActiveID();
    wake();
}
}
