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
# # Device mismatch errors, decoded
#
# An operation that gets tensors on two devices stops with one of the errors on this page. Each section
# is headed with the error message it explains, so you can search the page for the words in your
# traceback. Each section says what the message means, shows the everyday code that causes it, and runs
# the fix right after it. Errors from loading a checkpoint, the machine, worker processes and GPU memory
# are on [Setup and memory errors, decoded](09-setup-and-memory-errors.ipynb).
#
# Without a GPU, the page produces close relatives of these errors: a device check of its own that
# fails with the `meta` device (its tensors have shapes and dtypes, no data) standing in for the GPU, or a dtype mismatch in
# place of a device mismatch. Each section says which message a GPU gives instead.
#
# Errors that only a GPU can produce are checked in GPU-only cells. Without a GPU, such a cell prints
# the condition it needs instead, and the text quotes the message as PyTorch's source writes it, with
# the version it comes from.

# %% [markdown] tags=["summary"]
# **In short**
#
# - Most device errors mean that one operation received tensors on two devices. Put the model, the loss and every input on one device, and keep the result of each tensor move.
# - The table at the end of the page lists each message with its usual cause and its fix.
#
# ```python
# model.to(device)
# loss_fn.to(device)
# x, y = x.to(device), y.to(device)
# ```

# %% tags=["setup"]
import contextlib
import importlib.util
import inspect
import sys
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
print(f"{torch.__version__=}, {device=}, {torch.backends.cuda.is_built()=}")

# %% [markdown]
# ## Expected all tensors to be on the same device
#
# One operation received tensors on two devices, usually a CUDA GPU and the CPU. The rest of the
# message has changed between releases and differs between operations. Since PyTorch 2.8, a linear
# layer on the GPU given a CPU batch says:
#
# ```
# Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)
# ```
#
# Element-wise operations such as `+` still say:
#
# ```
# Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# ```
#
# Search your logs for the first part.
#
# The fix is not "move the tensor the message names": if the *model* was left on the CPU, the message
# names the input that is on the GPU. Put the model and every input on the one device you intend, and
# keep the result of each tensor move: `x = x.to(device)`.
#
# The cells below run on every machine and use `target`: the GPU if there is one, otherwise `meta`. On
# a GPU they expect the real message, which is checked only there. With `meta`, the operations these
# cells use (a linear layer, `+`, a loss) fail too, but in a different check with a different message,
# `Tensor on device … is not on the expected device …!`, which names the two devices in an order that
# depends on the operation.
#
# Not every operation makes that check for `meta`: `torch.mm` of a `meta` and a CPU matrix returns a
# `meta` tensor without an error, as the cell below shows. So `meta` stands in for a GPU only where a
# cell shows the error. What it does show faithfully is *which* tensors end up on which device; it says
# nothing about speed or memory.

# %% tags=["gpu-only"]
SAME_DEVICE = "Expected all tensors to be on the same device"
target = device if device.type == "cuda" else torch.device("meta")
if target.type == "cuda":
    MISMATCH = SAME_DEVICE
else:
    MISMATCH = "is not on the expected device"
print(f"{target=}")

layer = nn.Linear(3, 2).to(target)
with expect_error(RuntimeError, MISMATCH):
    layer(torch.randn(4, 3))
y = layer(torch.randn(4, 3, device=target))
print(f"{y.device=}")
assert y.device.type == target.type

# torch.mm makes no device check for meta
unchecked = torch.mm(torch.ones(2, 2, device="meta"), torch.ones(2, 2))
print(f"{unchecked.device=}")
assert unchecked.device.type == "meta"

