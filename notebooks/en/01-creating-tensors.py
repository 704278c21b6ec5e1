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
# Everything below runs on a machine without a GPU too. A cell whose checks need one prints the
# condition it found unmet instead, such as `torch.cuda.is_available()=False`, or checks what happens
# without a GPU.
#
# The first cell also defines `expect_error`, which this page uses to show an error and carry on.

# %% [markdown] tags=["summary"]
# **In short**
#
# - Create a tensor where it will be used: pass `device=` to the factory function (`torch.zeros`, `torch.randn`, `torch.tensor`, ...), and nothing is made on the CPU first.
# - Ask where a tensor lives with `t.device`. Compare `t.device` with a `torch.device`, or `t.device.type` with a string such as `"cuda"`; `t.device` itself never equals a string.
#
# ```python
# device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
# x = torch.zeros(2, 3, device=device)
# assert x.device.type == device.type
# ```

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
# [Integers as devices](#integers-as-devices) below).

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
# To create a tensor on the GPU, pass a CUDA device. On a GPU, the next cell asserts that the
# tensor is on the current CUDA device (`cuda` without an index).

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
# Same seed, same device: the same numbers again
assert torch.equal(torch.randn(1000), on_cpu)

# %% [markdown]
# On a GPU, the next cell asserts both halves of the caveat: the same seed gives the same numbers
# again on the GPU, and they are not the CPU's numbers.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    torch.manual_seed(0)  # seeds the CPU and every GPU
    on_cpu = torch.randn(1000)
    torch.manual_seed(0)
    on_gpu = torch.randn(1000, device="cuda")
    torch.manual_seed(0)
    assert torch.equal(torch.randn(1000, device="cuda"), on_gpu)
    print(f"{torch.equal(on_gpu.cpu(), on_cpu)=}")
    # Same seed, another generator: other numbers
    assert not torch.equal(on_gpu.cpu(), on_cpu)
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
# To test where a tensor is, you compare its device with something. There are three ways to
# write that comparison for a CPU tensor.

# %% [markdown] tags=["predict"]
# **Predict:** `t` is a CPU tensor. What does the next cell print for the three comparisons
# `t.device == torch.device("cpu")`, `t.device == "cpu"` and `t.device.type == "cpu"`, in that order?
#
# - `True True True`
# - `True False False`
# - `False False True`
# - `True False True`

# %%
print(t.device == torch.device("cpu"), t.device == "cpu",
      t.device.type == "cpu")

# %% tags=["answer"]
assert t.device == torch.device("cpu")
assert (t.device == "cpu") is False
assert t.device.type == "cpu"
assert torch.device("cuda:0") != torch.device("cuda")
assert torch.device("cuda:0").type == torch.device("cuda").type

# %% [markdown] tags=["answer"]
# **Answer:** `True False True`. A device equals another `torch.device`, and `.type` is a plain
# string, but a device never equals a string: `t.device == "cpu"` is `False` even for a CPU tensor.
#
# - `True True True` would mean that a device equals its name.
# - `True False False` and `False False True` would mean that one of the other two comparisons
#   fails; both hold for every CPU tensor.
#
# So compare a device with a `torch.device`, or compare `.type` when any GPU will do:
# `torch.device("cuda:0")` and `torch.device("cuda")` are not equal, but their types are.

# %% [markdown]
# ## Integers as devices
#
# `device=0` and `torch.device(0)` used to mean `cuda:0`. Since torch 2.5 an integer means "this index
# on the current accelerator", which can be CUDA, Apple's MPS or Intel's XPU. So, unlike a string,
# an integer is turned into a device by asking PyTorch which accelerator there is, and that can fail
# before any tensor exists:
#
# - with a usable accelerator, `torch.device(0)` is index 0 of it, such as `cuda:0`;
# - with a PyTorch built for no accelerator (the CPU-only build), `torch.device(0)` itself raises
#   `RuntimeError: Cannot access accelerator device when none is available.` (and so do `device=0`
#   and `model.to(0)`); torch 2.6 raises it too on an accelerator build with none usable;
# - since torch 2.7, a PyTorch built for an accelerator on a machine without one
#   (a CUDA build on Colab's CPU runtime, for instance) answers with the accelerator it was built
#   for. `torch.device(0)` is then `cuda:0`, and the error comes only when a tensor is created there.
#
# The cell finds out which case this machine is and asserts that outcome.

