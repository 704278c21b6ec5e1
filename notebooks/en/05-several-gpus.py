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
# really does, and how `DistributedDataParallel` works: we run it for real with two CPU processes.
#
# Cells that need a GPU print the unmet condition instead, such as `torch.cuda.is_available()=False`
# or `n_gpus=0`; every other cell runs on any machine.

# %% tags=["setup"]
import contextlib
import json
import os
import re
import socket
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
n_gpus = torch.cuda.device_count()
print(torch.__version__, device, n_gpus)

# %% [markdown]
# ## The current device
#
# Each thread has one current CUDA device, which starts as GPU 0. `torch.cuda.current_device()`
# reads it, `torch.cuda.set_device(i)` changes it, and `with torch.cuda.device(i):` changes it for
# a block and restores it afterwards. Whatever names no index, such as `.cuda()` or `"cuda"`, uses
# it. The cell uses the last GPU, which is GPU 0 on a one-GPU machine.

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
# `torch.device("cuda")` has no index. It is not a synonym for `cuda:0`: it means "the current
# CUDA device", looked up when a tensor is created or moved.

# %% [markdown] tags=["predict"]
# **Predict:** What is the index of `torch.device("cuda")`? The cell prints the device, then its `.index`.
#
# - `0` — this would make `"cuda"` a synonym for `cuda:0`; it is not.
# - `None` — `"cuda"` names no GPU; the current device is looked up only when a tensor is created or moved.

# %%
d = torch.device("cuda")
print(repr(d), d.index)
assert d.index is None
assert d != torch.device("cuda", 0)

# %% [markdown]
# On one GPU that lookup always gives `cuda:0`. With two or more it matters: `t.to("cuda")` on a
# tensor that lives on `cuda:1` copies it to `cuda:0` when GPU 0 is current, and returns `t` itself
# when GPU 1 is current. The cell shows the copy with two GPUs, the one-GPU case with one, and prints
# `n_gpus=0` without a GPU.

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
# new process. Here a child Python process gets an empty string and sees no GPU at all; with a GPU
# present, a second child sees only the last one.

# %% tags=["claim-F9", "gpu-only"]
probe = "import torch; print(torch.cuda.device_count())"
settings = [""]
if n_gpus:
    ours = os.environ.get("CUDA_VISIBLE_DEVICES")  # this process may already be restricted
    settings.append(ours.split(",")[n_gpus - 1] if ours else str(n_gpus - 1))
for visible in settings:
    env = dict(os.environ, CUDA_DEVICE_ORDER="PCI_BUS_ID", CUDA_VISIBLE_DEVICES=visible)
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
# visible. This is why the variable must be set before the first CUDA call, and is safest set
# before Python starts. The cell runs this in a fresh child process, so that nothing this notebook did
# before can affect it: CUDA starts, the variable is emptied, and a new tensor still lands on a GPU.
# Without a GPU the cell prints only `torch.cuda.is_available()=False`.

# %% tags=["claim-F9", "gpu-only"]
LATE = """
import os
import torch
torch.zeros(1, device="cuda")
os.environ["CUDA_VISIBLE_DEVICES"] = ""
print(torch.ones(1, device="cuda").device)
"""
if torch.cuda.is_available():
    child = subprocess.run([sys.executable, "-c", LATE], capture_output=True, text=True, timeout=120)
    print(f"{child.returncode=}, {child.stdout.strip()=}")
    assert child.returncode == 0, child.stderr
    assert child.stdout.split()[-1].startswith("cuda:")  # CUDA ignored the late change
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## What nn.DataParallel really does
#
# `nn.DataParallel(model)` is often read as "put my model on the GPUs". What it does depends on the
# accelerator it finds (it looks for a CUDA GPU, then Apple's MPS, Intel's XPU, MTIA and a PrivateUse1
# backend, in that order) and on the device ids it ends up with (`device_ids`, by default every
# visible device of that kind):
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
# The cell checks the branch that applies to this machine; with several GPUs it also wraps a model
# with a single device id. Without a GPU it checks the first case only.

