# ---
# jupyter:
#   accelerator: GPU
#   colab:
#     gpuType: T4
#     provenance: []
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Choosing a device that works everywhere
#
# Code that hard-codes `"cuda"` fails on a Mac, on a laptop without an NVIDIA GPU and on a CPU-only CI runner. This page
# builds a small helper that uses an accelerator when one is usable and falls back to the CPU
# otherwise. It also explains what a bare integer such as `device=0` means in current PyTorch,
# because that changed in 2.5.

# %%
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## The classic check
#
# `torch.cuda.is_available()` is `True` only when this PyTorch build supports CUDA, a driver works
# and at least one GPU is visible. It is still the right test before CUDA-specific code. But it
# knows about CUDA only (AMD GPUs on ROCm builds also appear as `cuda`): on a Mac it is `False`
# even when the Apple GPU (the `mps` device) is there to use.

# %%
cuda_ok = torch.cuda.is_available()
mps_ok = torch.backends.mps.is_available()
print("cuda:", cuda_ok, torch.cuda.device_count(), "| mps:", mps_ok)

if cuda_ok:
    assert torch.cuda.device_count() >= 1
if mps_ok:
    assert not cuda_ok

# %% [markdown]
# ## One API for every accelerator
#
# Since 2.6, `torch.accelerator` speaks for whichever accelerator the build supports: CUDA, Apple
# MPS, Intel XPU and others. Two functions answer the two questions a script has:
#
# - `torch.accelerator.is_available()`: can I use an accelerator right now?
# - `torch.accelerator.current_accelerator()`: which kind? It returns a `torch.device` such as
#   `device(type='cuda')`, without an index.
#
# On a build with no accelerator support at all, `current_accelerator()` returns `None` since 2.7
# (in 2.6 it raised an error instead). The module does not exist before 2.6, and Colab or an old
# environment may have an older torch, so the cell checks with `hasattr` first.

# %% tags=["claim-O5"]
if not hasattr(torch, "accelerator"):
    print("skipped: torch.accelerator needs torch >= 2.6; this is", torch.__version__)
else:
    available = torch.accelerator.is_available()
    print("is_available:", available)
    if available or torch.__version__ >= "2.7":  # 2.6 raises when there is none
        acc = torch.accelerator.current_accelerator()
        print("current_accelerator:", acc)
        if available:
            assert acc.type != "cpu" and acc.index is None
        if acc is None:
            assert not available
        if cuda_ok:
            assert acc.type == "cuda"

# %% [markdown]
# One trap: `current_accelerator()` describes the *build*, not the machine. A CUDA build of PyTorch
# on a machine without a GPU (a Colab CPU runtime, for instance) still reports `cuda`, while
# `is_available()` says `False`. So ask `is_available()` first, or, since 2.7, call
# `current_accelerator(check_available=True)`, which returns `None` unless the accelerator is usable.

# %% tags=["claim-O5"]
if hasattr(torch, "accelerator") and torch.__version__ >= "2.7":
    acc = torch.accelerator.current_accelerator()
    usable = torch.accelerator.current_accelerator(check_available=True)
    print("build:", acc, "| usable:", usable, "| torch.version.cuda:", torch.version.cuda)
    if torch.version.cuda is not None:
        assert acc == torch.device("cuda")  # even when no GPU is visible
    if torch.accelerator.is_available():
        assert usable == acc
    else:
        assert usable is None
else:
    print("skipped: check_available needs torch >= 2.7; this is", torch.__version__)

# %% [markdown]
# ## A helper that falls back to the CPU
#
# Put the choice in one function and call it once at the top of a script. On torch 2.6 and later it
# asks `torch.accelerator`; on older releases it tries CUDA and MPS by name.

# %% tags=["claim-O5"]
def pick_device() -> torch.device:
    """Return the accelerator if one is usable, otherwise the CPU."""
    if hasattr(torch, "accelerator"):  # torch >= 2.6
        if torch.accelerator.is_available():
            return torch.accelerator.current_accelerator()
        return torch.device("cpu")
    # older torch: ask each backend by name
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


device = pick_device()
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(3, 4, device=device)
y = model(x)
print(device, y.device)

assert y.device.type == device.type
assert (device.type == "cuda") == cuda_ok
assert device.index is None

# %% [markdown]
# The helper returns a device without an index. For an accelerator that means "the current device
# of this type", which is index 0 unless you change it; the next page shows how.

# %% [markdown]
# ## What an integer device means
#
# Older code writes `torch.device(0)`, `device=0` or `.to(0)` to mean "the first GPU". Up to
# PyTorch 2.4 an integer always meant CUDA. Since 2.5 it means "index 0 of the current
# accelerator": `cuda:0` on an NVIDIA machine, `mps:0` on a Mac, `xpu:0` on an Intel GPU. On a
# CPU-only build there is nothing to point at, and the integer raises a `RuntimeError` saying it
# cannot access an accelerator device.
#
# The cell asserts the outcome for the machine it runs on.

# %% tags=["claim-O1"]
no_accelerator_built = (torch.__version__ >= "2.7"
                        and torch.accelerator.current_accelerator() is None)

try:
    d = torch.device(0)
    t = torch.zeros(2, device=0)
except RuntimeError as err:
    print("RuntimeError:", err)
    assert device.type == "cpu"  # only where no accelerator is usable
    if no_accelerator_built:
        assert "Cannot access accelerator device when none is available" in str(err)
else:
    print(d, t.device)
    assert device.type != "cpu"
    assert d == t.device == torch.device(device.type, 0)

# %% [markdown]
# An integer is therefore not a portable way to say "the GPU": it means something different on
# each kind of machine and fails on a CPU-only one. Pass the device your helper returned, or spell
# out what you mean, such as `"cuda:0"`.

# %% [markdown]
# ## Summary
#
# - `torch.cuda.is_available()` answers for CUDA only.
# - `torch.accelerator.is_available()` and `current_accelerator()` (2.6+, `None` when the build has
#   no accelerator since 2.7) cover CUDA, MPS, XPU and others; `current_accelerator()` describes the
#   build, so check `is_available()` too.
# - One `pick_device()` helper with a CPU fallback keeps a script runnable everywhere.
# - Since 2.5 an integer device is an index on the current accelerator, not necessarily CUDA, and it
#   raises on a machine without one.
