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
# # Moving tensors
#
# A tensor is moved with `t.to(...)`, or with the shortcuts `t.cuda()` and `t.cpu()`.
# One rule covers all three, with one twist; the first questions below ask you to predict
# both.
#
# This page is about tensors. `nn.Module.to` follows a different rule and has its own
# page, [Moving models](03-moving-models.ipynb).
#
# Every cell runs on a CPU-only machine. A cell whose checks need a CUDA GPU prints the condition
# it found unmet instead, `torch.cuda.is_available()=False`, or checks what happens without a GPU.
#
# The first cell also defines `expect_error`, which this page uses to show an expected error
# and carry on with the next cell.

# %% [markdown] tags=["summary"]
# **In short**
#
# - `t.to(device)` returns a tensor on `device` and leaves `t` where it was. A tensor still on the CPU after `.to(device)` is one whose result was not kept: write `t = t.to(device)`. `t.cuda()` and `t.cpu()` work the same way.
# - When `t` is already there, `to` returns `t` itself, not a copy. Ask for a copy with `clone()` or `copy=True`.
#
# ```python
# x = torch.ones(3)
# x = x.to(device)
# ```

# %% tags=["setup"]
import contextlib
import sys
import time
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


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## What a move does to the original
#
# You can watch a move without a GPU by using the `meta` device, which every PyTorch build
# has. A meta tensor has a shape and a dtype but no data.

# %% [markdown] tags=["predict"]
# **Predict:** `x` is on the CPU. After `m = x.to("meta")`, what does
# `print(x.device, m.device)` show?
#
# - `meta meta`
# - `cpu meta`
# - `cpu cpu`

# %%
x = torch.arange(4.0)
m = x.to("meta")
print(x.device, m.device)

# %% tags=["claim-F7", "answer"]
print(m)
assert m is not x
assert x.device.type == "cpu"  # the original stayed on the CPU
assert m.device.type == "meta"
assert m.shape == x.shape and m.dtype == x.dtype

# %% [markdown] tags=["answer"]
# **Answer:** `cpu meta`. `to` returns a new tensor on `meta` and leaves `x` where it was;
# the checks above confirm that `m` is a new tensor with the same shape and dtype.
#
# - `meta meta` would mean that `to` moved `x` itself.
# - `cpu cpu` would mean that it moved nothing.
#
# So keep the result, usually under the same name: `t = t.to(device)`.

# %% [markdown]
# Because a meta tensor has no data, `meta` shows what a move does to your variables, not
# what it costs: nothing is copied, and nothing can be copied back.

# %% tags=["claim-F7"]
with expect_error(NotImplementedError, "no data"):
    m.cpu()
assert m.is_meta

# %% [markdown]
# ## The cuda and cpu shortcuts
#
# `t.cuda()` moves to the current CUDA device, like `t.to("cuda")`; `t.cuda(i)` moves to
# `cuda:i`. `t.cpu()` is `t.to("cpu")`. They follow the same rule as `to`. On a GPU, the next
# cell moves `x` there and back and asserts that both moves returned new tensors and left `x`
# on the CPU.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    g = x.cuda()
    back = g.cpu()
    print(x.device, g.device, back.device)
    assert g.device == torch.device("cuda", torch.cuda.current_device())
    assert g.device == x.to("cuda").device
    assert x.cuda(0).device == torch.device("cuda", 0)
    assert x.device.type == "cpu"  # the original stayed on the CPU
    assert back is not x and torch.equal(back, x)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Moving a tensor to where it already is
#
# A common line in training code moves a tensor that may already be on the right device. What
# does `to` do when the tensor already has the device and the dtype you ask for?

# %% [markdown] tags=["predict"]
# **Predict:** `a` is already on `device`. The cell runs `b = a.to(device)`, writes `1.0` into
# `b[0]`, and prints whether `b` is `a` and what `a[0]` holds. What does it print?
#
# - `b is a=False, a[0].item()=0.0`
# - `b is a=True, a[0].item()=1.0`
# - `b is a=False, a[0].item()=1.0`

# %%
a = torch.zeros(3, device=device)
b = a.to(device)
b[0] = 1.0
print(f"{b is a=}, {a[0].item()=}")

