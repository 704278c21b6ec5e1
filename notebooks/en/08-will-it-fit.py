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
# Everything but the last section runs and is checked on a CPU. The GPU cells are marked;
# where no GPU ran them, they print `torch.cuda.is_available()=False`.

# %% [markdown] tags=["summary"]
# **In short**
#
# - A model takes the bytes of its parameters and buffers, `numel() * element_size()` each. Training adds a gradient per parameter, the optimizer's state (Adam: two tensors per parameter) and the activations saved for the backward pass.
# - Build a large model under `torch.device("meta")` to measure it without allocating its memory.
#
# ```python
# def model_bytes(model):
#     tensors = [*model.parameters(), *model.buffers()]
#     return sum(t.numel() * t.element_size() for t in tensors)
#
# with torch.device("meta"):
#     model = MyModel()
# print(model_bytes(model))
# ```

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
# ## Bytes per element
#
# A tensor that owns its memory takes its number of elements times the bytes of one element,
# which the dtype decides: `t.nbytes == t.numel() * t.element_size()`. The shape and the
# dtype are known before any data exists, so the size is too.

# %% tags=["claim-F12"]
dtypes = [torch.float64, torch.float32, torch.bfloat16, torch.float16,
          torch.int64, torch.int8, torch.bool]
sizes = {str(d): torch.empty(0, dtype=d).element_size() for d in dtypes}
print(sizes)
assert sizes["torch.float32"] == 4 and sizes["torch.bfloat16"] == 2
assert sizes["torch.int64"] == 8 and sizes["torch.bool"] == 1

t = torch.zeros(1024, 1024, dtype=torch.float16)
print(f"{t.nbytes=}")
assert t.nbytes == t.numel() * t.element_size() == 2 * 2**20

# %% [markdown] tags=["predict"]
# **Predict:** `col = t[:, :1]` is the first column of that 2 MiB tensor: `col.nbytes` is
# 2048. After `del t`, how many bytes does `col` keep alive? The cell prints the size of
# the storage behind it.
#
# - `col.untyped_storage().nbytes()=2048`
# - `col.untyped_storage().nbytes()=4096`
# - `col.untyped_storage().nbytes()=2097152`

# %%
col = t[:, :1]
del t
print(f"{col.nbytes=}, {col.untyped_storage().nbytes()=}")

# %% tags=["claim-F12", "answer"]
assert col.nbytes == col.numel() * col.element_size() == 2048
assert col.untyped_storage().nbytes() == 2 * 2**20
assert col.clone().untyped_storage().nbytes() == 2048

# %% [markdown] tags=["answer"]
# **Answer:** `col.untyped_storage().nbytes()=2097152`. A view shares the storage of the
# tensor it was taken from and keeps all of it alive, even after `del t`; `nbytes` counts the
# view's own elements, not the memory behind them. `col.clone()` copies the column into a
# storage of its own, 2048 bytes. This is how a small slice of a large tensor, kept in a
# list, keeps the whole tensor in memory.

# %% [markdown]
# ## A model's parameters and buffers
#
# A model's own memory is its parameters (what training learns by gradient) and its buffers
# (state kept without gradients, such as a batch norm's running statistics, which the forward
# pass updates in training). `model.parameters()` and `model.buffers()` list each tensor
# once; the function below adds them up. For this model `model.state_dict()` holds the same
# tensors, and the cell checks that. In general it does not: it lists a shared (tied) weight
# under each of its names, and it leaves out buffers registered with `persistent=False`.

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
print(sorted({str(t.dtype) for t in [*model.parameters(), *model.buffers()]}))
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
# that is all `float32` takes half the memory in `float16`, plus the few bytes of integer
# counters, which keep their size.

# %% [markdown]
# ## Count a model of any size: build it on `meta`
#
# A tensor on the `meta` device has a shape and a dtype but no data, so creating it costs no
# memory. Under `with torch.device("meta"):` a whole model is built that way, however large,
# and you can count its bytes before deciding where it goes. The cell builds a model of 125
# billion parameters, 500 GB in `float32`.
#
# The first operation on `meta` in a session loads PyTorch's meta kernels, which takes a
# moment on some versions, so the cell runs one before it starts the clock.

# %% tags=["claim-F13"]
torch.empty(1, device="meta") + 1  # loads the meta kernels: not timed
start = time.perf_counter()
with torch.device("meta"):
    big = make_mlp(250_000, 250_000, 250_000)