# %% [markdown]
# ### Tensors created during the forward pass
#
# The most common cause: a tensor created inside the `forward` method or a loss function without a
# device. A factory function such as `torch.zeros(n)` or `torch.tensor(values)` creates its tensor on
# the CPU (or on the default device), wherever the model and its input are. Moving the model does not
# help: the tensor is created anew on every call. Without a GPU, the cell shows the `meta` message
# instead.

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
# The fix is to create the tensor where the input is. Three spellings do that:
#
# - `device=x.device` in any factory function;
# - `x.new_zeros(...)` (also `new_ones`, `new_full`, `new_tensor`), which copies the device and dtype
#   of `x`;
# - `torch.zeros_like(x)`, for a tensor of the same shape.
#
# A constant that belongs to the model is better registered as a buffer, so that `model.to()` moves
# it (see [Moving models](03-moving-models.ipynb)).

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
# PyTorch treats it like a Python number. Operations that are not element-wise generally make no such exception:
# `torch.addmm(torch.tensor(1.0), a, b)`, with `a` and `b` on the GPU, fails the device check. The cell
# shows the element-wise case on every machine (with `meta` as the GPU when there is none); the `addmm`
# case needs a GPU.

# %% tags=["gpu-only"]
scaled = x * torch.tensor(2.0)  # element-wise: a 0-dim CPU tensor is allowed
print(f"{scaled.device=}")
assert scaled.device.type == target.type
if torch.cuda.is_available():
    a = torch.randn(2, 2, device="cuda")
    # addmm is not element-wise: the 0-dim exception does not apply
    with expect_error(RuntimeError, SAME_DEVICE):
        torch.addmm(torch.tensor(1.0), a, a)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ### Submodules in plain lists and dicts
#
# Some models keep their layers in a Python list or dict. The next cell builds such a model,
# `PlainContainers`, and a twin, `RegisteredContainers`, that keeps the same layers in
# `nn.ModuleList` and `nn.ModuleDict`, and moves both to `target`.

# %% [markdown] tags=["predict"]
# **Predict:** `PlainContainers` keeps two `Linear(3, 3)` layers (a weight and a bias each) in a list
# and a `Linear(3, 1)` in a dict. How many parameters does `plain.parameters()` list?
#
# - `len(list(plain.parameters()))=6`
# - `len(list(plain.parameters()))=4`
# - `len(list(plain.parameters()))=0`
# - `len(list(plain.parameters()))=2`

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
print(f"{len(list(plain.parameters()))=}")
print(f"{len(list(registered.parameters()))=}")

# %% tags=["answer"]
print(f"{plain.blocks[0].weight.device=}")
print(f"{registered.blocks[0].weight.device=}")
assert list(plain.parameters()) == []
assert len(list(registered.parameters())) == 6
assert dict(plain.named_children()) == {}  # nothing was registered
assert set(dict(registered.named_children())) == {"blocks", "heads"}
assert plain.blocks[0].weight.device.type == "cpu"
assert plain.heads["score"].weight.device.type == "cpu"
assert registered.blocks[0].weight.device.type == target.type
assert registered.heads["score"].weight.device.type == target.type

# %% [markdown] tags=["answer"]
# **Answer:** `len(list(plain.parameters()))=0`. A module registers a submodule when it is assigned
# to one of its attributes: `nn.Module.__setattr__` sees that the value is a module and records it. A
# list or a dict is not a module, so none of the three layers was registered, and `parameters()` and
# `to()` never look inside plain containers: not inside the list (which would give `4`), not inside
# the dict (`2`).
#
# `6` is what `RegisteredContainers` lists: `nn.ModuleList` and `nn.ModuleDict` are modules, and they
# register what they hold. The checks above also show that `to(target)` left the plain layers on the
# CPU, so on a GPU the first forward pass through them mixes devices.

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
bce = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))
assert "pos_weight" in dict(bce.named_buffers())

logits = torch.randn(4, 2, device=target)
labels = torch.tensor([0, 1, 1, 0], device=target)
with expect_error(RuntimeError, MISMATCH):
    loss_fn(logits, labels)