# %% tags=["claim-F1", "gpu-only", "answer"]
assert b is a
assert a[0].item() == 1.0  # the write into b changed a
assert a.to(a.dtype) is a
assert a.to(device, torch.float32) is a
same = a.cuda() if a.is_cuda else a.cpu()
assert same is a
images = torch.zeros(2, 3, 4, 5, device=device)
# Already in the memory format asked for: the tensor itself
assert images.to(memory_format=torch.contiguous_format) is images
# A new memory format is a change: a rearranged copy
rearranged = images.to(memory_format=torch.channels_last)
assert rearranged is not images and rearranged.data_ptr() != images.data_ptr()
assert rearranged.is_contiguous(memory_format=torch.channels_last)

# %% [markdown] tags=["answer"]
# **Answer:** `b is a=True, a[0].item()=1.0`. Nothing has to change, so `to` returns the
# tensor itself: `b` is not a copy, and writing into it writes into `a`.
#
# - `b is a=False, a[0].item()=0.0` would mean that `to` always copies.
# - `b is a=False, a[0].item()=1.0` would mean a new tensor object that shares `a`'s memory,
#   as a view does; but with nothing to change, `to` hands back `a` itself.
#
# `to` copies only when the device, the dtype or a requested memory format changes, or with
# `copy=True`. A new memory format is a change too: `t.to(memory_format=torch.channels_last)`
# on a 4-D tensor in the usual layout returns a rearranged copy. `t.cpu()` on a CPU tensor
# returns the tensor itself as well, and so does `t.cuda()` on a tensor already on the current
# GPU; the checks above cover it on a GPU only.

# %% [markdown]
# ## Forcing a copy
#
# If you need an independent tensor, say so: `t.to(device, copy=True)` always returns a
# new tensor, and `t.clone()` copies on the same device.

# %% tags=["claim-F1"]
c = a.to(device, copy=True)
c[1] = 5.0
print(a)
print(c)
assert c is not a
assert a[1].item() == 0.0  # the copy is independent
d = a.clone()
assert d is not a and d.device == a.device

# %% [markdown]
# `.cuda()` and `.cpu()` have no `copy` argument. Use `to(..., copy=True)` or `clone()`.

# %% tags=["claim-F1"]
for method in (a.cuda, a.cpu):
    with expect_error(TypeError, "copy"):
        method(copy=True)
assert a.to(device, copy=True) is not a

# %% [markdown]
# ### Moving a view
#
# A slice such as `base[2:4]` is a view: it shares `base`'s storage. Moved to another device, it
# becomes a new tensor with a storage of its own that holds only the view's elements. It is no
# longer a view, so writing to it no longer changes `base`, nor the other way round. To the device
# it is already on, `to` returns the view itself, which still shares `base`'s storage. `meta`
# plays the other device, so the cell runs on any machine.

# %%
base = torch.arange(6.0)
view = base[2:4]
stay = view.to("cpu")
moved = view.to("meta")
print(f"{stay is view=}, {moved._base is None=}")
print(f"{moved.untyped_storage().nbytes()=}")
assert view._base is base and stay is view
assert stay.data_ptr() == base.data_ptr() + 2 * base.element_size()
assert moved._base is None and not moved._is_view()
assert moved.storage_offset() == 0
# 2 elements, not 6
assert moved.untyped_storage().nbytes() == view.numel() * view.element_size()

# %% [markdown]
# ## Device and dtype in one call
#
# `to` can change the device and the dtype at once. Put the device first, or use
# keywords.

# %%
t = torch.arange(3)
u = t.to(device, torch.float16)
v = t.to(dtype=torch.float16, device=device)
print(t.dtype, u.dtype, v.dtype)
print(u.device, v.device)
assert t.dtype == torch.int64  # t itself is unchanged
assert u.dtype == v.dtype == torch.float16
assert u.device.type == v.device.type == device.type

# %% [markdown]
# With the dtype first, no signature of `to` matches and you get a `TypeError`:

# %%
with expect_error(TypeError, "invalid combination of arguments"):
    t.to(torch.float16, device)

# %% [markdown]
# ## cuda only takes CUDA devices
#
# `t.cuda()` takes a CUDA device, or an index of one. Handing it another device is an error,
# and the question is which one.

