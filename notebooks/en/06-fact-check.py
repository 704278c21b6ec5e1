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
# # Fact-check: popular claims, tested
#
# Blog posts and answers about moving models to the GPU repeat a handful of claims. Some were never
# true; others were true for an old release (torch 1.7) and have since changed. This page states each
# claim, gives a verdict, and then tests it with code that runs on your machine. Every verdict is an
# `assert`, so if a future PyTorch release changes the behaviour, this page fails instead of quietly
# going out of date.
#
# Everything runs without a GPU. A cell whose test needs one prints `torch.cuda.is_available()=False`
# instead of results; where the right outcome depends on the machine, the cell checks the outcome for
# the machine it runs on. An expected error is caught, checked and shown by `expect_error`, defined in
# the first cell, and the page carries on.

# %% [markdown] tags=["summary"]
# **In short**
#
# - `model.to(device)` alone moves the model: it changes the module itself and returns it, so `model = model.to(device)` does the same work and saves no memory.
# - `nn.DataParallel` does not move the model for you (unless it has exactly one device id), and `device=0` is an index on the current accelerator, not necessarily `cuda:0`.
# - The table at the end of the page gives the verdict on every claim.
#
# ```python
# model.to(device)
# x = x.to(device)
# ```

# %% tags=["setup"]
import contextlib
import copy
import inspect
import sys
import types
import weakref

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
# ## Claim: model.to(device) leaves the model where it was
#
# **The claim.** Calling `model.to(device)` on its own does nothing to the model; only the reassignment
# `model = model.to(device)` puts it on the GPU.
#
# The test moves a model to the GPU, or, without a GPU, to `meta`, a device whose tensors keep shapes and
# dtypes but no data. `meta` shows where the parameters end up and which object comes back, but it
# says nothing about speed or memory.

# %% [markdown] tags=["predict"]
# **Predict:** `returned = model.to(target)`, with no reassignment of `model`. The cell prints whether
# `returned` is `model`, and whether the model's weight is now on the target device (`moved`). What
# does it show?
#
# - `returned is model=False, moved=False`
# - `returned is model=False, moved=True`
# - `returned is model=True, moved=True`

# %%
target = device if device.type == "cuda" else torch.device("meta")

model = nn.Linear(4, 2)
weight_before = model.weight
returned = model.to(target)

moved = model.weight.device.type == target.type
print(f"{returned is model=}, {moved=}")

# %% tags=["claim-M1", "gpu-only", "answer"]
assert returned is model
assert model.weight.device.type == target.type
assert model.bias.device.type == target.type
# CPU <-> GPU keeps the Parameter objects; a move to meta replaces them
assert (model.weight is weight_before) == (target.type == "cuda")

# %% [markdown] tags=["answer"]
# **Answer:** `returned is model=True, moved=True`. **Verdict: false.** `nn.Module.to` converts the
# module in place and returns that same module, so `model` has moved whether or not you reassign it.
# Reassigning is harmless, but it is not what makes the move happen.
#
# - `returned is model=False, moved=False` is the claim: a moved copy comes back and `model` stays.
#   That is how `Tensor.to` behaves, not `Module.to`.
# - `returned is model=False, moved=True` would mean a second module; there is only one.
#
# One difference between the two targets: a move between CPU and GPU keeps the `Parameter` objects,
# while a move to `meta` replaces them. The checks assert whichever case ran.

# %% [markdown]
# The other conversion methods of a module (`.cpu()`, `.double()`, `.half()`, `.float()`, and `.cuda()`,
# shown further down) follow the same rule: in place, and they return the module.

# %% tags=["claim-M1"]
other = nn.Linear(4, 2)
for convert in (other.double, other.half, other.float, other.cpu):
    assert convert() is other

print(other.weight.dtype, other.weight.device)
assert other.weight.dtype == torch.float32

# %% [markdown]
# Where the claim comes from: tensors *do* work that way. `Tensor.to` leaves the tensor alone and
# returns a tensor on the new device, so for a tensor you must keep the result.