loss_fn.to(target)
loss = loss_fn(logits, labels)
print(f"{loss_fn.weight.device=}, {class_weights.device=}, {loss.device=}")
assert loss_fn.weight.device.type == target.type
assert class_weights.device.type == "cpu"  # the tensor passed in stays put
assert loss.device.type == target.type

# %% [markdown]
# ### Moving a nested batch
#
# A batch is often a dict or a tuple of tensors. Containers have no `.to()`, and moving the container
# is not possible anyway: each tensor must be moved and the result kept. A short recursive function
# does it for dicts, lists and tuples and leaves everything else (strings, numbers) as it is.

# %%
batch = {
    "image": torch.randn(2, 3),
    "label": torch.tensor([0, 1]),
    "extra": ("id-7", [torch.arange(2)]),
}
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
print(f"{moved['image'].device=}, {moved['extra'][0]=}")
print(f"{moved['extra'][1][0].device=}")
assert moved["image"].device.type == moved["label"].device.type == target.type
assert moved["extra"][1][0].device.type == target.type
assert moved["extra"][0] == "id-7" and isinstance(moved["extra"], tuple)
assert batch["image"].device.type == "cpu"  # the original batch is unchanged

# %% [markdown]
# ## can't convert cuda:0 device type tensor to numpy
#
# A NumPy array lives in CPU memory, so `t.numpy()` works only on a CPU tensor, and only when the
# tensor does not require gradients. On a CUDA tensor it copies nothing: it raises this `TypeError`,
# whose full text goes on `Use Tensor.cpu() to copy the tensor to host memory first.`
#
# The usual chain is `t.detach().cpu().numpy()`: `detach()` drops the autograd history, `cpu()` copies
# the data to the CPU (and does nothing for a tensor already there). `t.numpy(force=True)` does the
# same in one call, and also resolves a conjugated view, which a plain `numpy()` refuses. Neither works
# for a `bfloat16` tensor: NumPy has no such dtype, and both raise `TypeError: Got unsupported
# ScalarType BFloat16`. Convert it first: `t.detach().cpu().float().numpy()`.
#
# The cell runs on any machine. The gradient check fires on the CPU. The device check is the same line
# of code for every device, so a `meta` tensor shows the same sentence with `meta` where your traceback
# says `cuda:0`; on a GPU the cell also checks the `cuda:0` message itself. The cell needs NumPy, which
# PyTorch does not install; without it the cell prints `HAS_NUMPY=False`.

# %% tags=["gpu-only"]
HAS_NUMPY = importlib.util.find_spec("numpy") is not None
if HAS_NUMPY:
    w = torch.ones(3, requires_grad=True)
    with expect_error(RuntimeError, "requires grad"):
        w.numpy()
    with expect_error(TypeError, "can't convert meta device type"):
        torch.ones(3, device="meta").numpy()
    if torch.cuda.is_available():
        with expect_error(TypeError, "can't convert cuda:0 device type"):
            w.detach().to("cuda:0").numpy()
    array = w.to(device).detach().cpu().numpy()
    print(f"{type(array).__name__=}, {array.tolist()=}")
    assert array.tolist() == [1.0, 1.0, 1.0]
    assert w.to(device).numpy(force=True).tolist() == [1.0, 1.0, 1.0]
    conjugated = torch.tensor([1 + 2j]).conj()
    with expect_error(RuntimeError, "conjugate bit"):
        conjugated.numpy()
    assert conjugated.numpy(force=True).tolist() == [1 - 2j]

    bf16 = torch.ones(3, dtype=torch.bfloat16, device=device)
    with expect_error(TypeError, "Got unsupported ScalarType BFloat16"):
        bf16.detach().cpu().numpy()
    with expect_error(TypeError, "Got unsupported ScalarType BFloat16"):
        bf16.numpy(force=True)
    assert bf16.detach().cpu().float().numpy().tolist() == [1.0, 1.0, 1.0]
else:
    print(f"{HAS_NUMPY=}")

