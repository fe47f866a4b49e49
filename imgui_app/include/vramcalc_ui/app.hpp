// The calculator UI: one AppState, one function per panel, one draw_frame() that both the web page
// and the desktop app call once per frame (see src/frame.cpp for the layout).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vramcalc/advice.hpp"
#include "vramcalc/curves.hpp"
#include "vramcalc/bill.hpp"
#include "vramcalc/catalog.hpp"
#include "vramcalc/estimate.hpp"
#include "vramcalc/scenario.hpp"
#include "vramcalc/serving_matrix.hpp"
#include "vramcalc_ui/platform.hpp"

namespace vramcalc::ui {

// Everything derived from the scenario; recomputed when the scenario changes, never per frame.
struct Results {
    bool ok = false;
    std::string errors;  // scenario problems, one per line ("micro_batch: ...")
    std::vector<std::string> warnings;
    Scenario scenario;
    Bill bill;
    nlohmann::json bill_json;
    nlohmann::json scenario_json;     // the scenario with every default filled in (what the widgets show);
                                      // when it has errors, the one without the keys in error (form_values)
    Problems field_errors;            // the errors, each marked at its own field in the form
    std::vector<CatalogFit> catalog;  // the whole GPU catalog
    AdvicePlan advice;                // ranked changes (core advisor), with the note when nothing fits
    MemoryCurves curves;              // memory against micro-batch / batch and against sequence length (core)
    ServingMatrix serving;            // vLLM / llama.cpp: context x concurrency (empty otherwise)
    double compute_ms = 0;            // time of the last recompute, shown in the footer
};

// Tab / Shift+Tab order: the controls the last frame submitted, in page order (imgui_app/src/input.cpp).
struct TabStop {
    unsigned id = 0;
    void* window = nullptr;  // ImGuiWindow*
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    std::string label;
    int number = -1;  // a number field (0 integer, 1 decimal; -1 not one): digits typed on it edit it
};
struct KeyboardNav {
    std::vector<TabStop> stops, collecting;              // last frame's, and the frame being drawn
    int tab_key = -1;                                    // the platform's Tab key (ImGui's own Tab handling is off)
    std::vector<TabStop> popup_items, popup_collecting;  // the open combo's or menu's items (no Tab stops)
    std::string focus_label;                             // the focused control's label, for tests and screen readers
    std::string pending_text;                            // digits typed on a focused number field, typed once it edits
    std::string typeahead;                               // letters typed into an open combo, to find its item by name
    double typeahead_time = -10;                         // s (steady clock) of the last letter; a pause starts anew
    bool typeahead_pending = false;                      // letters arrived this frame: focus the first row they name
};
// Scroll anchoring: the control a click or tap pressed stays where it was on screen while the layout
// above it changes (an Apply row appears above it), as browsers anchor a scrolled page.
struct ScrollAnchor {
    unsigned id = 0;  // 0: none
    float y = 0;      // its top, framebuffer pixels, when pressed
};
// Wheel and touch scrolling: the window last scrolled and the sub-pixel rest of its steps.
// A wheel gesture stays with the window it started on (as a browser latches it) until it pauses.
struct WheelState {
    void* window = nullptr;  // ImGuiWindow*: the window the gesture scrolls
    float rest_x = 0, rest_y = 0;
    double last_ms = -1e9;  // ms, the gesture's last event
};

// "Read exact weight bytes from the checkpoint": a Hub repository's safetensors / GGUF headers read with
// HTTP Range requests by the platform (panel_checkpoint.cpp; the protocol is the core's CheckpointHeaderReader).
struct CheckpointRead {
    std::string repo;      // the Hub id read
    nlohmann::json state;  // the platform's last report (progress, then the sums or the error)
    std::string outcome;   // what the read gave, or why it failed and what is used instead
    bool busy() const { return state.is_object() && state.value("busy", false); }
};

struct AppState {
    const Catalog* catalog = nullptr;
    Platform* platform = nullptr;

    nlohmann::json scenario;  // the source of truth, in shared/spec/scenario.md names
    Results results;
    bool dirty = true;  // scenario changed: recompute before the next frame