# %% tags=["claim-M1"]
t = torch.ones(3)
moved = t.to(target)

print(t.device, moved.device)
assert moved is not t
assert t.device.type == "cpu"
assert moved.device.type == target.type

# %% [markdown]
# ## Claim: reassigning the model saves memory
#
# **The claim.** `model.to(device)` without reassignment keeps a second copy of the model, so
# `model = model.to(device)` uses less memory.
#
# **Verdict: false.** Both spellings call the same method on the same object and do the same work:
# each parameter is converted and put back into the module. The module keeps no reference to the old
# tensors, so they are released as soon as nothing else refers to them.
#
# The cell below tries each spelling on its own model. It converts float32 to float64 on the CPU, which
# allocates new memory just as a move to another device does. Weak references to the old storages do
# not keep them alive, so they show whether the old storages are gone.

# %% tags=["claim-M2"]
def weak_storages(module):
    return [weakref.ref(p.untyped_storage()) for p in module.parameters()]


a = nn.Linear(256, 256)
b = nn.Linear(256, 256)
a_object, b_object = a, b
a_old, b_old = weak_storages(a), weak_storages(b)
assert all(ref() is not None for ref in a_old + b_old)

a.to(torch.float64)
b = b.to(torch.float64)

for module, original, old in ((a, a_object, a_old), (b, b_object, b_old)):
    assert module is original
    dtypes = [p.dtype for p in module.parameters()]
    assert dtypes == [torch.float64, torch.float64]
    assert all(ref() is None for ref in old)

print(a.weight.dtype, b.weight.dtype, [ref() for ref in a_old + b_old])

# %% [markdown]
# On a GPU, "released" means given back to PyTorch's caching allocator, which keeps the memory for
# the next tensor. `torch.cuda.memory_allocated()`, the memory that tensors use, drops at once;
# `torch.cuda.memory_reserved()`, the memory the allocator holds, does not. `nvidia-smi` counts the
# reserved memory, so it shows no change either, until `torch.cuda.empty_cache()` hands the unused
# part back to the driver (PyTorch's
# [notes on CUDA memory management](https://docs.pytorch.org/docs/stable/notes/cuda.html#memory-management)
# say the same).
#
# On a GPU, the cell below moves two models of the same size to the GPU, one with each spelling, and
# asserts that each move took the same GPU memory, after the move and at its peak. It then deletes
# each model and asserts what happens to both counters, before and after `empty_cache()`.

# %% tags=["claim-M2", "gpu-only"]
if torch.cuda.is_available():
    used = []
    for reassign in (False, True):
        m = nn.Linear(1024, 1024)
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        if reassign:
            m = m.to(device)
        else:
            m.to(device)
        torch.cuda.synchronize()
        after = torch.cuda.memory_allocated()
        peak = torch.cuda.max_memory_allocated()
        used.append((after - before, peak - before))
        reserved = torch.cuda.memory_reserved()
        del m  # the last reference: its memory goes back to the cache
        assert torch.cuda.memory_allocated() == before
        assert torch.cuda.memory_reserved() == reserved  # still held
    print(f"{used=}")
    assert used[0] == used[1]
    torch.cuda.empty_cache()
    print(f"{reserved=}, {torch.cuda.memory_reserved()=}")
    assert torch.cuda.memory_reserved() < reserved  # handed back
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Claim: torch.cuda.copy() copies parameters to the GPU
#
# **The claim.** There is a function `torch.cuda.copy()` that copies a model's parameters to the GPU.
#
# The test calls it with a tensor, the way the claim uses it.

# %% [markdown] tags=["predict"]
# **Predict:** What does `torch.cuda.copy(torch.ones(3))` raise, on a machine with or without a GPU?
#
# - `Torch not compiled with CUDA enabled`
# - `has no attribute 'copy'`
# - `missing 1 required positional argument`

