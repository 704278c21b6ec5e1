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
# # Moving models
#
# Tensors and models both have a `.to()` method, but the two behave differently. This page shows
# what `Module.to` does to a model, its parameters and its buffers, what it leaves behind, how to
# find out where a model lives, how to read a device-mismatch error, what happens to an optimizer,
# and how to load a checkpoint saved on a GPU onto a CPU.
#
# Each statement about PyTorch's behaviour is checked by an `assert` in a code cell, on the machine
# that produced this page's outputs. Cells that need a GPU check for one first. On a machine without
# one they print `torch.cuda.is_available()=False`, and their GPU checks do not run there (the line
# above the notebook counts these cells). Error messages that only a GPU produces are quoted from
# PyTorch's source, with the version they come from. An expected error is caught, checked and shown
# by `expect_error`, defined in the first cell, and the page carries on.

# %% [markdown] tags=["summary"]
# **In short**
#
# - `model.to(device)` moves the model's parameters and buffers and returns the same model: no reassignment needed. Put every input on the same device.
# - Build the optimizer after the move, and load a GPU checkpoint on a CPU with `map_location`.
#
# ```python
# model = nn.Linear(10, 1)
# model.to(device)
# x = torch.randn(8, 10).to(device)
# optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# state = torch.load(path, map_location="cpu", weights_only=True)
# ```

# %% tags=["setup"]
import contextlib
import os
import pickle
import sys
import tempfile
import types

import torch
from torch import nn

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
# ## What model.to(device) changes
#
# `Tensor.to` does not change the tensor: it returns a converted tensor (or the tensor itself when
# nothing needs to change), and you have to keep the result. `Module.to` and its relatives
# `.cpu()`, `.cuda()` and `.double()` follow a different rule.
#
# A tensor on the `meta` device has a shape and a dtype but no data. The `meta` device exists on
# every machine, so it lets you watch a move happen even without a GPU.

# %% [markdown] tags=["predict"]
# **Predict:** The cell calls `model.double()`, then `model.to("meta")`, and assigns neither
# result. What does `print(model.weight.device, model.weight.dtype)` show?
#
# - `cpu torch.float32`
# - `meta torch.float32`
# - `cpu torch.float64`
# - `meta torch.float64`

# %%
model = nn.Linear(3, 2)
model.double()
model.to("meta")
print(model.weight.device, model.weight.dtype)

# %% tags=["claim-M1", "gpu-only", "answer"]
assert model.weight.device.type == "meta"
assert model.weight.dtype == torch.float64

model = nn.Linear(3, 2)
assert model.to(device) is model
assert model.cpu() is model
assert model.double() is model  # dtype conversions too
if torch.cuda.is_available():
    assert model.cuda() is model
else:
    print(f"{torch.cuda.is_available()=}")

t = torch.ones(3)
t_meta = t.to("meta")
print(t.device, t_meta.device)
assert t_meta is not t
assert t.device.type == "cpu"  # the original tensor did not move
assert t.to(t.device) is t  # nothing to do: the same tensor comes back

# %% [markdown] tags=["answer"]
# **Answer:** `meta torch.float64`. `Module.to` changes the module *in place*, converting its
# parameters and buffers, and returns the module itself; so do `.cpu()`, `.double()` and, on a GPU,
# `.cuda()`. Both conversions therefore stick, and `model = model.to(device)` is harmless but not
# needed.
#
# - `cpu torch.float32` is what you would see if the calls returned converted copies, as
#   `Tensor.to` does: the checks show `t.to("meta")` leaving `t` on the CPU.
# - `meta torch.float32` and `cpu torch.float64` would mean that only one of the two calls changed
#   the model.
#
# The checks also assert that each call returns `model` itself (`.cuda()` only on a GPU).

# %% [markdown]
# ## Parameters and buffers
#
# The module is the same object after `.to()`, but are the tensors inside it? It depends on the
# move. The small module below has one parameter, one buffer (a tensor registered with
# `register_buffer`) and one plain tensor attribute (more on that in the next section).

# %%
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3))  # parameter
        self.register_buffer("offset", torch.zeros(3))  # buffer
        self.mask = torch.ones(3)  # plain tensor attribute

    def forward(self, x):
        return x * self.weight * self.mask + self.offset