# %% tags=["claim-O1", "gpu-only"]
NO_ACCELERATOR = "Cannot access accelerator device when none is available"
usable = torch.accelerator.is_available()
# From 2.7, current_accelerator() names the accelerator the build supports
# (None if none); on 2.6 it raises when none is usable
built_for = None
if usable or TORCH >= (2, 7):
    built_for = torch.accelerator.current_accelerator()
print(f"{usable=}, {built_for=}")

if usable:
    x = torch.zeros(1, device=0)
    print(f"{torch.device(0)=}, {x.device=}")
    assert torch.device(0) == x.device == torch.device(built_for.type, 0)
elif built_for is None:
    with expect_error(RuntimeError, NO_ACCELERATOR):
        torch.device(0)
    with expect_error(RuntimeError, NO_ACCELERATOR):
        torch.zeros(1, device=0)
    with expect_error(RuntimeError, NO_ACCELERATOR):
        torch.nn.Linear(2, 2).to(0)
else:
    print(f"{torch.device(0)=}")
    assert torch.device(0) == torch.device(built_for.type, 0)
    # The message depends on the driver, so only the type is checked
    try:
        torch.zeros(1, device=0)
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
    else:
        raise AssertionError("expected RuntimeError")

# %% [markdown]
# ## Creating on a device without saying so every time
#
# Since torch 2.0, factory functions can take their device from a default instead of `device=`:
# inside a `with torch.device(...)` block, or after `torch.set_default_device(...)`. Nothing is
# moved: the tensors are created there directly, as with `device=`. The `meta` device (last
# section) lets these cells run on any machine.

# %% [markdown] tags=["predict"]
# **Predict:** Inside `with torch.device("meta"):` the cell creates one tensor without `device=` and one
# with `device="cpu"`, then a third after the block. Which devices does it print, in that order?
#
# - `meta meta cpu`
# - `cpu cpu cpu`
# - `meta cpu cpu`
# - `meta cpu meta`

# %%
with torch.device("meta"):
    inside = torch.zeros(2)
    explicit = torch.zeros(2, device="cpu")

outside = torch.zeros(2)
print(inside.device, explicit.device, outside.device)

# %% tags=["claim-F6", "answer"]
assert inside.device.type == "meta"
assert explicit.device.type == "cpu"
assert outside.device.type == "cpu"

# %% [markdown] tags=["answer"]
# **Answer:** `meta cpu cpu`. The block changes only the default: a factory function given no
# device uses `meta`, an explicit `device="cpu"` still wins, and the default ends with the block.
#
# - `meta meta cpu` would mean that the block overrides an explicit `device=`.
# - `cpu cpu cpu` would mean that the block does not change the default at all.
# - `meta cpu meta` would mean that the default outlives the block.

# %% [markdown]
# `torch.set_default_device` sets the same default without a block: it holds until it is set
# again, and `None` goes back to the CPU. The cells here reset it in a `finally`, so that an
# error cannot leave it set for the rest of the page.

# %% tags=["claim-F6"]
torch.set_default_device("meta")
try:
    made = torch.ones(3)
    print(made.device)
    assert made.device.type == "meta"
finally:
    torch.set_default_device(None)

assert torch.ones(3).device.type == "cpu"

# %% [markdown] tags=["predict"]
# **Predict:** With `torch.set_default_device("meta")` in effect, the cell creates `torch.zeros(2)`
# in this thread, then `torch.zeros(2)` in a new thread, then a tensor over existing memory with
# `torch.frombuffer`. Which devices does it print, in that order?
#
# - `meta meta meta`
# - `meta cpu cpu`
# - `meta meta cpu`
# - `meta cpu meta`

# %%
# The devices of a tensor made here, one made in a new thread, and one
# made over memory that already exists
def three_devices():
    in_thread = []
    worker = threading.Thread(
        target=lambda: in_thread.append(torch.zeros(2).device.type))
    worker.start()
    worker.join()
    wrapped = torch.frombuffer(bytearray(8), dtype=torch.float32)
    return torch.zeros(2).device.type, *in_thread, wrapped.device.type


torch.set_default_device("meta")
try:
    with_default = three_devices()
finally:
    torch.set_default_device(None)
print(*with_default)

# %% tags=["claim-F6", "answer"]
here, in_thread, wrapped = with_default
assert here == "meta"
assert in_thread == "cpu"  # the new thread did not see the default
assert wrapped == "cpu"

