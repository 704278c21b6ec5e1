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
# # Device errors, decoded
#
# Each section of this page is headed with the error message it explains, so you can search the page
# for the words in your traceback. Each section says what the message means, shows the everyday code
# that causes it, and runs the fix right after it.
#
# Most of these errors can be produced without a GPU, and the page produces them: on a CPU-only build
# of PyTorch, with the `meta` device (shapes and dtypes, no data) standing in for a second device, with
# a checkpoint whose storages say `cuda`, and in a forked child process. Where a stand-in is used, the
# section says what it shows and what it does not. Errors that only a GPU can produce are in cells that
# run on a GPU; without one, such a cell prints the condition it needs, and the text quotes the message
# with the PyTorch version it comes from.

# %% tags=["setup"]
import contextlib
import importlib.util
import inspect
import multiprocessing
import os
import sys
import tempfile
import types
import warnings
import zipfile

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

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


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"{torch.__version__=}, {device=}, {torch.backends.cuda.is_built()=}")

# %% [markdown]
# ## Expected all tensors to be on the same device
#
# One operation received tensors on two devices, usually a CUDA GPU and the CPU. The rest of the
# message has changed between releases and differs between operations. Since PyTorch 2.8 a linear
# layer on the GPU fed a CPU input says `Expected all tensors to be on the same device, but got mat1 is
# on cpu, different from other tensors on cuda:0 (when checking argument in method
# wrapper_CUDA_addmm)`, while element-wise operations such as `+` still say `Expected all tensors to be
# on the same device, but found at least two devices, cuda:0 and cpu!`. Search your logs for the first
# part.
#
# The fix is not "move the tensor the message names": if the *model* was left on the CPU, the message
# names the input that is on the GPU. Put the model and every input on the one device you intend, and
# keep the result of each tensor move: `x = x.to(device)`.
#
# The cells below run on every machine. On a GPU they produce the real message; without one, the
# `meta` device plays the second device. In the operations these cells use (a linear layer, `+`, a
# loss), mixing `meta` and CPU tensors is caught too, but by a different check with a different message
# (`Tensor on device cpu is not on the expected device meta!`), so the cells below expect that message
# on a CPU-only machine and the real one on a GPU; the real message is checked only on a GPU. Not every
# operation makes that check for `meta`: `torch.mm` of a `meta` and a CPU matrix returns a `meta` tensor
# without an error, as the cell below shows, so `meta` stands in for a GPU only where a cell shows the
# error. What `meta` shows faithfully is *which* tensors end up on which device; it says nothing about
# speed or memory. The cells use `target`: the GPU if there is one, otherwise `meta`.

# %% tags=["gpu-only"]
target = device if device.type == "cuda" else torch.device("meta")
MISMATCH = "Expected all tensors to be on the same device" if target.type == "cuda" else "is not on the expected device"
print(f"{target=}")

layer = nn.Linear(3, 2).to(target)
with expect_error(RuntimeError, MISMATCH):
    layer(torch.randn(4, 3))
y = layer(torch.randn(4, 3, device=target))
print(f"{y.device=}")
assert y.device.type == target.type

unchecked = torch.mm(torch.ones(2, 2, device="meta"), torch.ones(2, 2))  # no device check here
print(f"{unchecked.device=}")
assert unchecked.device.type == "meta"

# %% [markdown]
# ### Tensors created inside forward
#
# The most common cause: a tensor created inside `forward` or a loss function without a device. A
# factory function such as `torch.zeros(n)` or `torch.tensor(values)` creates its tensor on the CPU (or
# on the default device), wherever the model and its input are. Moving the model does not help: the
# tensor is created anew on every call. Without a GPU, the cell shows the `meta` message instead.

# %% tags=["gpu-only"]
class Shifted(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 2)

    def forward(self, x):
        shift = torch.tensor([1.0, -1.0])  # created on the CPU on every call
        return self.linear(x) + shift


model = Shifted().to(target)
x = torch.randn(4, 3, device=target)
with expect_error(RuntimeError, MISMATCH):
    model(x)

# %% [markdown]
# The fix is to create the tensor where the input is. Three spellings do that: `device=x.device` in
# any factory function, `x.new_zeros(...)` (also `new_ones`, `new_full`, `new_tensor`), which copies the
# device and dtype of `x`, and `torch.zeros_like(x)` for a tensor of the same shape. A constant that
# belongs to the model is better registered as a buffer, so that `model.to()` moves it (see the
# page on moving models).

