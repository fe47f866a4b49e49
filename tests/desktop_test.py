#!/usr/bin/env python3
"""The desktop app under a real X server (Xvfb, Mesa llvmpipe).

  desktop_test.py --app vramcalc-desktop --cli vramcalc --out DIR [--measure]

Renders a scenario to a PNG, checks that the PNG is not blank and that the app's bill totals equal the
CLI's for the same scenario. --measure also reports the time to the first frame and the CPU the app
uses over 5 idle seconds (it should sleep in glfwWaitEvents).
"""
import argparse, json, os, subprocess, sys, time, zlib

SCENARIO = {"model": "llama-3.1-8b", "method": "qlora", "quantization": "nf4", "gpu": "rtx-4090",
            "checkpointing": "full", "micro_batch": 2, "seq_len": 2048}


def read_png(path):
    """RGB rows of an 8-bit RGB/RGBA PNG (PNG spec: IHDR, IDAT, filters 0-4)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype = int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big"), body[8], body[9]
            assert depth == 8 and ctype in (2, 6), "only 8-bit RGB(A)"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--measure", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    scenario = os.path.join(a.out, "desktop-scenario.json")
    json.dump(SCENARIO, open(scenario, "w"))
    png = os.path.join(a.out, "screenshot-desktop.png")
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(a.out, "config"), LIBGL_ALWAYS_SOFTWARE="1")
    xvfb = ["xvfb-run", "-a", "-s", "-screen 0 1400x950x24"]
    run = subprocess.run(xvfb + [a.app, "--scenario", scenario, "--screenshot", png], capture_output=True, text=True,
                         timeout=120, env=env)
    if run.returncode != 0:
        sys.exit(f"FAIL the app exited {run.returncode}\n{run.stdout}\n{run.stderr}")
    width, height, bpp, rows = read_png(png)
    colours, ink = set(), 0
    for row in rows[::5]:
        for x in range(0, width * bpp, bpp * 5):
            px = tuple(row[x:x + 3])
            colours.add(px)
            ink += any(v < 235 for v in px)
    share = ink / (len(rows[::5]) * len(range(0, width * bpp, bpp * 5)))
    if len(colours) < 30 or share < 0.05:
        sys.exit(f"FAIL the screenshot looks blank: {len(colours)} colours, {share:.1%} non-white")
    print(f"ok   screenshot {width}x{height}: {len(colours)} colours, {share:.1%} non-white")
    # Issue 41: no blank band under the footer. Its line of text ends within a line of the window's bottom
    # (the window padding and item spacing: about 12 px at the default font).
    ink_rows = [y for y, row in enumerate(rows) if any(v < 160 for v in row[::bpp])]
    band = height - 1 - max(ink_rows)
    if band > 20:
        sys.exit(f"FAIL a blank band of {band} px sits under the footer (its text ends at y {max(ink_rows)} of {height})")
    print(f"ok   the footer ends {band} px above the window's bottom")

    app = dict(kv.split("=") for kv in run.stdout.split() if kv.count("=") == 1)
    bill = json.loads(subprocess.run([a.cli, "estimate", scenario, "--json"], capture_output=True, text=True, check=True).stdout)
    for key in ("device_bytes", "peak_allocated_bytes", "peak_reserved_bytes"):
        if int(app.get(key, -1)) != bill["per_gpu"][key]:
            sys.exit(f"FAIL {key}: app printed {app.get(key)}, the CLI says {bill['per_gpu'][key]}\n{run.stdout}")
    print(f"ok   the app's bill equals the CLI's (device {bill['per_gpu']['device_bytes']} bytes)")

    if a.measure:
        first = [float(l.split()[3]) for l in run.stderr.splitlines() if l.startswith("first frame after")]
        proc = subprocess.Popen(xvfb + [a.app, "--scenario", scenario], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=env, text=True)
        time.sleep(4)  # start-up and the first frames
        pid = subprocess.run(["pgrep", "-n", "-f", "vramcalc-desktop --scenario"], capture_output=True, text=True).stdout.split()
        ticks = os.sysconf("SC_CLK_TCK")

        def cpu(p):
            f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            return (int(f[11]) + int(f[12])) / ticks
        if not pid:
            sys.exit("FAIL the app did not stay up for the idle measurement")
        c0 = cpu(pid[0])
        time.sleep(5)
        c1 = cpu(pid[0])
        os.kill(int(pid[0]), 15)  # xvfb-run ends with its client
        err = proc.communicate(timeout=30)[1]
        first += [float(l.split()[3]) for l in err.splitlines() if l.startswith("first frame after")]
        print("desktop metrics: " + json.dumps({"first_frame_ms": first, "idle_cpu_seconds_in_5s": round(c1 - c0, 3),
                                                "idle_cpu_percent": round(100 * (c1 - c0) / 5, 2)}))


if __name__ == "__main__":
    main()