# %% [markdown]
# ### Reading a value waits for the GPU
#
# `.item()`, `.tolist()` and `print(t)` on a CUDA tensor copy its data to the CPU, so the CPU must wait
# until the GPU has finished the work queued before them on the current stream, the one the copy
# runs on. (Work on other streams is not waited for; `torch.cuda.synchronize()` waits for the whole
# device. `.numpy()` copies nothing: on a CUDA tensor it raises the `TypeError` above.) While it
# waits, the CPU queues nothing, so the GPU runs out of work and idles until the next step arrives. Even one `.item()` per step costs that gap every step;
# one per element in a loop costs it once per element.
#
# A training loop often adds up its losses, to report an average. The next cell does it both ways for
# three steps: `total_tensor += loss` and `total_float += loss.item()`.

# %% [markdown] tags=["predict"]
# **Predict:** `total_tensor` starts as the Python float `0.0`. After three steps of
# `total_tensor += loss`, what is it (`kind`), and does it carry an autograd graph (`tracked`: it has a
# `grad_fn`)?
#
# - `kind='float', tracked=False`
# - `kind='Tensor', tracked=True`
# - `kind='Tensor', tracked=False`

# %%
model = nn.Linear(3, 1).to(device)
total_tensor = 0.0
total_float = 0.0
for _ in range(3):
    loss = model(torch.randn(8, 3, device=device)).pow(2).mean()
    total_tensor += loss
    total_float += loss.item()

kind = type(total_tensor).__name__
tracked = getattr(total_tensor, "grad_fn", None) is not None
print(f"{kind=}, {tracked=}")

# %% tags=["answer"]
print(f"{type(total_float).__name__=}, {total_tensor.device=}")
assert isinstance(total_tensor, torch.Tensor)
assert total_tensor.grad_fn is not None
assert total_tensor.device.type == device.type
assert isinstance(total_float, float)
assert abs(total_tensor.item() - total_float) < 1e-4
running = torch.zeros((), device=device) + loss.detach()
assert running.grad_fn is None and running.device.type == device.type


def graph_nodes(node):
    # the kinds of the nodes reachable from `node`, following next_functions
    kinds, todo = [], [node]
    while todo:
        node = todo.pop()
        kinds.append(type(node).__name__)
        todo += [n for n, _ in node.next_functions if n is not None]
    return kinds


steps = graph_nodes(total_tensor.grad_fn).count("MeanBackward0")
print(f"{steps=}")
assert steps == 3  # one graph per step hangs off the sum

# %% [markdown] tags=["answer"]
# **Answer:** `kind='Tensor', tracked=True`. A Python number plus a tensor is a tensor, on the
# tensor's device, so `0.0 + loss` is already one. Every `+=` after that is a tensor operation that
# autograd records, because `loss` requires gradients. So the sum refers to the graph of every step
# (the check above finds all three) and keeps each one alive as long as the sum lives. Where no
# `backward()` has run through a step's graph, as in this cell or in an evaluation loop without
# `no_grad`, that graph also keeps the tensors it saved for backward, and memory grows with each
# step. Adding `loss.detach()` instead gives a sum without a graph (`tracked=False`).
#
# The sum stays a `float` only when what you add is a plain Python number: `loss.item()`, as in
# `total_float`.
#
# The usual pattern adds `loss.detach()` to a running sum that stays on the device
# (`running += loss.detach()`) and calls `running.item()` only every N steps, so the CPU waits once
# per N steps instead of every step. A CPU run can check that such a sum stays a tensor on `device`
# without a graph; it cannot show the time saved: on a CPU an
# operation has finished when its call returns, so there is no queue to keep full.

