// "Read exact weight bytes from the checkpoint": the Hub repository's model.safetensors.index.json (or its
// model.safetensors, or a named .safetensors / .gguf file), then each file's header with HTTP Range
// requests, never the weights. The platform runs the core's CheckpointHeaderReader (the page loads it as
// a separate module on this click, web/checkpoint_module.cpp; the CLI's `vramcalc weights` runs the same
// reader on local files) and reports its state as JSON; the sum becomes the scenario's checkpoint_bytes.
// A failure names the file and what failed, and the weights stay counted from the config.
#include <algorithm>
#include <cstdio>

#include "grid.hpp"
#include "ui.hpp"
#include "vramcalc/units.hpp"
#include "vramcalc/json_text.hpp"

namespace vramcalc::ui {

using json = nlohmann::json;

namespace {

std::string kb(std::int64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(bytes) / 1000);
    return buf;
}

std::int64_t num(const json& j, const char* key) { return j.value(key, std::int64_t{0}); }

void start(AppState& st) {
    CheckpointRead& c = st.checkpoint;
    std::string id = st.hub_id, file = "model.safetensors.index.json", if_missing = "model.safetensors";
    while (!id.empty() && id.back() == '/') id.pop_back();
    // "org/model/file.gguf" (or .safetensors): that file; "org/model": its index, else model.safetensors.
    const auto second = id.find('/', id.find('/') + 1);
    if (second != std::string::npos && (id.ends_with(".gguf") || id.ends_with(".safetensors"))) {
        file = id.substr(second + 1);
        if_missing.clear();
        id.resize(second);
    }
    c.repo = id;
    c.outcome.clear();
    c.state = json{{"busy", true}};
    st.platform->read_checkpoint(st.hub_base + "/" + id + "/resolve/main/", file, if_missing);
}

}  // namespace

void checkpoint_answer(AppState& st, const std::string& report_json) {
    CheckpointRead& c = st.checkpoint;
    json r = parse_json_or_discarded(report_json);
    if (!r.is_object()) return;
    c.state = std::move(r);
    if (c.busy()) return;
    const json& s = c.state;
    const std::string fetched = std::to_string(num(s, "requests")) + " requests, " + kb(num(s, "bytes")) + " of headers fetched";
    if (s.contains("error")) {
        st.scenario.erase("checkpoint_bytes");
        c.outcome = "Could not read the checkpoint of " + c.repo + ": " + s.value("error", std::string()) +
                    ". The weights are counted from config.json (" + fetched + ").";
        set_status(st, c.outcome, true);
    } else {
        widgets::set(st, "/checkpoint_bytes", num(s, "total"));
        c.outcome = c.repo + ": " + std::to_string(num(s, "files_read")) + " file(s), " + std::to_string(num(s, "tensors")) + " tensors, " +
                    format_count(num(s, "total")) + " bytes of weights (" + fetched + ")";
        set_status(st, "checkpoint_bytes set from the headers of " + c.repo);
    }
    st.dirty = true;  // the summary carries the outcome
}

std::string checkpoint_summary(const AppState& st) {
    const CheckpointRead& c = st.checkpoint;
    if (c.outcome.empty()) return "";
    std::string s = "\nCheckpoint: " + c.outcome;
    if (c.state.contains("by_dtype"))
        for (const auto& [dtype, bytes] : c.state["by_dtype"].items()) s += "; " + dtype + " " + bytes.dump() + " B";
    return s;
}

void GuiCheckpoint(AppState& st) {
    CheckpointRead& c = st.checkpoint;
    ImGui::BeginDisabled(c.busy() || st.hub_id.empty());
    if (ImGui::Button("Read exact weight bytes from the checkpoint")) start(st);
    ImGui::EndDisabled();
    widgets::Help("checkpoint_bytes");
    if (!c.state.is_object()) return;
    const json& s = c.state;
    ImGui::PushTextWrapPos(0);
    if (c.busy()) {
        ImGui::TextDisabled("Reading the headers of %s: file %lld of %lld, %lld requests, %s so far...", c.repo.c_str(),
                            static_cast<long long>(num(s, "files_read") + 1), static_cast<long long>(std::max<std::int64_t>(1, num(s, "files"))),
                            static_cast<long long>(num(s, "requests")), kb(num(s, "bytes")).c_str());
    } else if (s.contains("error")) {
        ImGui::TextColored(fit_color(Fit::no), "%s", c.outcome.c_str());
    } else if (s.contains("by_dtype")) {
        const float fs = ImGui::GetFontSize();
        {
            Grid grid("ckpt", {{"dtype"}, {"bytes", fs * 8}, {"GiB", fs * 3.5f}});
            grid.header();
            auto row = [&grid](const std::string& name, std::int64_t bytes) {
                grid.row();
                grid.next_cell();
                ImGui::TextUnformatted(name.c_str());
                grid.next_cell();
                ImGui::TextUnformatted(format_count(bytes).c_str());
                grid.next_cell();
                ImGui::Text("%.3f", static_cast<double>(bytes) / kGiB);
            };
            for (const auto& [dtype, bytes] : s["by_dtype"].items()) row(dtype, bytes.is_number_integer() ? bytes.get<std::int64_t>() : 0);
            row("total", num(s, "total"));
        }
        ImGui::TextDisabled("%s. Used as checkpoint_bytes by inference bills.", c.outcome.c_str());
    }
    ImGui::PopTextWrapPos();
}

}  // namespace vramcalc::ui
