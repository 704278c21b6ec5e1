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
# # Setup and memory errors, decoded
#
# These errors come from around the training code rather than from it: loading a checkpoint, asking for
# a GPU the machine does not have, starting worker processes, installing PyTorch, and running out of GPU
# memory. Each section is headed with the error message it explains, so you can search the page for the
# words in your traceback; it says what the message means, shows the code that causes it and runs the
# fix. An operation that gets tensors on two devices is on
# [Device mismatch errors, decoded](07-device-errors.ipynb).
#
# Half of these errors can be produced without a GPU, and the page produces them: on a CPU-only build
# of PyTorch and with a checkpoint whose storages say `cuda`. The others (an invalid device ordinal,
# CUDA in a forked child, out of memory) need a GPU: their cells run the fix everywhere and check the
# error only on a GPU. Without one, such a cell prints the condition it needs instead, and the text
# quotes the message as PyTorch's source writes it, with the version where the wording changed
# between releases.

# %% [markdown] tags=["summary"]
# **In short**
#
# - A checkpoint saved on a GPU loads on any machine with `map_location`.
# - DataLoader workers do not need CUDA: they make CPU batches, and the loop moves each batch to the device. A worker that must use CUDA starts with `spawn`, not `fork`.
# - "Torch not compiled with CUDA enabled" means a CPU-only build of PyTorch: install a CUDA build, or choose the device with a fallback to the CPU.
# - The table at the end of the page lists each message with its usual cause and its fix.
#
# ```python
# state = torch.load(path, map_location=device)
# for (x,) in DataLoader(data, num_workers=2):
#     x = x.to(device)
# ```

# %% tags=["setup"]
import contextlib
import inspect
import multiprocessing
import os
import subprocess
import sys
import tempfile
import types
import warnings
import zipfile

import torch
from torch.utils.data import DataLoader, TensorDataset

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
# ## Attempting to deserialize object on a CUDA device
#
# The full message:
#
# ```
# Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.
# ```
#
# A checkpoint records, for each storage, the device it was saved from, and `torch.load` puts it back
# there. A file saved from a GPU therefore says `cuda:0`, and a machine without a usable CUDA GPU
# cannot honour that. The fix is in the message: `map_location`.
#
# To produce such a file without a GPU, the cell saves a CPU tensor and rewrites the device string in
# the file. A checkpoint is a zip archive; its `data.pkl` holds the pickled structure, with each
# storage's device as a short string. The rewrite changes only that string, which is all `torch.load`
# looks at to choose the device, so loading takes the same path as for a file saved on a GPU. It does
# not show how a GPU writes the file.
#
# On a GPU, the cell loads the file onto `cuda:0`; without one, it shows the error, then the fix.

# %% tags=["gpu-only"]
def retag(path, old, new):
    # Pickle protocol 2, which torch.save uses, writes a string as
    # b"X" + its length in 4 bytes + its UTF-8 bytes
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
        with expect_error(RuntimeError, "Attempting to deserialize object"):
            torch.load(path, weights_only=True)

    on_cpu = torch.load(path, map_location="cpu", weights_only=True)
    here = torch.load(path, map_location=device, weights_only=True)

print(f"{on_cpu['weight']=}, {here['weight'].device=}")
assert on_cpu["weight"].device.type == "cpu"
assert torch.equal(on_cpu["weight"], torch.arange(3.0))
assert here["weight"].device.type == device.type

# %% [markdown]
# `weights_only=True` has been the default of `torch.load` since PyTorch 2.6. It is written out here all
# the same, so that the line still loads safely when it is copied into a project on an older release.

# %% [markdown]
# ## CUDA error: invalid device ordinal
#
# The GPU index does not exist: `cuda:1` on a machine with one GPU, for example, or an index that was
# valid before `CUDA_VISIBLE_DEVICES` hid some GPUs (the visible GPUs are numbered again from 0). Up to
# PyTorch 2.7 it is a `RuntimeError`; since 2.8 a `torch.AcceleratorError`, a subclass of
# `RuntimeError`. Since 2.9 the message has a second line, a hint: `GPU device may be out of range, do
# you have enough GPUs?` (2.8 does not have it yet).

# %% [markdown] tags=["predict"]
# **Predict:** This machine may have one GPU or none, and its PyTorch may be a CPU-only build. What does
# the next cell print first?
#
# - `seven=device(type='cuda', index=7)`
# - `CUDA error: invalid device ordinal`
# - `Torch not compiled with CUDA enabled`

