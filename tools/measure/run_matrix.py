#!/usr/bin/env python3
"""Run the measurement matrix on the GPU machine: one fresh process per scenario (measure.py).

  python3 tools/measure/run_matrix.py --out $OUT/measured_local.json [--budget-s 1380] [--only REGEX]

Results are appended scenario by scenario, so a run cut short keeps what it measured. Beside --out it
writes run_summary.json (status and wall time of every scenario) and logs/<id>.log (each process's
output). The parent never touches CUDA: the device-level figure of each scenario is its own process's.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# nvidia-smi names -> GPU preset ids of presets/gpus.json (the scenario names the GPU it ran on).
GPU_IDS = [(r"H100.*PCIe", "h100-pcie"), (r"H100", "h100-80gb"), (r"GH200", "gh200"), (r"H200", "h200"),
           (r"A100.*80GB", "a100-80gb"), (r"A100.*40GB", "a100-40gb")]


def detect_gpu():
    try:
        name = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=30).stdout.strip().splitlines()[0]
    except Exception:
        return None, None
    for pattern, gid in GPU_IDS:
        if re.search(pattern, name):
            return name, gid
    return name, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="JSON array file the entries are appended to")
    ap.add_argument("--matrix", default=os.path.join(HERE, "matrix.json"))
    ap.add_argument("--only", default=None, help="regular expression on scenario ids")
    ap.add_argument("--budget-s", type=float, default=1380, help="stop starting scenarios after this many seconds")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--skip-done", action="store_true", help="skip ids already in --out")
    ap.add_argument("--resume", default=None,
                    help="a results file from an earlier call: its entries are copied into --out first and "
                         "their ids skipped (the device tool allows 600 s per call)")
    a = ap.parse_args()

    with open(a.matrix, encoding="utf-8") as f:
        items = json.load(f)["scenarios"]
    if a.only:
        items = [i for i in items if re.search(a.only, i["id"])]
    out = os.path.abspath(a.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    logs = os.path.join(os.path.dirname(out), "logs")
    os.makedirs(logs, exist_ok=True)
    done = set()
    if a.resume and os.path.exists(a.resume) and os.path.abspath(a.resume) != out:
        with open(a.resume, encoding="utf-8") as f:
            earlier = json.load(f)
        if not os.path.exists(out):
            with open(out, "w", encoding="utf-8") as f:
                json.dump(earlier, f, indent=1)
                f.write("\n")
        done |= {e["id"] for e in earlier}
    if a.skip_done and os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            done |= {e["id"] for e in json.load(f)}
    name, gid = detect_gpu()
    print("GPU: %s -> preset %s; %d scenarios, expected %.0f s" % (name, gid, len(items),
                                                                   sum(i["expected_s"] for i in items)), flush=True)
    summary = {"gpu": name, "gpu_id": gid, "scenarios": []}
    t_start = time.time()
    for it in items:
        entry_id = "local-" + it["id"]
        rec = {"id": entry_id, "expected_s": it["expected_s"]}
        elapsed = time.time() - t_start
        if entry_id in done:
            rec["status"] = "done-before"
        elif elapsed + it["expected_s"] > a.budget_s:
            rec["status"] = "not-run (budget)"
        else:
            scenario = dict(it["scenario"])
            if gid:
                scenario["gpu"] = gid
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(scenario, f)
                path = f.name
            # Never past the budget by much: the device tool kills a call at 600 s.
            timeout = max(60.0, min(4 * it["expected_s"], a.budget_s + 30 - elapsed))
            t0 = time.time()
            try:
                p = subprocess.run([sys.executable, os.path.join(HERE, "measure.py"), path, "--id", entry_id,
                                    "--out", out, "--steps", str(a.steps)], capture_output=True, text=True,
                                   timeout=timeout)
                rc, stdout, text = p.returncode, p.stdout, p.stdout + p.stderr
            except subprocess.TimeoutExpired as e:
                rc, stdout = "timeout", ""
                text = "".join(x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
                               for x in (e.stdout, e.stderr))
            os.unlink(path)
            rec["wall_s"] = round(time.time() - t0, 1)
            with open(os.path.join(logs, it["id"] + ".log"), "w", encoding="utf-8") as f:
                f.write(text)
            rec["status"] = {0: "measured", 3: "skipped (unsupported)", 2: "bad scenario"}.get(rc, "failed (%s)" % rc)
            if rc == 0:
                try:
                    e = json.loads(stdout.strip().splitlines()[-1])
                    m = e.get("measured", {})
                    rec["allocated_gib"] = round(m["bytes"] / 2**30, 3) if "bytes" in m else None
                    if m.get("oom"):
                        rec["status"] = "measured (oom)"
                except Exception:
                    pass
            elif text:
                rec["tail"] = text.strip().splitlines()[-1][:300]
        summary["scenarios"].append(rec)
        print("%-55s %-22s %s" % (it["id"], rec["status"], rec.get("allocated_gib", rec.get("tail", ""))), flush=True)
        with open(os.path.join(os.path.dirname(out), "run_summary.json"), "w", encoding="utf-8") as f:
            summary["elapsed_s"] = round(time.time() - t_start, 1)
            json.dump(summary, f, indent=1)
    n = sum(1 for r in summary["scenarios"] if r["status"].startswith("measured"))
    print("measured %d of %d in %.0f s" % (n, len(items), time.time() - t_start), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
