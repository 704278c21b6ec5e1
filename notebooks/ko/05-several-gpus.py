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
# # 여러 개의 GPU
#
# GPU가 두 개 이상이면, 인덱스를 지정하지 않은 CUDA 호출은 모두 **현재 디바이스**로 갑니다. 이 페이지에서는 그 디바이스가 어떻게 정해지는지, 프로세스가 특정 GPU를 보지 못하게 숨기는 방법, `nn.DataParallel`이 실제로 하는 일, 그리고 `DistributedDataParallel`의 동작 방식을 살펴봅니다. DDP는 CPU 프로세스 두 개로 실제로 실행하므로, 모든 셀이 어떤 머신에서든 동작합니다.

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
# ## 현재 디바이스
#
# 현재 CUDA 디바이스는 스레드마다 하나씩 있으며 처음에는 GPU 0입니다. `torch.cuda.current_device()`로 조회하고, `torch.cuda.set_device(i)`로 바꿉니다. `with torch.cuda.device(i):`는 블록 안에서만 바꾸고 블록이 끝나면 원래대로 되돌립니다. `.cuda()`나 `"cuda"`처럼 인덱스를 지정하지 않는 것은 모두 이 디바이스를 씁니다. 셀에서는 마지막 GPU를 사용하며, GPU가 한 개인 머신에서는 GPU 0입니다.

# %% tags=["claim-F9"]
if torch.cuda.is_available():
    start = torch.cuda.current_device()
    last = n_gpus - 1
    with torch.cuda.device(last):
        inside = torch.cuda.current_device()
        t = torch.zeros(2).cuda()
    print("start:", start, "inside:", inside, "tensor:", t.device, "after:", torch.cuda.current_device())
    assert start == 0  # 새 프로세스는 GPU 0에서 시작함
    assert inside == last and t.device == torch.device("cuda", last)
    assert torch.cuda.current_device() == start  # 블록이 끝나면 원래대로 돌아옴

    torch.cuda.set_device(last)
    assert torch.cuda.current_device() == last
    torch.cuda.set_device(start)
else:
    print("skipped: no CUDA GPU, so there is no current CUDA device")

# %% [markdown]
# ## 'cuda'의 의미
#
# `torch.device("cuda")`에는 인덱스가 없습니다. `cuda:0`의 별칭이 아니라 "현재 CUDA 디바이스"를 뜻하며, 실제 디바이스는 텐서를 만들거나 옮기는 시점에 결정됩니다.

# %%
d = torch.device("cuda")
print(repr(d), d.index)
assert d.index is None
assert d != torch.device("cuda", 0)

# %% [markdown]
# GPU가 하나뿐이면 이렇게 결정되는 디바이스는 항상 `cuda:0`입니다. 두 개 이상이면 차이가 생깁니다. `cuda:1`에 있는 텐서 `t`에 대해 `t.to("cuda")`를 호출하면, GPU 0이 현재 디바이스일 때는 `cuda:0`으로 복사되고, GPU 1이 현재 디바이스일 때는 `t` 자신이 그대로 반환됩니다.

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
    assert t.to("cuda") is t  # 이미 현재 디바이스에 있음
    print("(one GPU: the copy between GPUs needs two)")
else:
    print("skipped: no CUDA GPU, so 'cuda' has no current device to resolve to")

# %% [markdown]
# ## CUDA_VISIBLE_DEVICES로 GPU 숨기기
#
# 환경 변수 `CUDA_VISIBLE_DEVICES`에는 프로세스가 볼 수 있는 GPU를 나열합니다. 번호는 0부터 다시 매겨지므로, `CUDA_VISIBLE_DEVICES=1`이면 물리 GPU 1이 `cuda:0`이 되고 보이는 GPU는 그것 하나뿐입니다. CUDA는 프로세스 안에서 초기화될 때 이 값을 한 번만 읽습니다. 셸에서 설정하거나(`CUDA_VISIBLE_DEVICES=1 python train.py`), 새로 띄우는 프로세스의 환경 변수로 설정하십시오. 여기서는 자식 Python 프로세스에 빈 목록을 넘겨 GPU가 하나도 보이지 않는 것을 확인합니다. GPU가 있는 머신에서는 두 번째 자식 프로세스에 마지막 GPU 하나만 보입니다.

# %% tags=["claim-F9"]
probe = "import torch; print(torch.cuda.device_count())"
settings = [""]
if n_gpus:
    ours = os.environ.get("CUDA_VISIBLE_DEVICES")  # 이 프로세스가 이미 제한되어 있을 수 있음
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
# CUDA가 일단 초기화된 뒤에는 같은 프로세스에서 `os.environ`을 바꿔도 아무 효과가 없고, GPU는 계속 보입니다. 그래서 이 변수는 첫 CUDA 호출 전에 설정해야 하며, Python을 시작하기 전에 설정하는 것이 가장 안전합니다.

