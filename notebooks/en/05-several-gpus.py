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
# # Several GPUs
#
# With more than one GPU, every CUDA call that names no index goes to the *current device*. This
# page shows how that device is chosen, how to hide GPUs from a process, what `nn.DataParallel`
# really does, and how `DistributedDataParallel` is launched (one process per GPU) and fed its share of
# the data. We launch it for real, with `torchrun` and two CPU processes. Last comes why DataLoader
# workers trip on Windows and macOS.
#
# Cells whose checks need a GPU print the unmet condition instead, such as
# `torch.cuda.is_available()=False` or `n_gpus=0`, or check what happens without one; every other
# cell runs on any machine.

# %% [markdown] tags=["summary"]
# **In short**
#
# - `"cuda"` without an index, and `.cuda()`, mean the current GPU: choose it with `torch.cuda.set_device(i)`. Set `CUDA_VISIBLE_DEVICES` before CUDA starts.
# - To train on several GPUs, launch one process per GPU with `torchrun` and wrap the model with `DistributedDataParallel`.
#
# ```python
# local_rank = int(os.environ["LOCAL_RANK"])
# torch.cuda.set_device(local_rank)
# device = torch.device("cuda", local_rank)
# model = DDP(model.to(device), device_ids=[local_rank])
# ```

# %% tags=["setup"]
import contextlib
import inspect
import json
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import DistributedSampler

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
n_gpus = torch.cuda.device_count()
print(torch.__version__, device, n_gpus)

# %% [markdown]
# ## The current device
#
# Each thread has one current CUDA device, which starts as GPU 0. `torch.cuda.current_device()`
# reads it, `torch.cuda.set_device(i)` changes it, and `with torch.cuda.device(i):` changes it for
# a block and restores it afterwards. Whatever names no index, such as `.cuda()` or `"cuda"`, uses
# it. On a GPU, the next cell asserts this with the last GPU, which is GPU 0 on a one-GPU machine.

# %% tags=["claim-F9", "gpu-only"]
if torch.cuda.is_available():
    start = torch.cuda.current_device()
    last = n_gpus - 1
    with torch.cuda.device(last):
        inside = torch.cuda.current_device()
        t = torch.zeros(2).cuda()
    after = torch.cuda.current_device()
    print(f"{start=}, {inside=}, {t.device=}, {after=}")
    assert start == 0  # a fresh process starts on GPU 0
    assert inside == last and t.device == torch.device("cuda", last)
    assert after == start  # restored when the block ends

    torch.cuda.set_device(last)
    assert torch.cuda.current_device() == last
    torch.cuda.set_device(start)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## What "cuda" means
#
# A device can be named with an index, `"cuda:0"`, or without one, `"cuda"`. Creating a
# `torch.device` needs no GPU, so the next cell runs on any machine.

# %% [markdown] tags=["predict"]
# **Predict:** `d = torch.device("cuda")` is written without an index. What does the cell print
# for `d.index`?
#
# - `d.index=0`
# - `d.index=None`
# - `d.index=-1`

# %%
d = torch.device("cuda")
print(repr(d))
print(f"{d.index=}")

# %% tags=["answer"]
assert d.index is None
assert d != torch.device("cuda", 0)
assert d.type == "cuda"

# %% [markdown] tags=["answer"]
# **Answer:** `d.index=None`. `"cuda"` names no GPU: it means "the current CUDA device", looked
# up when a tensor is created or moved.
#
# - `d.index=0` would make `"cuda"` a synonym for `cuda:0`. It is not one: the two devices do not
#   even compare equal.
# - `d.index=-1` is not how PyTorch shows a missing index in Python: it shows `None`.

# %% [markdown]
# On one GPU that lookup always gives `cuda:0`. With two or more it matters: `t.to("cuda")` on a
# tensor that lives on `cuda:1` copies it to `cuda:0` when GPU 0 is current, and returns `t` itself
# when GPU 1 is current. On a machine with two GPUs the cell asserts the copy; with one, that `t`
# itself comes back. Without a GPU it prints `n_gpus=0`.