# %% tags=["claim-M5", "gpu-only"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(8, 4)
where = next(model.parameters()).device
print(f"{dp.device_ids=}, {where=}")
if not torch.accelerator.is_available() or torch.backends.mps.is_available():
    assert dp.device_ids == []  # no accelerator, or MPS: nothing to spread the work over

if len(dp.device_ids) == 0:
    y = dp(x)  # just calls the module
    assert where.type == "cpu" and y.device.type == "cpu"
elif len(dp.device_ids) == 1:
    assert where.type != "cpu" and where.index == dp.device_ids[0]  # moved by the constructor
    y = dp(x)
    assert y.device == where
else:
    assert where.type == "cpu"  # not moved
    with expect_error(RuntimeError, "must have its parameters and buffers on device"):
        dp(x)
    model.to(f"cuda:{dp.device_ids[0]}")  # the fix: move it yourself
    y = dp(x)
    assert y.device == torch.device("cuda", dp.device_ids[0])

    last = dp.device_ids[-1]
    one = nn.DataParallel(nn.Linear(4, 2), device_ids=[last])
    print(f"{one.module.weight.device=}")
    assert one.module.weight.device == torch.device("cuda", last)  # one device id: moved there
print(f"{y.device=}")

# %% [markdown]
# Two more things to know. The wrapper stores your model as `dp.module`, so every key of its
# `state_dict` gains a `module.` prefix; save `dp.module.state_dict()` if the checkpoint should
# load into an unwrapped model. And its own documentation recommends `DistributedDataParallel`
# instead, even on a single machine.

# %% [markdown] tags=["predict"]
# **Predict:** `dp` wraps a `Linear` in `nn.DataParallel`. What are the keys of `dp.state_dict()`?
#
# - `['weight', 'bias']` — those are the keys of `dp.module.state_dict()`, the unwrapped model.
# - `['module.weight', 'module.bias']` — the wrapper keeps the model as `dp.module`, so every key gains a `module.` prefix.

# %% tags=["claim-M5"]
keys = list(dp.state_dict())
print(keys)
assert keys == ["module.weight", "module.bias"]
assert dp.module is model
assert list(dp.module.state_dict()) == ["weight", "bias"]

doc = " ".join(nn.DataParallel.__doc__.split())
doc = re.sub(r"\.\. \w+:: ", "", doc)  # drop reST directives such as ".. warning::"
doc = re.sub(r":\w+:`~?([\w.]+)`", r"\1", doc)  # :class:`~a.B` -> a.B
advice = [s for s in doc.split(". ") if "DistributedDataParallel" in s]
print(advice[0])
assert advice

# %% [markdown]
# ## DistributedDataParallel, the recommended path
#
# `DistributedDataParallel` (DDP) runs one process per device, usually started with
# `torchrun --nproc-per-node=N train.py`. Each process holds a full copy of the model. When DDP wraps
# the model it copies rank 0's parameters *and buffers* to every process (and, by default, rank 0's
# buffers again before each forward pass); during `backward()` it averages the gradients across
# processes, so every copy takes the same step and the copies stay identical.
#
# DDP does not split the data. Each process must load its own share, usually through a `DataLoader`
# with a `DistributedSampler` (shown after the run). The demo below fakes the split: each process
# draws its own random data from a seed that depends on its rank.
#
# With the `gloo` backend DDP also runs on CPUs, so we can run it here: two processes, each starting
# from different random weights and a different buffer value. Worker processes started the safe way
# (`spawn`) cannot import functions defined in a notebook, so we write the training script to a
# temporary file and start it with `python -m torch.distributed.run`, which is what the `torchrun`
# command runs. The script ends with `os._exit(0)`: gloo's worker threads can still be releasing
# autograd state while Python shuts down, which now and then aborts the process (seen with torch
# 2.13); the results are saved by then. On GPUs the script would use the `nccl` backend and give each
# process its own GPU.