# %%
with expect_error(Exception) as caught:
    torch.cuda.copy(torch.ones(3))

# %% tags=["claim-M3", "answer"]
assert type(caught.error) is AttributeError
assert "has no attribute 'copy'" in str(caught.error)
assert not hasattr(torch.cuda, "copy")

# %% [markdown] tags=["answer"]
# **Answer:** `has no attribute 'copy'`, an `AttributeError`. **Verdict: false.** No such function
# exists, so the call fails the same way on every machine, with or without a GPU.
#
# - `Torch not compiled with CUDA enabled` would mean that the function exists and needs CUDA.
# - `missing 1 required positional argument` would mean that it exists and wants a destination too.

# %% [markdown]
# The real tools: `dst.copy_(src)` copies values into a tensor that already exists (on any device),
# `t.to(device)` returns a tensor on the device, and `t.clone()` makes new memory on the same device.
# For a whole model, `model.to(device)` is the tool.

# %% tags=["claim-M3"]
src = torch.arange(4.0)
dst = torch.empty(4, device=device)
dst.copy_(src)
moved = src.to(device)
cloned = src.clone()

print(dst, moved, cloned)
assert torch.equal(dst.cpu(), src)
assert torch.equal(moved.cpu(), src)
assert torch.equal(cloned, src) and cloned.data_ptr() != src.data_ptr()

# %% [markdown]
# ## Claim: model.cuda() costs more memory than model.to('cuda')
#
# **The claim.** `.cuda()` is the costly way to move a model; `.to('cuda')` needs less memory.
#
# **Verdict: false.** Both are short wrappers around the same internal method, `Module._apply`, which
# converts every parameter and buffer. You can read it in the source on any machine:

# %% tags=["claim-M4"]
for name in ("cuda", "to", "cpu", "double"):
    assert "self._apply(" in inspect.getsource(getattr(nn.Module, name)), name

print(inspect.getsource(nn.Module.cuda).strip().splitlines()[-1].strip())
print(inspect.signature(nn.Module.cuda))
assert "dtype" not in inspect.signature(nn.Module.cuda).parameters

# %% [markdown]
# The real differences are in what the two methods accept. Without an index, both use the current
# CUDA device; the signature printed above shows what else `.cuda()` takes.

# %% [markdown] tags=["predict"]
# **Predict:** `nn.Linear(2, 2).to(target, torch.float16)` passes a device and a dtype in one call.
# The cell prints the weight's device and dtype. Which dtype does it show, or what does it raise?
#
# - `torch.float32`
# - `TypeError`
# - `torch.float16`

# %%
both = nn.Linear(2, 2).to(target, torch.float16)
print(both.weight.device, both.weight.dtype)

# %% tags=["claim-M4", "answer"]
assert both.weight.device.type == target.type
assert both.weight.dtype == torch.float16
with expect_error(TypeError):
    nn.Linear(2, 2).cuda(target, torch.float16)  # a device only

# %% [markdown] tags=["answer"]
# **Answer:** `torch.float16`. `Module.to` takes a device and a dtype in the same call and converts
# both. `.cuda()` takes only a device, so it cannot change the dtype: given a dtype too, it raises a
# `TypeError`, as the last check shows.
#
# - `torch.float32` would mean that the second argument is ignored.
# - `TypeError` is what `.cuda()` raises when it is given a dtype as well.

# %% [markdown]
# On a GPU, the cell below moves two identical models, one with each method, and compares the memory
# they take and where they end up.

# %% tags=["claim-M4", "gpu-only"]
if torch.cuda.is_available():
    by_cuda = nn.Linear(1024, 1024)
    by_to = copy.deepcopy(by_cuda)
    used = []
    for move in (by_cuda.cuda, lambda: by_to.to("cuda")):
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        move()
        torch.cuda.synchronize()
        after = torch.cuda.memory_allocated()
        peak = torch.cuda.max_memory_allocated()
        used.append((after - before, peak - before))
    print(used, by_cuda.weight.device, by_to.weight.device)
    assert used[0] == used[1]
    assert by_cuda.weight.device == by_to.weight.device
    current = torch.device("cuda", torch.cuda.current_device())
    assert by_cuda.weight.device == current
    assert torch.equal(by_cuda.weight, by_to.weight)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Claim: nn.DataParallel puts the model on the GPU for you
