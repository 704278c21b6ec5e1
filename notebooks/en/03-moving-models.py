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
# Every statement is checked by an `assert` in the code cell after it. Cells that need a GPU check
# for one first; on a CPU-only machine they print what they skipped.

# %%
import os
import tempfile

import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## In place, same object
#
# `Tensor.to` does not change the tensor: it returns a converted tensor (or the tensor itself when
# nothing needs to change), and you have to keep the result.
#
# `Module.to` changes the module *in place*, converting its parameters and buffers, and returns
# the module itself. So do `.cpu()`, `.double()` and, on a GPU, `.cuda()`. Writing `model = model.to(device)`
# is harmless, but `model.to(device)` on its own is enough.
#
# The `meta` device stores shapes and dtypes but no data. It exists on every machine, so it lets
# you watch a move happen even without a GPU.

# %% tags=["claim-M1"]
model = nn.Linear(3, 2)

assert model.to(device) is model
assert model.cpu() is model
assert model.double() is model  # dtype conversions too
if torch.cuda.is_available():
    assert model.cuda() is model
else:
    print("No GPU: skipped model.cuda().")

model.to("meta")  # the result is not assigned
print(model.weight.device, model.weight.dtype)
assert model.weight.device.type == "meta"
assert model.weight.dtype == torch.float64

t = torch.ones(3)
t_meta = t.to("meta")
print(t.device, t_meta.device)
assert t_meta is not t
assert t.device.type == "cpu"  # the original tensor did not move
assert t.to(t.device) is t  # nothing to do: the same tensor comes back


# %% [markdown]
# ## Parameters and buffers
#
# The module is the same object after `.to()`, but are the tensors inside it? It depends on the
# move:
#
# - **CPU ↔ CUDA, or a dtype change:** each `Parameter` stays the same Python object. PyTorch swaps
#   the tensor behind it (`param.data`), so anything holding a reference to the parameter still
#   sees the right one.
# - **To `meta`:** the parameters are replaced by new `Parameter` objects.
# - **Buffers** (tensors registered with `register_buffer`) are plain tensors: a buffer that is
#   converted is replaced by a new tensor object.
#
# An identity check (`is`) therefore gives different answers on different devices. The small module
# below has one parameter, one buffer and one plain tensor attribute (more on that in the next
# section).

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
# Moving to `meta` works on every machine and replaces both the parameter and the buffer.

# %% tags=["claim-F3"]
model = Scaled()
weight, offset = model.weight, model.offset

model.to("meta")
print(model.weight is weight, model.offset is offset)
assert isinstance(model.weight, nn.Parameter)
assert model.weight is not weight  # a new Parameter object
assert model.offset is not offset  # a new buffer tensor

# %% [markdown]
# Coming back from `meta` is different: there is no data to copy, so `.to("cpu")` raises and
# points to `to_empty()`. `to_empty(device=...)` gives the module uninitialised storage on the
# device; fill in the values yourself, for built-in layers with `reset_parameters()`.

# %% tags=["claim-F7"]
try:
    model.to("cpu")
except NotImplementedError as err:
    print(str(err).splitlines()[0])
    assert "to_empty" in str(err)
else:
    raise AssertionError("a meta module has no data to copy")

layer = nn.Linear(3, 2, device="meta")
layer.to_empty(device="cpu")  # storage only, no values yet
layer.reset_parameters()
print(layer.weight.device, layer.weight.is_meta)
assert layer.weight.device.type == "cpu"
assert torch.isfinite(layer.weight).all()

# %% [markdown]
# A dtype change (any machine) and a move to a GPU keep the `Parameter` objects, while the buffer is
# still replaced.

# %% tags=["claim-F3"]
model = Scaled()
weight, offset = model.weight, model.offset

model.double()
print("double:", model.weight is weight, model.offset is offset)
assert model.weight.dtype == torch.float64
assert model.weight is weight  # same Parameter object
assert model.offset is not offset  # the buffer is a new tensor

if torch.cuda.is_available():
    offset = model.offset
    model.to(device)
    print("cuda:", model.weight is weight, model.offset is offset)
    assert model.weight.device.type == "cuda"
    assert model.weight is weight  # same Parameter object, now on the GPU
    assert model.offset is not offset
else:
    print("No GPU: skipped the CPU -> CUDA identity check.")

# %% [markdown]
# ## Plain tensor attributes
#
# `Module.to` only converts what the module knows about: parameters, buffers and submodules. A
# tensor stored as an ordinary attribute (`self.mask = torch.ones(3)`) stays where it was, and the
# forward pass then mixes devices. It is also missing from the `state_dict`.
#
# Below, the target is the GPU when there is one, and `meta` otherwise.

# %% tags=["claim-F5"]
target = torch.device("cuda") if torch.cuda.is_available() else torch.device("meta")
model = Scaled().to(target)

for name in ["weight", "offset", "mask"]:
    print(name, getattr(model, name).device)
assert model.weight.device.type == target.type
assert model.offset.device.type == target.type
assert model.mask.device.type == "cpu"  # left behind
assert "mask" not in model.state_dict()


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
# Moving one parameter by hand with `model.weight = model.weight.to(d)` does not work. A real
# conversion returns a plain `Tensor`, not a `Parameter`, and a module refuses to store a plain
# tensor under a parameter's name: it raises a `TypeError`.
#
# The trap: when nothing needs to change (say, `d` is the CPU and so is the weight), `.to()` returns
# the parameter itself and the assignment works. The same line then fails the first time it runs on
# a GPU. Move the whole module with `model.to(d)` instead.

# %% tags=["claim-F5"]
model = nn.Linear(3, 2)
assert model.weight.to(model.weight.device) is model.weight  # no-op: the Parameter itself