# %%
seven = torch.device("cuda", 7)
print(f"{seven=}, {torch.cuda.device_count()=}")

# %% tags=["answer"]
assert seven.index == 7
if TORCH >= (2, 8):
    assert issubclass(torch.AcceleratorError, RuntimeError)

# %% [markdown] tags=["answer"]
# **Answer:** `seven=device(type='cuda', index=7)`, on every machine, with or without CUDA. A
# `torch.device` is only a name: writing it checks nothing. The error comes when a tensor is first put
# on that device, as the GPU-only cell below does.

# %% [markdown]
# On a GPU, the next cell asks for one index past the last GPU (and, from 2.9, checks the hint line),
# then uses a valid index: anything below `torch.cuda.device_count()`.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    n = torch.cuda.device_count()
    kind = torch.AcceleratorError if TORCH >= (2, 8) else RuntimeError
    with expect_error(kind, "invalid device ordinal"):
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
# this error. It also comes from `pin_memory()`, which needs an accelerator.
#
# Which builds raise it:
#
# - a CPU-only build, always;
# - a CUDA build on a machine without a usable GPU, up to PyTorch 2.6 (checked with 2.6.0+cu124 on a
#   machine without an NVIDIA driver);
# - from 2.7 on, such a build no longer does: the accelerator is the one it was built for.
#   `torch.device(0)` is `cuda:0`, and the error comes only when a tensor is created there, with the
#   reason, such as `Found no NVIDIA driver on your system` (checked with 2.11.0+cu130 on a machine
#   without an NVIDIA driver).
#
# The fix: name the device (`"cuda:0"`, or the `device` you chose once), and pin memory only when there
# is an accelerator. The cell shows which case this machine is in; on a GPU it creates a tensor on
# index 0.

# %% tags=["gpu-only"]
usable = torch.accelerator.is_available()
# From 2.7 current_accelerator() names the accelerator the build
# supports (None if none); 2.6 raises when none is usable
if usable or TORCH >= (2, 7):
    built_for = torch.accelerator.current_accelerator()
else:
    built_for = None
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
    # a build for an accelerator, on a machine without one:
    # index 0 of that accelerator
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
# `DataLoader(..., pin_memory=True)` returns batches in pinned (page-locked) CPU memory, and
# `t.to(device, non_blocking=True)` can then queue the copy to the GPU and return at once. Without an
# accelerator, the DataLoader does not fail: it returns ordinary batches, and
# `to(..., non_blocking=True)` is an ordinary move. So the same loop runs everywhere.
#
# Some releases warn when `pin_memory=True` finds no accelerator (2.13 does, 2.6 does not): the cell
# collects the warnings and prints their kind. Whether pinning makes training faster is a separate
# question, measured in [Moving tensors](02-moving-tensors.ipynb). On a GPU the cell also checks that
# the batches were pinned.

# %% tags=["gpu-only"]
loader = DataLoader(
    TensorDataset(torch.randn(8, 3), torch.arange(8)),
    batch_size=4,
    pin_memory=True,
)
with warnings.catch_warnings(record=True) as warned:
    warnings.simplefilter("always")
    for features, labels in loader:
        pinned = features.is_pinned()
        features = features.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)

print([w.category.__name__ for w in warned])
print(f"{pinned=}, {features.device=}, {labels.device=}")
assert features.device.type == labels.device.type == device.type
if torch.cuda.is_available():
    assert pinned
elif not torch.accelerator.is_available():
    assert not pinned
    if TORCH >= (2, 13):  # it warns that no accelerator was found
        assert any("no accelerator" in str(w.message) for w in warned)

# %% [markdown]
# A copy in the other direction, `to("cpu", non_blocking=True)`, may return before the data has
# arrived: call `torch.cuda.synchronize()` before reading such a tensor.
# [Moving tensors](02-moving-tensors.ipynb) shows this with a cell that checks it on a GPU.

# %% [markdown]
# ## Cannot re-initialize CUDA in forked subprocess
#
# The full message:
#
# ```
# Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method
# ```
#
# On Linux up to Python 3.13, `multiprocessing` and DataLoader workers start child processes with
# `fork` by default: a copy of the parent (Python 3.14 made `forkserver` the default on Linux). If the
# parent has already initialised CUDA, a forked child cannot use CUDA at all.
#
# The cell forks a child that creates a tensor on `device`. On a GPU the parent has initialised CUDA
# (it created a tensor there), so the child fails with this message, which it sends back to the
# parent. Without a GPU, CUDA was never initialised, the error cannot occur, and the child creates its
# CPU tensor without trouble: the cell then shows `torch.cuda.is_initialized()` as `False` and the
# child's result. The cell runs on Linux only, where `fork` is available and safe to demonstrate; it
# asks for the `fork` start method explicitly, whatever the default.