# %% [markdown]
# On a GPU the next cell makes the waiting visible: it queues matrix products, reads one value with
# `.item()`, and then asks the current CUDA stream whether all its queued work is done. On a GPU
# the cell asserts that it is, because `.item()` waited for it. Without a GPU the cell prints the condition it needs.

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
# ## Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same
#
# A convolution can check that its input has the same *type* as its weight and bias, where the type is
# the device and the dtype together: `torch.FloatTensor` is float32 on the CPU,
# `torch.cuda.FloatTensor` float32 on a CUDA GPU. This message says that a CPU input reached a
# convolution on the GPU. The fix is the same as for any device mismatch: move the input where the
# model is.
#
# Whether you get this message or another one depends on the code PyTorch chooses for the convolution,
# and it chooses by looking at the input (`_select_conv_backend` in PyTorch's `Convolution.cpp`):
#
# - A float32 CPU input goes to oneDNN (Intel's deep-learning library for CPUs, once called
#   MKLDNN) in most cases, for example a batch of several images, when the build has oneDNN
#   (`torch.backends.mkldnn.is_available()`). oneDNN checks the types and gives this section's
#   message, with a tail:
#   `... should be the same or input should be a MKLDNN tensor and weight is a dense tensor`.
# - A single small image (at most 20,480 values, a kernel with at least one side of 3 or less,
#   `groups=1`) goes to PyTorch's plain convolution code, which checks no types. Instead, the
#   wrapper that PyTorch generates for the dispatcher (`wrapper_CUDA___slow_conv2d_forward`) checks
#   the devices before any kernel runs, and the message is the one from the first section of this page:
#
#   ```
#   Expected all tensors to be on the same device, but got weight is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA___slow_conv2d_forward)
#   ```
#
#   Before PyTorch 2.8 the same check says `... found at least two devices, cpu and cuda:0! (when
#   checking argument for argument weight in method wrapper_CUDA___slow_conv2d_forward)`.
# - The other way round, a GPU input to a convolution left on the CPU goes to cuDNN, which says
#   `Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same`.
#
# These messages come from PyTorch's source (2.6 and 2.13 choose the same code for these inputs); on a
# GPU, a cell further down checks each of them.
#
# A dtype mismatch happens on any machine and takes the same paths. A convolution converted to float64
# and given a float32 image fails first on its bias, before any path is chosen, with dtype names
# instead of tensor types. Without a bias, a single small image takes the plain path, whose kernel says
# `expected scalar type Float but found Double`:

# %%
conv = nn.Conv2d(1, 2, 3).double()
image = torch.randn(1, 1, 5, 5)
with expect_error(RuntimeError, "Input type (float) and bias type (double)"):
    conv(image)
no_bias = nn.Conv2d(1, 2, 3, bias=False).double()
with expect_error(RuntimeError, "expected scalar type Float but found Double"):
    no_bias(image)

# %% [markdown] tags=["predict"]
# **Predict:** The same float64 convolution without a bias now gets a batch of eight float32 images.
# Which message does it raise, on the machine that runs the cell?
#
# - `expected scalar type Float but found Double`
# - `bias type (double)`
# - `weight type (torch.DoubleTensor)`

# %%
images = torch.randn(8, 1, 5, 5)
with expect_error(Exception) as caught:
    no_bias(images)

# %% tags=["answer"]
mkldnn = torch.backends.mkldnn
onednn = mkldnn.is_available() and mkldnn.enabled
print(f"{onednn=}")
assert type(caught.error) is RuntimeError
if onednn:
    assert "weight type (torch.DoubleTensor)" in str(caught.error)
else:
    assert "expected scalar type Float" in str(caught.error)

# %% [markdown] tags=["answer"]
# **Answer:** `weight type (torch.DoubleTensor)` on a build with oneDNN (`onednn=True` in the output
# above). A batch of eight goes to oneDNN, whose check compares tensor types: float32 on the CPU
# against float64 on the CPU. On a build without oneDNN the batch takes the plain path as well, and the
# message is `expected scalar type Float but found Double`. `bias type (double)` cannot appear: this
# convolution has no bias. The same choice of path decides what a CPU input to a convolution on the GPU
# says.
#
# `x.to(conv.weight)` fixes a dtype and a device mismatch at once: given a tensor, `to` copies its
# device and dtype.