moved = model.weight.to("meta")  # a real conversion
print(type(moved))
assert type(moved) is torch.Tensor

try:
    model.weight = moved
except TypeError as err:
    print(err)
    assert "cannot assign" in str(err)
else:
    raise AssertionError("expected a TypeError")


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
# When a model and its input are on different devices, the first operation that mixes them fails
# with a `RuntimeError`. Since torch 2.8 the message reads like
# `Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)`:
#
# - `mat1` is the argument on the wrong device. For a 2-D input `nn.Linear` runs
#   `addmm(bias, input, weight.T)`, so `mat1` is your input.
# - `cpu` is where that argument is; `cuda:0` is where the other tensors (the weight and bias) are.
# - `wrapper_CUDA_addmm` is the operation that noticed.
#
# Older releases began the same way but went on with `but found at least two devices, cuda:0 and cpu!`.
# The fix is to move the input: `x.to(device)`.

# %% tags=["claim-O3"]
model = nn.Linear(4, 2).to(device)
x = torch.randn(8, 4)  # created on the CPU

if torch.cuda.is_available():
    try:
        model(x)
    except RuntimeError as err:
        message = str(err)
    else:
        raise AssertionError("expected a device-mismatch error")
    print(message)
    assert "Expected all tensors to be on the same device" in message
    if torch.__version__ >= "2.8":
        assert "but got" in message
    else:
        assert "found at least two devices" in message
    y = model(x.to(device))  # the fix
    print(y.device)
    assert y.device == model.weight.device
else:
    print("No GPU: skipped the device-mismatch error; a CPU model accepts a CPU input.")
    assert model(x).device.type == "cpu"

# %% [markdown]
# Without a GPU you cannot see this error, and `meta` is not a faithful stand-in for it: `meta`
# kernels do not run the device check that CUDA kernels run, so a `meta` model fed a CPU input
# fails with a different message, or not at all.

# %% tags=["claim-F7"]
meta_model = nn.Linear(4, 2).to("meta")
try:
    meta_model(torch.randn(8, 4))
    message = "no error"
except RuntimeError as err:
    message = str(err)
print(message)
assert "Expected all tensors to be on the same device" not in message

# %% [markdown]
# ## Optimizers: move first, then build
#
# An optimizer holds references to the model's `Parameter` objects, plus per-parameter *state* that
# it creates on the first `step()` (Adam keeps two running averages, `exp_avg` and `exp_avg_sq`).
#
# Because a CPU → CUDA move keeps the `Parameter` objects, an optimizer built before the move still
# updates the right parameters. Its existing state, though, is not part of the module, so
# `model.to()` leaves it on the old device. `optimizer.load_state_dict(optimizer.state_dict())`
# converts the state to each parameter's device.

# %% tags=["claim-F4"]
model = nn.Linear(4, 2)  # on the CPU
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()  # creates Adam's state on the CPU

model.to(device)
assert optimizer.param_groups[0]["params"][0] is model.weight  # still the same Parameter

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
    print("No GPU: skipped the check that Adam's state stays on the CPU after a move to CUDA.")

# %% [markdown]
# The same thing happens with a dtype change, which you can watch on any machine: the state keeps
# its old dtype until you reload it.

# %% tags=["claim-F4"]
model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()

model.double()
state = optimizer.state[model.weight]
print(model.weight.dtype, state["exp_avg"].dtype)
assert optimizer.param_groups[0]["params"][0] is model.weight
assert state["exp_avg"].dtype == torch.float32  # not converted

optimizer.load_state_dict(optimizer.state_dict())
print(optimizer.state[model.weight]["exp_avg"].dtype)
assert optimizer.state[model.weight]["exp_avg"].dtype == torch.float64

# %% [markdown]
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
# We also pass `weights_only=True`, which only unpickles tensors and plain containers: the safe
# way to load a `state_dict`.

# %%
tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "checkpoint.pt")

model = nn.Linear(4, 2).to(device)
torch.save(model.state_dict(), path)
print("saved from", model.weight.device)

# %% tags=["claim-F8"]
if torch.cuda.is_available():
    as_saved = torch.load(path, weights_only=True)
    on_cpu = torch.load(path, map_location="cpu", weights_only=True)
    print(as_saved["weight"].device, on_cpu["weight"].device)
    assert as_saved["weight"].device.type == "cuda"  # back where it was saved
    assert on_cpu["weight"].device.type == "cpu"
else:
    print("No GPU: this checkpoint was saved from the CPU; a real GPU checkpoint needs a GPU to create.")

# %% [markdown]
# All four forms of `map_location` give CPU tensors here, whether the checkpoint came from a GPU or
# from the CPU.

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

# %% tags=["claim-F8"]
try:
    torch.load(path, map_location=0, weights_only=True)
except TypeError as err:
    print(err)
else:
    raise AssertionError("expected a TypeError")
finally:
    tmp.cleanup()

# %% [markdown]
# ## Summary
#
# - `model.to(device)` moves the model in place and returns it; no reassignment needed.
# - Between CPU and CUDA the `Parameter` objects stay the same; to `meta` they are replaced;
#   converted buffers are always new tensors. Leave `meta` with `to_empty()`, then initialise.
# - Only parameters, buffers and submodules move. Register other tensors with `register_buffer`.
# - Never assign a converted tensor to a parameter's name; move the whole module.
# - A model has no single device: `next(model.parameters()).device` is a convention.
# - In a device-mismatch error, find the argument named after `but got` and move it.
# - Move the model first, then build the optimizer.
# - Load GPU checkpoints on a CPU with `torch.load(path, map_location="cpu", weights_only=True)`.