# %% tags=["gpu-only"]
def child(queue, device):
    try:
        queue.put(("ok", torch.ones(2, device=device).sum().item()))
    except RuntimeError as err:
        queue.put(("error", str(err)))


if sys.platform.startswith("linux"):
    torch.ones(1, device=device)  # on a GPU, CUDA starts in this process
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
        assert outcome == "error"
        assert "Cannot re-initialize CUDA in forked subprocess" in result
    else:
        assert outcome == "ok" and result == 2.0
else:
    print(f"{sys.platform=}")

# %% [markdown] tags=["predict"]
# **Predict:** On a GPU, this process has now used CUDA. Next, a DataLoader starts two worker
# processes (with `fork`, on Linux up to Python 3.13) to produce the batches, and the loop moves
# each batch to `device`. What does the cell print?
#
# - `devices={'cuda'}`
# - `Cannot re-initialize CUDA in forked subprocess`
# - `devices={'cpu'}`

# %%
dataset = TensorDataset(torch.randn(8, 3))
loader = DataLoader(dataset, batch_size=4, num_workers=2)
devices = set()
for (features,) in loader:
    devices.add(features.device.type)  # what the workers produced
    features = features.to(device)
print(f"{devices=}, {features.device=}")

# %% tags=["answer"]
assert devices == {"cpu"}
assert features.device.type == device.type

# %% [markdown] tags=["answer"]
# **Answer:** `devices={'cpu'}`, with or without a GPU. The workers only read the dataset and stack CPU
# tensors into batches. They never touch CUDA, so being forked from a process that has used CUDA does
# them no harm, and nothing they produce is on the GPU (`devices={'cuda'}` would need them to use
# CUDA). The move to the device happens in the main process, in the loop.
#
# That is the usual fix for this error: keep CUDA out of the workers. The workers load and prepare CPU
# tensors, and the training loop moves each batch to the device in the main process. This is also how
# the DataLoader is meant to be used, and it works with `fork` even after the parent has used the GPU.

# %% [markdown]
# If a child process really must use CUDA, start it with `spawn`: `multiprocessing.get_context("spawn")`,
# or `DataLoader(..., multiprocessing_context="spawn")`. `forkserver` works too: its children are
# forked from a server process started fresh, which imports your script but runs nothing under
# its `if __name__ == "__main__":` guard. Both bring the rules of `spawn` with them: keep the code
# that uses CUDA under that guard, and define the dataset class at the top level of a module
# ([Several GPUs](05-several-gpus.ipynb)).

# %% [markdown]
# ## Torch not compiled with CUDA enabled
#
# The installed PyTorch is a CPU-only build (the wheel's version often ends in `+cpu`), and the code
# asked for CUDA, with `.cuda()` or `device="cuda"` for example: an `AssertionError`. Not every CUDA
# call on such a build says so: `torch.cuda.set_device(0)` fails with
# `AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'`, which means the same thing.
#
# A CUDA build on a machine where CUDA cannot start says something else, a `RuntimeError` whose text
# names the reason. With PyTorch 2.6.0+cu124 on a machine without an NVIDIA driver, it reads:
#
# ```
# Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx
# ```
#
# The fixes: to use a GPU, replace the CPU build with a CUDA build, on a machine with an NVIDIA GPU
# and driver. macOS has no CUDA build at all: on a Mac with Apple silicon, use the `mps` device
# instead. From PyPI, `pip install torch` gives a CUDA build on Linux (x86-64) but a CPU build on
# Windows. pip keeps an installed torch of the same version, so uninstall it first, then install
# from PyTorch's own index for a CUDA version that your driver and your GPU support. The selector
# on pytorch.org lists the CUDA versions of each release; torchvision and torchaudio come from the
# same index. A GPU of the Blackwell generation (GeForce RTX 50 series, B200) needs `cu128` or newer,
# so torch 2.7 or newer, the first release with `cu128` builds: `cu126` builds do not contain code
# for it, and torch warns that the GPU "is not compatible with the current PyTorch installation".
# On Linux, PyPI's torch is a `cu128` build or newer from 2.8 on (2.7's was `cu126`). The commands
# are the same on Windows and Linux:
#
# ```
# python -m pip uninstall -y torch
# python -m pip install torch --index-url https://download.pytorch.org/whl/cu128
# ```
#
# To run anywhere, choose the device once and use
# it everywhere, as every page of this tutorial does. The cell shows which case your machine is in; on
# a GPU it creates a CUDA tensor.