seconds = time.perf_counter() - start
n_big = sum(p.numel() for p in big.parameters())
gigabytes = model_bytes(big) / 1e9
print(f"{n_big=:,}, {gigabytes=:.1f}, {seconds=:.3f}")
assert all(t.is_meta for t in [*big.parameters(), *big.buffers()])
assert model_bytes(big) > 500e9
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
# were never stored, so there is nothing to copy: there is no `tensor([0., 0., 0.])` to give
# back.

# %% [markdown]
# ## From `meta` to a real device
#
# A model built on `meta` becomes real in one of two ways:
#
# - `model.to_empty(device=...)` gives every parameter and buffer memory on that device,
#   uninitialised: the values are whatever the memory held. With
#   `torch.use_deterministic_algorithms(True)` it is filled instead: NaN in floating-point
#   tensors, the largest value in integer ones (the cell checks both). Initialise them
#   next, for example with each layer's `reset_parameters()`.
# - `model.load_state_dict(state, assign=True)` makes the loaded tensors the model's own
#   parameters, instead of copying them into parameters that would first have to exist.
#
# Where the checkpoint comes from matters too. `torch.load(path, map_location=device)` hands
# the checkpoint's storages to `device` one by one (the cell counts them with a
# `map_location` function). When `device` is a GPU, the CPU therefore never holds the whole
# checkpoint at once; when it is the CPU, the loaded checkpoint is the tensors themselves. With
# `mmap=True` the file is mapped instead of read: its pages come in as they are used, through
# the operating system's file cache. PyTorch's recipe for loading large models
# ([Tips for loading an `nn.Module` from a checkpoint](https://docs.pytorch.org/tutorials/recipes/recipes/module_load_state_dict_tips.html)) combines the
# two on the CPU: a model built on `meta`, `torch.load(..., mmap=True)` and
# `assign=True`, which leaves the parameters as views of the mapped file, with no copy at all.
#
# One thing is not in a checkpoint: buffers registered with `persistent=False`, such as a
# lookup table the model computes itself. `assign=True` leaves them on `meta`: compute them
# again after loading.

# %% tags=["claim-F13"]
class WithTable(nn.Module):  # a model with a buffer that checkpoints leave out
    def __init__(self):
        super().__init__()
        self.mlp = make_mlp(8, 16, 4)
        self.register_buffer("table", torch.arange(4.0), persistent=False)


with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "model.pt")
    torch.save(WithTable().state_dict(), path)

    handed = []

    def one_by_one(storage, location):  # map_location may be a function
        handed.append(storage.nbytes())
        return storage

    state = torch.load(path, map_location=one_by_one, weights_only=True)
    stored = [t.untyped_storage().nbytes() for t in state.values()]
    assert sorted(handed) == sorted(stored)  # one storage at a time

    state = torch.load(path, mmap=True, map_location=device,
                       weights_only=True)
    with torch.device("meta"):
        fresh = WithTable()
    fresh.load_state_dict(state, assign=True)
    weight = fresh.mlp[0].weight
    print(f"{weight.device=}, {fresh.table.device=}")
    assert weight.device.type == device.type
    assert weight.data_ptr() == state["mlp.0.weight"].data_ptr()  # no copy
    assert isinstance(weight, nn.Parameter) and weight.requires_grad
    assert fresh.table.is_meta  # not in the checkpoint
    del state, fresh, weight

with torch.device("meta"):
    empty = make_mlp(8, 16, 4)
empty.to_empty(device=device)
for layer in empty:
    if hasattr(layer, "reset_parameters"):
        layer.reset_parameters()
assert all(t.device.type == device.type
           for t in [*empty.parameters(), *empty.buffers()])

torch.use_deterministic_algorithms(True)  # fills uninitialised memory
try:
    with torch.device("meta"):
        filled = make_mlp(8, 16, 4)
    filled.to_empty(device=device)
    counter = filled[1].num_batches_tracked.item()
    assert filled[0].weight.isnan().all()  # floating point: NaN
    assert counter == torch.iinfo(torch.int64).max  # integers: the largest
finally:
    torch.use_deterministic_algorithms(False)

# %% [markdown]
# ## What training adds
#
# A training step keeps much more alive than the model:
#
# - a gradient for every parameter, the same size as the parameter;
# - the optimizer's state, which depends on the optimizer;
# - the activations autograd saves in the forward pass, to compute the gradients in the
#   backward pass.

