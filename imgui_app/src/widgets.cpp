// Widgets bound to scenario keys, and what each key does to memory (the tooltips).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <string_view>

#include "ui.hpp"
#include "vramcalc/scenario_json.hpp"
#include "vramcalc/scenario_keys.hpp"
#include "vramcalc/json_text.hpp"

#include <imgui_internal.h>  // SetFocusID (a combo's type-ahead)

namespace vramcalc::ui::widgets {

using json = nlohmann::json;

// The help of a scenario key comes from the core's one table of keys (vramcalc/scenario_keys.hpp).
const char* help_text(const std::string& key) {
    const std::string_view text = scenario_key_help(key);
    return text.empty() ? nullptr : text.data();  // the table's texts are string literals
}

void Help(const char* key) {
    const char* text = help_text(key);
    if (!text) return;
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
        ImGui::TextUnformatted(text);
        // The default, derived from the core's default_scenario (scenario_key_default_text).
        if (const std::string d = scenario_key_default_text(key); !d.empty()) ImGui::TextUnformatted(("Default: " + d).c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

void SectionTitle(const char* text) {
    ImGui::Spacing();
    ImGui::TextDisabled("%s", text);
    ImGui::Separator();
}

namespace {
std::string key_of(const std::string& ptr) {
    std::string k = ptr.substr(1);
    std::replace(k.begin(), k.end(), '/', '.');
    return k;
}

// The bounds of the key at `ptr` (the key table's); a pointer the table lacks is a programming error
// caught by the desktop and browser tests, and gets no bounds to clamp to.
KeyRange range_of(const std::string& ptr) {
    const KeyRange r = key_range(key_of(ptr));
    return r.min == 0 && r.max == 0 ? KeyRange{-1e300, 1e300} : r;
}
}  // namespace

const Problem* error_at(const AppState& st, const std::string& ptr) {
    const std::string key = key_of(ptr);
    for (const auto& e : st.results.field_errors)
        if (e.field == key) return &e;
    return nullptr;
}

// The value a widget shows: the user's, or the default the scenario resolved to; a value in error shows
// what the form resolved without it (recompute's form_values), its label saying what is wrong.
json current(const AppState& st, const std::string& ptr) {
    const json::json_pointer p(ptr);
    if (st.scenario.contains(p) && !error_at(st, ptr)) return st.scenario.at(p);
    if (st.results.scenario_json.contains(p)) return st.results.scenario_json.at(p);  // once per change
    // A key the writer leaves out at its default (adamw_impl): that default, not a blank.
    if (!st.results.ok) return nullptr;
    const std::string d = scenario_key_default(key_of(ptr), st.results.scenario.framework, st.results.scenario.workload);
    return d.empty() ? json() : parse_json_or_discarded(d);
}

void set(AppState& st, const std::string& ptr, json value) {
    st.scenario[json::json_pointer(ptr)] = std::move(value);
    st.dirty = true;
    ++st.edits;  // the last action's status line is old news now
}

bool ComboRow(AppState& st, const char* label, bool selected) {
    const float fs = ImGui::GetFontSize();
    const float h = st.touch ? std::max(0.0f, fs * 44.0f / kBodyFontPx - ImGui::GetStyle().ItemSpacing.y) : 0.0f;
    ImGui::PushStyleVar(ImGuiStyleVar_SelectableTextAlign, ImVec2(0, 0.5f));  // the text centred in a taller row
    const bool picked = ImGui::Selectable(label, selected, 0, ImVec2(0, h));
    ImGui::PopStyleVar();
    if (selected) ImGui::SetItemDefaultFocus();
    KeyboardNav& nav = st.nav;
    if (nav.typeahead_pending) {  // typed this frame: the first row it names
        std::string name = label;
        name = name.substr(0, name.find("##"));
        const bool match = name.size() >= nav.typeahead.size() &&
                           std::equal(nav.typeahead.begin(), nav.typeahead.end(), name.begin(),
                                      [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
        if (match) {
            ImGui::SetFocusID(ImGui::GetItemID(), ImGui::GetCurrentWindow());
            ImGui::SetScrollHereY(0.5f);
            GImGui->NavDisableHighlight = false;
            nav.typeahead_pending = false;  // found: later rows leave the focus alone
        }
    }
    return picked;
}

void ComboTypeahead(AppState& st) {
    ImGuiIO& io = ImGui::GetIO();
    KeyboardNav& nav = st.nav;
    if (io.InputQueueCharacters.Size == 0) return;
    // Wall time: the page draws no frames while idle, so ImGui's clock stands still between keys.
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    if (now - nav.typeahead_time > 1.0) nav.typeahead.clear();  // a pause of 1 s starts a new name
    for (ImWchar c : io.InputQueueCharacters)
        if (c >= 0x20 && c < 0x80) nav.typeahead += static_cast<char>(c);
    io.InputQueueCharacters.resize(0);
    nav.typeahead_time = now;
    nav.typeahead_pending = true;
}

namespace {
// The label (in the error colour, with the error on hover, when the value is wrong), its help, and the
// widget's column.
void label_column(const AppState& st, const char* label, const std::string& ptr) {
    ImGui::AlignTextToFramePadding();
    if (const Problem* e = error_at(st, ptr)) {
        ImGui::TextColored(fit_color(Fit::no), "%s (!)", label);  // the "does not fit" red, 6.5:1 on white
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e->message.c_str());
    } else {
        ImGui::TextUnformatted(label);
    }
    Help(key_of(ptr).c_str());
    ImGui::SameLine(ImGui::GetFontSize() * 9.5f);
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 0.5f);
}
}  // namespace

namespace {
// How a combo names a value where the scenario's word alone misleads (the key's help says the rest).
std::string value_label(const std::string& ptr, const std::string& v) {
    if (ptr == "/precision") {
        if (v == "bf16" || v == "fp16") return v + " (pure)";                          // 16-bit weights and states
        if (v == "bf16-mixed" || v == "fp16-mixed") return v.substr(0, 4) + " mixed";  // fp32 weights, 16-bit compute
    }
    return v;
}
}  // namespace

bool Enum(AppState& st, const char* label, const std::string& ptr, const std::vector<std::string>& values) {
    const json cur = current(st, ptr);
    const std::string now = cur.is_string() ? cur.get<std::string>() : "";
    label_column(st, label, ptr);
    bool changed = false;
    ImGui::PushID(ptr.c_str());
    const bool open = ImGui::BeginCombo("##v", value_label(ptr, now).c_str());
    if (!open) name_last_item(st, label);
    if (open) {
        ComboTypeahead(st);
        for (const auto& v : values) {
            if (ComboRow(st, value_label(ptr, v).c_str(), v == now) && v != now) {
                set(st, ptr, v);
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    ImGui::PopID();
    return changed;
}

bool Int(AppState& st, const char* label, const std::string& ptr) {
    const KeyRange r = range_of(ptr);
    const auto lo = static_cast<long long>(std::max(r.min, -9e18)), hi = static_cast<long long>(std::min(r.max, 9e18));
    const json cur = current(st, ptr);
    long long v = cur.is_number_integer() ? cur.get<long long>() : lo;
    label_column(st, label, ptr);
    ImGui::PushID(ptr.c_str());
    const long long step = 1;
    const std::size_t stops = st.nav.collecting.size();
    const bool edited = ImGui::InputScalar("##v", ImGuiDataType_S64, &v, &step, nullptr, "%lld");
    name_number_field(st, stops, label, 0);
    ImGui::PopID();
    if (edited) {
        v = std::clamp<long long>(v, lo, hi);
        set(st, ptr, v);
    }
    return edited;
}

bool PowerOfTwo(AppState& st, const char* label, const std::string& ptr) {
    const KeyRange r = range_of(ptr);
    const auto lo = static_cast<long long>(std::max(r.min, -9e18)), hi = static_cast<long long>(std::min(r.max, 9e18));
    const json cur = current(st, ptr);
    long long v = cur.is_number_integer() ? cur.get<long long>() : lo;
    label_column(st, label, ptr);
    ImGui::PushID(ptr.c_str());
    // Typing any value works; the +/- buttons halve and double (the steps people try).
    const float button = ImGui::GetFrameHeight();
    ImGui::SetNextItemWidth(std::max(ImGui::CalcItemWidth() - 2 * (button + ImGui::GetStyle().ItemInnerSpacing.x), button * 2));
    const std::size_t stops = st.nav.collecting.size();
    bool edited = ImGui::InputScalar("##v", ImGuiDataType_S64, &v, nullptr, nullptr, "%lld");
    name_number_field(st, stops, label, 0);
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    if (ImGui::Button("-", ImVec2(button, button))) {
        v = std::max<long long>(lo, v / 2);
        edited = true;
    }
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    if (ImGui::Button("+", ImVec2(button, button))) {
        v = std::min<long long>(hi, v < 1 ? 1 : v * 2);
        edited = true;
    }
    ImGui::PopID();
    if (edited) set(st, ptr, std::clamp<long long>(v, lo, hi));
    return edited;
}

bool Real(AppState& st, const char* label, const std::string& ptr, const char* fmt) {
    const KeyRange r = range_of(ptr);
    const double lo = r.min, hi = r.max;
    const json cur = current(st, ptr);
    double v = cur.is_number() ? cur.get<double>() : lo;
    label_column(st, label, ptr);
    ImGui::PushID(ptr.c_str());
    const bool edited = ImGui::SliderScalar("##v", ImGuiDataType_Double, &v, &lo, &hi, fmt, ImGuiSliderFlags_AlwaysClamp);
    name_last_item(st, label);
    ImGui::PopID();
    if (edited) set(st, ptr, std::round(v * 1000.0) / 1000.0);
    return edited;
}

// A value typed in rather than slid, for ranges such as dataset sizes (1e6 ... 1e13 tokens).
bool Number(AppState& st, const char* label, const std::string& ptr, const char* fmt) {
    const KeyRange r = range_of(ptr);
    const double lo = r.min, hi = r.max;
    const json cur = current(st, ptr);
    double v = cur.is_number() ? cur.get<double>() : lo;
    label_column(st, label, ptr);
    ImGui::PushID(ptr.c_str());
    const std::size_t stops = st.nav.collecting.size();
    const bool edited = ImGui::InputDouble("##v", &v, 0, 0, fmt, ImGuiInputTextFlags_CharsScientific);  // "1e+09" types back
    name_number_field(st, stops, label, 1);
    ImGui::PopID();
    if (edited) set(st, ptr, std::clamp(v, lo, hi));
    return edited;
}

bool Bool(AppState& st, const char* label, const std::string& ptr) {
    const json cur = current(st, ptr);
    bool v = cur.is_boolean() && cur.get<bool>();
    label_column(st, label, ptr);
    ImGui::PushID(ptr.c_str());
    const bool edited = ImGui::Checkbox("##v", &v);
    name_last_item(st, label);
    ImGui::PopID();
    if (edited) set(st, ptr, v);
    return edited;
}

std::string text_at(const json& j, const char* key, const std::string& fallback) {
    return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}
double number_at(const json& j, const char* key, double fallback) {
    return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

}  // namespace vramcalc::ui::widgets

namespace vramcalc::ui {

nlohmann::json form_field(const AppState& st, const std::string& ptr) {
    if (ptr.empty() || ptr[0] != '/') return {{"value", nullptr}, {"error", "not a JSON pointer"}};
    const Problem* e = widgets::error_at(st, ptr);
    return {{"value", widgets::current(st, ptr)}, {"error", e ? e->message : ""}};
}

}  // namespace vramcalc::ui