# %% [markdown] tags=["answer"]
# **Answer:** `meta cpu cpu`. The default device belongs to the thread that set it: a new thread
# (a data-loading thread, a web server's worker) still creates its tensors on the CPU. And
# `torch.frombuffer` wraps memory that already exists, in CPU memory, so it allocates nothing
# and the default does not apply to it; `torch.from_numpy` is the same (checked below).
#
# - `meta meta meta` would mean that the default holds for every thread and every function.
# - `meta meta cpu` would mean that the default holds for the whole process.
# - `meta cpu meta` would mean that `frombuffer` could move existing memory to another device.

# %% [markdown]
# A `with torch.device(...)` block has the same limits, because both forms install the same
# object (`torch.utils._device.DeviceContext`) for the thread that runs them. The main
# difference is the scope:
#
# - the block's default ends where the block ends, in plain sight;
# - `set_default_device` holds for everything the thread runs afterwards, library code
#   included, until it is set again.
#
# Both forms also cost time. The documentation of `torch.set_default_device` warns that it adds a
# slight cost to every Python call into the torch API, not only to factory functions; inside a
# `with torch.device(...)` block, calls go through the same object. The cell below checks the
# three devices inside a `with` block, and `torch.from_numpy` under both forms when numpy is
# installed. It then times a small `add` on this machine (plain, inside a `with` block, after
# `set_default_device`) and prints the two ratios; it asserts nothing about them, because
# timings vary.

# %% tags=["claim-F6"]
with torch.device("meta"):
    in_block = three_devices()
print(*in_block)
assert in_block == ("meta", "cpu", "cpu")

try:
    import numpy
except ImportError:
    numpy = None
if numpy is not None:
    with torch.device("meta"):
        from_block = torch.from_numpy(numpy.zeros(2))
    torch.set_default_device("meta")
    try:
        from_default = torch.from_numpy(numpy.zeros(2))
    finally:
        torch.set_default_device(None)
    print(f"{from_block.device=}, {from_default.device=}")
    assert from_block.device.type == from_default.device.type == "cpu"
else:
    print(f"{numpy=}")

x = torch.ones(4, device="cpu")


def time_add():
    return min(timeit.repeat(lambda: x.add(1), number=2000, repeat=5))


plain_s = time_add()
with torch.device("meta"):
    block_s = time_add()
torch.set_default_device("meta")
try:
    set_s = time_add()
finally:
    torch.set_default_device(None)
print(f"{block_s / plain_s=:.2f}, {set_s / plain_s=:.2f}")

# %% [markdown]
# So pick by scope: `device=` for one call, `with torch.device(...)` for a block whose end you can
# see, and `torch.set_default_device` only for a script or notebook that runs in one thread.
#
# On a GPU, the next cell asserts that `torch.randn` inside `with torch.device("cuda"):` creates a
# CUDA tensor.

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
# A tensor on `meta` has a shape and a dtype but no data, so it costs no memory and can be created
# on every machine. That makes it useful for planning (what shape comes out of this model?) and, on
# this site, for showing how moves work when no GPU is at hand. What it does not do: it has no
# values to print, and it is not a faithful stand-in for a GPU when it comes to error messages.

# %% tags=["claim-F7"]
m = torch.empty(1000, 1000, device="meta")
print(m)
assert m.shape == (1000, 1000) and m.dtype == torch.float32
assert m.is_meta

# %% [markdown]
# A meta tensor has no values, so anything that reads them, such as `tolist()`, raises an
# error:

# %%
with expect_error(NotImplementedError, "no data"):
    m.tolist()

# %% [markdown]
# ## Summary
#
# - Create a tensor where it will be used: `device=` on the factory function (no copy from the CPU),
#   or `with torch.device(...)` around a block. The same seed gives different numbers on CPU and CUDA.
# - `with torch.device(...)` and `torch.set_default_device` set a default for one thread only,
#   `torch.frombuffer` and `torch.from_numpy` ignore it, and while it is set every torch call costs
#   a little more. The `with` form ends with its block.
# - Ask where a tensor lives with `.device`; `.is_cpu` and `.is_cuda` are shortcuts. Compare a
#   device with a `torch.device` or compare `.type`, never with a string.
# - An integer device is an index on the current accelerator, not necessarily CUDA; with a build
#   for no accelerator (on 2.6: with none usable), `torch.device(0)` itself raises.
# - `meta` tensors have shapes but no data, and can be created on any machine.
