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
# Code that hard-codes `"cuda"` fails on a Mac, on a laptop without an NVIDIA GPU and on a CPU-only
# CI runner. This page builds a small helper that uses an accelerator when one is usable and falls
# back to the CPU otherwise. It also explains what a bare integer such as `device=0` means in
# current PyTorch, because that changed in 2.5.
#
# A cell whose checks need a GPU runs them only where one is usable; elsewhere it prints the
# condition it found unmet, as code, such as `cuda_ok=False`, or checks what happens without a GPU.
# The first cell also defines `expect_error`, which this page uses to show an expected error and
# carry on.

# %% [markdown] tags=["summary"]
# **In short**
#
# - `torch.cuda.is_available()` answers for CUDA only; `torch.accelerator` (torch 2.6 and later) covers CUDA, MPS, XPU and the others.
# - One helper that takes the accelerator when there is one and the CPU otherwise keeps a script running on every machine.
#
# ```python
# def pick_device() -> torch.device:
#     if torch.accelerator.is_available():
#         return torch.accelerator.current_accelerator()
#     return torch.device("cpu")
# ```

# %% tags=["setup"]
import contextlib
import sys
import types

import torch

# The torch version as numbers: (2, 13) for "2.13.0+cpu", to compare with (2, 7)
TORCH = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])

# The notebooks need torch.accelerator (torch 2.6 or newer): say so and stop
TOO_OLD_TEXT = (
    "This notebook needs torch 2.6 or newer (the tutorial uses "
    "torch.accelerator), and this is torch {}. Upgrade torch "
    "(pip install -U torch), then restart the kernel."
)
if TORCH < (2, 6):
    raise RuntimeError(TOO_OLD_TEXT.format(torch.__version__))


@contextlib.contextmanager
def expect_error(kind, fragment=""):
    # The block must raise `kind` with `fragment` in its message. The error is
    # shown and kept in `caught.error` for later checks; the notebook carries on
    caught = types.SimpleNamespace(error=None)
    try:
        yield caught
    except kind as err:
        assert fragment in str(err), err
        caught.error = err
        sys.stdout.flush()  # what the block printed first
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError(f"expected {kind.__name__}")


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## The classic check: is a CUDA GPU available?
#
# `torch.cuda.is_available()` is `True` only when this PyTorch build supports CUDA, a driver works
# and at least one GPU is visible. It is still the right test before CUDA-specific code. But it
# knows about CUDA only (AMD GPUs on ROCm builds also appear as `cuda`): on a Mac it is `False`
# even when the Apple GPU (the `mps` device) is there to use. Without a GPU the cell prints
# `cuda_ok=False` and has no GPU count to check.

# %% tags=["gpu-only"]
cuda_ok = torch.cuda.is_available()
mps_ok = torch.backends.mps.is_available()
print(f"{cuda_ok=}, {torch.cuda.device_count()=}, {mps_ok=}")

if cuda_ok:
    assert torch.cuda.device_count() >= 1
if mps_ok:
    assert not cuda_ok

# %% [markdown]
# ## One API for every accelerator
#
# `torch.accelerator`, added in 2.6, covers CUDA, Apple MPS, Intel XPU and others with the same
# functions. It is why this tutorial needs torch 2.6 or newer: its first cell stops on an older
# one. Two functions answer the two questions a script has:
#
# - `torch.accelerator.is_available()`: can I use an accelerator right now?
# - `torch.accelerator.current_accelerator()`: which kind?
#
# When no accelerator is usable, 2.6 and later releases differ: in 2.6 `current_accelerator()`
# raises a `RuntimeError`, so the cell asks it only where it answers (an accelerator is usable, or
# torch is 2.7 or newer).

# %% [markdown] tags=["predict"]
# **Predict:** What does `torch.accelerator.current_accelerator()` return on the machine that runs
# this cell? The cell prints it as `acc`.
#
# - `acc=device(type='cuda')`
# - `acc=device(type='cuda', index=0)`
# - `acc=device(type='cpu')`
# - `acc=None`

