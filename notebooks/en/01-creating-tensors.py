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
# Everything below runs on a machine without a GPU too; cells that need one say so and skip.

# %%
import torch

print(torch.__version__)
print("CUDA available:", torch.cuda.is_available())

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
# Building a `torch.device` object checks only the spelling, not the hardware: the cell above runs
# on a machine without a GPU. The hardware is needed only when a tensor is created there.

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
# without one it says so and does nothing.

# %%
if torch.cuda.is_available():
    g = torch.ones(2, 3, device="cuda")
    print(g.device)
    assert g.device.type == "cuda"
    assert g.device.index == torch.cuda.current_device()
else:
    print("skipped: no CUDA GPU on this machine")

# %% [markdown]
# ## Checking where a tensor lives
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
# on the current accelerator", which can be CUDA, Apple's MPS or Intel's XPU. On a machine with no
# accelerator, creating a tensor on device `0` fails.

# %% tags=["claim-O1"]
has_accelerator = torch.cuda.is_available() or (
    hasattr(torch, "accelerator") and torch.accelerator.is_available()
)
try:
    x = torch.zeros(1, device=0)
    print(x.device)
    assert has_accelerator and x.device.index == 0
except RuntimeError as err:
    print(type(err).__name__, err)
    assert not has_accelerator

# %% [markdown]
# ## Creating on a device without saying so every time
#
# Since torch 2.0, a device can be made the default for factory functions, either inside a `with`
# block or for the whole program with `torch.set_default_device`. Nothing is moved: the tensors are
# created there directly, which also saves a copy from CPU to GPU. An explicit `device=` still wins.
# The `meta` device (next section) lets these cells run on any machine.

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
# The same works with `with torch.device("cuda"):` on a GPU machine.

# %%
if torch.cuda.is_available():
    with torch.device("cuda"):
        w = torch.randn(4, 4)
    print(w.device)
    assert w.is_cuda
else:
    print("skipped: no CUDA GPU on this machine")

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
try:
    m.tolist()
except (NotImplementedError, RuntimeError) as err:
    print(type(err).__name__)
else:
    raise AssertionError("a meta tensor should have no data to read")

# %% [markdown]
# ## Summary
#
# - Say where a tensor is created with `device=` on the factory function, or with `with torch.device(...)`.
# - Ask where it lives with `.device`; `.is_cpu` and `.is_cuda` are shortcuts.
# - An integer device is an index on the current accelerator, not necessarily CUDA.
# - `meta` tensors have shapes but no data, and run anywhere.
