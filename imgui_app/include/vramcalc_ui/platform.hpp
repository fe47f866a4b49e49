// What the calculator's UI asks of the platform it runs on (the web page or the desktop app). Each
// platform implements this once (web/main_web.cpp, imgui_app/desktop/main_desktop.cpp); the panels never
// see browser or OS calls. Results of asynchronous requests come back through App (on_file, on_fetched, on_checkpoint,
// on_imported, on_repr).
#pragma once

#include <string>

namespace vramcalc::ui {

class Platform {
public:
    virtual ~Platform() = default;

    virtual const char* name() const = 0;  // "web" or "desktop", shown in the About line
    // Clipboard through the platform's own API (the browser's, not ImGui's internal one).
    virtual void copy_text(const std::string& text) = 0;
    // Save a text file: a download on the web, a file in the user's folder on the desktop.
    // Returns a message for the status line ("saved to ~/vramcalc-bill.csv", "downloaded ...").
    virtual std::string save_text(const std::string& file_name, const std::string& mime, const std::string& text) = 0;
    // Ask the user for a file (config.json or a scenario); the bytes arrive later through App::on_file.
    virtual bool can_open_file() const { return true; }
    virtual void open_file_dialog() = 0;
    // GET a URL (a Hub config.json); the answer arrives later through App::on_fetched.
    virtual bool can_fetch() const = 0;
    virtual void fetch_text(const std::string& url) = 0;
    // Read the headers of a checkpoint's files under `base_url` with HTTP Range requests, starting with
    // `file` (an index JSON, a .safetensors or a .gguf file; `if_missing` when it does not exist), through
    // the core's CheckpointHeaderReader; reports arrive through App::on_checkpoint. Only where can_fetch().
    virtual void read_checkpoint(const std::string& base_url, const std::string& file, const std::string& if_missing) {
        (void)base_url, (void)file, (void)if_missing;
    }
    // Import another tool's config (a `vllm serve` line, a DeepSpeed JSON, a LLaMA-Factory YAML, ...) where
    // the UI was built without the importer (the page: it loads the importer as a separate module on this
    // call). Returns false when the platform cannot; otherwise the answer (import_to_json's object with
    // "ok", or {"ok": false, "errors": [...]}: the core's import_answer) arrives later through App::on_imported.
    virtual bool import_config(const std::string& name, const std::string& text) {
        (void)name, (void)text;
        return false;
    }
    // Turn a PyTorch print(model) into a layer stack where the UI was built without the converter (the page:
    // it is in the importer's module). `input_json` is the per-sample shape as a JSON array. Returns false
    // when the platform cannot; otherwise the core's repr_answer arrives later through App::on_repr.
    virtual bool convert_repr(const std::string& text, const std::string& input_json) {
        (void)text, (void)input_json;
        return false;
    }
    // The shareable link for the current scenario: `hash` has no leading '#'. The web page also keeps it
    // in the address bar.
    virtual void set_url_state(const std::string& hash) = 0;
    virtual std::string share_link(const std::string& hash) const = 0;
    // Open a link in a new browser tab (or the system browser).
    virtual void open_url(const std::string& url) = 0;
    // One line of text mirroring the verdict for screen readers (and tests).
    virtual void set_summary(const std::string& text) = 0;
    // Settings that outlive the session (localStorage / a file in the user's config directory).
    virtual void save_setting(const std::string& key, const std::string& value) = 0;
    virtual std::string load_setting(const std::string& key) const = 0;
};

}  // namespace vramcalc::ui