# %% tags=["gpu-only"]
print(f"{torch.version.cuda=}, {torch.backends.cuda.is_built()=}")
print(f"{torch.cuda.is_available()=}")
if sys.platform == "darwin":
    assert not torch.backends.cuda.is_built()  # no CUDA build for macOS
# the warning for a GPU that the build has no code for
assert "not compatible with the current" in inspect.getsource(torch.cuda)
if not torch.backends.cuda.is_built():
    with expect_error(AssertionError, "Torch not compiled with CUDA enabled"):
        torch.zeros(1, device="cuda")
    with expect_error(AssertionError, "Torch not compiled with CUDA enabled"):
        torch.ones(1).cuda()
    with expect_error(AttributeError, "_cuda_setDevice"):
        torch.cuda.set_device(0)
elif not torch.cuda.is_available():
    # the reason varies: no driver, a driver too old, no GPU
    try:
        torch.zeros(1, device="cuda")
    except RuntimeError as err:
        sys.stdout.flush()
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError("expected RuntimeError")
else:
    assert torch.zeros(1, device="cuda").is_cuda

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
assert torch.zeros(1, device=device).device.type == device.type

# %% [markdown]
# ## CUDA out of memory
#
# From PyTorch 2.6 to 2.13 the message begins like this, with sizes where the dots are:
#
# ```
# CUDA out of memory. Tried to allocate …. GPU 0 has a total capacity of … of which … is free.
# ```
#
# Then it gives the memory in use by this process (and by other processes, where the driver lists
# them), and goes on:
#
# ```
# Of the allocated memory … is allocated by PyTorch, and … is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.
# ```
#
# That is 2.6's wording. Releases 2.9 and 2.10 name `PYTORCH_ALLOC_CONF` there instead (2.11's message
# has not been checked here), and 2.12 names `PYTORCH_CUDA_ALLOC_CONF` again, which became an alias of
# the new name
# ([pytorch#167659](https://github.com/pytorch/pytorch/pull/167659)); which one to set is at the end
# of this section. The figures in the message:
#
# - *allocated by PyTorch* (`torch.cuda.memory_allocated()`): the blocks the allocator has handed
#   out: live tensors, each rounded up to a multiple of 512 bytes, and the workspaces of libraries
#   such as cuBLAS;
# - *reserved by PyTorch but unallocated*: memory PyTorch's caching allocator holds from the GPU with no
#   tensor in it, about `torch.cuda.memory_reserved() - torch.cuda.memory_allocated()`. A freed tensor's
#   memory goes back to this cache, not to the driver, so `nvidia-smi` still counts it until
#   `torch.cuda.empty_cache()`;
# - `nvidia-smi` also counts the CUDA context of each process and other processes on the same GPU.
#
# First things to try: a smaller batch; a running sum of `loss.detach()` instead of `loss` tensors
# ([Reading a value waits for the GPU](07-device-errors.ipynb#reading-a-value-waits-for-the-gpu));
# `torch.no_grad()` for evaluation; `del` for large tensors you no longer need; and, when the reserved
# but unallocated part is large, the `expandable_segments` setting from the message (Linux only).
# How much memory a model needs, and whether it fits before you run it, is the subject of
# [Will it fit?](08-will-it-fit.ipynb).

# %% [markdown] tags=["predict"]
# **Predict:** A training loop wraps its step in `try` to catch this error and retry with a smaller
# batch. Which `except` clause catches it?
#
# - `handler='RuntimeError'`
# - `handler='Exception'`

# %%
try:
    raise torch.OutOfMemoryError("CUDA out of memory.")
except RuntimeError:
    handler = "RuntimeError"
except Exception:
    handler = "Exception"
print(f"{handler=}")

# %% tags=["answer"]
assert handler == "RuntimeError"
assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
assert issubclass(torch.OutOfMemoryError, RuntimeError)

# %% [markdown] tags=["answer"]
# **Answer:** `handler='RuntimeError'`. The error is `torch.OutOfMemoryError`, a subclass of
# `RuntimeError`, on every machine, so the first clause catches it; `torch.cuda.OutOfMemoryError` is
# another name for the same class. To catch only this error, write `except torch.OutOfMemoryError`.

