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
# # Will it fit? A model's memory, before it moves
#
# "CUDA out of memory" is the device error people meet most. You can see it coming: how much
# memory a model needs follows from its shapes and dtypes, and what a training step adds on
# top can be counted. This page computes both, and checks each figure against what PyTorch
# reports, on the machine that runs it.
#
# - Bytes per element, and a model's parameters and buffers.
# - A model far larger than this machine's memory, built on the `meta` device, then made
#   real on a device without a copy in CPU memory first.
# - What training adds: gradients, optimizer state and the activations autograd saves.
# - On a GPU: what PyTorch's allocator reports, and why `nvidia-smi` shows more.
#
# Everything but the last section runs and is checked on a CPU. The GPU cells are marked;
# where no GPU ran them, they print `torch.cuda.is_available()=False`.

# %% tags=["setup"]
import contextlib
import os
import sys
import tempfile
import time
import types
import warnings

import torch
from torch import nn
from torch.autograd.graph import saved_tensors_hooks

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
print(torch.__version__, device)

# %% [markdown]
# ## Bytes per element
#
# A tensor's memory is its number of elements times the bytes of one element, which the dtype
# decides: `t.nbytes == t.numel() * t.element_size()`. The shape and the dtype are known before
# any data exists, so the size is too.

# %% tags=["claim-F12"]
dtypes = [torch.float64, torch.float32, torch.bfloat16, torch.float16,
          torch.int64, torch.int8, torch.bool]
sizes = {str(d): torch.empty(0, dtype=d).element_size() for d in dtypes}
print(sizes)
assert sizes["torch.float32"] == 4 and sizes["torch.bfloat16"] == 2
assert sizes["torch.int64"] == 8 and sizes["torch.bool"] == 1

# %% [markdown] tags=["predict"]
# **Predict:** `t = torch.zeros(1024, 1024, dtype=torch.float16)`. What does
# `print(f"{t.nbytes=}")` show?
#
# - `t.nbytes=1048576`
# - `t.nbytes=2097152`
# - `t.nbytes=4194304`

# %%
t = torch.zeros(1024, 1024, dtype=torch.float16)
print(f"{t.nbytes=}")

# %% tags=["claim-F12", "answer"]
assert t.nbytes == t.numel() * t.element_size() == 1024 * 1024 * 2

# %% [markdown] tags=["answer"]
# **Answer:** `t.nbytes=2097152`: a million elements of two bytes each, 2 MiB. One byte per
# element would be `int8` or `bool`; four bytes, the default `float32`.

# %% [markdown]
# ## A model's parameters and buffers
#
# A model's own memory is its parameters (what training learns by gradient) and its buffers
# (state kept without gradients, such as a batch norm's running statistics, which the forward
# pass updates in training). `model.state_dict()` holds exactly
# these, so its bytes are the model's. The function below adds them up; the cell checks it
# against the sum over `state_dict()`.

# %% tags=["claim-F12"]
def model_bytes(model):
    tensors = [*model.parameters(), *model.buffers()]
    return sum(t.numel() * t.element_size() for t in tensors)


def make_mlp(d_in, d_hidden, d_out):
    return nn.Sequential(nn.Linear(d_in, d_hidden), nn.BatchNorm1d(d_hidden),
                         nn.ReLU(), nn.Linear(d_hidden, d_out))


model = make_mlp(1024, 4096, 1024)
n_params = sum(p.numel() for p in model.parameters())
print(f"{n_params=}, {model_bytes(model)=}")
assert model_bytes(model) == sum(t.nbytes for t in model.state_dict().values())
assert n_params == 1024 * 4096 + 4096 + 2 * 4096 + 4096 * 1024 + 1024

# %% [markdown] tags=["predict"]
# **Predict:** `model.half()` converts the model to 16-bit floats. Which dtypes do its
# parameters and buffers have afterwards?
#
# - `['torch.float16']`
# - `['torch.float32']`
# - `['torch.float16', 'torch.int64']`

# %%
before = model_bytes(model)
model.half()
print(sorted({str(t.dtype) for t in model.state_dict().values()}))
print(f"{before=}, {model_bytes(model)=}")

# %% tags=["claim-F12", "answer"]
kept = [k for k, t in model.state_dict().items() if t.dtype == torch.int64]
print(kept)
assert kept == ["1.num_batches_tracked"]
assert model_bytes(model) == (before - 8) // 2 + 8

# %% [markdown] tags=["answer"]
# **Answer:** `['torch.float16', 'torch.int64']`. `.half()`, like `.to(torch.float16)`,
# converts floating-point parameters and buffers only. The batch norm's counter of batches,
# `num_batches_tracked`, is an integer and stays `int64`; everything else halves. A model
# that is all `float32` takes half the memory in `float16`, less a few bytes of counters.