# %%
class ShiftedFixed(Shifted):
    def forward(self, x):
        shift = torch.tensor([1.0, -1.0], device=x.device)
        bias = x.new_zeros(x.shape[0], 2)
        noise = torch.zeros_like(x)
        for t in (shift, bias, noise):
            assert t.device == x.device
        assert bias.dtype == x.dtype
        return self.linear(x + noise) + shift + bias


model = ShiftedFixed().to(target)
y = model(x)
print(f"{y.device=}, {y.shape=}")
assert y.device.type == target.type

# %% [markdown]
# One exception to the rule, for element-wise operations only (`+`, `*`, comparisons and the like): a
# tensor with no dimensions (a single number, such as `torch.tensor(2.0)`) may stay on the CPU, and
# PyTorch treats it like a Python number. Other operations make no such exception:
# `torch.addmm(torch.tensor(1.0), a, b)`, with `a` and `b` on the GPU, fails the device check. The cell
# shows the element-wise case on every machine (with `meta` as the GPU when there is none); the
# `addmm` case needs a GPU, and without one the cell prints `torch.cuda.is_available()=False`.

# %% tags=["gpu-only"]
scaled = x * torch.tensor(2.0)  # element-wise: a 0-dim CPU tensor is allowed
print(f"{scaled.device=}")
assert scaled.device.type == target.type
if torch.cuda.is_available():
    a = torch.randn(2, 2, device="cuda")
    with expect_error(RuntimeError, "Expected all tensors to be on the same device"):
        torch.addmm(torch.tensor(1.0), a, a)  # not element-wise: the 0-dim exception does not apply
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ### Submodules in plain lists and dicts
#
# `nn.Module` finds its submodules through its attributes. Layers kept in a plain Python list or dict
# are invisible to it: `model.to(device)` leaves them where they were, and `model.parameters()` does not
# list them, so the optimizer never trains them. The first forward call then mixes devices. Keep them in
# `nn.ModuleList` or `nn.ModuleDict` instead.

# %% [markdown] tags=["predict"]
# **Predict:** `PlainContainers` keeps two `Linear(3, 3)` layers in a Python list and a `Linear(3, 1)` in a
# dict. How many parameters does `plain.parameters()` list?
#
# - `len(list(plain.parameters()))=6` — that is the count for `nn.ModuleList` and `nn.ModuleDict`, which register their layers.
# - `len(list(plain.parameters()))=0` — a module does not look inside plain lists and dicts, so it finds no parameters at all.

# %%
class PlainContainers(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = [nn.Linear(3, 3), nn.Linear(3, 3)]
        self.heads = {"score": nn.Linear(3, 1)}


class RegisteredContainers(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 3)])
        self.heads = nn.ModuleDict({"score": nn.Linear(3, 1)})


plain = PlainContainers().to(target)
registered = RegisteredContainers().to(target)
print(f"{len(list(plain.parameters()))=}, {len(list(registered.parameters()))=}")
print(f"{plain.blocks[0].weight.device=}, {registered.blocks[0].weight.device=}")
assert list(plain.parameters()) == []
assert len(list(registered.parameters())) == 6
assert plain.blocks[0].weight.device.type == "cpu"
assert plain.heads["score"].weight.device.type == "cpu"
assert registered.blocks[0].weight.device.type == target.type
assert registered.heads["score"].weight.device.type == target.type

# %% [markdown]
# An optimizer built from such a model gets no parameters at all:

# %%
with expect_error(ValueError, "empty parameter list"):
    torch.optim.SGD(plain.parameters(), lr=0.1)
optimizer = torch.optim.SGD(registered.parameters(), lr=0.1)
assert len(optimizer.param_groups[0]["params"]) == 6

# %% [markdown]
# ### Loss modules that hold tensors
#
# A loss built with a tensor argument, such as `nn.CrossEntropyLoss(weight=...)` or
# `nn.BCEWithLogitsLoss(pos_weight=...)`, keeps that tensor as a buffer. If you create it on the CPU and
# compute the loss on the GPU, the loss call mixes devices. A loss is a module: move it like the model.
# Without a GPU, `meta` plays the GPU again, and the cell shows the `meta` message.

# %% tags=["gpu-only"]
class_weights = torch.tensor([1.0, 3.0])
loss_fn = nn.CrossEntropyLoss(weight=class_weights)
print(f"{list(dict(loss_fn.named_buffers()))=}")
assert "pos_weight" in dict(nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0])).named_buffers())

logits = torch.randn(4, 2, device=target)
labels = torch.tensor([0, 1, 1, 0], device=target)
with expect_error(RuntimeError, MISMATCH):
    loss_fn(logits, labels)