#
# **The claim.** Wrapping a model in `nn.DataParallel` takes care of moving it to the GPU.
#
# **Verdict: mostly false.** What happens depends on the device ids the wrapper ends up with
# (`device_ids`, by default every visible GPU):
#
# - no accelerator, or an Apple GPU (MPS, which `DataParallel` does not support): `device_ids` is empty,
#   and the wrapper just calls the model where it is;
# - exactly one device id: the constructor moves the model to that GPU. This is the default on a
#   one-GPU machine, and also what `device_ids=[1]` does on a machine with several GPUs: the model
#   goes to `cuda:1`;
# - two or more device ids: the wrapper moves nothing, and the first forward call raises an error that
#   asks for the parameters on `device_ids[0]`.
#
# (An Intel XPU or another accelerator that `DataParallel` knows counts as a GPU here; see
# [Several GPUs](05-several-gpus.ipynb#what-nndataparallel-really-does).) The cell checks the branch that matches your machine; with several GPUs it also wraps
# a model with a single device id. Without a GPU it checks the first case only.
#
# This section's error, with its causes and fixes, is decoded in [Device mismatch errors, decoded](07-device-errors.ipynb#module-must-have-its-parameters-and-buffers-on-device-cuda0-device_ids0-but-found-one-of-them-on-device-cpu).

# %% tags=["claim-M5", "gpu-only"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(3, 4)
print(f"{dp.device_ids=}, {model.weight.device=}")
assert dp.module is model

if len(dp.device_ids) == 0:
    out = dp(x)
    assert model.weight.device.type == "cpu"
    assert out.device.type == "cpu"
elif len(dp.device_ids) == 1:
    out = dp(x)
    on = model.weight.device
    assert on.type != "cpu" and on.index == dp.device_ids[0]
    assert out.device == on
else:
    assert model.weight.device.type == "cpu"
    expected = "module must have its parameters and buffers on device"
    with expect_error(RuntimeError, expected):
        dp(x)
    last = dp.device_ids[-1]
    one = nn.DataParallel(nn.Linear(4, 2), device_ids=[last])
    print(f"{one.module.weight.device=}")
    assert one.module.weight.device == torch.device("cuda", last)

# %% [markdown]
# So move the model yourself before wrapping it; that works with any number of GPUs. Two more things
# to know: the wrapper adds a `module.` prefix to every key of its `state_dict` (save
# `dp.module.state_dict()` to get the plain keys), and its own documentation recommends
# `DistributedDataParallel` instead, even on a single machine.

# %% tags=["claim-M5"]
wrapped = nn.DataParallel(nn.Linear(4, 2).to(device))
out = wrapped(torch.randn(3, 4))
print(out.device, list(wrapped.state_dict()), list(wrapped.module.state_dict()))

assert out.device.type == device.type
assert list(wrapped.state_dict()) == ["module.weight", "module.bias"]
assert list(wrapped.module.state_dict()) == ["weight", "bias"]
assert "recommended to use" in nn.DataParallel.__doc__
assert "DistributedDataParallel" in nn.DataParallel.__doc__

# %% [markdown]
# ## Claim: a Linear(10, 1) on the GPU can be fed torch.randn(10, 1)
#
# **The claim.** A sample that circulates as working code moves `nn.Linear(10, 1)` to the device and
# then calls it on `torch.randn(10, 1)`, created on the CPU.
#
# **Verdict: false, two bugs.** The input stays on the CPU while the layer is on the GPU, and its shape
# is wrong: `Linear(10, 1)` expects inputs of shape `(N, 10)`, with 10 features in the last dimension.
# As written, the sample fails on every machine. Which bug you see first depends on the machine: on a
# GPU the device check runs before anything else; on a CPU-only machine everything is on the CPU, so
# only the shape error is left, and that is what the cell shows there.