# %% [markdown] tags=["predict"]
# **Predict:** an Adam optimizer is built for a model with six parameter tensors. How many
# entries does `optimizer.state` hold right after it is built?
#
# - `len(optimizer.state)=0`
# - `len(optimizer.state)=6`
# - `len(optimizer.state)=12`

# %%
model = make_mlp(64, 128, 10)
optimizer = torch.optim.Adam(model.parameters())
print(f"{len(optimizer.state)=}")

# %% tags=["claim-F14", "answer"]
model(torch.randn(32, 64)).pow(2).mean().backward()
optimizer.step()
param_bytes = sum(p.nbytes for p in model.parameters())
grad_bytes = sum(p.grad.nbytes for p in model.parameters())
state_bytes = sum(s[k].nbytes for s in optimizer.state.values()
                  for k in ("exp_avg", "exp_avg_sq"))
steps = [s["step"] for s in optimizer.state.values()]
print(f"{len(optimizer.state)=}, {param_bytes=}, {grad_bytes=}, {state_bytes=}")
assert len(optimizer.state) == 6
assert grad_bytes == param_bytes
assert state_bytes == 2 * param_bytes
assert all(s.numel() == 1 for s in steps)

optimizer.zero_grad()
assert all(p.grad is None for p in model.parameters())

# %% [markdown] tags=["answer"]
# **Answer:** `len(optimizer.state)=0`. Adam creates its state at the first `step()`, so a
# run can fit when the optimizer is built and run out of memory at its first step. After it,
# each parameter has two tensors of its size, `exp_avg` and `exp_avg_sq`, and a one-number
# `step` (on the CPU by default; on the GPU with `fused=True` or `capturable=True`);
# `amsgrad=True` adds a third tensor. With the gradients, a model trained with Adam in
# `float32` needs four times its own size before any activation. `zero_grad()` sets the
# gradients to `None`, so no gradient memory is held during the next forward pass; the backward
# pass allocates them again while it frees activations. A peak at the end of the forward pass
# can therefore be lower by up to the gradients' size; a peak inside `optimizer.step()`
# (gradients, state and temporaries together) does not change.

# %% [markdown]
# The function below counts what autograd saves in a forward pass: each saved tensor's
# storage once, leaving out the model's parameters and buffers (already counted). For a
# two-layer model without batch norm, it finds the input of the first layer and the output of
# `ReLU`, which is also the input of the last layer: the cell checks the count against
# `32 * (64 + 128) * 4` bytes.

# %% tags=["claim-F14"]
def saved_bytes(model, x):
    own = {t.untyped_storage().data_ptr()
           for t in [*model.parameters(), *model.buffers()]}
    saved = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in own:
            saved[storage.data_ptr()] = storage.nbytes()
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(saved.values())


mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
counted = saved_bytes(mlp, torch.randn(32, 64))
print(f"{counted=}")
assert counted == 32 * (64 + 128) * 4

# %% [markdown] tags=["predict"]
# **Predict:** the first layer is frozen with `mlp[0].requires_grad_(False)`, as when only the
# last layer is fine-tuned. What does the count become?
#
# - `counted=24576`
# - `counted=16384`
# - `counted=8192`
# - `counted=0`

# %%
mlp[0].requires_grad_(False)
counted = saved_bytes(mlp, torch.randn(32, 64))
print(f"{counted=}")

# %% tags=["claim-F14", "answer"]
assert counted == 32 * 128 * 4
mlp[0].requires_grad_(True)
small_batch = saved_bytes(mlp, torch.randn(32, 64))
large_batch = saved_bytes(mlp, torch.randn(64, 64))
print(f"{small_batch=}, {large_batch=}")
assert large_batch == 2 * small_batch

# %% [markdown] tags=["answer"]
# **Answer:** `counted=16384`. Autograd saves a tensor only where a gradient will need it.
# With the first layer frozen, nothing before the last layer needs a gradient, so the first
# layer's input is no longer saved and `ReLU` saves nothing. The last layer's weight still
# needs its gradient, which needs that layer's input: 32 × 128 numbers of four bytes. All of it goes (`counted=0`) only when no parameter needs a gradient.
#
# The check also shows that saved activations grow with the batch: each has a row per
# sample, so twice the batch saves twice the bytes, while weights, gradients and optimizer
# state stay the same. When a step runs out of memory, the usual remedies act on this part:
# a smaller batch (with gradient accumulation to keep the effective batch size), or
# activation checkpointing (`torch.utils.checkpoint`), which saves less and recomputes the
# rest in the backward pass.