# %% tags=["claim-F9"]
if torch.cuda.is_available():
    torch.cuda.init()  # 이 프로세스에서 CUDA가 확실히 초기화되도록 함
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
# ## nn.DataParallel이 실제로 하는 일
#
# `nn.DataParallel(model)`은 흔히 "모델을 GPU에 올려 주는 것"으로 받아들여집니다. 실제 동작은 머신에 따라 다릅니다.
#
# - CUDA GPU가 없을 때(또는 Apple GPU): 모델을 보관했다가 호출할 뿐, 아무것도 옮기지 않습니다.
# - GPU가 정확히 한 개일 때: 생성자가 모델을 `cuda:0`으로 옮깁니다.
# - GPU가 두 개 이상일 때: 아무것도 옮기지 않습니다. `forward`는 파라미터가 `device_ids[0]`에 있는지 확인하고, 없으면 `RuntimeError`를 발생시킵니다. 따라서 `model.to("cuda:0")`을 직접 호출해야 합니다.
#
# 셀에서는 이 머신에 해당하는 분기를 확인합니다.

# %% tags=["claim-M5"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(8, 4)
where = next(model.parameters()).device
print("GPUs:", n_gpus, "| model after wrapping:", where)

if n_gpus == 0:
    y = dp(x)  # 모듈을 호출할 뿐
    assert where.type == "cpu" and y.device.type == "cpu"
elif n_gpus == 1:
    assert where == torch.device("cuda", 0)  # 생성자가 옮김
    y = dp(x)
    assert y.device == torch.device("cuda", 0)
else:
    assert where.type == "cpu"  # 옮기지 않음
    try:
        dp(x)
    except RuntimeError as err:
        print("RuntimeError:", err)
        assert "must have its parameters and buffers on device" in str(err)
    else:
        raise AssertionError("forward should have raised")
    model.to("cuda:0")  # 해결책: 직접 옮기기
    y = dp(x)
    assert y.device == torch.device("cuda", 0)
print("output on:", y.device)

# %% [markdown]
# 알아 둘 것이 두 가지 더 있습니다. 래퍼는 모델을 `dp.module`로 보관하므로 래퍼의 `state_dict`에서는 모든 키 앞에 `module.`이 붙습니다. 감싸지 않은 모델에 불러올 체크포인트라면 `dp.module.state_dict()`를 저장하십시오. 그리고 `DataParallel` 문서 자체도, 머신이 한 대뿐이더라도 `DistributedDataParallel`을 대신 쓰라고 권장합니다.

# %% tags=["claim-M5"]
keys = list(dp.state_dict())
print(keys)
assert keys == ["module.weight", "module.bias"]
assert dp.module is model
assert list(dp.module.state_dict()) == ["weight", "bias"]

doc = " ".join(nn.DataParallel.__doc__.split())
doc = re.sub(r"\.\. \w+:: ", "", doc)  # ".. warning::" 같은 reST 지시어 제거
doc = re.sub(r":\w+:`~?([\w.]+)`", r"\1", doc)  # :class:`~a.B` -> a.B
advice = [s for s in doc.split(". ") if "DistributedDataParallel" in s]
print(advice[0])
assert advice

# %% [markdown]
# ## 권장되는 방법: DistributedDataParallel
#
# `DistributedDataParallel`(DDP)은 디바이스마다 프로세스를 하나씩 실행하며, 보통 `torchrun --nproc-per-node=N train.py`로 띄웁니다. 각 프로세스는 모델 전체의 복사본을 갖고, 데이터 중 자기 몫으로 학습합니다. DDP는 모델을 감쌀 때 랭크 0의 파라미터를 모든 프로세스로 복사하고, `backward()` 도중에 프로세스 간 그래디언트를 평균합니다. 그래서 모든 복사본이 똑같이 업데이트되고, 복사본끼리 계속 동일하게 유지됩니다.
#
# `gloo` 백엔드를 쓰면 DDP가 CPU에서도 돌아가므로 여기서 실제로 실행해 봅니다. 두 프로세스는 각각 서로 다른 무작위 가중치에서 시작하고, 각각 서로 다른 데이터를 봅니다. 안전한 방식(`spawn`)으로 띄운 워커 프로세스는 노트북에서 정의한 함수를 import할 수 없으므로, 학습 스크립트를 임시 파일에 저장한 뒤 `python -m torch.distributed.run`(`torchrun`의 실체인 모듈)으로 실행합니다. GPU에서라면 스크립트는 `nccl` 백엔드를 쓰고 프로세스마다 GPU를 하나씩 배정할 것입니다.

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
with socket.socket() as s:  # 비어 있는 포트를 OS에 요청
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
assert r0["start"] != r1["start"]  # 초기 가중치가 다름
assert r0["synced"] == r1["synced"] == r0["start"]  # 모든 랭크가 랭크 0의 가중치를 가짐
assert r0["loss"] != r1["loss"]  # 데이터도 다름
assert r0["params"] == r1["params"]  # 그래도 학습 후 파라미터는 동일

# %% [markdown]
# ## 정리
#
# - 인덱스를 명시하지 않은 것(`"cuda"`, `.cuda()`)은 현재 디바이스를 씁니다. 현재 디바이스는 `torch.cuda.set_device(i)`나 `with torch.cuda.device(i):`로 고릅니다.
# - `CUDA_VISIBLE_DEVICES`는 CUDA가 초기화되기 전, 가능하면 Python을 시작하기 전에 설정합니다.
# - `nn.DataParallel`은 GPU가 정확히 한 개일 때만 모델을 옮기며, `state_dict` 키 이름을 `module.*`로 바꿉니다.
# - 여러 GPU에는 `DistributedDataParallel`을 쓰십시오. `gloo`를 쓰면 CPU에서도 실행되고 테스트할 수 있습니다.