# %%
image = image.to(conv.weight)
out = conv(image)
print(f"{image.dtype=}, {out.dtype=}")
assert image.dtype == out.dtype == torch.float64

# %% [markdown]
# On a GPU, the next cell gives a convolution on the GPU a CPU batch and then a single small CPU image,
# and checks the message each path gives; then it gives a convolution on the CPU a GPU batch.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    conv = nn.Conv2d(3, 8, 3).to(device)
    mkldnn = torch.backends.mkldnn
    onednn = mkldnn.is_available() and mkldnn.enabled
    # a CPU batch: oneDNN checks types; without it, the wrapper checks devices
    cpu_input = "weight type (torch.cuda.FloatTensor)"
    with expect_error(RuntimeError, cpu_input if onednn else SAME_DEVICE):
        conv(torch.randn(8, 3, 32, 32))
    # one small CPU image: the plain path; its wrapper checks devices first
    with expect_error(RuntimeError, SAME_DEVICE) as caught:
        conv(torch.randn(1, 3, 5, 5))
    assert "slow_conv2d_forward" in str(caught.error)
    # a GPU batch, a convolution on the CPU: cuDNN checks types
    cudnn = torch.backends.cudnn
    gpu_input = "Input type (torch.cuda.FloatTensor)"
    uses_cudnn = cudnn.is_available() and cudnn.enabled
    with expect_error(RuntimeError, gpu_input if uses_cudnn else SAME_DEVICE):
        nn.Conv2d(3, 8, 3)(torch.randn(8, 3, 32, 32, device=device))

    out = conv(torch.randn(8, 3, 32, 32).to(device))
    assert out.device == conv.weight.device
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on device: cpu
#
# `nn.DataParallel` raises this on a machine with two or more GPUs when the wrapped model is not on the
# first GPU in `device_ids`. With several GPUs it moves nothing itself; it checks, in its `forward`
# method, that every parameter and buffer is already there. With exactly one device id it moves the
# model for you, which is why the same code works on a one-GPU machine
# ([Fact-check](06-fact-check.ipynb) tests each case).
#
# The fix: `model.to("cuda:0")` before wrapping, or better, `DistributedDataParallel`, which the
# documentation of `DataParallel` itself recommends. A plain list of layers (see above) can hide
# parameters from this check as well as from `model.to()`.
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
    with expect_error(RuntimeError, "parameters and buffers on device cuda:0"):
        dp(torch.randn(8, 4))
    dp = nn.DataParallel(nn.Linear(4, 2).to("cuda:0"))
    out = dp(torch.randn(8, 4))
    assert out.device == torch.device("cuda", 0)
else:
    print(f"{torch.cuda.device_count()=}")

# %% [markdown]
# ## Summary
#
# | Message (fragment) | Usual cause | Fix |
# |---|---|---|
# | `Expected all tensors to be on the same device` | an input, a tensor created in `forward`, a plain list of layers or a loss left on the CPU; a single small CPU image to a convolution on the GPU | one device for the model, the loss and every input; `device=x.device`, `x.new_zeros`, `zeros_like`; `ModuleList`, `ModuleDict`; `loss_fn.to(device)` |
# | `can't convert cuda:0 device type tensor to numpy` | `.numpy()` on a GPU tensor | `t.detach().cpu().numpy()` or `t.numpy(force=True)`, with `.float()` first for `bfloat16` |
# | `Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)` | a CPU batch to a convolution on the GPU | `x = x.to(device)`, or `x.to(conv.weight)` for device and dtype |
# | `module must have its parameters and buffers on device cuda:0` | `DataParallel` on 2+ GPUs with the model on the CPU | `model.to("cuda:0")` first, or `DistributedDataParallel` |