loss_fn.to(target)
loss = loss_fn(logits, labels)
print(f"{loss_fn.weight.device=}, {class_weights.device=}, {loss.device=}")
assert loss_fn.weight.device.type == target.type
assert class_weights.device.type == "cpu"  # the tensor you passed in stays where it was
assert loss.device.type == target.type

# %% [markdown]
# ### Moving a nested batch
#
# A batch is often a dict or a tuple of tensors. Containers have no `.to()`, and moving the container
# is not possible anyway: each tensor must be moved and the result kept. A short recursive function
# does it for dicts, lists and tuples and leaves everything else (strings, numbers) as it is.

# %%
batch = {"image": torch.randn(2, 3), "label": torch.tensor([0, 1]), "extra": ("id-7", [torch.arange(2)])}
with expect_error(AttributeError, "has no attribute 'to'"):
    batch.to(target)


def to_device(obj, device):
    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, dict):
        return {key: to_device(value, device) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(value, device) for value in obj)
    return obj


moved = to_device(batch, target)
print(f"{moved['image'].device=}, {moved['extra'][0]=}, {moved['extra'][1][0].device=}")
assert moved["image"].device.type == moved["label"].device.type == target.type
assert moved["extra"][1][0].device.type == target.type
assert moved["extra"][0] == "id-7" and isinstance(moved["extra"], tuple)
assert batch["image"].device.type == "cpu"  # the original batch is unchanged

# %% [markdown]
# ## can't convert cuda:0 device type tensor to numpy
#
# A NumPy array lives in CPU memory, so `t.numpy()` works only on a CPU tensor, and only when the
# tensor does not require gradients. The full message adds `Use Tensor.cpu() to copy the tensor to host
# memory first.` The usual chain is `t.detach().cpu().numpy()`: `detach()` drops the autograd history,
# `cpu()` copies the data to the CPU (and does nothing for a tensor already there). `t.numpy(force=True)`
# does the same in one call, and also resolves a conjugated or negated view, which a plain `numpy()`
# refuses. Neither works for a `bfloat16` tensor: NumPy has no such dtype, and both raise `TypeError:
# Got unsupported ScalarType BFloat16`. Convert it first: `t.detach().cpu().float().numpy()`.
#
# The cell runs on any machine. The gradient check fires on the CPU; the device check is the same
# line of code for every device, so a `meta` tensor shows the same sentence with `meta` where your
# traceback says `cuda:0`. On a GPU the cell also shows the `cuda:0` message itself; without one, that
# check does not run. The cell needs NumPy, which PyTorch does not install; without it the cell prints
# that it is missing.

# %% tags=["gpu-only"]
HAS_NUMPY = importlib.util.find_spec("numpy") is not None
if HAS_NUMPY:
    w = torch.ones(3, requires_grad=True)
    with expect_error(RuntimeError, "requires grad"):
        w.numpy()
    with expect_error(TypeError, "can't convert meta device type tensor to numpy"):
        torch.ones(3, device="meta").numpy()
    if torch.cuda.is_available():
        with expect_error(TypeError, "can't convert cuda:0 device type tensor to numpy"):
            w.detach().to("cuda:0").numpy()
    array = w.to(device).detach().cpu().numpy()
    print(f"{type(array).__name__=}, {array.tolist()=}")
    assert array.tolist() == [1.0, 1.0, 1.0]
    assert w.to(device).numpy(force=True).tolist() == [1.0, 1.0, 1.0]
    assert torch.tensor([1 + 2j]).conj().numpy(force=True).tolist() == [1 - 2j]

    bf16 = torch.ones(3, dtype=torch.bfloat16, device=device)
    with expect_error(TypeError, "Got unsupported ScalarType BFloat16"):
        bf16.detach().cpu().numpy()
    with expect_error(TypeError, "Got unsupported ScalarType BFloat16"):
        bf16.numpy(force=True)
    assert bf16.detach().cpu().float().numpy().tolist() == [1.0, 1.0, 1.0]
else:
    print(f"{HAS_NUMPY=}")

# %% [markdown]
# ### item() and tolist() wait for the GPU
#
# `.item()`, `.tolist()`, `.numpy()` and `print(t)` on a CUDA tensor copy data to the CPU, so the CPU
# must wait until the GPU has finished all the work queued before them. One `.item()` per step is
# cheap; one per element in a loop is slow.
#
# The opposite mistake is common in training loops: adding up `loss` instead of `loss.item()`. The sum
# is then a tensor that stays on the GPU and carries the autograd graph of every step in it, so memory
# grows with each step. `loss.item()` gives a plain Python number.