# %% [markdown]
# Moving to `meta` works on every machine. It replaces the parameter with a new `Parameter` object,
# and the buffer with a new tensor.

# %% tags=["claim-F3"]
model = Scaled()
weight, offset = model.weight, model.offset

model.to("meta")
print(f"{model.weight is weight=}, {model.offset is offset=}")
assert isinstance(model.weight, nn.Parameter)
assert model.weight is not weight  # a new Parameter object
assert model.offset is not offset  # a new buffer tensor

# %% [markdown]
# Coming back from `meta` is different: there is no data to copy, so `.to("cpu")` raises and
# points to `to_empty()`. `to_empty(device=...)` gives the module uninitialised storage on the
# device; fill in the values yourself, for built-in layers with `reset_parameters()`.

# %% tags=["claim-F7"]
with expect_error(NotImplementedError, "to_empty"):
    model.to("cpu")

layer = nn.Linear(3, 2, device="meta")
layer.to_empty(device="cpu")  # storage only, no values yet
layer.reset_parameters()
print(layer.weight.device, layer.weight.is_meta)
assert layer.weight.device.type == "cpu"
assert torch.isfinite(layer.weight).all()

# %% [markdown]
# A dtype change is a conversion too, and it runs on any machine.

# %% [markdown] tags=["predict"]
# **Predict:** `weight` and `offset` are saved before `model.double()`. What does the cell print
# after the call?
#
# - `model.weight is weight=True, model.offset is offset=True`
# - `model.weight is weight=True, model.offset is offset=False`
# - `model.weight is weight=False, model.offset is offset=False`

# %%
model = Scaled()
weight, offset = model.weight, model.offset

model.double()
print(f"{model.weight is weight=}, {model.offset is offset=}")

# %% tags=["claim-F3", "gpu-only", "answer"]
assert model.weight.dtype == torch.float64
assert model.weight is weight  # same Parameter object
assert model.offset is not offset  # the buffer is a new tensor

if torch.cuda.is_available():
    offset = model.offset
    model.to(device)
    print(f"{model.weight is weight=}, {model.offset is offset=}")
    assert model.weight.device.type == "cuda"
    assert model.weight is weight  # same Parameter object, now on the GPU
    assert model.offset is not offset
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown] tags=["answer"]
# **Answer:** `model.weight is weight=True, model.offset is offset=False`. Which objects survive
# depends on the move:
#
# - **A dtype change, or CPU ↔ CUDA:** each `Parameter` stays the same Python object. PyTorch swaps
#   the tensor behind it (`param.data`), so anything holding a reference to the parameter still
#   sees the right one. On a GPU, the cell asserts this for the move to CUDA too.
# - **To `meta`:** the parameters are replaced by new `Parameter` objects (`...=False, ...=False`,
#   as above).
# - **Buffers** are plain tensors: a buffer that is converted is always replaced by a new tensor
#   object, so `...=True, ...=True` does not happen.
#
# An identity check (`is`) therefore gives different answers for different moves.

# %% [markdown]
# ## Plain tensor attributes
#
# `Module.to` converts what the module knows about: parameters, buffers and submodules. The
# `Scaled` module also keeps a tensor as an ordinary attribute, `self.mask = torch.ones(3)`. Below,
# the target is the GPU when there is one, and `meta` otherwise.

# %% [markdown] tags=["predict"]
# **Predict:** After `model = Scaled().to(target)`, the cell prints the device of each tensor.
# What does the line for `mask` show?
#
# - `mask meta`
# - `mask cuda:0`
# - `mask cpu`

# %%
target = torch.device("cuda" if torch.cuda.is_available() else "meta")
model = Scaled().to(target)

for name in ["weight", "offset", "mask"]:
    print(name, getattr(model, name).device)

# %% tags=["claim-F5", "answer"]
assert model.weight.device.type == target.type
assert model.offset.device.type == target.type
assert model.mask.device.type == "cpu"  # left behind
assert "mask" not in model.state_dict()
with expect_error(RuntimeError, "device"):
    model(torch.ones(3, device=target))  # the forward pass mixes devices