# %% [markdown]
# Two more ways to save less:
#
# - Without training, `torch.no_grad()` and `torch.inference_mode()` save nothing: no
#   backward pass will need it. The forward pass still holds its intermediate results while
#   it runs, so inference needs the weights plus the intermediate results alive at the same time
#   at its peak (plus the KV cache when a model generates text), not the weights alone.
# - `torch.autocast` runs eligible operations, such as matrix products, in a lower-precision
#   dtype: by default `float16` on CUDA and `bfloat16` on the CPU. The activations they save
#   take half the bytes. Where a gradient must flow back to a layer's input, autograd also
#   saves the low-precision copy of its weight (here only the last layer's: `x` needs no
#   gradient). Its `device_type` must be the device the operations run on:
#   `autocast(device_type="cuda")` does nothing for operations on the CPU.

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
assert torch.get_autocast_dtype("cpu") == torch.bfloat16
assert torch.get_autocast_dtype("cuda") == torch.float16

with warnings.catch_warnings(record=True):  # no CUDA: autocast says it is off
    warnings.simplefilter("always")
    with torch.autocast(device_type="cuda"):
        elsewhere = mlp(x).dtype
print(f"{elsewhere=}")
assert elsewhere == torch.float32  # the CPU operations ran in float32

# %% [markdown]
# Both save the same memory. `inference_mode` also skips some bookkeeping, which makes each
# operation a little cheaper: the tensors it creates, *inference tensors* (`is_inference()`),
# have no version counter, and their views are not recorded as views. The price comes later:
# autograd cannot save an inference tensor for a backward pass. Use `inference_mode` where the
# results never go back into training (evaluation, serving); where they might, use `no_grad`, or
# `clone()` the inference tensor outside the block.

# %% tags=["claim-F14"]
layer = nn.Linear(4, 4)
with torch.no_grad():
    plain = layer(torch.randn(2, 4))
    plain_view = plain.view(-1)
with torch.inference_mode():
    inferred = layer(torch.randn(2, 4))
    inferred_view = inferred.view(-1)
print(f"{plain.is_inference()=}, {inferred.is_inference()=}")
print(f"{plain_view._is_view()=}, {inferred_view._is_view()=}")
assert not plain.is_inference() and inferred.is_inference()
assert plain_view._is_view() and not inferred_view._is_view()
assert plain._version == 0
with expect_error(RuntimeError, "do not track version counter"):
    inferred._version
with expect_error(RuntimeError, "cannot be saved for backward"):
    layer(inferred)
assert layer(inferred.clone()).requires_grad  # a clone is a normal tensor

# %% [markdown]
# ## An estimate for any model
#
# The memory of a training step is the sum of four parts: weights, gradients, optimizer state
# and activations. The first three follow from the number of parameters alone, once three
# things are chosen: the dtype of the weights, the optimizer, and whether training uses mixed
# precision. Inference keeps only the weights (plus, while the forward pass runs, its
# intermediate results, as above). Training adds:
#
# - a gradient per parameter, in the dtype of the weights;
# - the optimizer's state: nothing for plain SGD, one tensor the size of the parameter for SGD
#   with momentum (`momentum_buffer`), two for Adam and AdamW (`exp_avg`, `exp_avg_sq`);
# - with mixed precision, a `float32` copy of the weights, the *master weights*. The model
#   computes in 16 bits, with 16-bit weights and gradients; the optimizer updates the `float32`
#   copy, with its state in `float32` too, because an update much smaller than the weight is
#   lost in 16 bits (the cell adds `1e-4` to `1` in each dtype). It reads each gradient as
#   `float32`, made from the 16-bit one just before its update and freed after it, so only one
#   parameter's `float32` gradient exists at a time: the estimate leaves it out, and the check
#   builds it that way. Implementations that keep a `float32` gradient buffer instead of the
#   16-bit gradients (Megatron-LM) take 2 bytes more per parameter.
#
# `torch.autocast` is another kind of mixed precision: the weights stay `float32` and only the
# operations run in 16 bits. Count it as `float32` without mixed precision; what it saves is
# in the activations.
#
# The activations depend on the batch and on the layers, not on the parameter count alone:
# count them on your model with `saved_bytes`, as above. The function `estimate` gives the
# other parts in bytes. The cell checks each part against the tensors PyTorch holds after a
# real step, for every dtype, optimizer and mode, on the page's small model (`make_mlp`). Adam's
# one-number `step` per parameter tensor is left out: a few bytes per tensor.

