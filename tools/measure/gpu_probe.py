"""What measure.py records about the machine: library versions, the Trainer's default optimizer, the GPU's
name, and the memory counters (torch.cuda's allocator and the device-level figure, NVML where it imports)."""

import os
import sys


def versions():
    import torch
    out = {"python": sys.version.split()[0], "torch": torch.__version__, "cuda": torch.version.cuda}
    for name in ("transformers", "peft", "accelerate", "bitsandbytes"):
        try:
            out[name] = __import__(name).__version__
        except Exception:  # not installed: recorded as absent
            out[name] = None
    return out


def trainer_default_optim():
    """TrainingArguments().optim of the installed transformers ("adamw_torch" or "adamw_torch_fused")."""
    try:
        import inspect
        from transformers import TrainingArguments
        default = inspect.signature(TrainingArguments.__init__).parameters["optim"].default
        default = getattr(default, "value", default)
        if isinstance(default, str) and default.startswith("adamw"):
            return default
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            return str(getattr(TrainingArguments(output_dir=d, report_to=[]).optim, "value", "adamw_torch"))
    except Exception:
        return "adamw_torch"


class Probe:
    """torch.cuda counters and the device-level figure."""

    def __init__(self, torch):
        self.t = torch
        self.nvml = None
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        except Exception:
            self.nvml = None

    def sync(self):
        self.t.cuda.synchronize()

    def now(self):
        self.sync()
        free, total = self.t.cuda.mem_get_info()
        d = {"allocated": self.t.cuda.memory_allocated(), "reserved": self.t.cuda.memory_reserved(),
             "device_used": total - free}
        p = self.process_bytes()
        if p is not None:
            d["process_nvml"] = p
        return d

    def process_bytes(self):
        if self.nvml is None:
            return None
        try:
            for proc in self.nvml.nvmlDeviceGetComputeRunningProcesses(self.handle):
                if proc.pid == os.getpid() and proc.usedGpuMemory is not None:
                    return int(proc.usedGpuMemory)
        except Exception:
            return None
        return None

    def reset_peak(self):
        self.sync()
        self.t.cuda.reset_peak_memory_stats()

    def peak(self):
        self.sync()
        return {"max_allocated": self.t.cuda.max_memory_allocated(), "max_reserved": self.t.cuda.max_memory_reserved()}


def gpu_name(torch):
    return torch.cuda.get_device_name(torch.cuda.current_device())