# %% [markdown]
# On a GPU, the next cell asks for twice the GPU's memory. Then it checks that a freed tensor no longer
# counts as *allocated*, but stays *reserved* until `torch.cuda.empty_cache()`.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    total = torch.cuda.get_device_properties(0).total_memory
    with expect_error(torch.OutOfMemoryError, "CUDA out of memory"):
        torch.empty(2 * total, dtype=torch.uint8, device="cuda:0")

    torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated(0)
    block = torch.empty(256 * 2**20, dtype=torch.uint8, device="cuda:0")
    del block
    reserved = torch.cuda.memory_reserved(0)
    torch.cuda.empty_cache()
    allocated_change = torch.cuda.memory_allocated(0) - before
    print(f"{allocated_change=}, {reserved=}")
    print(f"{torch.cuda.memory_reserved(0)=}")
    assert allocated_change == 0
    assert reserved >= 256 * 2**20
    assert torch.cuda.memory_reserved(0) < reserved
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# Reserved memory can also be unusable: free blocks inside segments, each too small for the next
# request (fragmentation). The allocator setting `expandable_segments:True` lets a segment grow
# instead, which helps most when batch shapes change from step to step. It works on Linux only:
# Windows builds ignore it, with the warning `expandable_segments not supported on this platform`.
# The variable is read once, when the allocator is first set up: set it before `import torch`.
#
# The variable's name: `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` is read by every
# release from 2.6 to 2.13. Since 2.9 the device-generic name `PYTORCH_ALLOC_CONF` is read too;
# with 2.9 to 2.11 the old name brings a warning (`PYTORCH_CUDA_ALLOC_CONF is deprecated, use
# PYTORCH_ALLOC_CONF instead`, from `c10/core/AllocatorConfig.cpp`), and with 2.9.1 the new name did
# not switch expandable segments on ([pytorch#183387](https://github.com/pytorch/pytorch/issues/183387)).
# 2.13 reads the old name without a warning, and where both are set it uses the old one; releases
# differ on that. The next cell checks both in a fresh process, on the allocator's settings as parsed
# (on a GPU, `torch.cuda.memory._snapshot()` shows the segments themselves). Where one script must
# run on all of them, set the old name, and only that one: the warning is all it costs.

# %%
if TORCH >= (2, 13):  # the old name, read without a warning
    probe = ("import torch; "
             "print(torch._C._accelerator_getAllocatorSettings())")
    env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True")
    env.pop("PYTORCH_ALLOC_CONF", None)
    child = subprocess.run([sys.executable, "-c", probe], env=env,
                           capture_output=True, text=True, timeout=120)
    print(f"{child.stdout.strip()=}")
    assert child.stdout.strip() == "expandable_segments:True"
    assert "deprecated" not in child.stderr
    both = dict(env, PYTORCH_ALLOC_CONF="expandable_segments:False")
    child = subprocess.run([sys.executable, "-c", probe], env=both,
                           capture_output=True, text=True, timeout=120)
    print(f"{child.stdout.strip()=}")  # both set: 2.13 takes the old name
    assert child.stdout.strip() == "expandable_segments:True"
else:
    print(f"{torch.__version__=}")

# %% [markdown]
# ## Summary
#
# | Message (fragment) | Usual cause | Fix |
# |---|---|---|
# | `Attempting to deserialize object on a CUDA device` | a GPU checkpoint loaded without a usable GPU | `torch.load(path, map_location=device)` |
# | `CUDA error: invalid device ordinal` | a GPU index that does not exist | an index below `torch.cuda.device_count()` |
# | `Cannot access accelerator device when none is available.` | an integer device or `pin_memory()` without an accelerator | name the device; pin only with an accelerator |
# | `Cannot re-initialize CUDA in forked subprocess` | CUDA in a forked child after the parent used it | CPU work in workers, move in the main process; or `spawn` |
# | `Torch not compiled with CUDA enabled` | a CPU-only build asked for CUDA (`set_device` says `no attribute '_cuda_setDevice'`) | a CUDA build (`cu128` or newer for Blackwell GPUs; on macOS, `mps` instead), or choose the device once |
# | `CUDA out of memory` | more memory asked than the GPU has free | smaller batches, sum `loss.detach()`, `no_grad()`, `del`; read allocated vs reserved |