# %% [markdown] tags=["answer"]
# **Answer:** `mask cpu`, on every machine. `Module.to` does not see a tensor stored as an
# ordinary attribute, so it stays where it was, and the forward pass then mixes devices: the
# checks call the model and get a device error. It is also missing from the `state_dict`.
# `mask meta` (without a GPU) or `mask cuda:0` (on a GPU) would mean that the move took it along,
# as it did `weight` and `offset`.

# %% [markdown]
# The fix is to register the tensor as a buffer. Pass `persistent=False` if it should move with the
# model but stay out of the `state_dict`.

# %% tags=["claim-F5"]
class Masked(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3))
        self.register_buffer("mask", torch.ones(3), persistent=False)

    def forward(self, x):
        return x * self.weight * self.mask


model = Masked().to(target)
print(model.mask.device)
assert model.mask.device.type == target.type
assert "mask" not in model.state_dict()

# %% [markdown]
# ## Do not reassign a parameter
#
# Moving one parameter by hand, with `model.weight = model.weight.to(d)`, does not work. The
# question is what `to` gives back for a parameter. The cell prints the type's name and whether
# the result still requires a gradient.

# %% [markdown] tags=["predict"]
# **Predict:** `model.weight` is a `Parameter` on the CPU. What does the cell print for
# `moved = model.weight.to("meta")`, a real conversion?
#
# - `Tensor True`
# - `Parameter True`
# - `Tensor False`

# %%
model = nn.Linear(3, 2)
moved = model.weight.to("meta")
print(type(moved).__name__, moved.requires_grad)

# %% tags=["claim-F5", "answer"]
assert type(moved) is torch.Tensor
assert moved.requires_grad and not moved.is_leaf  # recorded by autograd
w = model.weight
assert w.to(w.device) is w  # nothing to do: the Parameter itself

# %% [markdown] tags=["answer"]
# **Answer:** `Tensor True`. A real conversion returns a plain `Tensor`, not a `Parameter`. It still
# requires a gradient, because autograd records the conversion: it is the result of an operation on
# the parameter, not a leaf of its own. `Parameter True` is what you get only when `to()` has
# nothing to do (the checks show `w.to(w.device) is w`), and `Tensor False` would be a tensor cut
# off from the parameter's gradient.

# %% [markdown]
# A module refuses to store anything but a `Parameter` (or `None`) under a parameter's name, so the
# assignment raises a `TypeError`:

# %% tags=["claim-F5"]
with expect_error(TypeError, "cannot assign"):
    model.weight = moved

# %% [markdown]
# The trap: when nothing needs to change (say, `d` is the CPU and so is the weight), `.to()` returns
# the parameter itself and the assignment works. The same line then fails the first time it runs on
# a GPU. Move the whole module with `model.to(d)` instead.

# %% [markdown]
# ## Which device is a model on
#
# A module has no `.device` attribute, because nothing forces its tensors to share one device: a
# large model can be split across devices, and a module such as `nn.ReLU` has no parameters at all.
#
# The usual idiom, `next(model.parameters()).device`, gives the device of the first parameter. That
# is fine for a model you moved as a whole. To be sure, collect the devices of all parameters and
# buffers.

# %%
def devices(module):
    return {t.device for t in [*module.parameters(), *module.buffers()]}


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
print(next(model.parameters()).device, sorted(map(str, devices(model))))
assert next(model.parameters()).device.type == device.type
assert not hasattr(model, "device")
assert next(nn.ReLU().parameters(), None) is None  # nothing to ask

model[2].to("meta")  # meta plays a second device here
print(sorted(map(str, devices(model))))
assert len(devices(model)) == 2