# %% tags=["gpu-only"]
net = nn.Linear(10, 1).to(device)
x = torch.randn(10, 1)
first = "shapes cannot be multiplied"  # on a CPU-only machine
if device.type == "cuda":
    first = "same device"  # the device check comes first
with expect_error(RuntimeError, first):
    net(x)

# %% [markdown]
# Moving the input to the device (`x = x.to(device)`) is not enough: the shape error is still there.

# %%
x = x.to(device)
with expect_error(RuntimeError, "shapes cannot be multiplied"):
    net(x)

# %% [markdown]
# The fix: a batch of `N` samples with 10 features each, created on the layer's device.

# %% tags=["claim-M6"]
N = 4
x = torch.randn(N, 10, device=device)
y = net(x)

print(y.shape, y.device)
assert y.shape == (N, 1)
assert y.device == net.weight.device

# %% [markdown]
# ## Outdated: an integer device means a CUDA GPU
#
# **Then (torch 1.7).** `torch.device(0)` and `device=0` were short for `cuda:0`.
#
# **Now.** Since torch 2.5 an integer is an index on the current *accelerator*, which can be CUDA,
# Apple's MPS or Intel's XPU. With a torch build that supports no accelerator at all (such as the CPU
# wheels), it raises `Cannot access accelerator device when none is available.` On other machines
# without a usable GPU you get an error too. An integer never means the CPU. Write `"cuda:0"` when you
# mean CUDA. The cell checks the outcome for the machine it runs on.
#
# This section's error, with its causes and fixes, is decoded in [Setup and memory errors, decoded](09-setup-and-memory-errors.ipynb#cannot-access-accelerator-device-when-none-is-available).

# %% tags=["claim-O1", "gpu-only"]
cpu_only_build = (
    torch.version.cuda is None
    and torch.version.hip is None
    and getattr(torch.version, "xpu", None) is None
    and not torch.backends.mps.is_built()
)
try:
    result = torch.zeros(1, device=torch.device(0)).device
except (RuntimeError, AssertionError) as err:
    result = err

print(cpu_only_build, repr(result))
assert isinstance(result, Exception) or result.type != "cpu"
if torch.cuda.is_available():
    assert result == torch.device("cuda", 0)
elif cpu_only_build and TORCH >= (2, 5):
    assert "none is available" in str(result)

# %% [markdown]
# ## Outdated: tensors have no is_cpu attribute
#
# **Then (torch 1.7).** There was `t.is_cuda` but no `t.is_cpu`; you compared `t.device.type` instead.
#
# **Now.** `Tensor.is_cpu` exists since torch 1.13.

# %% tags=["claim-O2"]
t = torch.ones(2, device=device)
print(t.is_cpu, t.is_cuda, t.device)
assert hasattr(torch.Tensor, "is_cpu")
assert t.is_cpu == (t.device.type == "cpu")
assert t.is_cuda == (t.device.type == "cuda")
assert torch.ones(1).is_cpu