# %% tags=["claim-F14"]
STATE_TENSORS = {"sgd": 0, "sgd-momentum": 1, "adam": 2}  # per parameter


def estimate(n_params, dtype=torch.float32, training=True, optimizer="adam",
             mixed=False):
    size = torch.empty(0, dtype=dtype).element_size()
    if not training:
        return {"weights": n_params * size, "gradients": 0, "optimizer": 0,
                "master": 0}
    state = 4 if mixed else size  # mixed: the optimizer works in float32
    master = 4 if mixed and size < 4 else 0  # a float32 copy of 16-bit weights
    return {"weights": n_params * size, "gradients": n_params * size,
            "optimizer": STATE_TENSORS[optimizer] * n_params * state,
            "master": n_params * master}


def nbytes(tensors):
    return sum(t.nbytes for t in tensors)


def counted(model, dtype, make_optimizer, mixed):
    # the same parts, counted on the tensors PyTorch holds after one step
    weights = list(model.to(dtype).parameters())
    master = weights
    if mixed and dtype != torch.float32:
        master = [w.detach().float().requires_grad_() for w in weights]
    optimizers = [make_optimizer([m]) for m in master]  # one update at a time
    model(torch.randn(32, 64, dtype=dtype)).sum().backward()
    widest = 0  # the most float32 gradient bytes alive at once
    for m, w, optimizer in zip(master, weights, optimizers):
        if m is not w:
            m.grad = w.grad.float()  # made just before the update ...
            widest = max(widest, sum(4 * p.numel() for p in master
                                     if p.grad is not None))
        optimizer.step()
        if m is not w:
            m.grad = None  # ... and freed after it
            with torch.no_grad():
                w.copy_(m)  # the 16-bit weights follow the copy
    held = [t for o in optimizers for s in o.state.values()
            for k, t in s.items() if k != "step"]
    copies = [] if master is weights else master
    assert widest == max((4 * m.numel() for m in copies), default=0)
    assert all(m.grad is None for m in copies)
    return {"weights": nbytes(weights),
            "gradients": nbytes(w.grad for w in weights),
            "optimizer": nbytes(held),
            "master": nbytes(copies)}


