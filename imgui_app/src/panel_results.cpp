// The answer: verdict, the bill, curves, and what to change (what fits where: panel_fit.cpp).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include <imgui_internal.h>  // PushItemFlag (Tab stops)

#include "grid.hpp"
#include "ui.hpp"
#include "vramcalc/bill_format.hpp"
#include "vramcalc/layer_stack.hpp"
#include "vramcalc/model_reader_page.hpp"
#include "vramcalc/units.hpp"

namespace vramcalc::ui {

using json = nlohmann::json;

namespace {

const ImVec4 kRed = fit_color(Fit::no);

void problems_box(const AppState& st) {
    // The page's model reader still loading (model_reader_page.hpp) is a wait, not a problem.
    const auto& errors = st.results.field_errors;
    if (!errors.empty() && std::all_of(errors.begin(), errors.end(), [](const Problem& p) { return p.message == kModelBeingRead; })) {
        ImGui::TextDisabled("Reading the model (the model reader is loading)...");
        return;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, kRed);
    ImGui::TextUnformatted("The scenario cannot be estimated:");
    ImGui::PopStyleColor();
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(st.results.errors.c_str());
    ImGui::PopTextWrapPos();
}

}  // namespace

Fit fit_of_verdict(Verdict v) {
    switch (v) {  // the core's rule (bill_format.hpp)
        case Verdict::fits:
            return Fit::within_target;
        case Verdict::fits_above_target:
            return Fit::above_target;
        case Verdict::does_not_fit:
            break;
    }
    return Fit::no;
}

// "Rule of thumb: 17.95 GiB, -3 % against this bill ..." (bill_format.hpp rule_of_thumb_comparison).
std::string rule_of_thumb_line(const Bill& b) {
    return "Rule of thumb: " + gib(b.rule_of_thumb_bytes) + ", " + rule_of_thumb_comparison(b);
}

// What a step or a token takes, in the unit the speed counts (Speed::unit: images for a CNN).
std::vector<std::string> speed_lines(const Results& r) {
    std::vector<std::string> out;
    if (!r.bill.speed) return out;
    const Speed& s = *r.bill.speed;
    const ModelSpec& m = r.scenario.model;
    const char* unit = s.unit.c_str();
    const std::string& basis = s.basis;
    char buf[640];
    if (s.step_s > 0) {
        std::snprintf(buf, sizeof buf, "Time: %.3g s per optimizer step, %.0f %s/s per GPU (%s-bound; %s).", s.step_s, s.tokens_per_s_per_gpu,
                      unit, s.bound.c_str(), basis.c_str());
        out.emplace_back(buf);
    } else if (s.decode_s_per_token > 0 && !m.stack) {
        const std::string most = s.tokens_per_s_at_max_concurrency > 0
                                     ? ", " + std::to_string(static_cast<long long>(s.tokens_per_s_at_max_concurrency)) + " at the most sequences that fit"
                                     : "";
        std::snprintf(buf, sizeof buf, "Speed: %.1f tokens/s per sequence, %.0f for the batch%s (%s-bound; %s).", s.tokens_per_s_per_sequence,
                      s.tokens_per_s, most.c_str(), s.bound.c_str(), basis.c_str());
        out.emplace_back(buf);
    } else if (m.stack && s.prefill_s > 0) {  // one forward of the batch
        std::snprintf(buf, sizeof buf, "Speed: %.3g s per batch of %lld, %.0f %s/s (%s-bound; %s).", s.prefill_s,
                      static_cast<long long>(r.scenario.batch), static_cast<double>(r.scenario.batch) / s.prefill_s, unit, s.bound.c_str(),
                      basis.c_str());
        out.emplace_back(buf);
    }
    if (s.time_for_dataset_s > 0) {
        std::snprintf(buf, sizeof buf, "%.4g %s take %s at %.0f %s/s.", s.dataset_tokens, unit, format_duration(s.time_for_dataset_s).c_str(),
                      s.tokens_per_s, unit);
        out.emplace_back(buf);
    }
    return out;
}

namespace {

Fit fit_of_bill(const Bill& b) { return fit_of_verdict(verdict_of(b)); }

// An advice row's state as the core judged its bill (vLLM: its pool against the batch, not the target).
Fit fit_of_advice(const Advice& a) { return a.within_target ? Fit::within_target : a.fits ? Fit::above_target
                                                                                          : Fit::no; }

// "largest batch 8", or what batch 1 does when none is within the target (never "largest batch 0").
std::string largest_text(const Advice& a, const char* batch) {
    if (a.max_batch > 0) return std::string("largest ") + batch + " " + std::to_string(a.max_batch);
    return std::string(a.fits ? "above the target even at " : "does not fit at ") + batch + " 1";
}

// "31 % slower", "same speed", "" (no estimate): an advice row's time price.
std::string price_text(double ratio) {
    if (ratio <= 0) return "";
    if (std::fabs(ratio - 1) < 0.005) return "same speed";
    char buf[48];
    std::snprintf(buf, sizeof buf, ratio > 1 ? "%.0f\u00a0%% faster" : "%.0f\u00a0%% slower", std::fabs(ratio - 1) * 100);
    return buf;
}

// The speed line under the verdict (Bill::speed).
void speed_line(const Results& r) {
    ImGui::PushTextWrapPos(0);
    for (const std::string& line : speed_lines(r)) ImGui::TextDisabled("%s", line.c_str());
    ImGui::PopTextWrapPos();
}

// The fix beside the verdict: the best changes that fit, with their result and Apply.
void quick_fixes(AppState& st) {
    const AdvicePlan& plan = st.results.advice;
    if (verdict_of(st.results.bill) == Verdict::fits) return;
    json chosen;
    int shown = 0;
    for (std::size_t i = 0; i < plan.ranked.size() && shown < 3; ++i) {
        const Advice& a = plan.ranked[i];
        if (!a.within_target && !a.fits) continue;
        ++shown;
        ImGui::PushID(static_cast<int>(i) + 1000);
        if (ImGui::SmallButton("Apply")) chosen = a.patch;
        ImGui::PopID();
        ImGui::SameLine();
        const Fit fit = fit_of_advice(a);
        ImGui::PushTextWrapPos(0);
        const std::string price = price_text(a.speed_ratio);
        const char* batch = st.results.scenario.workload == Workload::train ? "micro-batch" : "batch";
        ImGui::TextColored(fit_color(fit), "%s: %s, %s%s%s", a.title.c_str(), gib(a.device_bytes, 1).c_str(), largest_text(a, batch).c_str(),
                           price.empty() ? "" : ", ", price.c_str());
        ImGui::PopTextWrapPos();
    }
    if (shown == 0 && !plan.note.empty()) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(fit_color(Fit::no), "%s", plan.note.c_str());
        ImGui::PopTextWrapPos();
    }
    if (!chosen.is_null()) apply_patch(st, chosen);
}

}  // namespace

