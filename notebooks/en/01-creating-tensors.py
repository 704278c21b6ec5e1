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
# # Creating tensors on a device
#
# Every tensor lives on exactly one device: the CPU, a GPU, or a special device such as `meta`.
# This page shows how to say where a tensor should be created and how to check where it lives.
# Everything below runs on a machine without a GPU too. A cell that needs one prints the condition
# it found unmet, such as `torch.cuda.is_available()=False`, instead of running its checks.
#
# The first cell also defines `expect_error`, which this page uses to show an error and carry on.

# %% tags=["setup"]
import contextlib
import sys
import threading
import timeit
import types

import torch

# The torch version as numbers: (2, 13) for "2.13.0+cpu", to compare with (2, 7)
TORCH = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])

# The notebooks need torch.accelerator (torch 2.6 or newer): say so and stop
TOO_OLD_TEXT = (
    "This notebook needs torch 2.6 or newer (it uses torch.accelerator), "
    "and this is torch {}. Upgrade torch (pip install -U torch), "
    "then restart the kernel."
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


print(torch.__version__)
print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Naming a device
#
# A `torch.device` has a type (`cpu`, `cuda`, `mps`, `meta`, ...) and an optional index.
# You can build one from a string, or pass the string itself wherever PyTorch expects a device.
# Without an index, `cuda` means "the current CUDA device", not a particular GPU.

# %%
cpu = torch.device("cpu")
gpu0 = torch.device("cuda:0")
gpu = torch.device("cuda")

print(repr(cpu), repr(gpu0), repr(gpu))
assert (gpu0.type, gpu0.index) == ("cuda", 0)
assert (gpu.type, gpu.index) == ("cuda", None)
assert torch.device("cuda", 1) == torch.device("cuda:1")

# %% [markdown]
# Building a `torch.device` from a string checks only the spelling, not the hardware: the cell above
# runs on a machine without a GPU. The hardware is needed only when a tensor is created there.
# A bare integer is different: `torch.device(0)` asks which accelerator the machine has (see
# "Integers as devices" below).

# %% [markdown]
# ## The device argument of factory functions
#
# `torch.tensor`, `torch.zeros`, `torch.ones`, `torch.randn`, `torch.arange` and the other factory
# functions take `device=`. The default is the CPU. A string and a `torch.device` are equivalent.

# %%
a = torch.tensor([0.1, 0.2])
b = torch.zeros(2, 3, device="cpu")
c = torch.arange(4, device=torch.device("cpu"))

for t in (a, b, c):
    print(t.device)
    assert t.device == torch.device("cpu")

# %% [markdown]
# To create a tensor on the GPU, pass a CUDA device. This cell needs an NVIDIA GPU; on a machine
# without one it only prints `torch.cuda.is_available()=False`.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    g = torch.ones(2, 3, device="cuda")
    print(g.device)
    assert g.device.type == "cuda"
    assert g.device.index == torch.cuda.current_device()
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Create on the device directly
#
# When a tensor is meant for the GPU, create it there: `torch.randn(64, 3, device=device)`.
# Writing `torch.randn(64, 3).to(device)` instead first fills a tensor in CPU memory and then copies
# it to the GPU; passing `device=` skips both the CPU tensor and the host-to-device copy.
#
# One caveat: the CPU and CUDA random number generators are different algorithms. After the same
# `torch.manual_seed(0)`, `torch.randn(3)` and `torch.randn(3, device="cuda")` give different
# numbers. Each is reproducible on its own device, so a rerun gives the same numbers again, but a
# tensor created on the GPU does not match the one the CPU-then-move version gave.

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
direct = torch.randn(64, 3, device=device)
print(f"{direct.device=}")
assert direct.device.type == device.type

torch.manual_seed(0)
on_cpu = torch.randn(1000)
torch.manual_seed(0)
assert torch.equal(torch.randn(1000), on_cpu)  # same seed, same device: same numbers

# %% [markdown]
# The next cell compares the two generators. It needs a CUDA GPU; on a machine without one it only
# prints `torch.cuda.is_available()=False`.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    torch.manual_seed(0)  # seeds the CPU and every GPU
    on_cpu = torch.randn(1000)
    torch.manual_seed(0)
    on_gpu = torch.randn(1000, device="cuda")
    torch.manual_seed(0)
    assert torch.equal(torch.randn(1000, device="cuda"), on_gpu)
    print(f"{torch.equal(on_gpu.cpu(), on_cpu)=}")
    assert not torch.equal(on_gpu.cpu(), on_cpu)  # same seed, other generator
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Check which device a tensor is on
#
# `t.device` is the full answer. `t.is_cuda` and `t.is_cpu` are shortcuts for the common questions;
# `is_cpu` has existed since torch 1.13 (older tutorials say it does not).

# %% tags=["claim-O2"]
t = torch.randn(3)
print(t.device, t.is_cpu, t.is_cuda)
assert t.is_cpu and not t.is_cuda
assert t.device.type == "cpu"

# %% [markdown]
# Compare a device with another `torch.device`, not with a string: `t.device == "cpu"` is `False`
# even for a CPU tensor. Compare `.type` when any GPU will do, because `cuda:0` and `cuda` are not equal.

# %% [markdown] tags=["predict"]
# **Predict:** `t` is a CPU tensor. What does the next cell print for the three comparisons
# `t.device == torch.device("cpu")`, `t.device == "cpu"` and `t.device.type == "cpu"`?
#
# - `True True True` — this would mean a device equals its name as a string; it does not.
# - `True False True` — a device equals another `torch.device`, and `.type` is a string; the device itself never equals the string `"cpu"`.
# - `True False False` — `.type` is the string `"cpu"`, so the last comparison is true.

# %%
print(t.device == torch.device("cpu"), t.device == "cpu", t.device.type == "cpu")
assert t.device == torch.device("cpu")
assert (t.device == "cpu") is False
assert torch.device("cuda:0") != torch.device("cuda")
assert torch.device("cuda:0").type == torch.device("cuda").type

# %% [markdown]
# ## Integers as devices
#
# `device=0` and `torch.device(0)` used to mean `cuda:0`. Since torch 2.5 an integer means "this index
# on the current accelerator", which can be CUDA, Apple's MPS or Intel's XPU. So, unlike a string,
# an integer is turned into a device by asking PyTorch which accelerator there is, and that can fail
# before any tensor exists:
#
# - with a usable accelerator, `torch.device(0)` is index 0 of it, such as `cuda:0`;
# - on a machine with no accelerator, `torch.device(0)` itself raises `RuntimeError: Cannot access
#   accelerator device when none is available.` (and so do `device=0` and `model.to(0)`);
# - one exception, since torch 2.7: a PyTorch built for an accelerator on a machine without one
#   (a CUDA build on Colab's CPU runtime, for instance) answers with the accelerator it was built
#   for. `torch.device(0)` is then `cuda:0`, and the error comes only when a tensor is created there.
#
# The cell finds out which case this machine is and asserts that outcome.

# %% tags=["claim-O1", "gpu-only"]
usable = torch.accelerator.is_available()
# From 2.7 current_accelerator() names the accelerator the build supports (None if none);
# on 2.6 it raises when none is usable, so it is asked only from 2.7 on
built_for = torch.accelerator.current_accelerator() if usable or TORCH >= (2, 7) else None
print(f"{usable=}, {built_for=}")

if usable:
    x = torch.zeros(1, device=0)
    print(f"{torch.device(0)=}, {x.device=}")
    assert torch.device(0) == x.device == torch.device(built_for.type, 0)
elif built_for is None:
    with expect_error(RuntimeError, "Cannot access accelerator device when none is available"):
        torch.device(0)
    with expect_error(RuntimeError, "Cannot access accelerator device when none is available"):
        torch.zeros(1, device=0)
    with expect_error(RuntimeError, "Cannot access accelerator device when none is available"):
        torch.nn.Linear(2, 2).to(0)
else:
    print(f"{torch.device(0)=}")
    assert torch.device(0) == torch.device(built_for.type, 0)
    try:
        torch.zeros(1, device=0)
    except RuntimeError as err:  # the message depends on the driver, so only the type is checked
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
    else:
        raise AssertionError("expected RuntimeError")

# %% [markdown]
# ## Creating on a device without saying so every time
#
# Since torch 2.0, a device can be made the default for factory functions, either inside a `with`
# block or with `torch.set_default_device`. Nothing is moved: the tensors are created there directly,
# as with `device=`. An explicit `device=` still wins. The `meta` device (last section) lets these
# cells run on any machine.

# %% [markdown] tags=["predict"]
# **Predict:** Inside `with torch.device("meta"):` the cell creates one tensor without `device=` and one
# with `device="cpu"`, then a third after the block. Which devices does it print, in that order?
#
# - `meta meta cpu` — this would mean the block overrides even an explicit `device=`; it does not.
# - `meta cpu meta` — this would mean the default outlives the block; `with` restores the previous default when it ends.
# - `meta cpu cpu` — the block only changes the default: an explicit `device="cpu"` wins inside it, and the default ends with the block.

# %% tags=["claim-F6"]
with torch.device("meta"):
    inside = torch.zeros(2)
    explicit = torch.zeros(2, device="cpu")

outside = torch.zeros(2)
print(inside.device, explicit.device, outside.device)
assert inside.device.type == "meta"
assert explicit.device.type == "cpu"
assert outside.device.type == "cpu"

# %% tags=["claim-F6"]
torch.set_default_device("meta")
try:
    made = torch.ones(3)
    print(made.device)
    assert made.device.type == "meta"
finally:
    torch.set_default_device(None)

assert torch.ones(3).device.type == "cpu"

# %% [markdown]
# `torch.set_default_device` is less global than it looks, and it has a cost:
#
# - It applies to the thread that called it. A new thread (a data-loading thread, a web server's
#   worker) still creates its tensors on the CPU.
# - Functions that wrap memory that already exists allocate nothing, so the default device does not
#   apply to them: `torch.frombuffer` and `torch.from_numpy` return CPU tensors.
# - Its documentation warns that it adds a slight cost to every Python call into the torch API, not
#   only to factory functions. The cell times a small `add` with and without it on this machine
#   and prints the ratio; it asserts nothing about it, because timings vary.
#
# For a whole program, passing `device=` (or `with torch.device(...)` around a block) is explicit and
# has none of these surprises.

# %% [markdown] tags=["predict"]
# **Predict:** With `torch.set_default_device("meta")` in effect, a new thread creates `torch.zeros(2)`.
# Which device does the cell show for it, in `seen_by_thread`?
#
# - `[device(type='cpu')]` — the default device belongs to one thread; a new thread still creates its tensors on the CPU.
# - `[device(type='meta')]` — this would mean the default holds for the whole process; it holds only for the thread that set it.

# %% tags=["claim-F6"]
torch.set_default_device("meta")
try:
    here = torch.zeros(2)
    seen_by_thread = []
    worker = threading.Thread(target=lambda: seen_by_thread.append(torch.zeros(2).device))
    worker.start()
    worker.join()
    shared = torch.frombuffer(bytearray(8), dtype=torch.float32)
    print(f"{here.device=}, {seen_by_thread=}, {shared.device=}")
    assert here.device.type == "meta"
    assert seen_by_thread == [torch.device("cpu")]  # the new thread did not see the default
    assert shared.device.type == "cpu"

    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        from_numpy = torch.from_numpy(numpy.zeros(2))
        print(f"{from_numpy.device=}")
        assert from_numpy.device.type == "cpu"
    else:
        print(f"{numpy=}")

    x = torch.ones(4, device="cpu")
    with_default = min(timeit.repeat(lambda: x.add(1), number=2000, repeat=5))
finally:
    torch.set_default_device(None)

without_default = min(timeit.repeat(lambda: x.add(1), number=2000, repeat=5))
print(f"{with_default / without_default=:.2f}")

# %% [markdown]
# The `with` form works the same way with a GPU: inside `with torch.device("cuda"):` factory functions
# create CUDA tensors. On a machine without a GPU this cell prints `torch.cuda.is_available()=False`.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    with torch.device("cuda"):
        w = torch.randn(4, 4)
    print(w.device)
    assert w.is_cuda
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## The meta device
#
# A tensor on `meta` has a shape and a dtype but no data, so it costs no memory and exists on every
# machine. That makes it useful for planning (what shape comes out of this model?) and, on this site,
# for showing how moves work when no GPU is at hand. What it does not do: it has no values to print,
# and it is not a faithful stand-in for a GPU when it comes to error messages.

# %% tags=["claim-F7"]
m = torch.empty(1000, 1000, device="meta")
print(m)
assert m.shape == (1000, 1000) and m.dtype == torch.float32
assert m.is_meta


# %%
with expect_error(NotImplementedError, "no data"):
    m.tolist()

# %% [markdown]
# ## Summary
#
# - Create a tensor where it will be used: `device=` on the factory function (no copy from the CPU),
#   or `with torch.device(...)` around a block. The same seed gives different numbers on CPU and CUDA.
# - `torch.set_default_device` holds for one thread only, is ignored by `torch.from_numpy`, and adds a
#   slight cost to every torch call.
# - Ask where it lives with `.device`; `.is_cpu` and `.is_cuda` are shortcuts.
# - An integer device is an index on the current accelerator, not necessarily CUDA; with no
#   accelerator, `torch.device(0)` itself raises.
# - `meta` tensors have shapes but no data, and run anywhere.