OPTIMIZERS = [("sgd", lambda ps: torch.optim.SGD(ps, lr=0.1)),
              ("sgd-momentum",
               lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
              ("adam", torch.optim.Adam), ("adam", torch.optim.AdamW)]
DTYPES = [torch.float32, torch.bfloat16, torch.float16]
n = sum(p.numel() for p in make_mlp(64, 128, 10).parameters())
checked = 0
for dtype in DTYPES:
    for name, make_optimizer in OPTIMIZERS:
        for mixed in (False, True):
            model = make_mlp(64, 128, 10)
            parts = counted(model, dtype, make_optimizer, mixed)
            assert parts == estimate(n, dtype, True, name, mixed), parts
            checked += 1
    inference = {**parts, "gradients": 0, "optimizer": 0, "master": 0}
    assert estimate(n, dtype, training=False) == inference

lost = {str(d): bool(torch.ones((), dtype=d) + 1e-4 == 1) for d in DTYPES}
print(f"{checked=}, {lost=}")
assert lost == {"torch.float32": False, "torch.bfloat16": True,
                "torch.float16": True}

# %% [markdown]
# A worked example: a model of one billion parameters trained with Adam, in `float32` and in
# mixed precision with `bfloat16` weights. The cell prints each part in GB (10⁹ bytes), then
# the total in bytes, GB and GiB (2³⁰ bytes), before activations.

# %% tags=["claim-F14"]
fp32 = estimate(10**9, torch.float32, optimizer="adam")
mixed = estimate(10**9, torch.bfloat16, optimizer="adam", mixed=True)
for name, parts in [("fp32", fp32), ("mixed", mixed)]:
    gb = {part: n / 1e9 for part, n in parts.items()}
    total = sum(parts.values())
    print(f"{name}: {gb=}")
    print(f"{name}: {total=:,}, {total / 1e9=:.1f}, {total / 2**30=:.2f}")
assert sum(mixed.values()) == sum(fp32.values()) == 16 * 10**9
assert mixed["weights"] + mixed["gradients"] == mixed["master"]

# %% [markdown]
# Both totals are 16 GB. Mixed precision halves the weights and the gradients (2 bytes each
# instead of 4), the `float32` master weights take exactly what that saves (4 bytes), and Adam's
# state is `float32` in both (8 bytes). With a `float32` gradient buffer instead of the 16-bit
# gradients it is 18 bytes per parameter, 18 GB. For weights, gradients and optimizer state,
# mixed precision costs about what `float32` does; what it saves is in the activations, which
# this total leaves out (see above): add them, and keep a margin for what the GPU section below
# shows the allocator and the driver take.
#
# The same function gives, for one parameter, the bytes of each part in every setting:
# `(dtype, training, optimizer, mixed)`, then weights, gradients, optimizer state and master
# weights. The calculator below multiplies these by the number of parameters you give it; in a
# notebook, call `estimate` with your own.

# %% tags=["calculator"]
settings = [(d, False, None, False) for d in DTYPES]
settings += [(d, True, o, m) for d in DTYPES for o in STATE_TENSORS
             for m in (False, True)]
for dtype, training, optimizer, mixed in settings:
    per_parameter = estimate(1, dtype, training, optimizer, mixed)
    key = (str(dtype).removeprefix("torch."), training, optimizer, mixed)
    print(f"{key}: {tuple(per_parameter.values())}")

# %% [markdown]
# ## On a GPU: what the allocator reports
#
# On a CUDA GPU, PyTorch gets memory from the driver in large segments and hands it out
# itself, through its caching allocator:
#
# - `torch.cuda.memory_allocated()`: bytes the allocator has handed out now: tensors, and
#   the workspaces of libraries such as cuBLAS.
# - `torch.cuda.memory_reserved()`: bytes the allocator holds from the driver, handed out or
#   not.
# - `torch.cuda.max_memory_allocated()`: the peak of the first, since the start or the last
#   `torch.cuda.reset_peak_memory_stats()`.
# - `torch.cuda.mem_get_info()`: free and total bytes on the device, as the driver sees them.
#   Total minus free is roughly what `nvidia-smi` shows as used: every process's reserved memory,
#   plus each process's CUDA context and what other libraries take from the driver.
#
# When a tensor is freed, its memory goes back to the allocator, not to the driver:
# `memory_allocated` drops and `memory_reserved` does not. `torch.cuda.empty_cache()` gives
# the segments that hold no tensor back to the driver; it frees no tensor. Before it reports
# out of memory, the allocator does the same itself and tries again, so calling it by hand
# rarely rescues a run: it frees memory for other processes.
#
# The line under the page's title says whether a GPU ran them; what they assert comes from
# PyTorch's documentation and the allocator's source (notebooks/gpu-evidence.yml).

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
    free, total = torch.cuda.mem_get_info()
    outside = (total - free) - released  # contexts, other processes
    print(f"{alloc=}, {reserved=}, {after_del=}, {kept=}, {released=}")
    print(f"{total - free=}, {outside=}")
    assert alloc == 4 * 2**20  # a multiple of 512 bytes: no rounding here
    assert reserved >= base_alloc + alloc
    assert after_del == 0
    assert kept == reserved  # freed memory stays with the allocator
    assert released <= kept
    assert total - free >= released
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# Since torch 2.9 the same functions also live under `torch.accelerator` (`memory_allocated`,
# `memory_reserved`, `max_memory_allocated`, `reset_peak_memory_stats`, `empty_cache`, ...) and
# work for CUDA and XPU; 2.6 to 2.8 have only the per-backend modules, `torch.cuda` and
# `torch.xpu`, with the same names. Apple's `mps` is the exception: in every release `torch.mps`
# has its own names for the counters, `current_allocated_memory()` (tensors) and
# `driver_allocated_memory()` (all Metal memory of the process, cache included); only
# `torch.mps.empty_cache()` shares the common name. `torch.accelerator`'s memory functions fail on
# `mps` in releases without the fix
# ([pytorch#167447](https://github.com/pytorch/pytorch/issues/167447), fixed by pytorch#186748
# and #193838; the first release with both is not checked here). So the cell picks the
# function by backend first, then by release, and asserts on a GPU that it reports the same
# bytes as `torch.cuda`.
#
# Reserved memory can also sit unused in free blocks too small for the next request
# (fragmentation). The allocator setting that helps, and the name of its variable in each
# release, are in [CUDA out of memory](09-setup-and-memory-errors.ipynb#cuda-out-of-memory).

# %% tags=["gpu-only"]
if torch.backends.mps.is_available():
    allocated = torch.mps.current_allocated_memory  # every release
elif hasattr(torch.accelerator, "memory_allocated"):  # 2.9+
    allocated = torch.accelerator.memory_allocated
else:
    allocated = torch.cuda.memory_allocated
print(f"{allocated.__module__=}")
assert callable(torch.mps.current_allocated_memory)
assert callable(torch.mps.driver_allocated_memory)
assert callable(torch.mps.empty_cache)  # the common name
assert hasattr(torch.accelerator, "memory_allocated") == (TORCH >= (2, 9))
if torch.cuda.is_available():
    block = torch.empty(2**20, dtype=torch.uint8, device="cuda")
    print(f"{allocated()=}, {torch.cuda.memory_allocated()=}")
    assert allocated() == torch.cuda.memory_allocated()
    if TORCH >= (2, 9):
        reserved = torch.accelerator.memory_reserved()
        assert reserved == torch.cuda.memory_reserved()
    del block
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# The last cell compares the estimate with the allocator over real steps. Moved to the GPU,
# the model holds its weights, each tensor rounded up to a multiple of 512 bytes. The first
# step with Adam creates Adam's state and cuBLAS's workspaces; from the second step on, the
# weights and Adam's state are alive the whole time, so the cell measures the second step.
# During it, two moments are certain: at the end of the forward pass the saved activations
# are alive, and at the end of the backward pass all the gradients. The cell asserts those
# lower bounds and prints how the second step's peak compares with the estimate's total: the
# peak also holds temporaries of the forward and backward passes and of Adam's update, and
# the workspaces, which the estimate leaves out. Plan with the total and keep a margin.

# %% tags=["claim-F14", "gpu-only"]
if torch.cuda.is_available():
    gpu_model = gpu_optimizer = None  # a second run starts from nothing
    torch.cuda.empty_cache()
    start = torch.cuda.memory_allocated()
    gpu_model = make_mlp(1024, 4096, 1024).to("cuda")
    moved = torch.cuda.memory_allocated() - start
    rounded = sum((t.nbytes + 511) // 512 * 512
                  for t in [*gpu_model.parameters(), *gpu_model.buffers()])
    assert moved == rounded

    x = torch.randn(256, 1024, device="cuda")
    p = estimate(sum(t.numel() for t in gpu_model.parameters()))  # Adam
    activations = saved_bytes(gpu_model, x)
    gpu_optimizer = torch.optim.Adam(gpu_model.parameters())
    for step in range(2):  # the first step creates Adam's state
        gpu_optimizer.zero_grad()
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        gpu_model(x).sum().backward()
        gpu_optimizer.step()
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
    steady = base - start + peak
    total = sum(p.values()) + activations
    print(f"{moved=}, {rounded=}, {total=}, {steady=}")
    print(f"steady/total={steady / total:.2f}")
    assert base - start >= p["weights"] + p["optimizer"]
    assert peak >= activations and peak >= p["gradients"]
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Summary
#
# - A tensor that owns its storage takes `numel() * element_size()` bytes; a view keeps its
#   whole base alive. A model takes the bytes of its parameters and buffers (count them with
#   `parameters()` and `buffers()`). `.half()` halves the floating-point ones only.
# - Build a large model under `torch.device("meta")` to count it for free. Make it real with
#   `to_empty` (then initialise it) or `load_state_dict(..., assign=True)`, after which buffers
#   with `persistent=False` stay on `meta`.
# - Training adds a gradient per parameter, the optimizer's state (Adam: two tensors per
#   parameter, created at the first step) and the saved activations, which exist only where
#   a gradient needs them and grow with the batch. `no_grad` and `inference_mode` save none;
#   `autocast`, with the right `device_type`, saves those of matmuls and convolutions in lower precision.
# - Before activations, training takes a fixed number of bytes per parameter once the dtype,
#   the optimizer and mixed precision are chosen (`estimate`). With Adam, mixed precision with
#   `float32` master weights takes 16 bytes per parameter, as `float32` does (18 with a
#   `float32` gradient buffer): what it saves is in the activations.
# - On a GPU, `memory_allocated` counts what the allocator has handed out and `memory_reserved`
#   what it holds, freed memory included, until `empty_cache()`.