# %% [markdown]
# ## Reading a device-mismatch error
#
# When a model and its input are on different devices, the operation that mixes them fails with a
# `RuntimeError`. The fix is always the same: put the model and all its inputs on the one device you
# intend, `model.to(device)` and `x = x.to(device)`. Write the assignment: `Tensor.to` returns a new
# tensor and leaves `x` where it was.
#
# Do not simply move the tensor the message names. Since torch 2.8, PyTorch's CUDA check words the
# error for a linear layer fed a CPU input like this (quoted from its source):
#
# ```
# Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)
# ```
#
# - For a 2-D input `nn.Linear` runs `addmm(bias, input, weight.T)`, so `mat1` is your input, and
#   `wrapper_CUDA_addmm` is the operation that noticed.
# - The check compares every argument with the first one, the bias. If the *model* was left on the
#   CPU and the input is on the GPU, the message still names `mat1`, now "on cuda:0, different from
#   other tensors on cpu". Moving `mat1` as the message suggests would send the input back to the CPU.
#
# Before 2.8 the same check said `but found at least two devices, cuda:0 and cpu!` and named the
# argument at the end. Element-wise operations (`+`, `*`, ...) are checked by TensorIterator (the part of PyTorch that runs them), and
# still say `but found at least two devices, cuda:0 and cpu!`, without an argument name.
#
# In real code the usual cause of a mismatch is a tensor created inside `forward` or a loss without a
# device; [Device mismatch errors, decoded](07-device-errors.ipynb#expected-all-tensors-to-be-on-the-same-device)
# shows it, with its fixes.

# %% [markdown]
# One mix is allowed, in element-wise operations only: a 0-dim CPU tensor such as `torch.tensor(2.0)`
# can take part in `+`, `*` and the like on CUDA tensors, as if it were a Python number. Other
# operations make no such exception: `torch.addmm(torch.tensor(1.0), a, b)`, with `a` and `b` on the
# GPU, fails the device check.

# %% tags=["claim-O3", "gpu-only"]
model = nn.Linear(4, 2).to(device)
x = torch.randn(8, 4)  # created on the CPU

if torch.cuda.is_available():
    named = "but got mat1" if TORCH >= (2, 8) else "found at least two devices"
    with expect_error(RuntimeError, named):
        model(x)  # the input was left on the CPU
    with expect_error(RuntimeError, named):
        nn.Linear(4, 2)(x.to(device))  # the model was left on the CPU
    with expect_error(RuntimeError, "found at least two devices"):
        x.to(device) + x  # element-wise: checked by TensorIterator
    x = x.to(device)  # the fix: keep the result
    y = model(x)
    print(f"{y.device=}")
    assert y.device == model.weight.device
    two = torch.tensor(2.0)  # a 0-dim CPU tensor
    assert (y * two).device == y.device  # element-wise: allowed
    with expect_error(RuntimeError, "Expected all tensors to be on the same"):
        torch.addmm(two, x.T, x)  # not element-wise: no exception
else:
    print(f"{torch.cuda.is_available()=}")
    assert model(x).device.type == "cpu"

# %% [markdown]
# Without a GPU you cannot see CUDA's message, but the `meta` device runs a device check of its own,
# with its own wording (`is not on the expected device`). It shows on any machine that a linear layer
# fails with the mismatch in both directions, and that a 0-dim CPU tensor is allowed in an element-wise
# operation.

# %% tags=["claim-F7"]
meta_model = nn.Linear(4, 2).to("meta")
with expect_error(RuntimeError, "is not on the expected device"):
    meta_model(torch.randn(8, 4))  # the input was left on the CPU
cpu_model = nn.Linear(4, 2)  # the model was left on the CPU
with expect_error(RuntimeError, "is not on the expected device"):
    cpu_model(torch.randn(8, 4, device="meta"))

y = meta_model(torch.randn(8, 4, device="meta"))  # both on meta
scaled = y * torch.tensor(2.0)  # element-wise: a 0-dim CPU tensor is allowed
print(f"{y.device=}, {scaled.device=}")
assert scaled.device.type == "meta"

# %% [markdown]
# ## Optimizers: move first, then build
#
# An optimizer holds references to the model's `Parameter` objects, plus per-parameter *state* that
# it creates on the first `step()` (Adam keeps two running averages, `exp_avg` and `exp_avg_sq`).
#
# A CPU → CUDA move keeps the `Parameter` objects, so an optimizer built before the move still holds
# the right parameters. That is enough only while the optimizer has no state yet. Its state is not
# part of the module, so `model.to()` leaves it on the old device.
# `optimizer.load_state_dict(optimizer.state_dict())` converts the state to each parameter's device.

# %% tags=["claim-F4", "gpu-only"]
model = nn.Linear(4, 2)  # on the CPU
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()  # creates Adam's state on the CPU