ImVec4 fit_color(Fit f) {
    switch (f) {
        case Fit::within_target:
            return ImVec4(0.09f, 0.42f, 0.18f, 1.0f);  // #176b2f: 6.6:1 on white
        case Fit::above_target:
            return ImVec4(0.54f, 0.35f, 0.0f, 1.0f);  // #8a5a00: 5.9:1 on white
        case Fit::no:
            break;
    }
    return ImVec4(0.70f, 0.15f, 0.12f, 1.0f);  // #b3261e: 6.5:1 on white
}

const char* fit_word(Fit f) { return f == Fit::within_target ? "yes" : f == Fit::above_target ? "tight"
                                                                                              : "no"; }

void GuiVerdict(AppState& st) {
    if (!st.load_error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kRed);
        ImGui::PushTextWrapPos(0);
        ImGui::TextUnformatted(st.load_error.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
        if (ImGui::SmallButton("Dismiss")) st.load_error.clear();
    }
    if (!st.results.ok) {
        problems_box(st);
        return;
    }
    const Bill& b = st.results.bill;
    const Fit fit = fit_of_bill(b);
    // The core's one phrasing of the verdict (bill_format.hpp), capitalised, then the figures.
    std::string line = verdict_sentence(b);
    if (!line.empty()) line[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(line[0])));
    line += " (" + gib(b.device_bytes, 1) + " of " + gib(b.gpu.memory_bytes, 1) + " per GPU)";
    ImFont* big = ImGui::GetIO().Fonts->Fonts.Size > 1 ? ImGui::GetIO().Fonts->Fonts[1] : nullptr;
    if (big) ImGui::PushFont(big);
    ImGui::PushStyleColor(ImGuiCol_Text, fit_color(fit));
    ImGui::PushTextWrapPos(0);  // a phone's width wraps it rather than cutting it off
    ImGui::TextUnformatted(line.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    if (big) ImGui::PopFont();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s on %lld x %s, %s. Device memory as nvidia-smi would show it; GiB = 2^30 bytes.", b.model_name.c_str(),
                        static_cast<long long>(st.results.scenario.num_gpus), b.gpu.name.c_str(),
                        st.results.scenario.workload == Workload::train ? "training" : "inference");
    ImGui::PopTextWrapPos();
    StackedBar(b, st.results.scenario.target_utilization, ImGui::GetFontSize() * 1.8f);
    quick_fixes(st);
    speed_line(st.results);
    ImGui::PushStyleColor(ImGuiCol_Text, fit_color(Fit::above_target));
    ImGui::PushTextWrapPos(0);
    for (const auto& wmsg : b.warnings) ImGui::Text("warning: %s", wmsg.c_str());
    for (const auto& n : b.notes) ImGui::TextDisabled("note: %s", n.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

namespace {

// The bill's lines: name (with its colour), GiB, share and how each is computed; narrow: two columns.
void bill_lines(const Bill& b, bool compact) {
    const float fs = ImGui::GetFontSize();
    float name_width = fs * 9;  // the longest line name ("communication buffers") with its colour dot
    for (const auto& c : b.components)
        name_width = std::max(name_width, ImGui::CalcTextSize(component_label(c.id).c_str()).x + fs * 1.2f);
    Grid grid = compact ? Grid("bill", {{"component"}, {"GiB", fs * 5}})
                        : Grid("bill", {{"component", name_width}, {"GiB", fs * 5}, {"share", fs * 4}, {"how it is computed"}});
    grid.header();
    for (const auto& c : b.components) {
        const double share = 100.0 * static_cast<double>(c.bytes) / std::max<double>(1, static_cast<double>(b.device_bytes));
        grid.row();
        grid.next_cell();
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float dot = fs * 0.7f, pad = (ImGui::GetTextLineHeight() - dot) * 0.5f, indent = dot + ImGui::GetStyle().ItemInnerSpacing.x;
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + pad), ImVec2(at.x + dot, at.y + pad + dot), component_color(c.id), 2);
        ImGui::Indent(indent);
        ImGui::TextUnformatted(component_label(c.id).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("\"%s\" in the bill JSON", c.id.c_str());
        if (compact) {
            ImGui::PushTextWrapPos(0);
            ImGui::TextDisabled("%s", c.detail.c_str());
            ImGui::PopTextWrapPos();
        }
        ImGui::Unindent(indent);
        grid.next_cell();
        ImGui::Text("%.2f", static_cast<double>(c.bytes) / kGiB);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s bytes", format_count(c.bytes).c_str());
        if (compact) {
            ImGui::TextDisabled("%.1f %%", share);
            continue;
        }
        grid.next_cell();
        ImGui::Text("%.1f %%", share);
        grid.next_cell();
        ImGui::PushTextWrapPos(0);  // wrapped in its column rather than cut off at the panel's edge
        ImGui::TextDisabled("%s", c.detail.c_str());
        ImGui::PopTextWrapPos();
        if (ImGui::IsItemHovered()) {
            ImGui::BeginTooltip();
            ImGui::PushTextWrapPos(fs * 32);
            ImGui::TextUnformatted(c.detail.c_str());
            ImGui::PopTextWrapPos();
            ImGui::EndTooltip();
        }
    }
}

}  // namespace