    // UI state (no static locals in panels).
    bool embed = false;   // ?embed=1: compact layout for an <iframe>
    bool narrow = false;  // a phone or a narrow window (< ~600 CSS pixels): one column, folded toolbar
    std::string model_filter;
    std::string hub_id = "meta-llama/Llama-3.1-8B";
    std::string hub_base = "https://huggingface.co";
    CheckpointRead checkpoint;
    std::string pasted_config;
    std::string stack_text;                  // the layer-stack editor's JSON (panel_stack.cpp)
    std::string repr_text;                   // a pasted print(model), converted into stack_text
    std::string repr_input = "3, 224, 224";  // the per-sample input shape the repr does not say
    std::vector<std::string> repr_notes;     // what the conversion could not infer
    std::string status;                      // last action's message ("Imported ...", "Fetch failed: ...")
    bool status_is_error = false;
    int edits = 0;                 // form edits so far; a status older than the last edit is not shown
    int status_edits = 0;          // `edits` when the status was set
    int link_copied_at = -1;       // `edits` when the link was copied: the button says so until the next edit
    bool touch = false;            // the last pointer was a finger: list rows at least 44 CSS px tall
    bool back_to_verdict = false;  // the phone's verdict strip was tapped: scroll to the top
    bool reveal_active = false;    // the visible area shrank (a phone's keyboard): scroll the edited field into it
    std::string load_error;        // a URL hash or file that could not be read
    int catalog_sort_column = 4;   // max batch
    bool catalog_sort_ascending = false;
    bool show_embed_snippet = false;
    bool show_importer = false;         // the Hub fetch and the paste box are unfolded
    std::string scenario_text;          // the "Scenario JSON" editor's text (every key, RLHF roles included)
    bool scenario_text_edited = false;  // the user typed in it: do not overwrite it with the live scenario
    bool scenario_text_stale = true;    // the scenario changed: the editor writes its text when next shown
    float ui_scale = 1.0f;              // device pixel ratio
    KeyboardNav nav;
    WheelState wheel;
    ScrollAnchor anchor;
    float footer_height = 0;   // the wide layout's footer as last drawn (pixels): its reserved room
    float content_height = 0;  // ?embed=1: the height the content needs (the host can size its frame)
};

class App {
public:
    App(const Catalog& catalog, Platform& platform);

    AppState& state() { return st_; }

    // The scenario as given (JSON object); an invalid one is kept and its problems shown.
    void set_scenario(nlohmann::json scenario);
    // Loads a URL hash (with or without '#'); a broken hash leaves the scenario as it was and says why.
    bool load_url_state(const std::string& hash);
    std::string url_state() const;
    // Asynchronous answers from the platform.
    void on_file(const std::string& name, const std::string& bytes);
    void on_file_refused(const std::string& name, const std::string& why);  // the platform would not read it
    // Text pasted on the page while no field is being edited: a vramcalc link opens its scenario, anything
    // else is read as a dropped file would be (a config.json, a scenario, another tool's config).
    void on_paste(const std::string& text);
    void on_fetched(bool ok, const std::string& url, const std::string& body, const std::string& error);
    // Platform::read_checkpoint's reports: JSON of the reader's state (progress, then the sums or the error).
    void on_checkpoint(const std::string& report_json);
    // Platform::import_config's answer for the config `name`: import_to_json's object with "ok": true, or
    // {"ok": false, "errors": [{"field", "message"}]} (the core's import_answer).
    void on_imported(const std::string& name, const std::string& result_json);
    // Platform::convert_repr's answer: the core's repr_answer.
    void on_repr(const std::string& answer_json);

    // Recompute if needed, then draw one frame of the UI (inside an ImGui frame).
    void draw_frame();
    // Recompute now if the scenario changed (the platform may call this outside a frame).
    void update();
    // True while ImGui still needs frames without new input (an item held, a value being dragged).
    bool busy() const;

private:
    AppState st_;
};

// The UI's two fonts, Fonts[0] for the text and Fonts[1] for the verdict and headings: their line heights
// in pixels at scale 1.
inline constexpr float kBodyFontPx = 17.0f, kHeadingFontPx = 24.0f;

// Colours and spacing for a UI scale (the device pixel ratio). The platform then adds its fonts at
// kBodyFontPx and kHeadingFontPx times the scale (the desktop's embedded Karla, desktop/fonts.cpp; the
// browser's, web/browser_fonts.cpp) and rebuilds its font texture.
void setup_style(float scale);

// What the form shows at a scenario key's JSON pointer ("/micro_batch", "/lora/rank"): {"value": ...,
// "error": the problem marked at that field, or ""}. For tests (the page's vramcalcPage.formField).
nlohmann::json form_field(const AppState& st, const std::string& ptr);

// The scenario as the URL hash writes it (no leading '#').
std::string encode_state(const AppState& st);

// The iframe snippet the page's Embed panel offers: the same form as docs/embedding.md shows.
std::string embed_snippet(const AppState& st);

// The default question: Llama-3.1-8B, LoRA, bf16, on an H100 (what people ask first).
nlohmann::json default_scenario();

}  // namespace vramcalc::ui
