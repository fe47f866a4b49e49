// Internal to the UI: the panels (one function each, in panel_*.cpp), the scenario-bound widgets
// (widgets.cpp) and the small drawing helpers (charts.cpp). Everything takes the AppState.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>
#include <nlohmann/json.hpp>

#include "vramcalc_ui/app.hpp"

namespace vramcalc::ui {

// Panels (draw_frame in frame.cpp calls them in page order).
void GuiHeader(AppState& st);
void GuiModel(AppState& st);
void GuiLayerStack(AppState& st);  // panel_stack.cpp: the layer-stack JSON editor in the model panel
void GuiWorkload(AppState& st);
void GuiHardware(AppState& st);
void GuiVerdict(AppState& st);
void GuiBill(AppState& st);
void GuiFit(AppState& st);
void GuiServing(AppState& st);     // panel_serving.cpp: the context x concurrency grid (vLLM, llama.cpp)
void GuiCheckpoint(AppState& st);  // panel_checkpoint.cpp: exact weight bytes from a Hub checkpoint's headers
void GuiCharts(AppState& st);
void GuiAdvisor(AppState& st);
void GuiExport(AppState& st);
void GuiScenarioJson(AppState& st);
void GuiFooter(AppState& st);

// Keyboard: Tab / Shift+Tab across every control (input.cpp); called in the frame before the panels.
void keyboard_tab(AppState& st);
// Names the control just submitted for the Tab order's focus label (ImGui reports no label for combos).
void name_last_item(AppState& st, const char* name);
// Names the first control submitted since the Tab order held `count` stops: a number field (`number` 0
// integer, 1 decimal), whose +/- buttons come after it. Digits typed while it has the focus edit it.
void name_number_field(AppState& st, std::size_t count, const char* name, int number);
// After the panels: keeps the control pressed last where it was on screen (input.cpp).
void anchor_scroll(AppState& st);

// The three answers a memory figure can have, and their text colours (contrast >= 4.5:1 on white and on
// the table's selected rows): the core's three verdicts (bill_format.hpp verdict_of).
enum class Fit { within_target,
                 above_target,
                 no };
Fit fit_of_verdict(Verdict v);
ImVec4 fit_color(Fit f);
const char* fit_word(Fit f);  // "yes", "tight", "no"

// Recompute everything derived from the scenario (app.cpp).
void recompute(AppState& st);
void set_status(AppState& st, std::string message, bool error = false);
void apply_patch(AppState& st, const nlohmann::json& patch);
// Imports a config (vllm/sglang/llama.cpp line, DeepSpeed, accelerate, HF/TRL, LLaMA-Factory, axolotl,
// torchtune, PEFT) into the scenario; the status line reports it (import_config.cpp). Where the UI was
// built without the importer, the platform imports it (the page's separate module) and the answer comes
// back through App::on_imported, which hands it to import_answered.
bool import_into(AppState& st, const std::string& name, const std::string& text);
// Text a user hands in (a dropped, opened, fetched or pasted file) as JSON, through the checks the CLI and
// the JS API apply (parse_json_text: size, NUL, nesting, duplicate keys). nullopt when it is not JSON at
// all (another tool's config: give it to import_into) or, with `refused` set and the status line saying
// why, when it is JSON that those checks refuse.
std::optional<nlohmann::json> read_json_input(AppState& st, const std::string& name, const std::string& text, bool& refused);
void apply_import(AppState& st, const std::string& name, const nlohmann::json& imported);
// An importer's answer (the core's import_answer, whichever module gave it): applied, or its errors on
// the status line.
void import_answered(AppState& st, const std::string& name, const nlohmann::json& answer);
// A module's {"ok": false, "errors": [{"field", "message"}]} answer as one line ("field: message; ..."),
// or `if_none` when it lists none.
std::string answer_errors(const nlohmann::json& answer, const char* if_none);
// A print(model) converted to a layer stack (the core's repr_answer, from the UI's converter or the
// platform's): into the layer-stack editor with its notes, or its errors on the status line.
void repr_answered(AppState& st, const nlohmann::json& answer);
// The checkpoint read's reports (panel_checkpoint.cpp), and its outcome as text for the summary.
void checkpoint_answer(AppState& st, const std::string& report_json);
std::string checkpoint_summary(const AppState& st);
std::string serving_summary(const ServingMatrix& m);  // panel_serving.cpp: the grid as one line of text
// Lines the page draws and its summary carries, so that a screen reader (or a test) reads what is shown:
std::vector<std::string> fit_lines(const Results& r);    // panel_fit.cpp: the largest batch, the longest context
std::string rule_of_thumb_line(const Bill& b);           // panel_results.cpp: "Rule of thumb: ..., +3 % against this bill"
std::vector<std::string> speed_lines(const Results& r);  // panel_results.cpp: the time per step or token (images/s for a CNN)

// Scenario-bound widgets. `ptr` is a JSON pointer into the scenario ("/micro_batch", "/lora/rank");
// a key the user never set shows the value the estimator used (the framework's default).
namespace widgets {
nlohmann::json current(const AppState& st, const std::string& ptr);
// The scenario's error at this key (marked beside its field), or null.
const Problem* error_at(const AppState& st, const std::string& ptr);
void set(AppState& st, const std::string& ptr, nlohmann::json value);
bool Enum(AppState& st, const char* label, const std::string& ptr, const std::vector<std::string>& values);
// The number widgets take their bounds from the key's row of the core's key table (key_range), so a
// field allows what the scenario reader allows.
bool Int(AppState& st, const char* label, const std::string& ptr);
bool PowerOfTwo(AppState& st, const char* label, const std::string& ptr);
bool Real(AppState& st, const char* label, const std::string& ptr, const char* fmt);    // a slider over the key's range
bool Number(AppState& st, const char* label, const std::string& ptr, const char* fmt);  // typed
bool Bool(AppState& st, const char* label, const std::string& ptr);
// One row of an open combo: at least 44 CSS px tall after a finger's tap (a fingertip's target), the
// current row focused and scrolled to when the combo opens, letters typed jump to the first row whose
// name starts with them.
bool ComboRow(AppState& st, const char* label, bool selected);
// Before a combo's rows: what was typed into it since the last pause (input.cpp's type-ahead).
void ComboTypeahead(AppState& st);
void Help(const char* key);  // (?) marker with the memory effect of a scenario key and its default
const char* help_text(const std::string& key);
void SectionTitle(const char* text);
// A key of an object the user wrote (a pasted layer stack, config or custom GPU): its value when it has
// the type shown, else the fallback. The core's reader reports the bad value; the form must not trip on it.
std::string text_at(const nlohmann::json& j, const char* key, const std::string& fallback);
double number_at(const nlohmann::json& j, const char* key, double fallback);
}  // namespace widgets

// Drawing helpers (charts.cpp).
ImU32 component_color(const std::string& id);
std::string component_label(const std::string& id);     // the bill line's name for people; the JSON id on hover
std::string gib(std::int64_t bytes, int decimals = 2);  // "12.34 GiB"
void StackedBar(const Bill& bill, double target_utilization, float height);
struct Series {
    std::vector<double> x, y;  // y in GiB
};
void LineChart(const char* id, const Series& s, const char* x_label, double capacity_gib, double target_gib,
               bool log2_x, float height, double marker_x);
void TimelineChart(const Bill& bill, float height);

}  // namespace vramcalc::ui