# %% [markdown] tags=["predict"]
# **Predict:** What does `t.cuda("cpu")` raise, on a machine with or without a GPU?
#
# - `Torch not compiled with CUDA enabled`
# - `TypeError`
# - `must be cuda device`

# %%
with expect_error(Exception) as caught:
    t.cuda("cpu")

# %% tags=["answer"]
assert type(caught.error) is RuntimeError
assert "must be cuda device" in str(caught.error)

# %% [markdown] tags=["answer"]
# **Answer:** `must be cuda device`, in a `RuntimeError`. `cuda()` checks its argument
# before it needs CUDA, so the message is the same on every machine.
#
# - `Torch not compiled with CUDA enabled` comes only when CUDA itself is needed, and the
#   argument is refused before that.
# - `TypeError` would mean an argument of the wrong type; `"cpu"` is a valid device, only not
#   a CUDA one.

# %% [markdown]
# ## A GPU index that does not exist
#
# Asking for a GPU you do not have, such as `cuda:1` on a one-GPU machine, used to raise a
# plain `RuntimeError` reading "CUDA error: invalid device ordinal". Since PyTorch 2.8 it
# raises `torch.AcceleratorError` with the same text. `AcceleratorError` is a subclass of
# `RuntimeError`, so an `except RuntimeError` written for older versions still catches it.
#
# On a GPU, the cell asks for index `torch.cuda.device_count()`, one past the last GPU, and
# asserts that the error names an invalid device ordinal (and, from 2.8, that it is a
# `torch.AcceleratorError`). Without a GPU there is no index to get wrong.

# %% tags=["claim-O4", "gpu-only"]
if torch.cuda.is_available():
    n = torch.cuda.device_count()
    try:
        torch.ones(1).cuda(n)
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
        assert "invalid device ordinal" in str(err)
        if TORCH >= (2, 8):
            assert isinstance(err, torch.AcceleratorError)
    else:
        raise AssertionError("expected RuntimeError")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Pinned memory and non_blocking
#
# A copy from ordinary (pageable) CPU memory to the GPU makes the CPU wait until the copy
# is done. If the source is in page-locked ("pinned") memory, `to("cuda",
# non_blocking=True)` only queues the copy on the current CUDA stream and returns at once,
# so the CPU can do other work while the GPU copies and computes.
#
# That is not automatically faster. `pin_memory()` is itself a copy: it returns a new
# tensor in pinned memory and leaves the original as it was. Pinning needs an accelerator,
# and the cell asserts the outcome for the machine it runs on:
#
# - with a usable accelerator (on a GPU), it asserts that `pin_memory()` returns a pinned copy
#   and leaves the original unpinned;
# - with a PyTorch built for no accelerator (the CPU-only build), that `pin_memory()` raises
#   `RuntimeError: Cannot access accelerator device when none is available.`; torch 2.6 raises it
#   too on an accelerator build with none usable;
# - since torch 2.7, with a PyTorch built for an accelerator on a machine without one (a CUDA
#   build on Colab's CPU runtime), that it raises a `RuntimeError` of that accelerator's own,
#   whose message depends on the driver.

# %% tags=["claim-F10", "gpu-only"]
NO_ACCELERATOR = "Cannot access accelerator device when none is available"
host = torch.randn(1024, 1024)
usable = torch.accelerator.is_available()
# From 2.7, current_accelerator() names the accelerator the build supports
# (None if none); on 2.6 it raises when none is usable
built_for = None
if usable or TORCH >= (2, 7):
    built_for = torch.accelerator.current_accelerator()
print(f"{usable=}, {built_for=}")

if usable:
    pinned = host.pin_memory()
    print(f"{host.is_pinned()=}, {pinned.is_pinned()=}")
    assert pinned.is_pinned() and not host.is_pinned()
    # Pinning copied the data to new memory
    assert pinned.data_ptr() != host.data_ptr()
    assert torch.equal(pinned, host)
elif built_for is None:
    with expect_error(RuntimeError, NO_ACCELERATOR):
        host.pin_memory()
else:
    # The message depends on the driver, so only the type is checked
    try:
        host.pin_memory()
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
    else:
        raise AssertionError("expected RuntimeError")