# %% [markdown]
# ## Outdated: the device-mismatch error message
#
# **Then (torch 1.7).** The CUDA matrix multiply checked that all its tensors were on the GPU
# (`checkAllSameGPU` in ATen) and listed the ones on the CPU, counting `addmm(bias, input, weight.T)`'s
# arguments as `self`, `mat1` and `mat2`, plus the output `out`, which is created next to the bias. So
# the message depended on which side was left on the CPU:
#
# - a CPU input fed to a GPU layer:
#   `Tensor for argument #2 'mat1' is on CPU, but expected it to be on GPU (while checking arguments for addmm)`;
# - a GPU input fed to a layer left on the CPU:
#   `Tensor for 'out' is on CPU, Tensor for argument #1 'self' is on CPU, but expected them to be on GPU (while checking arguments for addmm)`.
#
# **Now.** Both cases start with `Expected all tensors to be on the same device`. The rest names one
# argument of the operation that ran. The check is not made by the CUDA kernel: the wrapper that
# PyTorch generates for the dispatcher (`wrapper_CUDA_addmm`) makes it before any kernel runs,
# comparing each tensor argument with the first one and naming the first that differs. The rest of
# the wording has changed between releases (it was reworded in 2.8), so search your logs for the
# first part. Element-wise operations such as `+` and
# `*` go through TensorIterator (the part of PyTorch that runs element-wise operations) and still end with `but found at least two devices, cuda:0 and cpu!`,
# with no argument name.
#
# Which argument is named depends on the operation a layer runs. A `Linear` with a bias, given a 2-D
# input, runs `addmm(bias, input, weight.T)`, whose arguments are called `self`, `mat1` and `mat2`.
# Autograd records the operation that ran in the result's `grad_fn`, so the CPU shows which one a
# layer without a bias runs.

# %% [markdown] tags=["predict"]
# **Predict:** Which operation does `nn.Linear(10, 1, bias=False)` run on a 2-D input? The cell prints
# the name of the autograd node that recorded it.
#
# - `AddmmBackward0`
# - `LinearBackward0`
# - `MmBackward0`

# %%
x = torch.randn(4, 10)
no_bias = nn.Linear(10, 1, bias=False)
print(f"{no_bias(x).grad_fn.name()=}")

# %% tags=["answer"]
assert no_bias(x).grad_fn.name() == "MmBackward0"
assert nn.Linear(10, 1)(x).grad_fn.name() == "AddmmBackward0"

# %% [markdown] tags=["answer"]
# **Answer:** `MmBackward0`. Without a bias there is nothing to add, and the layer runs
# `mm(input, weight.T)`, whose arguments are called `self` and `mat2`.
#
# - `AddmmBackward0` is what a layer with a bias records (the second check).
# - `LinearBackward0` does not appear: `linear` itself records no node, only the operation it runs.
#
# That decides the name in the message. With a bias, the first argument is the bias, which is on the
# layer's device, so the message names `mat1`, the input, whichever side is on the GPU. Without a
# bias, the first argument is the input, so the message names `mat2`, the weight, again in both
# directions. Either way the name does not tell you which side to move: put the model and all its
# inputs on the device you intend.
#
# On a GPU, the cell below asserts these names for both directions, with and without a bias, and the
# wording of an addition. On the CPU alone there is no second device to mix up.
#
# This section's error, with its causes and fixes, is decoded in [Device mismatch errors, decoded](07-device-errors.ipynb#expected-all-tensors-to-be-on-the-same-device).

# %% tags=["claim-O3", "gpu-only"]
if torch.cuda.is_available():
    MISMATCH = "Expected all tensors to be on the same device"
    for bias, named, other in ((True, "mat1", "mat2"), (False, "mat2", "mat1")):
        gpu_layer = nn.Linear(10, 1, bias=bias).to(device)
        cpu_layer = nn.Linear(10, 1, bias=bias)
        for layer, on in ((gpu_layer, "cpu"), (cpu_layer, device)):
            with expect_error(RuntimeError, MISMATCH) as caught:
                layer(torch.randn(4, 10, device=on))
            assert named in str(caught.error)
            assert other not in str(caught.error)
    with expect_error(RuntimeError, "found at least two devices"):
        torch.ones(2, device=device) + torch.ones(2)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Outdated: a missing GPU index raises a plain RuntimeError
#
# **Then (torch 1.7).** Asking for a GPU that does not exist, for example `t.cuda(1)` on a machine with
# one GPU, raised `RuntimeError: CUDA error: invalid device ordinal`.
#
# **Now.** Since torch 2.8 the same error is a `torch.AcceleratorError`. It is a subclass of
# `RuntimeError`, so existing `except RuntimeError:` code still catches it. Without a GPU the cell
# checks only the class.
#
# This section's error, with its causes and fixes, is decoded in [Setup and memory errors, decoded](09-setup-and-memory-errors.ipynb#cuda-error-invalid-device-ordinal).

