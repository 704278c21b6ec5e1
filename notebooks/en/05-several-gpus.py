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
# really does, and how `DistributedDataParallel` works: we run it for real with two CPU processes,
# so every cell runs on any machine.

# %%
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
from torch import nn

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

# %% tags=["claim-F9"]
if torch.cuda.is_available():
    start = torch.cuda.current_device()
    last = n_gpus - 1
    with torch.cuda.device(last):
        inside = torch.cuda.current_device()
        t = torch.zeros(2).cuda()
    print("start:", start, "inside:", inside, "tensor:", t.device, "after:", torch.cuda.current_device())
    assert start == 0  # a fresh process starts on GPU 0
    assert inside == last and t.device == torch.device("cuda", last)
    assert torch.cuda.current_device() == start  # restored when the block ends

    torch.cuda.set_device(last)
    assert torch.cuda.current_device() == last
    torch.cuda.set_device(start)
else:
    print("skipped: no CUDA GPU, so there is no current CUDA device")

# %% [markdown]
# ## What 'cuda' means
#
# `torch.device("cuda")` has no index. It is not a synonym for `cuda:0`: it means "the current
# CUDA device", looked up when a tensor is created or moved.

# %%
d = torch.device("cuda")
print(repr(d), d.index)
assert d.index is None
assert d != torch.device("cuda", 0)

# %% [markdown]
# On one GPU that lookup always gives `cuda:0`. With two or more it matters: `t.to("cuda")` on a
# tensor that lives on `cuda:1` copies it to `cuda:0` when GPU 0 is current, and returns `t` itself
# when GPU 1 is current.

# %% tags=["claim-F2"]
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
    print(t.device)
    assert t.device == torch.device("cuda", torch.cuda.current_device())
    assert t.to("cuda") is t  # already on the current device
    print("(one GPU: the copy between GPUs needs two)")
else:
    print("skipped: no CUDA GPU, so 'cuda' has no current device to resolve to")

# %% [markdown]
# ## Hiding GPUs with CUDA_VISIBLE_DEVICES
#
# The environment variable `CUDA_VISIBLE_DEVICES` lists the GPUs a process may see, renumbered
# from 0: with `CUDA_VISIBLE_DEVICES=1`, physical GPU 1 becomes `cuda:0` and is the only one. CUDA
# reads it once, when it initialises in the process. Set it in the shell
# (`CUDA_VISIBLE_DEVICES=1 python train.py`) or in the environment of a new process. Here a child
# Python process gets an empty list and sees no GPU at all; with a GPU present, a second child
# sees only the last one.

# %% tags=["claim-F9"]
probe = "import torch; print(torch.cuda.device_count())"
settings = [""]
if n_gpus:
    ours = os.environ.get("CUDA_VISIBLE_DEVICES")  # this process may already be restricted
    settings.append(ours.split(",")[n_gpus - 1] if ours else str(n_gpus - 1))