model.to(device)
params = optimizer.param_groups[0]["params"]
assert params[0] is model.weight  # still the same Parameter

if torch.cuda.is_available():
    state = optimizer.state[model.weight]
    print(model.weight.device, state["exp_avg"].device)
    assert model.weight.device.type == "cuda"
    assert state["exp_avg"].device.type == "cpu"  # left behind
    optimizer.load_state_dict(optimizer.state_dict())
    state = optimizer.state[model.weight]
    print(state["exp_avg"].device, state["exp_avg_sq"].device)
    assert state["exp_avg"].device.type == "cuda"
    assert state["exp_avg_sq"].device.type == "cuda"
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ### Loading an optimizer checkpoint
#
# To resume training, keep the same order: move the model, build the optimizer from its
# parameters, then call `optimizer.load_state_dict(checkpoint["optimizer"])`. `load_state_dict`
# casts every state tensor except `step` to the device of the parameter it belongs to and, when
# the parameter is floating point, to its dtype. So `float32` state loaded into a `bfloat16`
# model becomes `bfloat16` and loses precision; the cell shows it. (Mixed precision's `float32`
# master weights have another reason: an update much smaller than a weight is lost when added to
# it in 16 bits; see [Will it fit?](08-will-it-fit.ipynb). PyTorch's own AMP, `autocast` with
# `GradScaler`, keeps the parameters themselves in `float32` and has no copy.)
#
# `step` is left as it was loaded, unless the optimizer is `fused` or `capturable`: then it goes
# to the parameter's device too, as `float32`. Those flags come from the checkpoint, because
# `load_state_dict` replaces each group's options with the saved ones; the cell loads a fused
# optimizer's checkpoint into a plain one. Adam and AdamW expect it on the CPU and read it with
# `.item()` at every step, once per parameter: a `step` on the GPU turns each read into a wait for
# the GPU ([pytorch#128208](https://github.com/pytorch/pytorch/issues/128208)). So load optimizer
# checkpoints with `torch.load(path, map_location="cpu")` and let `load_state_dict` move the rest;
# `map_location="cuda"` puts `step` on the GPU.
#
# In the other order, loading first and moving later, the state is converted for where the
# parameters were at that moment, and `model.to()` leaves it there: on a GPU, the first `step()`
# then mixes CUDA parameters with CPU state. The dtype shows the same thing on any machine, so
# the cell converts the model to `float64` as it moves it to `device`.

# %% tags=["claim-F4"]
source = nn.Linear(4, 2)
source_optimizer = torch.optim.Adam(source.parameters())
source(torch.randn(8, 4)).sum().backward()
source_optimizer.step()
# what torch.load(path, map_location="cpu") returns: all on the CPU, in float32
checkpoint = {"model": source.state_dict(),
              "optimizer": source_optimizer.state_dict()}

# move, build, load
resumed = nn.Linear(4, 2).to(device, torch.float64)
resumed.load_state_dict(checkpoint["model"])
resumed_optimizer = torch.optim.Adam(resumed.parameters())
resumed_optimizer.load_state_dict(checkpoint["optimizer"])
state = resumed_optimizer.state[resumed.weight]
print(f"{state['exp_avg'].dtype=}, {state['exp_avg'].device=}")
print(f"{state['step'].device=}, {state['step'].dtype=}")
assert state["exp_avg"].dtype == torch.float64
assert state["exp_avg"].device == resumed.weight.device
assert state["step"].device.type == "cpu"
assert state["step"].dtype == torch.float32  # step is not cast

# a float32 value that bfloat16 cannot hold, loaded into a bfloat16 model
checkpoint["optimizer"]["state"][0]["exp_avg"].fill_(1 + 2**-10)
low = nn.Linear(4, 2).to(device, torch.bfloat16)
low_optimizer = torch.optim.Adam(low.parameters())
low_optimizer.load_state_dict(checkpoint["optimizer"])
low_state = low_optimizer.state[low.weight]
print(f"{low_state['exp_avg'].dtype=}, {low_state['exp_avg'][0, 0].item()=}")
assert low_state["exp_avg"].dtype == torch.bfloat16
assert low_state["exp_avg"][0, 0].item() == 1.0  # 1 + 2**-10 is lost