# %% [markdown]
# ## A model larger than this machine: build it on `meta`
#
# A tensor on the `meta` device has a shape and a dtype but no data, so creating it costs no
# memory. Under `with torch.device("meta"):` a whole model is built that way, in
# milliseconds, however large: you can count its bytes before deciding where it goes. The
# cell builds a model of 20 billion parameters, 80 GB in `float32`.

# %% tags=["claim-F13"]
start = time.perf_counter()
with torch.device("meta"):
    big = make_mlp(100_000, 100_000, 100_000)
seconds = time.perf_counter() - start
n_big = sum(p.numel() for p in big.parameters())
gigabytes = model_bytes(big) / 1e9
print(f"{n_big=:,}, {gigabytes=:.1f}, {seconds=:.3f}")
assert all(t.is_meta for t in big.state_dict().values())
assert model_bytes(big) > 80e9
assert seconds < 10  # generous: it takes milliseconds

# %% [markdown]
# The trap: a meta tensor holds no values, so nothing can be read from it.

# %% [markdown] tags=["predict"]
# **Predict:** `small = torch.zeros(3, device="meta")`. What does `small.cpu()` give?
#
# - `tensor([0., 0., 0.])`
# - `RuntimeError`
# - `NotImplementedError`

# %%
small = torch.zeros(3, device="meta")
with expect_error(Exception) as caught:
    print(small.cpu())

# %% tags=["claim-F13", "answer"]
assert type(caught.error) is NotImplementedError
assert "no data" in str(caught.error)

# %% [markdown] tags=["answer"]
# **Answer:** `NotImplementedError`: "Cannot copy out of meta tensor; no data!". The zeros
# were never stored, so there is nothing to copy. (A meta tensor too large for CPU memory,
# such as `big`'s weights, fails even earlier, with a `RuntimeError` from the CPU allocator.)

# %% [markdown]
# ## From `meta` to a real device, without a copy on the CPU first
#
# A model built on `meta` becomes real in one of two ways:
#
# - `model.to_empty(device=...)` gives every parameter and buffer memory on that device,
#   uninitialised: the values are whatever the memory held. Initialise them next, for
#   example with each layer's `reset_parameters()`.
# - `model.load_state_dict(state, assign=True)` makes the loaded tensors the model's own
#   parameters, instead of copying them into parameters that would first have to exist.
#
# With `torch.load(path, mmap=True, map_location=device)` the checkpoint is mapped from the
# file rather than read into CPU memory first, and each tensor goes to `device`. Together the
# weights reach the target device without a full copy in CPU memory on the way. (PyTorch's
# tutorial on loading `nn.Module`s from checkpoints recommends this combination.)

# %% tags=["claim-F13"]
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "mlp.pt")
    torch.save(make_mlp(8, 16, 4).state_dict(), path)

    with torch.device("meta"):
        fresh = make_mlp(8, 16, 4)
    state = torch.load(path, mmap=True, map_location=device,
                       weights_only=True)
    fresh.load_state_dict(state, assign=True)
    weight = fresh[0].weight
    print(f"{weight.device=}, {type(weight).__name__=}")
    assert weight.device.type == device.type
    assert weight.data_ptr() == state["0.weight"].data_ptr()  # no copy
    assert isinstance(weight, nn.Parameter) and weight.requires_grad

    empty = make_mlp(8, 16, 4).to("meta").to_empty(device=device)
    for layer in empty:
        if hasattr(layer, "reset_parameters"):
            layer.reset_parameters()
    assert all(t.device.type == device.type
               for t in empty.state_dict().values())
    del state, fresh, weight

# %% [markdown]
# ## What training adds
#
# A training step keeps much more alive than the model:
#
# - a gradient for every parameter, the same size as the parameter;
# - the optimizer's state: none for plain SGD, one buffer per parameter for SGD with
#   momentum, two for Adam (averages of the gradient and of its square);
# - the activations autograd saves in the forward pass, to compute the gradients in the
#   backward pass.
#
# The first two follow from the parameters. The activations depend on the model, the batch and
# what needs a gradient. `torch.autograd.graph.saved_tensors_hooks` sees every tensor autograd
# saves, so they can be counted.

# %% [markdown] tags=["predict"]
# **Predict:** after one Adam step, how many bytes of state does Adam keep per byte of
# parameters? The cell prints their ratio.
#
# - `adam_ratio=1.0`
# - `adam_ratio=2.0`
# - `adam_ratio=0.5`

# %%
model = make_mlp(64, 128, 10)
optimizer = torch.optim.Adam(model.parameters())
loss = model(torch.randn(32, 64)).pow(2).mean()
loss.backward()
optimizer.step()
param_bytes = model_bytes(model) - sum(b.nbytes for b in model.buffers())
state_bytes = sum(s[k].nbytes for s in optimizer.state.values()
                  for k in ("exp_avg", "exp_avg_sq"))