# %% tags=["claim-F2", "gpu-only"]
if n_gpus >= 2:
    t1 = torch.ones(2, device="cuda:1")
    with torch.cuda.device(0):
        moved = t1.to("cuda")
    with torch.cuda.device(1):
        kept = t1.to("cuda")
    print(t1.device, moved.device, kept.device)
    assert moved.device == torch.device("cuda", 0) and moved is not t1
    assert kept is t1
elif n_gpus == 1:
    t = torch.ones(2, device="cuda")
    print(f"{t.device=}, {n_gpus=}")
    assert t.device == torch.device("cuda", torch.cuda.current_device())
    assert t.to("cuda") is t  # already on the current device
else:
    print(f"{n_gpus=}")

# %% [markdown]
# ## Hiding GPUs with CUDA_VISIBLE_DEVICES
#
# The environment variable `CUDA_VISIBLE_DEVICES` lists the GPUs a process may see, renumbered
# from 0: with `CUDA_VISIBLE_DEVICES=1`, GPU 1 becomes `cuda:0` and is the only one. Which physical
# GPU is "GPU 1" depends on CUDA's numbering, which by default puts the fastest GPU first and can
# differ from the order `nvidia-smi` shows (PCI bus order). Set `CUDA_DEVICE_ORDER=PCI_BUS_ID` as
# well to number the GPUs as `nvidia-smi` does.
#
# CUDA reads these variables once, when it initialises in the process. Set them in the shell
# (`CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=1 python train.py`) or in the environment of a
# new process. Here a child Python process gets an empty string and sees no GPU at all; on a machine
# with a GPU, a second child is given only the last one, and the cell asserts that it sees one.

# %% tags=["claim-F9", "gpu-only"]
probe = "import torch; print(torch.cuda.device_count())"
settings = [""]
if n_gpus:
    # This process may already be restricted: name the last GPU it sees
    ours = os.environ.get("CUDA_VISIBLE_DEVICES")
    settings.append(ours.split(",")[n_gpus - 1] if ours else str(n_gpus - 1))