# a checkpoint saved by a fused optimizer: step goes to the parameter
fused_optimizer = torch.optim.Adam(source.parameters(), fused=True)
source(torch.randn(8, 4)).sum().backward()
fused_optimizer.step()
saved = fused_optimizer.state_dict()
saved["state"][0] = {**saved["state"][0],
                     "step": saved["state"][0]["step"].double()}
quick = nn.Linear(4, 2).to(device)
quick_optimizer = torch.optim.Adam(quick.parameters())  # not fused itself
quick_optimizer.load_state_dict(saved)
quick_step = quick_optimizer.state[quick.weight]["step"]
print(f"{quick_step.device=}, {quick_step.dtype=}")
assert quick_optimizer.param_groups[0]["fused"]  # the checkpoint's options
assert quick_step.device == quick.weight.device
assert quick_step.dtype == torch.float32

# load, then move: the state stays as loaded
late = nn.Linear(4, 2)
late_optimizer = torch.optim.Adam(late.parameters())
late_optimizer.load_state_dict(checkpoint["optimizer"])
late.to(device, torch.float64)
late_state = late_optimizer.state[late.weight]
print(f"{late.weight.dtype=}, {late_state['exp_avg'].dtype=}")
print(f"{late_state['exp_avg'].device=}")
assert late_optimizer.param_groups[0]["params"][0] is late.weight
assert late_state["exp_avg"].dtype == torch.float32
assert late_state["exp_avg"].device.type == "cpu"

# %% [markdown]
# The same thing happens with a dtype change, which you can watch on any machine: the state keeps
# its old dtype, and the next `step()` fails, because the new float64 gradients meet float32 state.
# Reloading the state dict converts the state to each parameter's dtype (and device), and `step()`
# works again.

# %% tags=["claim-F4"]
model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()  # Adam's state is created in float32

model.double()
state = optimizer.state[model.weight]
print(f"{model.weight.dtype=}, {state['exp_avg'].dtype=}")
assert optimizer.param_groups[0]["params"][0] is model.weight
assert state["exp_avg"].dtype == torch.float32  # not converted

optimizer.zero_grad()
model(torch.randn(8, 4, dtype=torch.float64)).sum().backward()
with expect_error(RuntimeError, "expected dtype"):
    optimizer.step()  # float64 gradients meet float32 state

# converts the state to each parameter's dtype
optimizer.load_state_dict(optimizer.state_dict())
optimizer.step()
state = optimizer.state[model.weight]
print(f"{state['exp_avg'].dtype=}")
assert state["exp_avg"].dtype == torch.float64

# %% [markdown]
# The error comes from inside Adam's update: "expected dtype float … but got dtype double" says that
# a float32 state tensor met a float64 gradient.
#
# The simplest rule avoids all of this: move the model first, then build the optimizer. Its state is
# then created next to the parameters.

# %% tags=["claim-F4"]
model = nn.Linear(4, 2).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4, device=device)).sum().backward()
optimizer.step()

state = optimizer.state[model.weight]
print(state["exp_avg"].device)
assert state["exp_avg"].device == model.weight.device

# %% [markdown]
# ## Loading a GPU checkpoint on a CPU
#
# `torch.save` records the device of every tensor, and `torch.load` puts each tensor back on that
# device unless you say otherwise. To load a checkpoint saved on a GPU on a machine without one, pass
# `map_location`:
#
# - a string or a `torch.device`: every tensor goes there;
# - a dict: maps saved locations to new ones, e.g. `{"cuda:0": "cpu"}`;
# - a callable `(storage, location) -> storage`: decides per tensor storage;
#   `lambda storage, location: storage` keeps everything on the CPU.
#
# We also pass `weights_only=True`, which restores only tensors and plain containers from the
# pickle: the safe way to load a `state_dict` (more on it below).
#
# Without `map_location`, loading such a checkpoint on a machine without a GPU stops with
# `Attempting to deserialize object on a CUDA device`; [Setup and memory errors, decoded](09-setup-and-memory-errors.ipynb#attempting-to-deserialize-object-on-a-cuda-device) produces that
# error. Without a GPU, the checkpoint below comes from the CPU.