# %%
available = torch.accelerator.is_available()
print(f"{available=}")
if available or TORCH >= (2, 7):
    acc = torch.accelerator.current_accelerator()
    print(f"{acc=}")
else:  # torch 2.6 without a usable accelerator
    with expect_error(Exception) as caught:
        torch.accelerator.current_accelerator()

# %% tags=["claim-O5", "gpu-only", "answer"]
if available or TORCH >= (2, 7):
    assert acc is None or (acc.type != "cpu" and acc.index is None)
    if available:
        assert acc is not None
    if acc is None:
        assert not available and torch.version.cuda is None
    if cuda_ok:
        assert acc == torch.device("cuda")
else:
    assert isinstance(caught.error, RuntimeError)
    assert "Cannot access accelerator device" in str(caught.error)

# %% [markdown] tags=["answer"]
# **Answer:** it depends on the PyTorch build, and the checks assert the outcome for this machine.
#
# - `acc=None`: the build supports no accelerator (a CPU-only build, torch 2.7 or newer).
# - `acc=device(type='cuda')`: a CUDA build, since 2.7 even where no GPU is usable (more on this
#   below). On a machine with a usable CUDA GPU, the cell asserts this value.
# - `acc=device(type='cuda', index=0)` never appears: `current_accelerator()` names a kind of
#   accelerator, not a particular GPU, so its device has no index.
# - `acc=device(type='cpu')` never appears either: the CPU is not an accelerator, and a build
#   without one gives `None`.
#
# On torch 2.6 with no usable accelerator the call raises `RuntimeError: Cannot access accelerator
# device when none is available.` instead.

# %% [markdown]
# One trap, since 2.7: `current_accelerator()` describes the *build*, not the machine. A CUDA build
# of PyTorch on a machine without a GPU (a Colab CPU runtime, for instance) still reports `cuda`,
# while `is_available()` says `False`. (In 2.6 the same call raises on such a machine.) So ask
# `is_available()` first, or, since 2.7, call `current_accelerator(check_available=True)`, which
# returns `None` unless the accelerator is usable. Without a GPU the cell checks that this call
# returns `None`; on torch 2.6 it prints `TORCH >= (2, 7)=False`.

# %% tags=["claim-O5", "gpu-only"]
if TORCH >= (2, 7):
    acc = torch.accelerator.current_accelerator()
    usable = torch.accelerator.current_accelerator(check_available=True)
    print(f"{acc=}, {usable=}, {torch.version.cuda=}")
    if torch.version.cuda is not None:
        assert acc == torch.device("cuda")  # even when no GPU is visible
    if torch.accelerator.is_available():
        assert usable == acc
    else:
        assert usable is None
else:
    print(f"{TORCH >= (2, 7)=}")

# %% [markdown]
# ## A helper that falls back to the CPU
#
# Put the choice in one function and call it once at the top of a script. It picks an accelerator
# that is available right now, if there is one, and the CPU otherwise; it does not compare devices
# or look for the fastest. It needs `torch.accelerator`, so torch 2.6 or newer.

# %% [markdown] tags=["predict"]
# **Predict:** What does `print(device, y.device)` show on the machine that runs this cell?
#
# - `cuda:0 cuda:0`
# - `cpu cpu`
# - `cuda cuda:0`

# %%
# The usable accelerator if there is one, otherwise the CPU
def pick_device() -> torch.device:
    if torch.accelerator.is_available():
        return torch.accelerator.current_accelerator()
    return torch.device("cpu")


device = pick_device()
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(3, 4, device=device)
y = model(x)
print(device, y.device)

# %% tags=["claim-O5", "gpu-only", "answer"]
assert y.device.type == device.type
assert (device.type == "cuda") == cuda_ok
assert device.index is None
if cuda_ok:
    assert y.device == torch.device("cuda", torch.cuda.current_device())