# %%
TRAIN = '''
import json, os, sys
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def train(rank):
    torch.manual_seed(rank)
    net = nn.Linear(4, 1)
    net.register_buffer("seen", torch.full((1,), float(rank)))
    start = net.weight.flatten().tolist()
    model = DDP(net)
    synced = net.weight.flatten().tolist()
    buffer = net.seen.item()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(100 + rank)
    for step in range(5):
        x, y = torch.randn(16, 4), torch.randn(16, 1)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    params = [p.flatten().tolist() for p in model.parameters()]
    return {"rank": rank, "start": start, "synced": synced, "buffer": buffer,
            "loss": loss.item(), "params": params}


dist.init_process_group("gloo")
result = train(dist.get_rank())
with open(f"{sys.argv[1]}/rank{result['rank']}.json", "w") as f:
    json.dump(result, f)
dist.destroy_process_group()
os._exit(0)
'''

# %% tags=["claim-F11"]
with socket.socket() as s:  # ask the OS for a free port
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]

with tempfile.TemporaryDirectory() as tmp:
    script = Path(tmp) / "train_ddp.py"
    script.write_text(TRAIN)
    run = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
         "--master-addr", "127.0.0.1", "--master-port", str(port), str(script), tmp],
        env=dict(os.environ, OMP_NUM_THREADS="1"),
        capture_output=True, text=True, timeout=120,
    )
    print(f"{run.returncode=}")
    if (run.stdout + run.stderr).strip():
        print((run.stdout + run.stderr).strip())
    assert run.returncode == 0
    results = [json.loads((Path(tmp) / f"rank{r}.json").read_text()) for r in range(2)]


def show(values):
    return [round(v, 4) for v in values]


for r in results:
    rank, start, synced, buffer = r["rank"], show(r["start"]), show(r["synced"]), r["buffer"]
    loss, final = round(r["loss"], 4), show(r["params"][0]) + show(r["params"][1])
    print(f"{rank=}, {start=}, {synced=}, {buffer=}")
    print(f"{rank=}, {loss=}, {final=}")

r0, r1 = results
assert r0["start"] != r1["start"]  # different initial weights
assert r0["synced"] == r1["synced"] == r0["start"]  # rank 0's weights everywhere
assert r0["buffer"] == r1["buffer"] == 0.0  # rank 0's buffer everywhere
assert r0["loss"] != r1["loss"]  # different data
assert r0["params"] == r1["params"]  # yet identical parameters after training

# %% [markdown]
# The split DDP leaves to you: `DistributedSampler` gives each rank a different share of the dataset's
# indices. Here it runs without processes, by naming the rank and the number of ranks.

# %% [markdown] tags=["predict"]
# **Predict:** `DistributedSampler` splits 8 samples between 2 ranks, without shuffling. Which indices does
# each rank get?
#
# - `[[0, 1, 2, 3], [4, 5, 6, 7]]` — these would be contiguous halves; the sampler deals the indices out in turn instead.
# - `[[0, 2, 4, 6], [1, 3, 5, 7]]` — rank `r` takes every second index from `r` on: every sample once, no overlap.
# - `[[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3, 4, 5, 6, 7]]` — each rank would see all the data; splitting it is the sampler's job.

# %% tags=["claim-F11"]
data = range(8)
shares = [list(DistributedSampler(data, num_replicas=2, rank=r, shuffle=False)) for r in range(2)]
print(shares)
assert sorted(shares[0] + shares[1]) == list(data)  # every sample once, no overlap
assert not set(shares[0]) & set(shares[1])

# %% [markdown]
# ## Summary
#
# - Anything without an explicit index (`"cuda"`, `.cuda()`) uses the current device; choose it with
#   `torch.cuda.set_device(i)` or `with torch.cuda.device(i):`.
# - Set `CUDA_VISIBLE_DEVICES` (with `CUDA_DEVICE_ORDER=PCI_BUS_ID` for `nvidia-smi`'s numbering)
#   before CUDA starts, best before Python starts.
# - `nn.DataParallel` moves the model only when it has exactly one device id
#   (`len(device_ids) == 1`), and renames the `state_dict` keys to `module.*`.
# - Use `DistributedDataParallel` for several GPUs: it keeps parameters and buffers in sync, and a
#   `DistributedSampler` splits the data. With `gloo` it also runs, and can be tested, on CPUs.
