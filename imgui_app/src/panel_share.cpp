// Header (title, share and export buttons), the embed snippet, and the footer status line.
#include <cstdio>

#include "ui.hpp"

#include <misc/cpp/imgui_stdlib.h>  // after imgui.h (it does not include it)
#include "vramcalc/bill_format.hpp"
#include "vramcalc/json_text.hpp"

namespace vramcalc::ui {

namespace {

std::string embed_link(const AppState& st) {
    std::string link = st.platform->share_link(encode_state(st));
    const auto hash = link.find('#');
    const std::string head = link.substr(0, hash), tail = hash == std::string::npos ? "" : link.substr(hash);
    return head + (head.find('?') == std::string::npos ? "?embed=1" : "&embed=1") + tail;
}

}  // namespace

void GuiHeader(AppState& st) {
    ImFont* big = ImGui::GetIO().Fonts->Fonts.Size > 1 ? ImGui::GetIO().Fonts->Fonts[1] : nullptr;
    if (big) ImGui::PushFont(big);
    ImGui::TextUnformatted("vramcalc");
    if (big) ImGui::PopFont();
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("GPU memory for training and serving LLMs: will it fit, and how large a batch?");
    GuiExport(st);
}

void GuiExport(AppState& st) {
    const bool ok = st.results.ok;
    if (ImGui::Button("Copy link")) {
        st.platform->copy_text(st.platform->share_link(encode_state(st)));
        set_status(st, "Link copied: opening it restores this scenario.");
    }
    ImGui::SameLine();
    if (ImGui::Button("Embed...")) st.show_embed_snippet = !st.show_embed_snippet;
    if (!ok) return;
    const Bill& b = st.results.bill;
    struct Format { const char* name; const char* file; const char* mime; };
    static constexpr Format kFormats[] = {{"JSON", "vramcalc-bill.json", "application/json"},
                                          {"CSV", "vramcalc-bill.csv", "text/csv"},
                                          {"Markdown", "vramcalc-bill.md", "text/markdown"}};
    for (const auto& f : kFormats) {
        const std::string name = f.name;
        auto text = [&]() {
            if (name == "JSON") return st.results.bill_json.dump(2) + "\n";
            if (name == "CSV") return bill_to_csv(b);
            return bill_to_markdown(b);
        };
        ImGui::SameLine();
        if (ImGui::Button(("Copy " + name).c_str())) {
            st.platform->copy_text(text());
            set_status(st, "Bill copied as " + name + ".");
        }
        ImGui::SameLine();
        if (ImGui::Button(("Save " + name).c_str())) set_status(st, st.platform->save_text(f.file, f.mime, text()));
    }
    if (st.show_embed_snippet) {
        std::string snippet = "<iframe src=\"" + embed_link(st) +
                              "\" width=\"100%\" height=\"620\" style=\"border:0\" title=\"vramcalc GPU memory calculator\"></iframe>";
        ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6);
        ImGui::InputText("##snippet", &snippet, ImGuiInputTextFlags_ReadOnly);
        ImGui::SameLine();
        if (ImGui::Button("Copy snippet")) {
            st.platform->copy_text(snippet);
            set_status(st, "Embed snippet copied.");
        }
    }
}

// The scenario as text: every key the core reads (RLHF roles, engine settings, ...) is reachable here,
// and the same text is what the CLI and the JS API take.
void GuiScenarioJson(AppState& st) {
    const float fs = ImGui::GetFontSize();
    if (ImGui::InputTextMultiline("##scenario", &st.scenario_text, ImVec2(-1, fs * 12))) st.scenario_text_edited = true;
    if (ImGui::Button("Apply JSON")) {
        std::string why;
        auto j = parse_json_text(st.scenario_text, why);  // depth-limited, like the CLI and the JS API
        if (!j || !j->is_object()) {
            set_status(st, "The scenario text is not a JSON object.", true);
        } else {
            st.scenario = std::move(*j);
            st.dirty = true;
            st.scenario_text_edited = false;
            set_status(st, "Scenario applied.");
        }
    }
    ImGui::SameLine();
    if (ImGui::Button("Revert")) {
        st.scenario_text_edited = false;
        st.scenario_text = st.scenario.dump(2);
    }
    ImGui::SameLine();
    ImGui::TextDisabled("Keys: shared/spec/scenario.md, docs/methodology.md");
}

void GuiFooter(AppState& st) {
    ImGui::Separator();
    if (!st.status.empty()) {
        if (st.status_is_error) ImGui::TextColored(ImVec4(0.8f, 0.16f, 0.14f, 1), "%s", st.status.c_str());
        else ImGui::TextUnformatted(st.status.c_str());
    }
    ImGui::TextDisabled("vramcalc (%s). GiB = 2^30 bytes, GB = 10^9 bytes. Computed in %.1f ms. Every figure's formula and source: "
                        "docs/methodology.md.",
                        st.platform->name(), st.results.compute_ms);
}

}  // namespace vramcalc::ui