print(f"adam_ratio={state_bytes / param_bytes}")

# %% tags=["claim-F14", "answer"]
grad_bytes = sum(p.grad.nbytes for p in model.parameters())
steps = [s["step"] for s in optimizer.state.values()]
print(f"{grad_bytes=}, {param_bytes=}, {len(steps)=}")
assert grad_bytes == param_bytes
assert state_bytes == 2 * param_bytes
assert len(steps) == len(list(model.parameters()))

# %% [markdown] tags=["answer"]
# **Answer:** `adam_ratio=2.0`. Adam keeps two tensors the size of each parameter,
# `exp_avg` and `exp_avg_sq`, plus a one-number `step` per parameter. With the gradients, a
# model trained with Adam in `float32` needs four times its own size before any activation:
# weights, gradients and two state tensors.

# %% [markdown]
# The function below counts what autograd saves in a forward pass: each saved tensor's
# storage once, leaving out the parameters (already counted). For this model it is the input
# of the first layer and the output of `ReLU`, which is also the input of the last layer, so
# `batch × (64 + 128)` numbers of four bytes. The cell checks the count against that figure.

# %% tags=["claim-F14"]
def saved_bytes(model, x):
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    saved = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in params:
            saved[storage.data_ptr()] = storage.nbytes()
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(saved.values())


mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
counted = saved_bytes(mlp, torch.randn(32, 64))
computed = 32 * (64 + 128) * 4
print(f"{counted=}, {computed=}")
assert counted == computed

# %% [markdown] tags=["predict"]
# **Predict:** the batch grows from 32 to 64 examples. How do the saved activations change?
# The cell prints the new count divided by the old.
#
# - `ratio=1.0`
# - `ratio=2.0`
# - `ratio=4.0`

# %%
doubled = saved_bytes(mlp, torch.randn(64, 64))
print(f"ratio={doubled / counted}")

# %% tags=["claim-F14", "answer"]
assert doubled == 64 * (64 + 128) * 4

# %% [markdown] tags=["answer"]
# **Answer:** `ratio=2.0`. Every saved activation has one row per example, so they grow in
# step with the batch, while the weights, gradients and optimizer state do not change. When
# a training step runs out of memory, a smaller batch is the first thing to try.

# %% [markdown]
# Two ways to save less:
#
# - Without training, `torch.no_grad()` or `torch.inference_mode()` save nothing: no
#   backward pass will need it.
# - `torch.autocast` runs eligible operations, such as matrix products, in a lower-precision
#   dtype. The activations they save take half the bytes, but autocast also saves a
#   low-precision copy of each weight that needs a gradient. Its `device_type` must be the
#   device the operations run on: `autocast(device_type="cuda")` does nothing for operations
#   on the CPU.

# %% tags=["claim-F14"]
x = torch.randn(32, 64)
with torch.no_grad():
    no_grad = saved_bytes(mlp, x)
with torch.inference_mode():
    inference = saved_bytes(mlp, x)
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    autocast = saved_bytes(mlp, x)
    low = mlp(x).dtype
print(f"{no_grad=}, {inference=}, {autocast=}, {low=}")
assert no_grad == inference == 0
# half-size activations, plus a bfloat16 copy of the last layer's weight
assert autocast == 32 * (64 + 128) * 2 + 128 * 10 * 2
assert low == torch.bfloat16

with warnings.catch_warnings(record=True):  # no CUDA: autocast says it is off
    warnings.simplefilter("always")
    with torch.autocast(device_type="cuda"):
        elsewhere = mlp(x).dtype
print(f"{elsewhere=}")
assert elsewhere == torch.float32  # the CPU operations ran in float32

# %% [markdown]
# The estimate of a training step's memory is then the sum of four parts, each computed from
# the model and the batch. The cell puts it together for Adam and checks every part against
# what PyTorch holds after a step.

# %% tags=["claim-F14"]
def estimate(model, batch_example, optimizer="adam"):
    weights = model_bytes(model)
    params = weights - sum(b.nbytes for b in model.buffers())
    states = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
    return {"weights": weights, "gradients": params,
            "optimizer": states * params,
            "activations": saved_bytes(model, batch_example)}


parts = estimate(mlp, torch.randn(32, 64))
print(parts, f"total={sum(parts.values())}")

optimizer = torch.optim.Adam(mlp.parameters())
mlp(torch.randn(32, 64)).sum().backward()
optimizer.step()
held = sum(s[k].nbytes for s in optimizer.state.values()
           for k in ("exp_avg", "exp_avg_sq"))
assert parts["gradients"] == sum(p.grad.nbytes for p in mlp.parameters())
assert parts["optimizer"] == held
assert parts["weights"] == sum(t.nbytes for t in mlp.state_dict().values())