# %% [markdown]
# The next cell makes the waiting visible. It keeps the GPU busy with matrix products
# (queued, so the call returns at once), makes a copy, and then asks the stream with
# `stream.query()` whether all its work is done. On a GPU, the cell asserts that the answer is:
#
# - `True` after an ordinary copy from pageable memory: the call waited for the queued work
#   and the copy;
# - `False` after `pinned.to("cuda", non_blocking=True)`: the call came back while the GPU was
#   still busy;
# - `False` after `to("cpu", non_blocking=True)` as well, so the values in the CPU tensor are
#   not guaranteed until `torch.cuda.synchronize()` has returned. Synchronize before reading
#   them.
#
# `copy_and_ask` runs twice: the first run only warms up the GPU library and the memory
# caches.

# %% tags=["claim-F10", "gpu-only"]
if torch.cuda.is_available():
    host = torch.randn(1024, 1024)
    pinned = host.pin_memory()
    stream = torch.cuda.current_stream()
    w = torch.randn(4096, 4096, device="cuda")
    out = torch.empty_like(w)

    def keep_gpu_busy():
        for _ in range(10):
            torch.mm(w, w, out=out)

    def copy_and_ask():
        keep_gpu_busy()
        x1 = host.to("cuda")
        idle_after_blocking = stream.query()
        keep_gpu_busy()
        x2 = pinned.to("cuda", non_blocking=True)
        idle_after_non_blocking = stream.query()
        keep_gpu_busy()
        host_again = x2.to("cpu", non_blocking=True)
        idle_after_to_cpu = stream.query()
        # Only from here on are the values in host_again guaranteed
        torch.cuda.synchronize()
        same = torch.equal(x1, x2) and torch.equal(host_again, host)
        return (idle_after_blocking, idle_after_non_blocking,
                idle_after_to_cpu, same)

    copy_and_ask()  # warm-up
    blocking_idle, non_blocking_idle, to_cpu_idle, same = copy_and_ask()
    print(blocking_idle, non_blocking_idle, to_cpu_idle, same)
    assert blocking_idle
    assert not non_blocking_idle
    assert not to_cpu_idle
    assert same
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# Whether pinning pays off depends on the machine, the tensor sizes and whether the CPU
# has useful work to do in the meantime. PyTorch's tutorial
# [on `pin_memory()` and `non_blocking`](https://pytorch.org/tutorials/intermediate/pinmem_nonblock.html)
# measures cases where the pinned path is slower. Measure your own pipeline before and
# after.
#
# On a GPU, the cell below runs both paths once to warm up (the first copy to the GPU and the
# first pinned allocation are slow one-off costs), then times one copy both ways and prints
# the times in milliseconds. It asserts nothing about them; the pinned path includes the
# `pin_memory()` copy.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    big = torch.randn(4096, 4096)
    big.to("cuda")  # warm-up: both paths once, untimed
    big.pin_memory().to("cuda", non_blocking=True)
    torch.cuda.synchronize()

    t0 = time.perf_counter()
    big.to("cuda")
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    big.pin_memory().to("cuda", non_blocking=True)
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    pageable_ms, pinned_ms = (t1 - t0) * 1e3, (t2 - t1) * 1e3
    print(f"{pageable_ms=:.1f}, {pinned_ms=:.1f}")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Summary
#
# - `t.to(device)`, `t.cuda()` and `t.cpu()` return a tensor on the target device and leave
#   `t` where it was. Keep the result: `t = t.to(device)`.
# - If nothing has to change, you get `t` itself back, and writes go into `t`. Use
#   `copy=True` or `clone()` when you need an independent tensor; `.cuda()` and `.cpu()`
#   have no `copy` argument.
# - Give the device before the dtype, or use keywords.
# - `t.cuda()` accepts only CUDA devices. A GPU index that does not exist raises
#   `torch.AcceleratorError` (a `RuntimeError`) since PyTorch 2.8.
# - `pin_memory()` with `non_blocking=True` lets the CPU go on while the copy runs. It is
#   not automatically faster, and it needs an accelerator. After a `non_blocking` copy to the
#   CPU, synchronize before reading the values.