void GuiBill(AppState& st) {
    if (!st.results.ok) return;
    const Bill& b = st.results.bill;
    const float fs = ImGui::GetFontSize();
    // Narrow (a phone, a small frame): two columns, the "how it is computed" text wrapped under each name.
    bill_lines(b, st.narrow || (st.embed && ImGui::GetContentRegionAvail().x < fs * 45));
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    ImGui::Text("Peak allocated %s  |  reserved %s  |  device %s", gib(b.peak_allocated_bytes).c_str(),
                gib(b.peak_reserved_bytes).c_str(), gib(b.device_bytes).c_str());
    ImGui::TextDisabled("= torch.cuda.max_memory_allocated() / max_memory_reserved() / nvidia-smi; peak during %s",
                        b.peak_phase.empty() ? "inference" : b.peak_phase.c_str());
    if (b.needed_bytes != b.device_bytes) {
        ImGui::Text("Needed to run: %s", gib(b.needed_bytes).c_str());
        ImGui::TextDisabled(
            "= allocated + what the caching allocator holds in segments with a live block + CUDA context: "
            "when the GPU runs out, the allocator frees the rest of its cache and retries");
    }
    if (b.cpu_bytes > 0) ImGui::Text("Host (CPU) memory: %s", gib(b.cpu_bytes).c_str());
    if (b.kv_pool_bytes)
        ImGui::Text("vLLM KV block pool: %s, room for %lld sequences of %lld tokens", gib(*b.kv_pool_bytes).c_str(),
                    static_cast<long long>(b.kv_pool_sequences.value_or(0)),
                    static_cast<long long>(st.results.scenario.prompt_len + st.results.scenario.gen_len));
    if (b.rule_of_thumb_bytes > 0) {
        ImGui::TextUnformatted(rule_of_thumb_line(b).c_str());
        // Beside it when the formula fits the rest of the line; below it on a phone (it wrapped a letter a line).
        const std::string& formula = b.rule_of_thumb_formula;
        ImGui::SameLine();
        if (ImGui::CalcTextSize(formula.c_str()).x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
        ImGui::TextDisabled("%s", formula.c_str());
    }
    ImGui::PopTextWrapPos();
}

void GuiCharts(AppState& st) {
    if (!st.results.ok) return;
    const auto& r = st.results;
    const bool train = r.scenario.workload == Workload::train;
    const double cap = static_cast<double>(r.bill.gpu.memory_bytes) / kGiB;
    auto series = [](const std::vector<CurvePoint>& pts) {
        Series s;
        for (const auto& p : pts) {
            s.x.push_back(static_cast<double>(p.x));
            s.y.push_back(static_cast<double>(p.device_bytes) / kGiB);
        }
        return s;
    };
    const float fs = ImGui::GetFontSize();
    const bool side = ImGui::GetContentRegionAvail().x > fs * 40;
    const float half = side ? (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f : 0;
    const double target = cap * r.scenario.target_utilization;
    auto chart = [&](const char* id, const char* title, const std::vector<CurvePoint>& pts, const char* x_label, double own) {
        ImGui::BeginChild(id, ImVec2(half, fs * 12.5f), false);
        ImGui::Text("Memory per GPU against %s", title);
        LineChart(id, series(pts), x_label, cap, target, true, fs * 10.5f, own);
        ImGui::EndChild();
    };
    chart("by_batch", train ? "micro-batch" : "batch", r.curves.by_batch, train ? "micro-batch" : "batch",
          static_cast<double>(train ? r.scenario.micro_batch : r.scenario.batch));
    if (!r.curves.by_length.empty()) {  // none for a layer stack (a fixed input shape)
        if (side) ImGui::SameLine();
        chart("by_seq", train ? "sequence length" : "prompt length", r.curves.by_length, train ? "seq_len" : "prompt_len",
              static_cast<double>(train ? r.scenario.seq_len : r.scenario.prompt_len));
    }
    if (train && !r.bill.timeline.empty()) {
        ImGui::Text("One training step, allocated memory event by event");
        TimelineChart(r.bill, fs * 6);
    }
}

void GuiAdvisor(AppState& st) {
    if (!st.results.ok) return;
    const auto& advice = st.results.advice.ranked;
    if (advice.empty()) {
        ImGui::TextDisabled("No change saves memory here.");
        return;
    }
    if (!st.results.advice.note.empty()) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(fit_color(Fit::no), "%s", st.results.advice.note.c_str());
        ImGui::PopTextWrapPos();
    }
    const float fs = ImGui::GetFontSize();
    ImGui::TextDisabled(st.results.bill.fits ? "Changes that free memory (for a larger batch), each computed by the estimator:"
                                             : "Changes that would make it fit, each computed by the estimator:");
    json chosen;
    {
        Grid grid("advice", {{"change"}, {"time", fs * 6}, {"saves", fs * 5.5f}, {"then", fs * 8.5f}, {"max batch", fs * 5}, {"", fs * 3.5f}});
        grid.header();
        for (std::size_t i = 0; i < advice.size(); ++i) {
            const Advice& a = advice[i];
            grid.row();
            grid.next_cell();
            ImGui::TextUnformatted(a.title.c_str());
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\nchanges: %s", a.why.c_str(), a.patch.dump().c_str());
            grid.next_cell();
            ImGui::TextUnformatted(price_text(a.speed_ratio).c_str());
            grid.next_cell();
            ImGui::Text("%s", gib(a.saving_bytes, 1).c_str());
            grid.next_cell();
            const Fit fit = fit_of_advice(a);
            ImGui::TextColored(fit_color(fit), "%s %s", gib(a.device_bytes, 1).c_str(), fit == Fit::within_target ? "fits" : fit == Fit::above_target ? "tight"
                                                                                                                                                      : "no");
            grid.next_cell();
            if (a.max_batch > 0) ImGui::Text("%lld", static_cast<long long>(a.max_batch));
            else ImGui::TextDisabled("none");  // not even 1 within the target
            if (a.max_batch == 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", largest_text(a, "batch").c_str());
            grid.next_cell();
            ImGui::PushID(static_cast<int>(i));
            if (ImGui::SmallButton("Apply")) chosen = a.patch;
            ImGui::PopID();
        }
    }
    if (!chosen.is_null()) apply_patch(st, chosen);
}

}  // namespace vramcalc::ui