# %% tags=["claim-O4", "gpu-only"]
if hasattr(torch, "AcceleratorError"):
    print(torch.AcceleratorError.__mro__)
    assert issubclass(torch.AcceleratorError, RuntimeError)
else:
    print(f"{hasattr(torch, 'AcceleratorError')=}")

if torch.cuda.is_available():
    missing = torch.cuda.device_count()
    try:
        torch.zeros(1).to(f"cuda:{missing}")
    except RuntimeError as err:
        print(type(err).__name__, str(err).splitlines()[0])
        assert "invalid device ordinal" in str(err)
        if hasattr(torch, "AcceleratorError"):
            assert isinstance(err, torch.AcceleratorError)
    else:
        raise AssertionError("expected a RuntimeError")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Outdated: torch.cuda.is_available() is the way to pick a device
#
# **Then (torch 1.7).** The usual recipe was `"cuda" if torch.cuda.is_available() else "cpu"`.
#
# **Now.** That recipe still works for NVIDIA GPUs, and this page uses it. The portable way is the
# `torch.accelerator` module (torch 2.6), which knows about CUDA, MPS, XPU and others:
# `torch.accelerator.current_accelerator()` names the accelerator that your torch build supports and
# returns `None` when it supports none (the `None` is new in torch 2.7). It describes the build, so pair it with
# `torch.accelerator.is_available()`, which says whether a device is usable right now. Without a GPU
# the cell checks that no CUDA device is picked; on torch 2.6 it prints only the version it found,
# `TORCH=(2, 6)`.

# %% tags=["claim-O5", "gpu-only"]
if TORCH >= (2, 7):
    accelerator = torch.accelerator.current_accelerator()
    usable = torch.accelerator.is_available()
    picked = torch.device("cpu")
    if accelerator is not None and usable:
        picked = accelerator
    print(accelerator, usable, picked)

    assert (picked.type == "cuda") == torch.cuda.is_available()
    if torch.cuda.is_available():
        assert accelerator.type == "cuda" and usable
    if cpu_only_build:
        assert accelerator is None and not usable
else:
    print(f"{TORCH=}")

# %% [markdown]
# ## Summary
#
# | Claim | Verdict | What is true |
# |---|---|---|
# | `model.to(device)` alone does not move the model | false | `Module.to` works in place and returns the same module |
# | `model = model.to(device)` saves memory | false | both spellings do the same work; no copy is kept |
# | `torch.cuda.copy()` copies parameters to the GPU | false | it does not exist; use `copy_`, `to`, `clone` |
# | `.cuda()` costs more memory than `.to('cuda')` | false | both go through `Module._apply`; `.cuda()` cannot change the dtype |
# | `nn.DataParallel` moves the model to the GPU | mostly false | only with exactly one device id (`len(device_ids) == 1`); move the model yourself |
# | `Linear(10, 1)` can be fed `torch.randn(10, 1)` from the CPU | false | wrong device and wrong shape; use `torch.randn(N, 10, device=device)` |
# | `device=0` means `cuda:0` | outdated | an index on the current accelerator (2.5) |
# | tensors have no `is_cpu` | outdated | `Tensor.is_cpu` exists (1.13) |
# | the old device-mismatch wording | outdated | look for `Expected all tensors to be on the same device`; the argument it names depends on the operation that ran |
# | a missing GPU index raises a plain `RuntimeError` | outdated | `torch.AcceleratorError`, a `RuntimeError` subclass (2.8) |
# | pick the device with `torch.cuda.is_available()` | outdated | still works for CUDA; `torch.accelerator` is portable (2.6 and later; `current_accelerator()` returns `None` without an accelerator from 2.7) |