for visible in settings:
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=visible)
    child = subprocess.run([sys.executable, "-c", probe], env=env,
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    count = int(child.stdout.split()[-1])
    print(f"CUDA_VISIBLE_DEVICES={visible!r}: {count} GPU(s)")
    assert count == (0 if visible == "" else 1)

print("this process still sees", torch.cuda.device_count())
assert torch.cuda.device_count() == n_gpus

# %% [markdown]
# Once CUDA has started, changing `os.environ` in the same process has no effect: the GPUs stay
# visible. This is why the variable must be set before the first CUDA call, and is safest set
# before Python starts.

# %% tags=["claim-F9"]
if torch.cuda.is_available():
    torch.cuda.init()  # make sure CUDA has started in this process
    old = os.environ.get("CUDA_VISIBLE_DEVICES")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    try:
        after = torch.cuda.device_count()
        t = torch.ones(1, device="cuda")
    finally:
        if old is None:
            del os.environ["CUDA_VISIBLE_DEVICES"]
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = old
    print("GPUs after setting it too late:", after, t.device)
    assert after == n_gpus
else:
    print("skipped: no CUDA GPU in this process, so there is nothing to hide")

# %% [markdown]
# ## What nn.DataParallel really does
#
# `nn.DataParallel(model)` is often read as "put my model on the GPUs". What it does depends on the
# machine:
#
# - no CUDA GPU (or an Apple GPU): it keeps the model and calls it; nothing moves;
# - exactly one GPU: its constructor moves the model to `cuda:0`;
# - two or more GPUs: it moves nothing. `forward` checks that the parameters are on
#   `device_ids[0]` and raises a `RuntimeError` if they are not, so you must call
#   `model.to("cuda:0")` yourself.
#
# The cell checks the branch that applies to this machine.

# %% tags=["claim-M5"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(8, 4)
where = next(model.parameters()).device
print("GPUs:", n_gpus, "| model after wrapping:", where)

if n_gpus == 0:
    y = dp(x)  # just calls the module
    assert where.type == "cpu" and y.device.type == "cpu"
elif n_gpus == 1:
    assert where == torch.device("cuda", 0)  # moved by the constructor
    y = dp(x)
    assert y.device == torch.device("cuda", 0)
else:
    assert where.type == "cpu"  # not moved
    try:
        dp(x)
    except RuntimeError as err:
        print("RuntimeError:", err)
        assert "must have its parameters and buffers on device" in str(err)
    else:
        raise AssertionError("forward should have raised")
    model.to("cuda:0")  # the fix: move it yourself
    y = dp(x)
    assert y.device == torch.device("cuda", 0)
print("output on:", y.device)

# %% [markdown]
# Two more things to know. The wrapper stores your model as `dp.module`, so every key of its
# `state_dict` gains a `module.` prefix; save `dp.module.state_dict()` if the checkpoint should
# load into an unwrapped model. And its own documentation recommends `DistributedDataParallel`
# instead, even on a single machine.

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
# `torchrun --nproc-per-node=N train.py`. Each process holds a full copy of the model and trains on
# its own share of the data. When DDP wraps the model it copies rank 0's parameters to every
# process, and during `backward()` it averages the gradients across processes, so every copy takes
# the same step and the copies stay identical.
#
# With the `gloo` backend DDP also runs on CPUs, so we can run it here: two processes, each starting
# from different random weights and each seeing different data. Worker processes started the safe
# way (`spawn`) cannot import functions defined in a notebook, so we write the training script to a
# temporary file and start it with `python -m torch.distributed.run`, the module behind `torchrun`.
# On GPUs the script would use the `nccl` backend and give each process its own GPU.

# %%
TRAIN = '''
import json, os, sys
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def train(rank):
    torch.manual_seed(rank)  # a different start on each rank
    net = nn.Linear(4, 1)
    start = net.weight.flatten().tolist()
    model = DDP(net)  # copies rank 0's parameters to every rank
    synced = net.weight.flatten().tolist()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(100 + rank)  # different data on each rank
    for step in range(5):
        x, y = torch.randn(16, 4), torch.randn(16, 1)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()  # gradients are averaged across ranks here
        opt.step()
    params = [p.flatten().tolist() for p in model.parameters()]
    return {"rank": rank, "start": start, "synced": synced, "loss": loss.item(), "params": params}


dist.init_process_group("gloo")
result = train(dist.get_rank())
with open(f"{sys.argv[1]}/rank{result['rank']}.json", "w") as f:
    json.dump(result, f)
dist.destroy_process_group()
# gloo's worker threads can still be releasing autograd state while Python shuts down, which
# aborts the process now and then (torch 2.13). The work is saved: leave without the shutdown.
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
    print("return code:", run.returncode)
    print((run.stdout + run.stderr).strip() or "(no output)")
    assert run.returncode == 0
    results = [json.loads((Path(tmp) / f"rank{r}.json").read_text()) for r in range(2)]

def show(values):
    return [round(v, 4) for v in values]


for r in results:
    print(f"rank {r['rank']}: start {show(r['start'])}, after DDP() {show(r['synced'])}")
    print(f"        last loss {r['loss']:.4f}, final {show(r['params'][0])} {show(r['params'][1])}")

r0, r1 = results
assert r0["start"] != r1["start"]  # different initial weights
assert r0["synced"] == r1["synced"] == r0["start"]  # rank 0's weights everywhere
assert r0["loss"] != r1["loss"]  # different data
assert r0["params"] == r1["params"]  # yet identical parameters after training

# %% [markdown]
# ## Summary
#
# - Anything without an explicit index (`"cuda"`, `.cuda()`) uses the current device; choose it with
#   `torch.cuda.set_device(i)` or `with torch.cuda.device(i):`.
# - Set `CUDA_VISIBLE_DEVICES` before CUDA starts, best before Python starts.
# - `nn.DataParallel` moves the model only when there is exactly one GPU, and renames the
#   `state_dict` keys to `module.*`.
# - Use `DistributedDataParallel` for several GPUs; with `gloo` it also runs, and can be tested, on
#   CPUs.