# %% [markdown] tags=["predict"]
# **Predict:** `total_tensor` starts at `0.0`, and `total_tensor += loss` runs for three steps. What type is
# `total_tensor` at the end?
#
# - `type(total_tensor).__name__='Tensor'` — `0.0 + loss` is a tensor, on the loss's device and carrying its autograd graph.
# - `type(total_tensor).__name__='float'` — that needs `loss.item()`; a float plus a tensor is a tensor.

# %%
model = nn.Linear(3, 1).to(device)
total_tensor = 0.0
total_float = 0.0
for _ in range(3):
    loss = model(torch.randn(8, 3, device=device)).pow(2).mean()
    total_tensor += loss
    total_float += loss.item()

print(f"{type(total_tensor).__name__=}, {total_tensor.grad_fn is not None=}, {type(total_float).__name__=}")
assert isinstance(total_tensor, torch.Tensor) and total_tensor.grad_fn is not None
assert total_tensor.device.type == device.type
assert isinstance(total_float, float)
assert abs(total_tensor.item() - total_float) < 1e-4

# %% [markdown]
# On a GPU the next cell makes the waiting visible: it queues matrix products, reads one value with
# `.item()` and then asks the CUDA stream whether all queued work is done. It is, because `.item()`
# waited for it. Without a GPU the cell prints the condition it needs.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    stream = torch.cuda.current_stream()
    big = torch.randn(4096, 4096, device="cuda")
    out = torch.empty_like(big)
    for _ in range(2):  # the first round only warms up
        for _ in range(10):
            torch.mm(big, big, out=out)
        value = out[0, 0].item()
        idle = stream.query()
    print(f"{idle=}")
    assert idle
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Attempting to deserialize object on a CUDA device
#
# The full message: `Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is
# False. If you are running on a CPU-only machine, please use torch.load with
# map_location=torch.device('cpu') to map your storages to the CPU.` A checkpoint records, for each
# storage, the device it was saved from, and `torch.load` puts it back there. A file saved from a GPU
# therefore says `cuda:0`, and a machine without a usable CUDA GPU cannot honour that. The fix is in the
# message: `map_location`.
#
# To produce such a file without a GPU, the cell saves a CPU tensor and rewrites the device string in
# the file. A checkpoint is a zip archive; its `data.pkl` holds the pickled structure, with each
# storage's device as a short string. The rewrite changes only that string, which is all `torch.load`
# looks at to choose the device, so loading takes the same path as for a file saved on a GPU. It does
# not show how a GPU writes the file. On a GPU the file loads onto `cuda:0`; without one, the cell shows
# the error, then the fix.