# %% [markdown] tags=["answer"]
# **Answer:** `cpu cpu` on a machine with no usable accelerator: `pick_device()` falls back to the
# CPU. On a usable GPU it is `cuda cuda:0`, and the cell asserts it there: the helper's device has
# no index, but a tensor always lives on one particular GPU, the current one (index 0 unless you
# change it). `cuda:0 cuda:0` cannot appear, because `current_accelerator()` returns a device
# without an index, which prints as `cuda`.

# %% [markdown]
# For an accelerator, a device without an index means "the current device of this type"; the next
# page shows how to change it.

# %% [markdown]
# ## What an integer device means
#
# Older code writes `torch.device(0)`, `device=0` or `.to(0)` to mean "the first GPU". Up to
# PyTorch 2.4 an integer always meant CUDA. Since 2.5 it means "index 0 of the current
# accelerator": `cuda:0` on an NVIDIA machine, `mps:0` on a Mac, `xpu:0` on an Intel GPU.

# %% [markdown] tags=["predict"]
# **Predict:** What does `device=0` give on the machine that runs this cell?
#
# - `device(type='cpu')`
# - `Cannot access accelerator device when none is available`
# - `device(type='cuda', index=0)`

# %%
try:
    print(f"{torch.device(0)=}")
    t = torch.zeros(2, device=0)
    print(f"{t.device=}")
except RuntimeError as err:
    error = err
    print(f"{type(err).__name__}: {err}", file=sys.stderr)
else:
    error = None

# %% tags=["claim-O1", "gpu-only", "answer"]
usable = torch.accelerator.is_available()
# From 2.7 on, current_accelerator() names the kind of accelerator the build
# supports (None if none); 2.6 raises when none is usable, so it is not asked
if usable or TORCH >= (2, 7):
    built_for = torch.accelerator.current_accelerator()
else:
    built_for = None
print(f"{usable=}, {built_for=}")

if usable:
    assert error is None
    assert torch.device(0) == t.device == torch.device(built_for.type, 0)
elif built_for is None:
    assert "Cannot access accelerator device" in str(error)
    assert pick_device() == torch.device("cpu")
else:  # built for an accelerator that is not usable here
    assert torch.device(0) == torch.device(built_for.type, 0)
    assert isinstance(error, RuntimeError)  # its message depends on the driver

# %% [markdown] tags=["answer"]
# **Answer:** it depends on the machine, and the checks assert the outcome for this one.
#
# - `Cannot access accelerator device when none is available`: no accelerator at all, so index 0
#   points at nothing, and `torch.device(0)` itself raises this `RuntimeError`.
# - `device(type='cuda', index=0)`: on a CUDA machine, 0 is index 0 of the current accelerator.
#   Since 2.7, a PyTorch built for an accelerator (a CUDA build on a machine without a GPU) also
#   turns `0` into `cuda:0`, and the error comes only when a tensor is created there.
# - `device(type='cpu')` never appears: an integer does not mean the CPU.

# %% [markdown]
# An integer is therefore not a portable way to say "the GPU": it means something different on
# each kind of machine and fails on a CPU-only one. Pass the device your helper returned, or spell
# out what you mean, such as `"cuda:0"`.

# %% [markdown]
# ## Summary
#
# - `torch.cuda.is_available()` answers for CUDA only.
# - `torch.accelerator.is_available()` and `current_accelerator()` (2.6+) cover CUDA, MPS, XPU and
#   others. Since 2.7 `current_accelerator()` describes the build (`None` when it has no
#   accelerator); on 2.6 it raises when none is usable. Check `is_available()` first.
# - One `pick_device()` helper that picks an available accelerator, with a CPU fallback, keeps a
#   script runnable everywhere.
# - Since 2.5 an integer device is an index on the current accelerator, not necessarily CUDA, and it
#   raises on a machine without one.