# %%
tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "checkpoint.pt")

model = nn.Linear(4, 2).to(device)
torch.save(model.state_dict(), path)
print(f"{model.weight.device=}")

# %% tags=["claim-F8", "gpu-only"]
if torch.cuda.is_available():
    as_saved = torch.load(path, weights_only=True)
    on_cpu = torch.load(path, map_location="cpu", weights_only=True)
    print(as_saved["weight"].device, on_cpu["weight"].device)
    assert as_saved["weight"].device.type == "cuda"  # back where it was saved
    assert on_cpu["weight"].device.type == "cpu"
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# All four forms of `map_location` above (a string, a `torch.device`, a dict, a callable) give CPU
# tensors here, whether the checkpoint came from a GPU or from the CPU.

# %% tags=["claim-F8"]
forms = {
    "str": "cpu",
    "torch.device": torch.device("cpu"),
    "dict": {"cuda:0": "cpu"},
    "callable": lambda storage, location: storage,
}
for name, form in forms.items():
    state = torch.load(path, map_location=form, weights_only=True)
    print(name, state["weight"].device)
    assert all(t.device.type == "cpu" for t in state.values())

cpu_model = nn.Linear(4, 2)
cpu_model.load_state_dict(state)
print(cpu_model.weight.device)

# %% [markdown]
# An integer is not a valid `map_location`: `torch.load` treats it as a callable and fails with a
# `TypeError`. Write `"cuda:0"` or `torch.device("cuda", 0)` instead.

# %%
with expect_error(TypeError, "not callable"):
    torch.load(path, map_location=0, weights_only=True)

# %% [markdown]
# Since torch 2.6, `weights_only=True` is `torch.load`'s default; the cells above pass it anyway, so
# that the choice is visible. This default is why loading a whole pickled model (saved with
# `torch.save(model, path)`) stopped working for many people when they upgraded to 2.6: `torch.load`
# now refuses to restore arbitrary classes from the pickle. The cell below shows the first sentence
# of its long message, "Weights only load failed". Save and load `state_dict()`s, or, only for a file
# you trust, pass `weights_only=False`.

# %%
whole = os.path.join(tmp.name, "whole-model.pt")
torch.save(nn.Linear(4, 2), whole)  # the whole module, pickled
try:
    torch.load(whole, map_location="cpu")
except pickle.UnpicklingError as err:
    first = str(err).split(".")[0]  # the message is long: its first sentence
    print(f"{type(err).__name__}: {first}", file=sys.stderr)
else:
    raise AssertionError("expected an UnpicklingError")

# only for a file you trust
loaded = torch.load(whole, map_location="cpu", weights_only=False)
print(f"{type(loaded).__name__=}")
assert isinstance(loaded, nn.Linear)
tmp.cleanup()

# %% [markdown]
# ## Summary
#
# - `model.to(device)` moves the model in place and returns it; no reassignment needed.
# - Between CPU and CUDA, and for a dtype change, the `Parameter` objects stay the same; to `meta`
#   they are replaced; converted buffers are always new tensors. Leave `meta` with `to_empty()`,
#   then initialise.
# - Only parameters, buffers and submodules move. Register other tensors with `register_buffer`.
# - Never assign a converted tensor to a parameter's name; move the whole module.
# - A model has no single device: `next(model.parameters()).device` is a convention.
# - On a device-mismatch error, put the model and all its inputs on one device: `model.to(device)`,
#   `x = x.to(device)`. The argument the message names is not necessarily the one to move.
# - Move the model first, then build the optimizer: an optimizer that already has state keeps it on
#   the old device and dtype.
# - Load GPU checkpoints on a CPU with `torch.load(path, map_location="cpu", weights_only=True)`;
#   `weights_only=True` is the default since torch 2.6.
# - To resume, load the optimizer's checkpoint with `map_location="cpu"` too, after moving the
#   model and building the optimizer: `load_state_dict` casts the state to each parameter's device
#   and dtype, and leaves `step` on the CPU, where Adam reads it (unless the checkpoint's optimizer
#   is `fused` or `capturable`: then `step` goes to the parameter's device, as `float32`).
