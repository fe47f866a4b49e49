// Pointer and keyboard behaviour that ImGui 1.86 does not give a web page or a desktop app by itself:
// scrolling by a distance in pixels with chaining to the parent window (as a browser scrolls nested
// boxes), and Tab / Shift+Tab across every control of every panel (ImGui's own Tab only visits text
// fields of the focused window). Tab stops are collected through ImGui's item hook
// (IMGUI_ENABLE_TEST_ENGINE, set for vramcalc_imgui in imgui_app/CMakeLists.txt).
#include <algorithm>
#include <cfloat>
#include <cmath>

#include <imgui_internal.h>

#include "ui.hpp"
#include "vramcalc_ui/input.hpp"

namespace vramcalc::ui {

namespace {

// The front-most window at `pos` taking mouse input, as ImGui's FindHoveredWindow() picks it, from the
// last frame's windows (this runs between frames, inside the browser's event).
ImGuiWindow* window_at(ImVec2 pos) {
    ImGuiContext& g = *GImGui;
    for (int i = g.Windows.Size - 1; i >= 0; --i) {
        ImGuiWindow* w = g.Windows[i];
        if (!w->Active || w->Hidden || (w->Flags & ImGuiWindowFlags_NoMouseInputs)) continue;
        if (w->OuterRectClipped.Contains(pos)) return w;
    }
    return nullptr;
}

bool can_scroll(const ImGuiWindow* w) {
    return !(w->Flags & (ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoMouseInputs)) && !w->Collapsed;
}

// Moves one axis of `w` by `delta` pixels from where it is going (a scroll set since the last frame
// counts); returns the distance it actually moved.
float move_axis(ImGuiWindow* w, int axis, float delta) {
    const float target = w->ScrollTarget[axis];
    const float from = target < FLT_MAX ? target : w->Scroll[axis];
    const float to = std::clamp(from + delta, 0.0f, w->ScrollMax[axis]);
    if (std::fabs(to - from) < 0.5f) return 0;
    if (axis == 0) ImGui::SetScrollX(w, to);
    else ImGui::SetScrollY(w, to);
    return to - from;
}

}  // namespace

bool scroll_at(AppState& st, ImVec2 pos, ImVec2 delta, double now_ms) {
    if (!GImGui) return false;
    WheelState& wheel = st.wheel;
    st.anchor = {};  // the user scrolls: nothing is held in place any more
    auto* latched = static_cast<ImGuiWindow*>(wheel.window);
    const bool same_gesture = latched && latched->Active && now_ms - wheel.last_ms < kWheelLatchMs;
    ImGuiWindow* w = same_gesture ? latched : window_at(pos);
    if (!same_gesture) wheel = WheelState{w, 0, 0, now_ms};
    wheel.last_ms = now_ms;
    // Whole pixels only (ImGui floors scroll positions); the fractions of small trackpad steps add up.
    float d[2] = {delta.x + wheel.rest_x, delta.y + wheel.rest_y};
    for (float& v : d) v = std::trunc(v);
    wheel.rest_x = delta.x + wheel.rest_x - d[0];
    wheel.rest_y = delta.y + wheel.rest_y - d[1];
    for (; w; w = w->ParentWindow) {
        if (can_scroll(w)) {
            bool moved = false;
            for (int axis = 0; axis < 2; ++axis)
                if (d[axis] != 0 && move_axis(w, axis, d[axis]) != 0) moved = true;
            if (moved) {
                wheel.window = w;  // the rest of the gesture stays with the window that moved
                return true;
            }
        }
        if (!(w->Flags & ImGuiWindowFlags_ChildWindow)) break;  // a popup scrolls alone; the root is the last
    }
    // Nothing left to scroll this way: a step too small to count yet is still ours, the rest is the page's.
    return (delta.x != 0 || delta.y != 0) && d[0] == 0 && d[1] == 0;
}

float scroll_y_at(ImVec2 pos) {
    if (!GImGui) return -1;
    for (ImGuiWindow* w = window_at(pos); w; w = w->ParentWindow) {
        if (w->ScrollMax.y > 0 && can_scroll(w)) return w->Scroll.y;
        if (!(w->Flags & ImGuiWindowFlags_ChildWindow)) break;
    }
    return 0;
}

namespace {
const TabStop* focused_stop(const KeyboardNav& nav) {
    const ImGuiContext& g = *GImGui;
    for (const TabStop& s : nav.stops)
        if (s.id == g.NavId) return &s;
    return nullptr;
}
}  // namespace

// Before ImGui::NewFrame(): Enter activates the focused control as Space does (ImGui maps it to text
// input only), so Enter opens a combo and picks in it, presses a button, toggles a checkbox. Digits typed
// on a focused number field start editing it (ImGui drops the characters of the frame that starts the
// edit, so they wait for the next one).
void prepare_input(AppState& st) {
    ImGuiIO& io = ImGui::GetIO();
    ImGuiContext& g = *GImGui;
    KeyboardNav& nav = st.nav;
    if (!nav.pending_text.empty() && io.WantTextInput) {  // the digits held back, before any typed since
        const ImVector<ImWchar> later = io.InputQueueCharacters;
        io.InputQueueCharacters.resize(0);
        io.AddInputCharactersUTF8(nav.pending_text.c_str());
        for (ImWchar c : later) io.AddInputCharacter(c);
        nav.pending_text.clear();
    }
    const int enter = io.KeyMap[ImGuiKey_Enter];
    if (enter >= 0 && !io.WantTextInput && io.KeysDown[enter] && io.KeysDownDuration[enter] < 0)
        io.NavInputs[ImGuiNavInput_Activate] = 1.0f;
    const TabStop* s = focused_stop(nav);
    if (io.WantTextInput || !s || s->number < 0 || g.NavDisableHighlight || io.InputQueueCharacters.Size == 0) return;
    const ImWchar c = io.InputQueueCharacters[0];
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-')) return;
    for (ImWchar ch : io.InputQueueCharacters)
        if (ch < 0x80) nav.pending_text += static_cast<char>(ch);
    io.InputQueueCharacters.resize(0);
    io.NavInputs[ImGuiNavInput_Input] = 1.0f;  // edit it, its old text selected: the digits replace it
}

int text_input_kind(const AppState& st) {
    const ImGuiContext& g = *GImGui;
    if (!g.IO.WantTextInput) return -1;
    for (const auto* list : {&st.nav.collecting, &st.nav.stops})  // the frame just drawn, else the one before
        for (const TabStop& s : *list)
            if (s.id == g.ActiveId) return s.number >= 0 ? s.number : 2;
    return 2;
}

// After the panels: the control pressed last stays where it was on screen; the outermost scrolling
// panel around it moves by as much as the layout above it grew or shrank.
void anchor_scroll(AppState& st) {
    ImGuiContext& g = *GImGui;
    const TabStop* now = nullptr;
    for (const TabStop& s : st.nav.collecting)
        if (s.id == g.ActiveId) now = &s;
    if (now && st.reveal_active) {  // the field being edited, into the (smaller) view of its scrolling panels
        st.reveal_active = false;
        st.anchor = {};
        ImRect r(now->x0, now->y0, now->x1, now->y1);
        for (auto* w = static_cast<ImGuiWindow*>(now->window); w && (w->Flags & ImGuiWindowFlags_ChildWindow); w = w->ParentWindow)
            if (can_scroll(w)) {
                const ImVec2 d = ImGui::ScrollToRectEx(w, r, ImGuiScrollFlags_KeepVisibleEdgeY);
                r.Translate(ImVec2(-d.x, -d.y));
            }
        return;
    }
    if (now && g.ActiveIdIsJustActivated && g.ActiveIdSource == ImGuiInputSource_Mouse) st.anchor = {now->id, now->y0};
    if (!st.anchor.id) return;
    now = nullptr;
    for (const TabStop& s : st.nav.collecting)
        if (s.id == st.anchor.id) now = &s;
    if (!now) return;
    const float dy = now->y0 - st.anchor.y;
    if (std::fabs(dy) < 1) return;
    ImGuiWindow* outer = nullptr;
    for (auto* w = static_cast<ImGuiWindow*>(now->window); w && (w->Flags & ImGuiWindowFlags_ChildWindow); w = w->ParentWindow)
        if (can_scroll(w)) outer = w;
    if (!outer) return;
    const float to = std::clamp(outer->Scroll.y + dy, 0.0f, std::max(outer->ScrollMax.y, outer->Scroll.y + dy));
    ImGui::SetScrollY(outer, to);
}

// Inside the frame, before the panels: take over Tab from ImGui, then move the focus if it was pressed.
void keyboard_tab(AppState& st) {
    ImGuiContext& g = *GImGui;
    ImGuiIO& io = g.IO;
    KeyboardNav& nav = st.nav;
    g.TestEngine = &nav;
    g.TestEngineHookItems = true;
    if (io.KeyMap[ImGuiKey_Tab] >= 0) {  // ImGui's Tab (text fields of one window) is replaced by ours
        nav.tab_key = io.KeyMap[ImGuiKey_Tab];
        io.KeyMap[ImGuiKey_Tab] = -1;
    }
    nav.stops.swap(nav.collecting);  // what the last frame submitted, in page order
    nav.collecting.clear();
    nav.popup_items.swap(nav.popup_collecting);
    nav.popup_collecting.clear();
    nav.focus_label.clear();
    for (const auto* list : {&nav.stops, &nav.popup_items})
        for (const TabStop& s : *list)
            if (s.id == g.NavId && !g.NavDisableHighlight) nav.focus_label = s.label;
    if (nav.tab_key < 0 || !ImGui::IsKeyPressed(nav.tab_key) || io.KeyCtrl || io.KeyAlt || nav.stops.empty()) return;
    st.anchor = {};                         // the keyboard moves the view now
    if (g.OpenPopupStack.Size > 0) return;  // a combo or menu is open: Escape closes it first
    const int n = static_cast<int>(nav.stops.size());
    int at = -1;
    for (int i = 0; i < n; ++i)
        if (nav.stops[static_cast<std::size_t>(i)].id == g.NavId) at = i;
    const int step = io.KeyShift ? -1 : 1;
    const int next = at < 0 ? (step > 0 ? 0 : n - 1) : (at + step + n) % n;
    const TabStop& s = nav.stops[static_cast<std::size_t>(next)];
    auto* w = static_cast<ImGuiWindow*>(s.window);
    if (g.ActiveId != 0) ImGui::ClearActiveID();  // leave the text field being edited (its value is kept)
    ImGui::FocusWindow(w);
    const ImRect rect(s.x0, s.y0, s.x1, s.y1);
    ImGui::SetNavID(s.id, ImGuiNavLayer_Main, w->DC.NavFocusScopeIdCurrent, ImGui::WindowRectAbsToRel(w, rect));
    g.NavDisableHighlight = false;
    g.NavDisableMouseHover = g.NavMousePosDirty = true;
    ImGui::ScrollToRect(w, rect, ImGuiScrollFlags_KeepVisibleEdgeY);
    nav.focus_label = s.label;
}

void name_last_item(AppState& st, const char* name) {
    auto& stops = st.nav.collecting;
    if (!stops.empty() && stops.back().id == ImGui::GetItemID()) stops.back().label = name;
}

void name_number_field(AppState& st, std::size_t count, const char* name, int number) {
    auto& stops = st.nav.collecting;
    if (stops.size() <= count) return;
    stops[count].label = name;
    stops[count].number = number;
}

}  // namespace vramcalc::ui