# %% tags=["gpu-only"]
def retag(path, old, new):
    # Pickle protocol 2, which torch.save uses, writes a string as b"X" + 4-byte length + UTF-8 bytes.
    old_bytes = b"X" + len(old).to_bytes(4, "little") + old.encode()
    new_bytes = b"X" + len(new).to_bytes(4, "little") + new.encode()
    with zipfile.ZipFile(path) as archive:
        records = [(info, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w") as archive:
        for info, data in records:
            if info.filename.endswith("/data.pkl"):
                assert old_bytes in data
                data = data.replace(old_bytes, new_bytes)
            archive.writestr(info, data)


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    torch.save({"weight": torch.arange(3.0)}, path)
    retag(path, "cpu", "cuda:0")

    if torch.cuda.is_available():
        loaded = torch.load(path, weights_only=True)
        assert loaded["weight"].device == torch.device("cuda", 0)
    else:
        with expect_error(RuntimeError, "Attempting to deserialize object on a CUDA device"):
            torch.load(path, weights_only=True)

    on_cpu = torch.load(path, map_location="cpu", weights_only=True)
    here = torch.load(path, map_location=device, weights_only=True)

print(f"{on_cpu['weight']=}, {here['weight'].device=}")
assert on_cpu["weight"].device.type == "cpu"
assert torch.equal(on_cpu["weight"], torch.arange(3.0))
assert here["weight"].device.type == device.type

# %% [markdown]
# `weights_only=True` has been the default of `torch.load` since PyTorch 2.6; it is written out here so
# that the cell does the same on older releases.

# %% [markdown]
# ## Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same
#
# A convolution layer checks that its input has the same *type* as its weight and bias, where the type
# is the device and the dtype together: `torch.FloatTensor` is float32 on the CPU,
# `torch.cuda.FloatTensor` float32 on a CUDA GPU. The message therefore says that a CPU input reached a
# convolution on the GPU (or the other way round), and the fix is the same as for a device mismatch:
# move the input where the model is. With a CPU input the message can go on, when PyTorch has chosen
# its oneDNN (MKLDNN) code for that input: `Input type (...) and weight type (...) should be the same or
# input should be a MKLDNN tensor and weight is a dense tensor`. Both wordings are old: PyTorch 2.6 has
# them, as 2.13 does. Only a GPU produces them, so they are quoted here, and the GPU cell below checks
# the common part.
#
# A dtype mismatch, which happens on any machine, words it differently. A convolution converted to
# float64 and fed a float32 input says `Input type (float) and bias type (double) should be the same`,
# with dtype names instead of tensor types; without a bias it says `expected scalar type Float but found
# Double`. `x.to(conv.weight)` fixes a dtype and a device mismatch at once: given a tensor, `to` copies
# its device and dtype.

# %%
conv = nn.Conv2d(1, 2, 3).double()
image = torch.randn(1, 1, 5, 5)
with expect_error(RuntimeError, "Input type (float) and bias type (double) should be the same"):
    conv(image)
with expect_error(RuntimeError, "expected scalar type Float but found Double"):
    nn.Conv2d(1, 2, 3, bias=False).double()(image)

image = image.to(conv.weight)
out = conv(image)
print(f"{image.dtype=}, {out.dtype=}")
assert image.dtype == out.dtype == torch.float64

# %% [markdown]
# On a GPU, the next cell feeds a CPU image to a convolution on the GPU. Without a GPU it prints the
# condition it needs.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    conv = nn.Conv2d(1, 2, 3).to(device)
    image = torch.randn(1, 1, 5, 5)
    with expect_error(RuntimeError, "weight type (torch.cuda.FloatTensor)"):
        conv(image)
    out = conv(image.to(device))
    assert out.device == conv.weight.device
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## CUDA error: invalid device ordinal
#
# The GPU index does not exist: `cuda:1` on a machine with one GPU, for example, or an index that was
# valid before `CUDA_VISIBLE_DEVICES` hid some GPUs (the visible GPUs are numbered again from 0). Up to
# PyTorch 2.7 it is a `RuntimeError`; since 2.8 a `torch.AcceleratorError`, a subclass of
# `RuntimeError`. Since 2.9 the message has a second line, a hint: `GPU device may be out of range, do
# you have enough GPUs?` (2.8 does not have it yet).
#
# Writing the device does not check anything: `torch.device("cuda", 7)` works on every machine, even
# without CUDA. The error comes when a tensor is first put there.

# %%
seven = torch.device("cuda", 7)
print(f"{seven=}, {torch.cuda.device_count()=}")
assert seven.index == 7
if TORCH >= (2, 8):
    assert issubclass(torch.AcceleratorError, RuntimeError)

# %% [markdown]
# On a GPU, the next cell asks for one index past the last GPU (and, from 2.9, checks the hint line),
# then uses a valid index: anything below `torch.cuda.device_count()`. Without a GPU it prints the
# condition it needs.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    n = torch.cuda.device_count()
    with expect_error(torch.AcceleratorError if TORCH >= (2, 8) else RuntimeError, "invalid device ordinal"):
        torch.zeros(1, device=f"cuda:{n}")
    if TORCH >= (2, 9):
        with expect_error(RuntimeError, "do you have enough GPUs?"):
            torch.zeros(1, device=f"cuda:{n}")
    last = torch.zeros(1, device=f"cuda:{n - 1}")
    assert last.device.index == n - 1
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Cannot access accelerator device when none is available.
#
# Since PyTorch 2.5, an integer device (`device=0`, `.to(0)`, `torch.device(0)`) means an index on the
# current accelerator: CUDA, Apple's MPS, Intel's XPU and others. When there is none, PyTorch raises
# this error. It also comes from `pin_memory()`, which needs an accelerator. A CPU-only build raises
# it, and so does a CUDA build on a machine without a usable GPU up to PyTorch 2.6 (checked with
# 2.6.0+cu124 on a machine without an NVIDIA driver). From 2.7 such a build answers with the
# accelerator it was built for: `torch.device(0)` is `cuda:0`, and the error comes when a tensor is
# created there, with the reason, such as `Found no NVIDIA driver on your system` (checked with
# 2.11.0+cu130, the build Colab's CPU runtime has). The fix: name the device (`"cuda:0"`, or the
# `device` you chose once), and pin memory only when there is an accelerator. The cell shows which case
# this machine is in; on a GPU it creates a tensor on index 0.

# %% tags=["gpu-only"]
usable = torch.accelerator.is_available()
# From 2.7 current_accelerator() names the accelerator the build supports (None if none);
# on 2.6 it raises when none is usable, so it is asked only from 2.7 on
built_for = torch.accelerator.current_accelerator() if usable or TORCH >= (2, 7) else None
print(f"{usable=}, {built_for=}")
if usable:
    index_device = torch.zeros(1, device=0).device
    print(f"{index_device=}")
    assert index_device.type != "cpu"
elif built_for is None:
    with expect_error(RuntimeError, "none is available"):
        torch.zeros(1, device=0)
    with expect_error(RuntimeError, "none is available"):
        torch.ones(3).pin_memory()
else:
    # a build for an accelerator, on a machine without one: index 0 of that accelerator
    print(f"{torch.device(0)=}")
    assert torch.device(0) == torch.device(built_for.type, 0)
    try:
        torch.zeros(1, device=0)
    except RuntimeError as err:  # the reason, such as a missing driver
        sys.stdout.flush()
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError("expected RuntimeError")

named = torch.zeros(1, device=device)
print(f"{named.device=}")
assert named.device.type == device.type

# %% [markdown]
# ### pin_memory=True and non_blocking=True
#
# `DataLoader(..., pin_memory=True)` returns batches in page-locked (pinned) CPU memory, and
# `t.to(device, non_blocking=True)` can then queue the copy to the GPU and return at once. Without an
# accelerator, the DataLoader does not fail: it returns ordinary batches (some releases print a warning,
# which the cell collects and prints), and `to(..., non_blocking=True)` is an ordinary move. So the same
# loop runs everywhere. Whether pinning makes training faster is a separate question; the
# page on moving tensors measures it. On a GPU the cell also checks that the batches were pinned.

# %% tags=["gpu-only"]
loader = DataLoader(TensorDataset(torch.randn(8, 3), torch.arange(8)), batch_size=4, pin_memory=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for features, labels in loader:
        pinned = features.is_pinned()
        features = features.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)

print([str(w.message) for w in caught])
print(f"{pinned=}, {features.device=}, {labels.device=}")
assert features.device.type == labels.device.type == device.type
if torch.cuda.is_available():
    assert pinned
elif not torch.accelerator.is_available():
    assert not pinned

# %% [markdown]
# A copy in the other direction, `to("cpu", non_blocking=True)`, may return before the data has
# arrived: call `torch.cuda.synchronize()` before reading such a tensor. The
# page on moving tensors shows this on a GPU.

# %% [markdown]
# ## Cannot re-initialize CUDA in forked subprocess
#
# The full message: `Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing,
# you must use the 'spawn' start method`. On Linux, `multiprocessing` and DataLoader workers start
# child processes with `fork` by default (up to Python 3.13): a copy of the parent. If the parent has already initialised
# CUDA, a forked child cannot use CUDA at all.
#
# The cell forks a child that creates a tensor on `device`. On a GPU the parent has initialised CUDA
# (it created a tensor there), so the child fails with this message, which it sends back to the parent.
# Without a GPU, CUDA was never initialised, the error cannot occur, and the child creates its CPU
# tensor without trouble: the cell then shows `torch.cuda.is_initialized()` as `False` and the child's
# result. The cell runs on Linux only, where `fork` is the default and safe to demonstrate.

# %% tags=["gpu-only"]
def child(queue, device):
    try:
        queue.put(("ok", torch.ones(2, device=device).sum().item()))
    except RuntimeError as err:
        queue.put(("error", str(err)))


if sys.platform.startswith("linux"):
    torch.ones(1, device=device)  # on a GPU, this initialises CUDA in this process
    fork = multiprocessing.get_context("fork")
    queue = fork.SimpleQueue()
    process = fork.Process(target=child, args=(queue, device))
    process.start()
    outcome, result = queue.get()
    process.join()
    print(f"{torch.cuda.is_initialized()=}, {outcome=}, {result=}")
    if sys.version_info < (3, 14):
        assert multiprocessing.get_context().get_start_method() == "fork"
    if torch.cuda.is_initialized():
        assert outcome == "error" and "Cannot re-initialize CUDA in forked subprocess" in result
    else:
        assert outcome == "ok" and result == 2.0
else:
    print(f"{sys.platform=}")

# %% [markdown]
# The usual fix is to keep CUDA out of the workers: DataLoader workers load and prepare CPU tensors,
# and the training loop moves each batch to the device in the main process. That is also how the
# DataLoader is meant to be used, and it works with `fork` even after the parent has used the GPU. If a
# child process really must use CUDA, start it with `spawn`: `multiprocessing.get_context("spawn")`, or
# `DataLoader(..., multiprocessing_context="spawn")`.

# %% [markdown] tags=["predict"]
# **Predict:** Two DataLoader workers produce the batches, and the loop moves each batch to `device`. On which
# device are the batches the workers produce?
#
# - `devices={'cuda'}` — this would mean the workers used CUDA, which is what forked workers must not do.
# - `devices={'cpu'}` — the workers prepare CPU tensors; the move to the device happens in the main process.

# %%
loader = DataLoader(TensorDataset(torch.randn(8, 3)), batch_size=4, num_workers=2)
devices = set()
for (features,) in loader:
    devices.add(features.device.type)  # what the workers produced
    features = features.to(device)
print(f"{devices=}, {features.device=}")
assert devices == {"cpu"}
assert features.device.type == device.type

# %% [markdown]
# ## Torch not compiled with CUDA enabled
#
# The installed PyTorch is a CPU-only build (the wheel's version often ends in `+cpu`), and the code
# asked for CUDA, with `.cuda()` or `device="cuda"` for example: an `AssertionError`. Not every CUDA call
# on such a build says so: `torch.cuda.set_device(0)` fails with `AttributeError: module 'torch._C' has
# no attribute '_cuda_setDevice'`, which means the same thing. A CUDA build on a machine where CUDA
# cannot start says something else, a `RuntimeError` whose text names the reason. With PyTorch
# 2.6.0+cu124 on a machine without an NVIDIA driver, it reads `Found no NVIDIA driver on your system.
# Please check that you have an NVIDIA GPU and installed a driver from
# http://www.nvidia.com/Download/index.aspx`. The cell shows which case your machine is in; on a GPU it
# creates a CUDA tensor.
#
# The fixes: to use a GPU, install a CUDA build of PyTorch (the selector on pytorch.org gives the
# command) on a machine with an NVIDIA GPU and driver; to run anywhere, choose the device once and use
# it everywhere, as every page of this course does.

# %% tags=["gpu-only"]
print(f"{torch.version.cuda=}, {torch.backends.cuda.is_built()=}, {torch.cuda.is_available()=}")
if not torch.backends.cuda.is_built():
    with expect_error(AssertionError, "Torch not compiled with CUDA enabled"):
        torch.zeros(1, device="cuda")
    with expect_error(AssertionError, "Torch not compiled with CUDA enabled"):
        torch.ones(1).cuda()
    with expect_error(AttributeError, "_cuda_setDevice"):
        torch.cuda.set_device(0)
elif not torch.cuda.is_available():
    try:
        torch.zeros(1, device="cuda")
    except RuntimeError as err:  # the reason varies: no driver, a driver too old, no GPU
        sys.stdout.flush()
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError("expected RuntimeError")
else:
    assert torch.zeros(1, device="cuda").is_cuda

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
assert torch.zeros(1, device=device).device.type == device.type

# %% [markdown]
# ## module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on device: cpu
#
# `nn.DataParallel` raises this on a machine with two or more GPUs when the wrapped model is not on the
# first GPU in `device_ids`. With several GPUs it moves nothing itself; it checks, in its `forward`,
# that every parameter and buffer is already there. (With exactly one device id it moves the model
# for you, which is why the same code works on a one-GPU machine; the fact-check
# page tests each case.) The fix: `model.to("cuda:0")` before
# wrapping, or better, `DistributedDataParallel`, which the documentation of `DataParallel` itself
# recommends. A plain list of layers (see above) can hide parameters from this check as well as from
# `model.to()`.
#
# The check is in the Python source of `DataParallel.forward`, which any machine can read:

# %%
source = inspect.getsource(nn.DataParallel.forward)
print(f"{'module must have its parameters and buffers' in source=}")
assert "module must have its parameters and buffers" in source
assert "DistributedDataParallel" in nn.DataParallel.__doc__

# %% [markdown]
# With two or more GPUs, the next cell wraps a CPU model, shows the error, and then moves the model to
# `cuda:0` first. With fewer GPUs it prints the GPU count.

# %% tags=["gpu-only"]
if torch.cuda.device_count() >= 2:
    dp = nn.DataParallel(nn.Linear(4, 2))
    with expect_error(RuntimeError, "module must have its parameters and buffers on device cuda:0"):
        dp(torch.randn(8, 4))
    dp = nn.DataParallel(nn.Linear(4, 2).to("cuda:0"))
    out = dp(torch.randn(8, 4))
    assert out.device == torch.device("cuda", 0)
else:
    print(f"{torch.cuda.device_count()=}")

# %% [markdown]
# ## CUDA out of memory
#
# In PyTorch 2.6 the message has this form, with sizes where the dots are: `CUDA out of memory. Tried to
# allocate …. GPU 0 has a total capacity of … of which … is free. Including non-PyTorch memory, this
# process has … memory in use. Of the allocated memory … is allocated by PyTorch, and … is reserved by
# PyTorch but unallocated. If reserved but unallocated memory is large try setting
# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.` The figures in it:
#
# - *allocated by PyTorch* (`torch.cuda.memory_allocated()`): memory held by live tensors;
# - *reserved by PyTorch* (`torch.cuda.memory_reserved()`): what PyTorch's caching allocator has taken
#   from the GPU, allocated or not. Freed tensors go back to this cache, not to the GPU, so
#   `nvidia-smi` still counts them;
# - `nvidia-smi` also counts the CUDA context of each process and other processes on the same GPU.
#
# First things to try: a smaller batch; `loss.item()` instead of keeping `loss` tensors (see above);
# `torch.no_grad()` for evaluation; `del` for large tensors you no longer need; and, when the reserved
# but unallocated part is large, the `expandable_segments` setting from the message.
#
# The error is `torch.cuda.OutOfMemoryError`, a subclass of `RuntimeError`, on every machine:

# %%
print(f"{torch.cuda.OutOfMemoryError.__mro__[:2]=}")
assert issubclass(torch.cuda.OutOfMemoryError, RuntimeError)

# %% [markdown]
# On a GPU, the next cell asks for twice the GPU's memory, then shows that a freed tensor leaves
# *allocated* memory but stays *reserved* until `torch.cuda.empty_cache()`. Without a GPU it prints the
# condition it needs.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    total = torch.cuda.get_device_properties(0).total_memory
    with expect_error(torch.cuda.OutOfMemoryError, "CUDA out of memory"):
        torch.empty(2 * total, dtype=torch.uint8, device="cuda:0")

    torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated(0)
    block = torch.empty(256 * 2**20, dtype=torch.uint8, device="cuda:0")
    del block
    reserved = torch.cuda.memory_reserved(0)
    torch.cuda.empty_cache()
    print(f"{torch.cuda.memory_allocated(0) - before=}, {reserved=}, {torch.cuda.memory_reserved(0)=}")
    assert torch.cuda.memory_allocated(0) == before
    assert reserved >= 256 * 2**20
    assert torch.cuda.memory_reserved(0) < reserved
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Summary
#
# | Message (fragment) | Usual cause | Fix |
# |---|---|---|
# | `Expected all tensors to be on the same device` | an input, a tensor created in `forward`, a plain list of layers or a loss left on the CPU | one device for the model, the loss and every input; `device=x.device`, `x.new_zeros`, `zeros_like`; `ModuleList`, `ModuleDict`; `loss_fn.to(device)` |
# | `can't convert cuda:0 device type tensor to numpy` | `.numpy()` on a GPU tensor | `t.detach().cpu().numpy()` or `t.numpy(force=True)`, with `.float()` first for `bfloat16`; sum `loss.item()`, not `loss` |
# | `Attempting to deserialize object on a CUDA device` | a GPU checkpoint loaded without a usable GPU | `torch.load(path, map_location=device)` |
# | `Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)` | a CPU input to a convolution on the GPU | `x = x.to(device)`, or `x.to(conv.weight)` for device and dtype |
# | `CUDA error: invalid device ordinal` | a GPU index that does not exist | an index below `torch.cuda.device_count()` |
# | `Cannot access accelerator device when none is available.` | an integer device or `pin_memory()` without an accelerator | name the device; pin only with an accelerator |
# | `Cannot re-initialize CUDA in forked subprocess` | CUDA in a forked child after the parent used it | CPU work in workers, move in the main process; or `spawn` |
# | `Torch not compiled with CUDA enabled` | a CPU-only build asked for CUDA (`set_device` says `no attribute '_cuda_setDevice'`) | a CUDA build, or choose the device once |
# | `module must have its parameters and buffers on device cuda:0` | `DataParallel` on 2+ GPUs with the model on the CPU | `model.to("cuda:0")` first, or `DistributedDataParallel` |
# | `CUDA out of memory` | more memory asked than the GPU has free | smaller batches, `loss.item()`, `no_grad()`, `del`; read allocated vs reserved |