for visible in settings:
    env = dict(os.environ, CUDA_DEVICE_ORDER="PCI_BUS_ID",
               CUDA_VISIBLE_DEVICES=visible)
    child = subprocess.run([sys.executable, "-c", probe], env=env,
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    count = int(child.stdout.split()[-1])
    print(f"{visible=}, {count=}")
    assert count == (0 if visible == "" else 1)

print(f"{torch.cuda.device_count()=}")
assert torch.cuda.device_count() == n_gpus

# %% [markdown]
# Once CUDA has started, changing `os.environ` in the same process has no effect: the GPUs stay
# visible. This is why the variable must be set before the first CUDA call, and is safest set before
# Python starts. On a GPU, the next cell shows this in a fresh child process, so that nothing this
# notebook did before can affect it: CUDA starts, the variable is emptied, and the cell asserts that
# a new tensor still lands on a GPU.

# %% tags=["claim-F9", "gpu-only"]
LATE = """
import os
import torch
torch.zeros(1, device="cuda")
os.environ["CUDA_VISIBLE_DEVICES"] = ""
print(torch.ones(1, device="cuda").device)
"""
if torch.cuda.is_available():
    child = subprocess.run([sys.executable, "-c", LATE],
                           capture_output=True, text=True, timeout=120)
    print(f"{child.returncode=}, {child.stdout.strip()=}")
    assert child.returncode == 0, child.stderr
    # CUDA ignored the late change
    assert child.stdout.split()[-1].startswith("cuda:")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## What nn.DataParallel really does
#
# `nn.DataParallel(model)` is often read as "put my model on the GPUs". What it does depends on the
# accelerator it finds and on the device ids it ends up with (`device_ids`, by default every visible
# device of that kind). It looks for a CUDA GPU, then Apple's MPS, Intel's XPU, Meta's MTIA chips and
# a PrivateUse1 backend (the slot for devices added to PyTorch from outside), in that order:
#
# - no accelerator at all, or an Apple GPU (MPS, which `DataParallel` does not support): `device_ids`
#   is empty, and it keeps the model where it is and calls it; nothing moves;
# - exactly one device id: its constructor moves the model to that device. That is the default on a
#   one-GPU machine (an XPU or another accelerator from the list counts too), and also what
#   `device_ids=[1]` does on a machine with several GPUs: the model goes to `cuda:1`;
# - two or more device ids: it moves nothing. `forward` checks that the parameters are on
#   `device_ids[0]` and raises a `RuntimeError` if they are not, so you must move the model there
#   yourself.
#
# The cell asserts the case that applies to the machine it runs on. With several GPUs it also wraps a
# model with a single device id; without a GPU only the first case runs.

# %% tags=["claim-M5", "gpu-only"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(8, 4)
where = next(model.parameters()).device
print(f"{dp.device_ids=}, {where=}")
if not torch.accelerator.is_available() or torch.backends.mps.is_available():
    assert dp.device_ids == []  # nothing to spread the work over

if len(dp.device_ids) == 0:
    y = dp(x)  # just calls the module
    assert where.type == "cpu" and y.device.type == "cpu"
elif len(dp.device_ids) == 1:
    # moved by the constructor
    assert where.type != "cpu" and where.index == dp.device_ids[0]
    y = dp(x)
    assert y.device == where
else:
    assert where.type == "cpu"  # not moved
    expected = "must have its parameters and buffers on device"
    with expect_error(RuntimeError, expected):
        dp(x)
    model.to(f"cuda:{dp.device_ids[0]}")  # the fix: move it yourself
    y = dp(x)
    assert y.device == torch.device("cuda", dp.device_ids[0])

    last = dp.device_ids[-1]
    one = nn.DataParallel(nn.Linear(4, 2), device_ids=[last])
    print(f"{one.module.weight.device=}")
    # one device id: moved there
    assert one.module.weight.device == torch.device("cuda", last)
print(f"{y.device=}")

# %% [markdown]
# The wrapper keeps your model as `dp.module`. That shows in its `state_dict`, which is what a
# checkpoint saves.

# %% [markdown] tags=["predict"]
# **Predict:** `dp` wraps a `Linear` in `nn.DataParallel`. What are the keys of `dp.state_dict()`?
#
# - `['weight', 'bias']`
# - `[]`
# - `['module.weight', 'module.bias']`

# %%
keys = list(dp.state_dict())
print(keys)

# %% tags=["claim-M5", "answer"]
assert keys == ["module.weight", "module.bias"]
assert dp.module is model
assert list(dp.module.state_dict()) == ["weight", "bias"]

# %% [markdown] tags=["answer"]
# **Answer:** `['module.weight', 'module.bias']`. The wrapper registers your model as its submodule
# `module`, so every key of its `state_dict` gains a `module.` prefix.
#
# - `['weight', 'bias']` are the keys of `dp.module.state_dict()`, the unwrapped model. Save that if
#   the checkpoint should load into a model that is not wrapped.
# - `[]` would mean that the wrapper has no state of its own to save. It has none of its own, but a
#   `state_dict` includes every registered submodule's, under the submodule's name.

# %% [markdown]
# `DataParallel`'s own documentation recommends `DistributedDataParallel` instead, for multi-GPU
# training even on a single machine. The next cell finds that sentence in the docstring and checks
# what it names.

# %% tags=["claim-M5"]
doc = " ".join(nn.DataParallel.__doc__.split())
advice = next(s for s in doc.split(". ") if "recommended" in s)
print(f"{'DistributedDataParallel' in advice=}")
print(f"{'single node' in advice=}")
assert "DistributedDataParallel" in advice and "single node" in advice

# %% [markdown]
# ## DistributedDataParallel, the recommended path
#
# `DistributedDataParallel` (DDP) runs one process per GPU, and each process holds a full copy of the
# model. When DDP wraps the model it copies rank 0's parameters *and buffers* to every process (and,
# by default, rank 0's buffers again before each forward pass). During `backward()` it averages the
# gradients across processes, so every copy takes the same step and the copies stay identical.
#
# You do not start those processes yourself: `torchrun --nproc-per-node=N train.py` starts `N` copies
# of your script, one per GPU, and tells each its place in environment variables:
#
# - `WORLD_SIZE`: how many processes there are in all;
# - `RANK`: the process's number among them, from 0;
# - `LOCAL_RANK`: its number on this machine, which is the index of the GPU it should use.
#
# On GPUs, each process then makes its GPU the current device with
# `torch.cuda.set_device(local_rank)` (from then on, `"cuda"` in that process means its own GPU), uses
# the `nccl` backend, puts the model on that GPU and wraps it with `DDP(model, device_ids=[local_rank])`. On CPUs the backend is `gloo` and `device_ids` is left
# out. The script below does both: it takes the GPU path when the machine has a GPU for each process.

# %%
TRAIN = '''
import json, os, sys
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

rank = int(os.environ["RANK"])
local_rank = int(os.environ["LOCAL_RANK"])
world_size = int(os.environ["WORLD_SIZE"])

if torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"]):
    torch.cuda.set_device(local_rank)
    device, backend = torch.device("cuda", local_rank), "nccl"
else:
    device, backend = torch.device("cpu"), "gloo"
dist.init_process_group(backend)

torch.manual_seed(rank)
net = nn.Linear(4, 1).to(device)
net.register_buffer("seen", torch.full((1,), float(rank), device=device))
start = net.weight.flatten().tolist()
model = DDP(net, device_ids=[local_rank] if device.type == "cuda" else None)
synced = net.weight.flatten().tolist()
buffer = net.seen.item()

opt = torch.optim.SGD(model.parameters(), lr=0.1)
torch.manual_seed(100 + rank)
for step in range(5):
    x = torch.randn(16, 4, device=device)
    y = torch.randn(16, 1, device=device)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

params = [v for p in model.parameters() for v in p.flatten().tolist()]
mine = dict(rank=rank, local_rank=local_rank, world_size=world_size,
            device=str(device), backend=backend, start=start, synced=synced,
            buffer=buffer, loss=loss.item(), params=params)
with open(os.path.join(sys.argv[1], f"rank{rank}.json"), "w") as f:
    json.dump(mine, f)
dist.destroy_process_group()
os._exit(0)
'''

# %% [markdown]
# DDP does not split the data: here each process draws its own random data from a seed that depends
# on its rank (a real script uses a `DistributedSampler`, shown further down). Each also starts
# from different random weights and a different buffer value, so the run shows what DDP makes equal.
# Each process writes its numbers to a file of its own in a directory the cell passes to the script.
#
# The cell writes the script to a temporary directory and launches it with
# `python -m torch.distributed.run`, which is what the `torchrun` command runs, for two processes on
# this machine (`--standalone` also picks a free port). The launch has a time limit, and torchrun's
# own temporary files go into the same directory (`TMPDIR`), so nothing is left behind. The script
# ends with `os._exit(0)`: gloo's worker threads can still be releasing autograd state while Python
# shuts down, which now and then aborts the process (seen with torch 2.13); the results are printed by
# then.
#
# Without two GPUs the processes run on the CPU with `gloo`. On a machine with two or more GPUs the
# cell asserts that each process ran on its own GPU, `cuda:0` and `cuda:1`, with `nccl`.

# %% tags=["claim-F11", "gpu-only"]
with tempfile.TemporaryDirectory() as tmp:
    script = Path(tmp) / "train_ddp.py"
    script.write_text(TRAIN)
    launch = [sys.executable, "-m", "torch.distributed.run", "--standalone",
              "--nproc-per-node=2", str(script), tmp]
    env = dict(os.environ, TMPDIR=tmp, OMP_NUM_THREADS="1")
    run = subprocess.Popen(launch, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:  # timed out
            run.terminate()  # torchrun stops its workers on SIGTERM
            run.communicate(timeout=60)
    print(f"{run.returncode=}")
    if (out + err).strip():
        print((out + err).strip(), file=sys.stderr)
    assert run.returncode == 0
    results = [json.loads((Path(tmp) / f"rank{r}.json").read_text())
               for r in range(2)]
assert not Path(tmp).exists()  # the script and torchrun's files are gone


def short(values):
    return [round(v, 4) for v in values]


for r in results:
    print(f"rank={r['rank']}, local_rank={r['local_rank']}, "
          f"device={r['device']}, backend={r['backend']}")
    print(f"  start={short(r['start'])}, synced={short(r['synced'])}, "
          f"buffer={r['buffer']}")
    print(f"  loss={r['loss']:.4f}, params={short(r['params'])}")

r0, r1 = results
assert [r["local_rank"] for r in results] == [0, 1]  # one machine
assert r0["world_size"] == r1["world_size"] == 2
on_gpus = n_gpus >= 2  # the script's test: a GPU for each process
devices = ["cuda:0", "cuda:1"] if on_gpus else ["cpu", "cpu"]
assert [r["device"] for r in results] == devices
assert r0["start"] != r1["start"]  # different initial weights
assert r0["synced"] == r1["synced"] == r0["start"]  # rank 0's, everywhere
assert r0["buffer"] == r1["buffer"] == 0.0  # rank 0's buffer, everywhere
assert r0["loss"] != r1["loss"]  # different data
assert r0["params"] == r1["params"]  # yet the same parameters after training

# %% [markdown]
# ## Each process's GPU: `set_device` and `dist.barrier`
#
# Leave out `torch.cuda.set_device(local_rank)`, and each process's current device stays GPU 0,
# whatever its `LOCAL_RANK`. What breaks is everything that names no index and so means the
# current device: `"cuda"`, `.cuda()`, `torch.cuda.memory_allocated()`. If the script puts its
# model and batches on `"cuda"`, every rank works on GPU 0: that one GPU holds every rank's memory
# while the others stay empty, and NCCL, which expects one GPU per rank, fails (for example with
# `Duplicate GPU detected`) or hangs.
#
# A script that names each device, `torch.device("cuda", local_rank)`, as the one above does,
# still puts its tensors on the right GPU. `dist.barrier()` names none: with NCCL it all-reduces a
# one-element tensor on a GPU that the backend picks in this order: the barrier's
# `device_ids=[...]`, the `device_id` given to `init_process_group`, a GPU this process group has
# already used, and last `rank % (GPUs on this machine)`, with the warning `using GPU X as device
# used by this process is currently unknown`. The current device only decides where PyTorch's
# Python layer makes a placeholder for it. In a script like the one above, DDP's first broadcast
# uses `cuda:local_rank`, so a barrier after it runs on the right GPU. Leaving out `set_device`
# there costs a stray CUDA context, memory on GPU 0, in every rank; it hangs only where the guess
# is wrong: a barrier before any collective (rank 0 downloads the data, the others wait) on
# machines with more GPUs than processes, say two processes on each 8-GPU machine, where global
# rank 2 is local rank 0 on the second machine yet guesses GPU 2.
#
# So call `torch.cuda.set_device(local_rank)` first, as PyTorch's documentation for
# `DistributedDataParallel` asks (or set `CUDA_VISIBLE_DEVICES` per process), and also pass
# `init_process_group("nccl", device_id=torch.device("cuda", local_rank))`, or call
# `dist.barrier(device_ids=[local_rank])`. `device_id` does not change the current device, so
# `set_device` is still needed; under NCCL it creates the ranks' communicator during
# `init_process_group`, so NCCL errors show there rather than at the first collective, and new
# groups split that communicator instead of building their own.
#
# On a GPU, the cell starts a fresh process with `LOCAL_RANK=1` and no `set_device`, and asserts
# that its current device is still 0. On every machine it checks in PyTorch's source that
# `init_process_group` takes `device_id` and calls no `set_device`, and (2.13) the order in which
# `barrier`'s Python layer picks its device, and `device_id`'s documented effects.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    probe = ("import torch; print(torch.cuda.current_device(),"
             " torch.zeros(1, device='cuda').device)")
    child = subprocess.run([sys.executable, "-c", probe],
                           env=dict(os.environ, LOCAL_RANK="1"),
                           capture_output=True, text=True, timeout=120)
    print(child.stdout.strip())
    assert child.returncode == 0, child.stderr
    # LOCAL_RANK alone picks no GPU
    assert child.stdout.split()[0] == "0"
else:
    print(f"{torch.cuda.is_available()=}")
if torch.distributed.is_available():
    init = torch.distributed.init_process_group
    bind = inspect.signature(init).parameters
    guess = inspect.getsource(torch.distributed.barrier)
    print(f"{'device_id' in bind=}")
    assert "device_id" in bind
    assert "set_device" not in inspect.getsource(init)
    if TORCH >= (2, 13):  # device_ids, then device_id, then the current one
        order = [guess.index(s) for s in ("device_ids[0]", "bound_device_id",
                                          "device under current context")]
        assert order == sorted(order)
        assert "creating context on device 0" in guess
        assert "immediately formed" in init.__doc__
        assert "ncclCommSplit" in init.__doc__  # new groups split it

# %% [markdown]
# ## Splitting the data: DistributedSampler
#
# DDP leaves the split to you. A `DistributedSampler` gives each rank its share of a dataset's
# indices: in a training script it goes to the `DataLoader` (`DataLoader(dataset, sampler=sampler)`)
# and reads the rank and the number of ranks from the process group. Here it runs without processes:
# the cell names the rank and the number of ranks itself. The dataset has 5 samples, which 2 ranks
# cannot share evenly.

# %% [markdown] tags=["predict"]
# **Predict:** `DistributedSampler` splits 5 samples between 2 ranks, without shuffling. Which
# indices does each rank get?
#
# - `[[0, 1, 2], [3, 4]]`
# - `[[0, 2, 4], [1, 3]]`
# - `[[0, 2], [1, 3]]`
# - `[[0, 2, 4], [1, 3, 0]]`

# %%
data = range(5)
shares = [list(DistributedSampler(data, num_replicas=2, rank=r, shuffle=False))
          for r in range(2)]
print(shares)

# %% tags=["claim-F11", "answer"]
assert shares == [[0, 2, 4], [1, 3, 0]]  # sample 0 twice
dropped = [list(DistributedSampler(data, num_replicas=2, rank=r,
                                   shuffle=False, drop_last=True))
           for r in range(2)]
print(f"{dropped=}")
assert dropped == [[0, 2], [1, 3]]  # sample 4 left out
even = [list(DistributedSampler(range(8), num_replicas=2, rank=r,
                                shuffle=False))
        for r in range(2)]
print(f"{even=}")
assert sorted(even[0] + even[1]) == list(range(8))  # every sample once

# %% [markdown] tags=["answer"]
# **Answer:** `[[0, 2, 4], [1, 3, 0]]`. Rank `r` takes every second index from `r` on. Every rank
# must get the same number of samples, so the sampler first pads the list of indices to a multiple
# of the number of ranks by repeating it from the start: sample 0 is used twice in each epoch.
#
# With `drop_last=True` it cuts the tail instead, and sample 4 is not used at all. Only when the dataset
# size is a multiple of the number of ranks (8 samples on 2 ranks) does every sample appear exactly
# once.
#
# - `[[0, 1, 2], [3, 4]]` would be contiguous blocks; the sampler deals the indices out in turn.
# - `[[0, 2, 4], [1, 3]]` would give the ranks different numbers of samples; the sampler pads instead.
# - `[[0, 2], [1, 3]]` is what `drop_last=True` gives.
#
# The repeated samples count twice in anything you add up over an epoch on all ranks, such as a
# validation score.

# %% [markdown]
# With `shuffle=True`, the default, the sampler shuffles the indices before dealing them out. The
# next cell takes three passes over the same sampler, as three epochs would: two in a row, then one
# after `sampler.set_epoch(1)`, and compares the second and the third with the first.

# %% [markdown] tags=["predict"]
# **Predict:** The cell prints `(second == first, third == first)`. What does it show?
#
# - `(False, False)`
# - `(True, False)`
# - `(True, True)`

# %%
sampler = DistributedSampler(range(8), num_replicas=2, rank=0, shuffle=True)
first = list(sampler)
second = list(sampler)
sampler.set_epoch(1)
third = list(sampler)
print((second == first, third == first))

# %% tags=["claim-F11", "answer"]
assert second == first  # no set_epoch: the same shuffle again
assert third != first
other = DistributedSampler(range(8), num_replicas=2, rank=1, shuffle=True)
other.set_epoch(1)
assert sorted(third + list(other)) == list(range(8))  # still a split

# %% [markdown] tags=["answer"]
# **Answer:** `(True, False)`. The sampler shuffles with a generator seeded with `seed + epoch`, and
# the epoch changes only when you call `set_epoch`. Without it, every epoch repeats the first one's
# order, and each rank sees the same samples every time. So call `sampler.set_epoch(epoch)` at the
# start of every epoch, on every rank, before iterating the `DataLoader`. All ranks use the same seed
# and epoch, so their shares of the new order still split the dataset between them, as the last check
# shows for rank 1.
#
# - `(False, False)` would mean that each pass shuffles anew by itself; it does not.
# - `(True, True)` would mean that `set_epoch` changes nothing.

# %% [markdown]
# ## DataLoader workers: spawn, fork and `__main__`
#
# A `DataLoader` with `num_workers > 0` loads batches in worker processes. How Python starts them
# depends on the platform: with `spawn` on Windows and macOS, with `forkserver` on Linux from
# Python 3.14, with `fork` on Linux up to 3.13. Under `spawn` and `forkserver` a worker is not a
# copy of your process: it is a fresh Python that imports your script's main module and receives
# the dataset pickled.
#
# So in a script, put the code that creates the DataLoader and loops over it
# under `if __name__ == "__main__":`, or each worker runs it again when it imports the script; and
# define the dataset class at the top level of a module, where a worker can import it. Code that
# works with `fork` on Linux can break there, and on Python 3.14 on Linux too. The cell asserts
# the default of the machine that runs it.

# %%
import multiprocessing

method = multiprocessing.get_start_method()
print(f"{sys.platform=}, {method=}")
if sys.platform in ("win32", "darwin"):
    assert method == "spawn"
else:
    assert method == ("fork" if sys.version_info < (3, 14) else "forkserver")
    assert "forkserver" in multiprocessing.get_all_start_methods()
assert "spawn" in multiprocessing.get_all_start_methods()

# %% [markdown]
# ## Summary
#
# - Anything without an explicit index (`"cuda"`, `.cuda()`) uses the current device; choose it with
#   `torch.cuda.set_device(i)` or `with torch.cuda.device(i):`.
# - Set `CUDA_VISIBLE_DEVICES` (with `CUDA_DEVICE_ORDER=PCI_BUS_ID` for `nvidia-smi`'s numbering)
#   before CUDA starts, best before Python starts.
# - `nn.DataParallel` moves the model only when it has exactly one device id
#   (`len(device_ids) == 1`), and renames the `state_dict` keys to `module.*`.
# - Use `DistributedDataParallel` for several GPUs: launch one process per GPU with `torchrun`; each
#   calls `torch.cuda.set_device(local_rank)` and wraps its model with
#   `DDP(model, device_ids=[local_rank])`. DDP keeps parameters and buffers in sync. With `gloo` it
#   also runs, and can be tested, on CPUs.
# - A `DistributedSampler` splits the data, padding it with repeated samples (or dropping the tail
#   with `drop_last=True`) so that every rank gets as many samples. Call `sampler.set_epoch(epoch)`
#   every epoch, or the shuffle repeats.
