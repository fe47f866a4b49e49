// Header (title, share and export buttons), the embed snippet, and the footer status line.
#include <cstdio>

#include "ui.hpp"

#include <misc/cpp/imgui_stdlib.h>  // after imgui.h (it does not include it)
#include "vramcalc/bill_format.hpp"
#include "vramcalc/json_text.hpp"
#include "vramcalc/url_state.hpp"

namespace vramcalc::ui {

namespace {

std::string embed_link(const AppState& st) {
    std::string link = st.platform->share_link(encode_state(st));
    const auto hash = link.find('#');
    const std::string head = link.substr(0, hash), tail = hash == std::string::npos ? "" : link.substr(hash);
    return head + (head.find('?') == std::string::npos ? "?embed=1" : "&embed=1") + tail;
}

struct Format {
    const char* name;
    const char* file;
    const char* mime;
};
constexpr Format kFormats[] = {{"JSON", "vramcalc-bill.json", "application/json"},
                               {"CSV", "vramcalc-bill.csv", "text/csv"},
                               {"Markdown", "vramcalc-bill.md", "text/markdown"}};

std::string bill_text(const AppState& st, const Format& f) {
    const std::string name = f.name;
    if (name == "JSON") return st.results.bill_json.dump(2) + "\n";
    if (name == "CSV") return bill_to_csv(st.results.bill);
    return bill_to_markdown(st.results.bill);
}

void copy_bill(AppState& st, const Format& f) {
    st.platform->copy_text(bill_text(st, f));
    set_status(st, std::string("Bill copied as ") + f.name + ".");
}

void save_bill(AppState& st, const Format& f) { set_status(st, st.platform->save_text(f.file, f.mime, bill_text(st, f))); }

// A link whose hash is past what the page reads back (url_state.hpp kUrlStateMaxChars) would open on an
// error: say so instead of copying it (a large layer stack or config.json travels inside the link).
void copy_link(AppState& st) {
    const std::string state = encode_state(st);
    if (state.size() > kUrlStateMaxChars) {
        set_status(st, "This scenario is too large to share as a link (" + std::to_string(state.size() / 1024) + " KiB; a link carries at most " + std::to_string(kUrlStateMaxChars / 1024) + " KiB): copy the text under \"Scenario JSON\" and share that file instead.",
                   true);
        return;
    }
    st.platform->copy_text(st.platform->share_link(state));
    set_status(st, "Link copied: opening it restores this scenario.");
    st.link_copied_at = st.edits;  // said on the button itself: the status line is off screen on a phone
}

}  // namespace

// The iframe snippet, in exactly the form docs/embedding.md shows (the browser test compares them):
// '&' written as '&amp;' inside the attribute.
std::string embed_snippet(const AppState& st) {
    std::string src;
    for (char c : embed_link(st)) src += c == '&' ? std::string("&amp;") : std::string(1, c);
    return "<iframe src=\"" + src +
           "\"\n"
           "        title=\"vramcalc: GPU memory calculator\" width=\"100%\" height=\"560\" loading=\"lazy\"\n"
           "        style=\"border: 1px solid #ccc; border-radius: 6px\"></iframe>";
}

void GuiHeader(AppState& st) {
    ImFont* big = ImGui::GetIO().Fonts->Fonts.Size > 1 ? ImGui::GetIO().Fonts->Fonts[1] : nullptr;
    if (big) ImGui::PushFont(big);
    ImGui::TextUnformatted("vramcalc");
    if (big) ImGui::PopFont();
    if (!st.narrow) {
        ImGui::SameLine();
        ImGui::AlignTextToFramePadding();
    }
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("GPU memory for training and serving LLMs: will it fit, and how large a batch?");
    ImGui::PopTextWrapPos();
    GuiExport(st);
}

void GuiExport(AppState& st) {
    const bool ok = st.results.ok;
    if (ImGui::Button(st.link_copied_at == st.edits ? "Link copied###link" : "Copy link###link")) copy_link(st);
    if (st.link_copied_at == st.edits && ImGui::IsItemHovered()) ImGui::SetTooltip("Opening the copied link restores this scenario.");
    ImGui::SameLine();
    if (st.narrow) {
        // A phone: everything else folded into one menu.
        if (ImGui::Button("Share and export...")) ImGui::OpenPopup("export");
        if (ImGui::BeginPopup("export")) {
            if (ImGui::MenuItem("Embed snippet", nullptr, st.show_embed_snippet)) st.show_embed_snippet = !st.show_embed_snippet;
            for (const auto& f : kFormats) {
                if (ImGui::MenuItem((std::string("Copy ") + f.name).c_str(), nullptr, false, ok)) copy_bill(st, f);
                if (ImGui::MenuItem((std::string("Save ") + f.name).c_str(), nullptr, false, ok)) save_bill(st, f);
            }
            ImGui::EndPopup();
        }
    } else {
        if (ImGui::Button("Embed...")) st.show_embed_snippet = !st.show_embed_snippet;
        if (ok)
            for (const auto& f : kFormats) {
                ImGui::SameLine();
                if (ImGui::Button((std::string("Copy ") + f.name).c_str())) copy_bill(st, f);
                ImGui::SameLine();
                if (ImGui::Button((std::string("Save ") + f.name).c_str())) save_bill(st, f);
            }
    }
    if (st.show_embed_snippet) {
        std::string snippet = embed_snippet(st);
        ImGui::InputTextMultiline("##snippet", &snippet, ImVec2(-1, ImGui::GetTextLineHeight() * 3.6f), ImGuiInputTextFlags_ReadOnly);
        if (ImGui::Button("Copy snippet")) {
            st.platform->copy_text(snippet);
            set_status(st, "Embed snippet copied.");
        }
        ImGui::SameLine();
        ImGui::TextDisabled("The same as docs/embedding.md; the page sends its height (docs: \"Sizing the frame\").");
    }
}

// The scenario as text: every key the core reads (RLHF roles, engine settings, ...) is reachable here,
// and the same text is what the CLI and the JS API take.
void GuiScenarioJson(AppState& st) {
    const float fs = ImGui::GetFontSize();
    // Written only when shown: a megabyte of inline layers printed on every change cost the page time.
    if (st.scenario_text_stale && !st.scenario_text_edited) st.scenario_text = st.scenario.dump(2);
    st.scenario_text_stale = false;
    if (ImGui::InputTextMultiline("##scenario", &st.scenario_text, ImVec2(-1, fs * 12))) st.scenario_text_edited = true;
    if (ImGui::Button("Apply JSON")) {
        std::string why;
        auto j = parse_json_text(st.scenario_text, why);  // depth-limited, like the CLI and the JS API
        if (!j || !j->is_object()) {
            set_status(st, "The scenario text is not a JSON object" + (why.empty() ? std::string(".") : ": " + why), true);
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
    ImGui::PushTextWrapPos(0);
    if (!st.status.empty() && st.status_edits == st.edits) {  // an edit since makes the last action's line old news
        if (st.status_is_error) ImGui::TextColored(fit_color(Fit::no), "%s", st.status.c_str());
        else ImGui::TextUnformatted(st.status.c_str());
    }
    ImGui::TextDisabled(
        "vramcalc (%s). GiB = 2^30 bytes, GB = 10^9 bytes. Computed in %.1f ms. Every figure's formula and source: "
        "docs/methodology.md.",
        st.platform->name(), st.results.compute_ms);
    ImGui::PopTextWrapPos();
}

}  // namespace vramcalc::ui
