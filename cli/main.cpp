// vramcalc: the command-line tool. All file I/O and argument parsing live in cli/; the estimation is
// vramcalc_core's. Exit codes: 0 ok, 2 bad input (message on stderr). Nothing crashes.
// One table below names every command: the usage text, the dispatch and the list of allowed commands
// are all made from it. Each command is a file of its own (cmd_*.cpp, weights.cpp).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "terminal.hpp"

namespace vramcalc::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> table = {
        {"inspect", "  vramcalc inspect MODEL [--json]             parameter breakdown (MODEL: preset id or config.json path)\n",
         cmd_inspect},
        {"estimate",
         "  vramcalc estimate SCENARIO.json [--json]    memory bill for a scenario file\n"
         "  vramcalc estimate --from FILE [--KEY VALUE ...] [--json]\n"
         "                                              the same for a config imported as by `import`\n"
         "  vramcalc estimate --model MODEL [--KEY VALUE ...] [--json]\n"
         "                                              the same from flags; KEY is any scenario key with - or _\n"
         "                                              (--gpu a100-80gb --method lora --lora-rank 16\n"
         "                                               --lora-targets all-linear --micro-batch 4 --seq-len 2048)\n",
         cmd_estimate},
        {"import",
         "  vramcalc import FILE|- [--json]            a vllm/sglang/llama.cpp command line, DeepSpeed JSON,\n"
         "                                              accelerate/LLaMA-Factory/axolotl/torchtune/TRL YAML, HF\n"
         "                                              TrainingArguments or PEFT adapter_config.json as scenario\n"
         "                                              JSON (stdout) and what was read, ignored, unknown (stderr)\n",
         cmd_import},
        {"validate",
         "  vramcalc validate REFERENCE.json [--json]   run reference data (parameter counts, measured runs,\n"
         "                                              formula cases, or vLLM startup logs: a file with\n"
         "                                              \"records\") and summarise the errors\n"
         "  vramcalc validate --markdown [REFERENCE.json ...]\n"
         "                                              the same as the docs/validation.md page (default: the\n"
         "                                              files in tests/data/, run from the repository root)\n",
         cmd_validate, /*markdown=*/true},
        {"presets",
         "  vramcalc presets [--json]                   list model and GPU presets\n"
         "  vramcalc presets --specs                    what the page's presets carry: each model read (JSON)\n",
         cmd_presets},
        {"bench",
         "  vramcalc bench [SCENARIO.json] [--json]     time one estimate and a full-catalog solve (and reading\n"
         "                                              the file, when one is given)\n",
         cmd_bench},
        {"plan",
         "  vramcalc plan SCENARIO.json|--model MODEL [--KEY VALUE ...] [--max-gpus N] [--json]\n"
         "                                              fewest GPUs of the scenario's type and the layout\n",
         cmd_plan},
        {"weights",
         "  vramcalc weights FILE... [--json]           exact weight bytes per dtype from checkpoint headers\n"
         "                                              (safetensors, model.safetensors.index.json, GGUF, a folder)\n",
         cmd_weights},
    };
    return table;
}

namespace {

std::string usage() {
    std::string u = "vramcalc - GPU memory calculator for training and serving LLMs\n\nusage:\n";
    for (const auto& c : commands()) u += c.usage;
    return u + "  vramcalc --help | --version\n\nBytes are exact integers; GiB = 2^30 bytes, GB = 10^9 bytes.\n";
}

std::string allowed() {
    std::string a;
    for (const auto& c : commands()) a += (a.empty() ? "" : ", ") + std::string(c.name);
    return a;
}

int run(int argc, char** argv) {
    Options o;
    std::vector<std::string> rest;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--json") o.json = true;
        else if (a == "--markdown") o.markdown = true;
        else rest.push_back(a);
    }
    if (rest.empty() || rest[0] == "--help" || rest[0] == "-h" || rest[0] == "help") {
        std::cout << usage();
        return rest.empty() ? kBadInput : kOk;
    }
    if (rest[0] == "--version") {
        std::cout << "vramcalc 0.1.0\n";
        return kOk;
    }
    const std::vector<std::string> params(rest.begin() + 1, rest.end());
    for (const auto& c : commands()) {
        if (rest[0] != c.name) continue;
        if (o.markdown && !c.markdown) throw BadInput("--markdown is an option of `validate` only");
        return c.run(params, o);
    }
    throw BadInput("unknown command '" + rest[0] + "' (allowed: " + allowed() + "; see --help)");
}

}  // namespace
}  // namespace vramcalc::cli

int main(int argc, char** argv) {
    namespace cli = vramcalc::cli;
    const cli::TerminalSafe out(std::cout), err(std::cerr);  // names from the input may hold escape codes
    try {
        return cli::run(argc, argv);
    } catch (const std::exception& e) {  // BadInput and anything else: a message, exit code 2
        std::cerr << "error: " << e.what() << "\n";
        return cli::kBadInput;
    }
}