# %% [markdown]
# ## On a GPU: what the allocator reports
#
# On a CUDA GPU, PyTorch gets memory from the driver in large blocks and hands it out to
# tensors itself, through its caching allocator:
#
# - `torch.cuda.memory_allocated()`: bytes held by tensors now.
# - `torch.cuda.memory_reserved()`: bytes the allocator holds from the driver, used or not.
#   This is what `nvidia-smi` counts for the process (plus the CUDA context).
# - `torch.cuda.max_memory_allocated()`: the peak of the first, since the start or the last
#   `torch.cuda.reset_peak_memory_stats()`.
# - `torch.cuda.mem_get_info()`: free and total bytes on the device, as the driver sees them.
#
# When a tensor is freed, its memory goes back to the allocator, not to the driver:
# `memory_allocated` drops and `memory_reserved` does not. `torch.cuda.empty_cache()` gives
# the unused blocks back to the driver. It does not free any tensor, and PyTorch reuses cached
# blocks anyway, so it rarely helps a program that runs out of memory.
#
# Without a GPU the next cells print `torch.cuda.is_available()=False`. The line above this page
# says whether a GPU ran them; what they assert comes from PyTorch's documentation and the
# allocator's source (notebooks/gpu-evidence.yml).

# %% tags=["claim-F15", "gpu-only"]
if torch.cuda.is_available():
    torch.cuda.synchronize()
    base_alloc = torch.cuda.memory_allocated()
    block = torch.empty(4 * 2**20, dtype=torch.uint8, device="cuda")  # 4 MiB
    alloc = torch.cuda.memory_allocated() - base_alloc
    reserved = torch.cuda.memory_reserved()
    del block
    after_del = torch.cuda.memory_allocated() - base_alloc
    kept = torch.cuda.memory_reserved()
    torch.cuda.empty_cache()
    released = torch.cuda.memory_reserved()
    print(f"{alloc=}, {reserved=}, {after_del=}, {kept=}, {released=}")
    assert alloc == 4 * 2**20  # a multiple of 512 bytes: no rounding here
    assert reserved >= base_alloc + alloc
    assert after_del == 0
    assert kept == reserved  # freed memory stays with the allocator
    assert released <= kept
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# The last cell compares the estimate with the allocator on a real step. A model moved to the
# GPU holds its weights, each tensor rounded up to a multiple of 512 bytes. During one training
# step with Adam, two moments are certain: at the end of the forward pass the weights and the
# saved activations are alive, and during `optimizer.step()` the weights, the gradients and
# Adam's state. The peak is at least the larger of the two; it is more, by the temporaries of
# the forward and backward passes and of Adam's update, which the estimate leaves out. The
# cell asserts the certain part and prints how the peak compares with the estimate's total:
# plan with the total and keep a margin.

# %% tags=["claim-F14", "gpu-only"]
if torch.cuda.is_available():
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    gpu_model = make_mlp(1024, 4096, 1024).to("cuda")
    moved = torch.cuda.memory_allocated() - start
    rounded = sum((t.nbytes + 511) // 512 * 512
                  for t in gpu_model.state_dict().values())
    assert moved == rounded

    x = torch.randn(256, 1024, device="cuda")
    p = estimate(gpu_model, x)
    optimizer = torch.optim.Adam(gpu_model.parameters())
    torch.cuda.reset_peak_memory_stats()
    gpu_model(x).sum().backward()
    optimizer.step()
    peak = torch.cuda.max_memory_allocated() - start
    total = sum(p.values())
    free, device_total = torch.cuda.mem_get_info()
    print(f"{moved=}, {rounded=}, {total=}, {peak=}")
    print(f"peak/total={peak / total:.2f}, {free=}, {device_total=}")
    assert peak >= p["weights"] + p["activations"]
    assert peak >= p["weights"] + p["gradients"] + p["optimizer"]
    assert 0 < free <= device_total
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Summary
#
# - A tensor takes `numel() * element_size()` bytes; a model takes the bytes of its
#   parameters and buffers, the tensors of its `state_dict()`. `.half()` halves the
#   floating-point ones only.
# - Build a large model under `torch.device("meta")` to count it for free. Meta tensors hold
#   no values: make the model real with `to_empty` (then initialise it) or with
#   `load_state_dict(..., assign=True)` from `torch.load(..., mmap=True, map_location=...)`.
# - Training adds a gradient per parameter, the optimizer's state (Adam: two tensors per
#   parameter) and the saved activations, which grow with the batch. `no_grad` and
#   `inference_mode` save none; `autocast`, with the right `device_type`, saves them in
#   lower precision.
# - On a GPU, `memory_allocated` counts tensors and `memory_reserved` what the allocator
#   holds; freed memory stays reserved until `empty_cache()`, and `nvidia-smi` shows the
#   reserved figure.
