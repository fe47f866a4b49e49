// Input helpers both platforms use around ImGui 1.86 (imgui_app/src/input.cpp): scrolling by pixels
// with chaining to parent windows, and Tab / Shift+Tab across every control.
#pragma once

#include <imgui.h>

#include "vramcalc_ui/app.hpp"

namespace vramcalc::ui {

// Scrolls the window at `pos` (framebuffer pixels) by `delta` framebuffer pixels (positive y: the content
// moves up, as a browser's deltaY), or else its first parent that can still move that way. Returns false
// when nothing there can move that way, so the platform can hand the event on (an iframe's host page
// scrolls). Works between frames; the next frame shows it. `now_ms` is the event's time: events less than
// kWheelLatchMs apart are one gesture, which keeps scrolling the window it started on even when an inner
// list slides under the pointer (a finger's drag is one gesture however slow).
inline constexpr double kWheelLatchMs = 300;
bool scroll_at(AppState& st, ImVec2 pos, ImVec2 delta, double now_ms);
// The vertical scroll of the scrollable window at `pos` (tests).
float scroll_y_at(ImVec2 pos);
// Call before ImGui::NewFrame(): Enter activates the focused control (opens a combo, picks in it), digits
// typed on a focused number field start editing it.
void prepare_input(AppState& st);
// The text field being edited wants digits only (0), a decimal number (1) or any text (2); -1: none.
int text_input_kind(const AppState& st);

}  // namespace vramcalc::ui