// ImGui's item hooks (declared in imgui_internal.h under IMGUI_ENABLE_TEST_ENGINE): every item with an id,
// in submission order, is a Tab stop unless it is disabled, marked NoTabStop/NoNav, or is a child window's
// own frame (its items are stops themselves).
void ImGuiTestEngineHook_ItemAdd(ImGuiContext* ctx, const ImRect& bb, ImGuiID id) {
    auto* nav = static_cast<vramcalc::ui::KeyboardNav*>(ctx->TestEngine);
    ImGuiWindow* w = ctx->CurrentWindow;
    if (!nav || !w || (ctx->LastItemData.InFlags & (ImGuiItemFlags_NoTabStop | ImGuiItemFlags_NoNav | ImGuiItemFlags_Disabled))) return;
    for (ImGuiWindow* child : w->DC.ChildWindows)
        if (child->ChildId == id) return;
    if (w->Flags & ImGuiWindowFlags_Tooltip) return;
    auto& list = (w->Flags & ImGuiWindowFlags_Popup) ? nav->popup_collecting : nav->collecting;  // a popup's items: no Tab stops
    list.push_back({id, w, bb.Min.x, bb.Min.y, bb.Max.x, bb.Max.y, {}});
}

void ImGuiTestEngineHook_ItemInfo(ImGuiContext* ctx, ImGuiID id, const char* label, ImGuiItemStatusFlags) {
    auto* nav = static_cast<vramcalc::ui::KeyboardNav*>(ctx->TestEngine);
    if (!nav || !label) return;
    for (auto* list : {&nav->collecting, &nav->popup_collecting})
        for (auto it = list->rbegin(); it != list->rend() && it - list->rbegin() < 4; ++it)
            if (it->id == id) {
                it->label = label;
                return;
            }
}

void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}

const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }
