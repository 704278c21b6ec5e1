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
# # 여러 GPU
#
# GPU가 두 개 이상인 머신에서는 인덱스를 지정하지 않은 CUDA 호출이 모두 **현재 디바이스**에서 실행됩니다. 이 페이지에서는 현재 디바이스가 정해지는 방식, 프로세스에서 GPU를 숨기는 방법, `nn.DataParallel`이 실제로 하는 일을 살펴봅니다. 이어서 GPU마다 프로세스를 하나씩 띄워 `DistributedDataParallel`(DDP)로 학습하는 방법과 프로세스마다 데이터를 나눠 주는 방법을 다루고, DDP는 `torchrun`으로 CPU 프로세스 두 개를 띄워 직접 실행해 봅니다. 끝으로 `fork`를 전제로 짠 DataLoader 코드가 Windows와 macOS, Python 3.14 이상의 Linux에서 깨질 수 있는 이유를 설명합니다.
#
# 필요한 GPU가 없으면 GPU 검증이 들어 있는 셀은 그 부분을 건너뛰고 충족되지 않은 조건(`torch.cuda.is_available()=False`나 `n_gpus=0`)만 출력하거나, GPU가 없을 때의 동작을 대신 확인합니다. 나머지 셀은 어느 머신에서나 실행됩니다.

# %% [markdown] tags=["summary"]
# **요약**
#
# - 인덱스 없는 `"cuda"`와 `.cuda()`는 현재 디바이스를 쓰며, 현재 디바이스는 `torch.cuda.set_device(i)`로 고릅니다. `CUDA_VISIBLE_DEVICES`는 CUDA가 초기화되기 전에 설정하세요.
# - 여러 GPU로 학습하려면 `torchrun`으로 GPU마다 프로세스를 하나씩 띄우고, 모델을 `DistributedDataParallel`로 감쌉니다.
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

# torch 버전을 숫자 튜플로 만든다("2.13.0+cpu"라면 (2, 13))
# (2, 7) 같은 튜플과 비교하기 위해서다
TORCH = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])

# 이 튜토리얼은 torch.accelerator(torch 2.6 이상)를 쓰므로, 버전이 낮으면 멈춘다
TOO_OLD_TEXT = (
    "이 노트북은 torch.accelerator를 사용하므로 torch 2.6 이상이 필요합니다. "
    "설치된 torch는 {}입니다. "
    "torch를 업데이트하고(pip install -U torch) "
    "커널을 다시 시작하세요."
)
if TORCH < (2, 6):
    raise RuntimeError(TOO_OLD_TEXT.format(torch.__version__))


@contextlib.contextmanager
def expect_error(kind, fragment=""):
    # 블록이 `kind` 예외를 일으키고 메시지에 `fragment`가 들어 있는지
    # 검증한다. 오류는 출력한 뒤 `caught.error`에 남겨 뒤의 셀에서 다시
    # 검증할 수 있게 하고, 노트북은 멈추지 않고 계속 진행한다
    caught = types.SimpleNamespace(error=None)
    try:
        yield caught
    except kind as err:
        assert fragment in str(err), err
        caught.error = err
        # 블록이 이미 출력한 내용이 오류 메시지보다 먼저 나오게 한다
        sys.stdout.flush()
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError(f"expected {kind.__name__}")


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
n_gpus = torch.cuda.device_count()
print(torch.__version__, device, n_gpus)

# %% [markdown]
# ## 현재 디바이스
#
# 현재 CUDA 디바이스는 스레드마다 하나씩 있으며, 처음에는 GPU 0입니다. 현재 디바이스는 다음과 같이 조회하고 바꿉니다.
#
# - `torch.cuda.current_device()`로 조회합니다.
# - `torch.cuda.set_device(i)`로 바꿉니다.
# - `with torch.cuda.device(i):`는 블록 안에서만 바꾸고, 블록이 끝나면 원래대로 되돌립니다.
#
# `.cuda()`나 `"cuda"`처럼 인덱스를 지정하지 않는 코드는 모두 현재 디바이스를 씁니다. GPU가 있으면 다음 셀에서 마지막 GPU(GPU가 하나면 GPU 0)로 이 동작을 확인해 봅시다.

# %% tags=["claim-F9", "gpu-only"]
if torch.cuda.is_available():
    start = torch.cuda.current_device()
    last = n_gpus - 1
    with torch.cuda.device(last):
        inside = torch.cuda.current_device()
        t = torch.zeros(2).cuda()
    after = torch.cuda.current_device()
    print(f"{start=}, {inside=}, {t.device=}, {after=}")
    assert start == 0  # 새 프로세스는 GPU 0에서 시작한다
    assert inside == last and t.device == torch.device("cuda", last)
    assert after == start  # 블록이 끝나면 원래대로 돌아온다

    torch.cuda.set_device(last)
    assert torch.cuda.current_device() == last
    torch.cuda.set_device(start)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 디바이스 이름 `cuda`의 의미
#
# 디바이스는 `"cuda:0"`처럼 인덱스를 붙여서도, `"cuda"`처럼 인덱스 없이도 지정할 수 있습니다. `torch.device`를 만들 때는 GPU가 필요 없으므로, 다음 셀은 GPU 없이도 실행됩니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 다음 셀은 인덱스 없이 `d = torch.device("cuda")`를 만들고 `d.index`를 출력합니다. 무엇이 나올까요?
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
# **정답:** `d.index=None`입니다. `"cuda"`는 특정 GPU를 가리키지 않습니다. "현재 CUDA 디바이스"라는 뜻이며, 실제로 어느 GPU를 쓸지는 텐서를 만들거나 `to`를 호출하는 시점에 정해집니다.
#
# - `d.index=0`을 골랐다면 `"cuda"`를 `cuda:0`의 별칭으로 생각했을 겁니다. 하지만 별칭이 아니므로 두 디바이스를 비교하면 서로 다르다고 나옵니다.
# - `d.index=-1`은 "인덱스 없음"을 -1 같은 특별한 숫자로 나타낸다고 본 답입니다. `torch.device`는 인덱스가 없으면 `None`을 씁니다.

# %% [markdown]
# GPU가 하나뿐이면 `"cuda"`는 언제나 `cuda:0`을 가리킵니다. GPU가 두 개 이상이면 어느 GPU가 현재 디바이스인지에 따라 결과가 달라집니다. 텐서 `t`가 `cuda:1`에 있을 때 `t.to("cuda")`는 현재 디바이스가 GPU 0이면 `cuda:0`에 복사본을 만들어 돌려주고, GPU 1이면 `t`를 그대로 돌려줍니다. GPU가 두 개 이상인 머신이라면 정말 복사본이 생기는지, 하나뿐인 머신이라면 텐서가 그대로 돌아오는지 아래 셀에서 볼 수 있습니다. GPU가 없으면 `n_gpus=0`을 출력합니다.

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
    assert t.to("cuda") is t  # 이미 현재 디바이스에 있다
else:
    print(f"{n_gpus=}")

# %% [markdown]
# ## `CUDA_VISIBLE_DEVICES`로 GPU 숨기기
#
# 환경 변수 `CUDA_VISIBLE_DEVICES`에는 프로세스에 보여 줄 GPU를 나열합니다. 인덱스는 0부터 다시 매겨지므로, `CUDA_VISIBLE_DEVICES=1`이면 GPU 1이 `cuda:0`이 되고, 그 GPU 하나만 보입니다.
#
# 어느 물리적 GPU가 "GPU 1"인지는 CUDA가 GPU에 인덱스를 매기는 방식에 따라 정해집니다. CUDA는 기본적으로 가장 빠른 GPU에 인덱스 0을 주므로, 이렇게 매긴 인덱스는 `nvidia-smi`가 보여 주는 순서(PCI 버스 순서)와 다를 수 있습니다. `nvidia-smi`와 같은 인덱스를 쓰려면 `CUDA_DEVICE_ORDER=PCI_BUS_ID`도 함께 설정하세요.
#
# CUDA는 프로세스 안에서 초기화될 때 두 변수를 한 번만 읽습니다. 따라서 이 변수들은 셸에서 미리 설정하거나(`CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=1 python train.py`), Python에서 자식 프로세스를 띄울 때 그 프로세스의 환경 변수로 넘기세요.
#
# 다음 셀은 먼저 `CUDA_VISIBLE_DEVICES`를 빈 문자열로 설정한 Python 자식 프로세스를 띄워, GPU가 하나도 보이지 않는지 검증합니다. GPU가 있는 머신에서는 자식 프로세스를 하나 더 띄워 마지막 GPU만 넘기고, 그 프로세스에 GPU가 하나만 보이는지도 봅니다.

# %% tags=["claim-F9", "gpu-only"]
probe = "import torch; print(torch.cuda.device_count())"
settings = [""]
if n_gpus:
    # 이 프로세스가 이미 제한되어 있을 수 있다. 보이는 마지막 GPU를 넘긴다
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
# CUDA가 한번 초기화되고 나면 같은 프로세스에서 `os.environ`을 바꿔도 아무 효과가 없으며, GPU는 계속 보입니다. 그래서 이 변수는 반드시 첫 CUDA 호출보다 먼저 설정해야 하며, 가장 안전한 때는 Python을 시작하기 전입니다.
#
# GPU가 있으면 다음 셀에서 CUDA를 초기화한 다음 변수를 비우고, 그 뒤에도 새 텐서가 여전히 GPU에 만들어지는지 확인합니다. 이 노트북에서 앞서 실행한 코드의 영향을 받지 않도록, 이 과정은 새 자식 프로세스에서 실행합니다.

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
    # 너무 늦게 바꾼 값은 CUDA가 무시했다
    assert child.stdout.split()[-1].startswith("cuda:")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## `nn.DataParallel`이 실제로 하는 일
#
# `nn.DataParallel(model)`을 "모델을 GPU에 올려 주는 것"으로 아는 사람이 많습니다. 실제 동작은 래퍼(wrapper)가 찾은 가속기와 사용할 디바이스 ID 목록(`device_ids`)에 따라 정해집니다.
#
# 래퍼는 CUDA GPU, Apple MPS, Intel XPU, MTIA, PrivateUse1 백엔드 순으로 가속기를 찾습니다. MTIA는 Meta의 자체 가속기이고, PrivateUse1은 PyTorch 밖에서 새 디바이스를 추가할 때 쓰도록 예약해 둔 백엔드 이름입니다. `device_ids`를 생략하면, 래퍼가 찾은 종류의 디바이스 중 이 프로세스에 보이는 것이 모두 `device_ids`에 들어갑니다.
#
# - 가속기가 전혀 없거나 Apple MPS만 있으면 `device_ids`는 빈 목록이 되고, 래퍼는 모델을 옮기지 않은 채 그대로 호출하기만 합니다. MPS만 있을 때도 빈 목록이 되는 것은 `DataParallel`이 MPS를 찾기는 해도 지원하지는 않기 때문입니다.
# - 디바이스 ID가 정확히 하나이면 생성자가 모델을 그 디바이스로 옮깁니다. GPU가 하나인 머신에서 `device_ids`를 생략하면 바로 이렇게 되고, XPU처럼 앞에서 든 다른 가속기가 하나일 때도 마찬가지입니다. GPU가 여러 개인 머신에서 `device_ids=[1]`을 넘기면 모델이 `cuda:1`로 옮겨집니다.
# - 디바이스 ID가 두 개 이상이면 래퍼는 아무것도 옮기지 않습니다. `forward` 메서드는 매개변수가 `device_ids[0]`에 있는지 검사하고, 없으면 `RuntimeError`를 일으킵니다. 따라서 모델을 직접 `device_ids[0]`으로 옮겨야 합니다.
#
# 지금 머신에 해당하는 경우가 실제로 어떻게 동작하는지 다음 셀에서 실행해 보겠습니다. GPU가 여러 개이면 디바이스 ID를 하나만 넘겨 감싼 경우까지 다루고, GPU가 없으면 첫 번째 경우(`device_ids`가 빈 목록)만 다룹니다.

# %% tags=["claim-M5", "gpu-only"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(8, 4)
where = next(model.parameters()).device
print(f"{dp.device_ids=}, {where=}")
if not torch.accelerator.is_available() or torch.backends.mps.is_available():
    assert dp.device_ids == []  # 작업을 나눌 곳이 없다

if len(dp.device_ids) == 0:
    y = dp(x)  # 모듈을 호출하기만 한다
    assert where.type == "cpu" and y.device.type == "cpu"
elif len(dp.device_ids) == 1:
    # 생성자가 옮겼다
    assert where.type != "cpu" and where.index == dp.device_ids[0]
    y = dp(x)
    assert y.device == where
else:
    assert where.type == "cpu"  # 옮기지 않았다
    expected = "must have its parameters and buffers on device"
    with expect_error(RuntimeError, expected):
        dp(x)
    model.to(f"cuda:{dp.device_ids[0]}")  # 해결 방법: 직접 옮긴다
    y = dp(x)
    assert y.device == torch.device("cuda", dp.device_ids[0])

    last = dp.device_ids[-1]
    one = nn.DataParallel(nn.Linear(4, 2), device_ids=[last])
    print(f"{one.module.weight.device=}")
    # 디바이스 ID가 하나: 그 GPU로 옮겼다
    assert one.module.weight.device == torch.device("cuda", last)
print(f"{y.device=}")

# %% [markdown]
# 래퍼는 원래 모델을 `dp.module`로 갖고 있습니다. 이 점은 체크포인트에 저장되는 `state_dict`에도 드러납니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `dp`는 `Linear`를 `nn.DataParallel`로 감싼 것입니다. `dp.state_dict()`의 키는 무엇일까요?
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
# **정답:** `['module.weight', 'module.bias']`입니다. 래퍼는 원래 모델을 `module`이라는 이름의 하위 모듈로 등록하므로, `state_dict`의 모든 키 앞에 `module.`이 붙습니다.
#
# - `['weight', 'bias']`는 감싸기 전 모델(`dp.module.state_dict()`)의 키로, 래퍼가 키를 바꾸지 않는다고 생각하면 고르게 되는 답입니다. 감싸지 않은 모델에 불러올 체크포인트라면 이쪽을 저장하세요.
# - `[]`를 골랐다면 래퍼에는 자기 상태가 없으니 비어 있다고 생각했을 겁니다. 래퍼 자신에게 상태가 없는 것은 맞지만, `state_dict`에는 등록된 하위 모듈의 상태도 그 이름을 앞에 붙여 들어갑니다.

# %% [markdown]
# `DataParallel` 문서도 여러 GPU로 학습할 때는 머신이 한 대뿐이라도 `DistributedDataParallel`을 대신 쓰라고 권장합니다. 아래 셀에서는 `DataParallel`의 독스트링(docstring)에서 이 권장 문장을 찾아, `DistributedDataParallel`과 `single node`(단일 노드)가 정말 들어 있는지 봅니다.

# %% tags=["claim-M5"]
doc = " ".join(nn.DataParallel.__doc__.split())
advice = next(s for s in doc.split(". ") if "recommended" in s)
print(f"{'DistributedDataParallel' in advice=}")
print(f"{'single node' in advice=}")
assert "DistributedDataParallel" in advice and "single node" in advice

# %% [markdown]
# ## 권장되는 방법: `DistributedDataParallel`
#
# `DistributedDataParallel`(DDP)를 쓰면 GPU마다 프로세스가 하나씩 돌고, 프로세스마다 모델 전체의 복사본을 갖습니다. DDP는 모델을 감쌀 때 첫 번째 프로세스(랭크 0)의 매개변수와 **버퍼**를 모든 프로세스에 복사(브로드캐스트)하고, 기본 설정에서는 순전파를 할 때마다 그 직전에 랭크 0의 버퍼를 다시 복사합니다. `backward()` 중에는 프로세스 간에 변화도(gradient)의 평균을 내므로, 모든 복사본이 똑같이 갱신되어 계속 같은 상태를 유지합니다.
#
# 프로세스는 직접 띄우지 않아도 됩니다. `torchrun --nproc-per-node=N train.py`가 프로세스 `N`개를 GPU마다 하나씩 띄워 스크립트를 실행하고, 각 프로세스가 전체에서 몇 번째인지(랭크) 등을 다음 환경 변수로 알려 줍니다.
#
# - `WORLD_SIZE`: 전체 프로세스 수
# - `RANK`: 전체 프로세스 중 이 프로세스의 번호(0부터)
# - `LOCAL_RANK`: 이 머신 안에서의 번호(이 프로세스가 쓸 GPU의 인덱스이기도 합니다)
#
# GPU로 학습할 때는 각 프로세스가 `torch.cuda.set_device(local_rank)`로 자기 GPU를 현재 디바이스로 정합니다. 그러면 그 프로세스에서 `"cuda"`는 자기 GPU를 가리킵니다. 프로세스 간 통신 백엔드(`init_process_group`에 넘기는 값)로는 `nccl`을 쓰고, 모델을 그 GPU에 올린 다음 `DDP(model, device_ids=[local_rank])`로 감쌉니다. CPU에서는 통신 백엔드로 `gloo`를 쓰고 `device_ids`는 지정하지 않습니다.
#
# 아래 스크립트는 두 경우를 모두 처리하며, 프로세스 수만큼 GPU가 있는 머신에서는 GPU를 씁니다.

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
# DDP는 데이터를 나누지 않습니다. 여기서는 프로세스마다 랭크에 따라 다른 시드로 자기 몫의 무작위 데이터를 만듭니다(실제 스크립트라면 [뒤에서](#데이터-나누기-distributedsampler) 다루는 `DistributedSampler`를 씁니다). 각 프로세스의 모델도 서로 다른 가중치와 버퍼 값으로 시작합니다. 이렇게 해 두면 DDP가 무엇을 맞춰 주는지가 실행 결과에 드러납니다. 각 프로세스는 결과를 파일 하나에 따로 저장하며, 저장할 디렉터리는 셀이 명령줄 인수로 넘겨 줍니다.
#
# 다음 셀은 스크립트를 임시 디렉터리에 저장하고, 제한 시간을 두고 이 머신에서 프로세스 두 개를 띄웁니다. 노트북과 같은 Python 인터프리터(`sys.executable`)를 쓰려고 `torchrun` 명령 대신 `python -m torch.distributed.run`을 호출합니다. `torchrun` 명령도 내부에서는 이 모듈을 실행하며, `--standalone`을 붙이면 사용 중이 아닌 포트를 알아서 골라 줍니다. 환경 변수 `TMPDIR`도 이 임시 디렉터리로 지정하므로 `torchrun`이 만드는 임시 파일까지 여기에 생기고, 셀이 끝나면 디렉터리째 지워져 아무것도 남지 않습니다.
#
# 스크립트는 `os._exit(0)`으로 끝납니다. Python이 종료 처리를 하는 동안 gloo의 워커 스레드가 아직 autograd 상태를 해제하고 있으면 프로세스가 가끔 비정상 종료되기 때문입니다(PyTorch 2.13에서 확인). `os._exit(0)`은 Python의 종료 처리를 건너뛰지만, 이 시점에는 결과를 이미 파일에 저장했으므로 잃는 것이 없습니다.
#
# GPU가 두 개보다 적으면 프로세스는 `gloo`로 CPU에서 실행됩니다. GPU가 두 개 이상인 머신이라면 각 프로세스가 자기 GPU(`cuda:0`과 `cuda:1`)에서 `nccl`로 실행되었는지도 검증합니다.

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
        if run.poll() is None:  # 시간 초과
            run.terminate()  # SIGTERM을 받은 torchrun은 워커를 멈춘다
            run.communicate(timeout=60)
    print(f"{run.returncode=}")
    if (out + err).strip():
        print((out + err).strip(), file=sys.stderr)
    assert run.returncode == 0
    results = [json.loads((Path(tmp) / f"rank{r}.json").read_text())
               for r in range(2)]
assert not Path(tmp).exists()  # 스크립트도 torchrun의 파일도 지워졌다


def short(values):
    return [round(v, 4) for v in values]


for r in results:
    print(f"rank={r['rank']}, local_rank={r['local_rank']}, "
          f"device={r['device']}, backend={r['backend']}")
    print(f"  start={short(r['start'])}, synced={short(r['synced'])}, "
          f"buffer={r['buffer']}")
    print(f"  loss={r['loss']:.4f}, params={short(r['params'])}")

r0, r1 = results
assert [r["local_rank"] for r in results] == [0, 1]  # 머신은 한 대
assert r0["world_size"] == r1["world_size"] == 2
on_gpus = n_gpus >= 2  # 스크립트와 같은 기준: 프로세스마다 GPU 하나
devices = ["cuda:0", "cuda:1"] if on_gpus else ["cpu", "cpu"]
assert [r["device"] for r in results] == devices
assert r0["start"] != r1["start"]  # 초기 가중치가 다르다
assert r0["synced"] == r1["synced"] == r0["start"]  # 모두 랭크 0의 가중치
assert r0["buffer"] == r1["buffer"] == 0.0  # 모두 랭크 0의 버퍼
assert r0["loss"] != r1["loss"]  # 데이터도 다르다
assert r0["params"] == r1["params"]  # 그런데도 학습 후 매개변수는 같다

# %% [markdown]
# ## 프로세스마다 GPU 정하기: `set_device`와 `dist.barrier`
#
# `torch.cuda.set_device(local_rank)`를 빠뜨리면 `LOCAL_RANK`가 무엇이든 각 프로세스의 현재 디바이스는 GPU 0으로 남습니다. `"cuda"`, `.cuda()`, `torch.cuda.memory_allocated()` 등 인덱스 없이 현재 디바이스를 쓰는 코드는 모두 GPU 0을 대상으로 동작합니다.
#
# 스크립트가 모델과 배치를 `"cuda"`에 올리면 모든 랭크가 GPU 0을 쓰므로, 메모리가 그 GPU 하나에 몰리고 나머지 GPU는 놀게 됩니다. NCCL은 랭크마다 서로 다른 GPU를 쓴다고 가정하므로, 이렇게 되면 오류를 내거나 그대로 멈춰 버립니다. 이때 나오는 오류로는 `Duplicate GPU detected`("같은 GPU가 중복으로 감지되었다") 등이 있습니다.
#
# 그러니 각 프로세스에서 먼저 `torch.cuda.set_device(local_rank)`를 호출하세요. `DistributedDataParallel` 문서에도 프로세스마다 `set_device`나 `CUDA_VISIBLE_DEVICES`로 GPU를 지정해야 한다고 나와 있습니다. 이와 함께 `init_process_group`에 `device_id=torch.device("cuda", local_rank)`를 넘기거나, 배리어(모든 랭크가 같은 지점에 도착할 때까지 서로 기다리게 하는 동기화)를 `dist.barrier(device_ids=[local_rank])`로 호출하세요. 이렇게까지 해야 하는 이유는 배리어가 GPU를 고르는 방식에 있습니다.
#
# 위 스크립트처럼 `torch.device("cuda", local_rank)`로 디바이스를 명시하면 텐서는 올바른 GPU에 올라갑니다. 하지만 `dist.barrier()`는 보통 디바이스를 지정하지 않고 호출합니다.
#
# NCCL 백엔드는 배리어를 요소 하나짜리 텐서의 all-reduce로 구현합니다. all-reduce는 집합 통신(모든 랭크가 함께 참여하는 통신)의 하나로, 모든 랭크의 값을 모아 합친 결과를 모든 랭크에 돌려줍니다. 백엔드는 이 all-reduce를 실행할 GPU를 다음 우선순위로 고릅니다.
#
# 1. 배리어에 넘긴 `device_ids=[...]`
# 2. `init_process_group`에 넘긴 `device_id`
# 3. 이 프로세스 그룹이 이미 쓴 GPU
# 4. `rank % (이 머신의 GPU 수)`
#
# 마지막 경우에는 "이 프로세스가 쓰는 디바이스를 알 수 없어 GPU X를 쓴다"는 경고(`using GPU X as device used by this process is currently unknown`)가 나옵니다. 위 목록에 현재 디바이스가 없다는 점에 주의하세요. 현재 디바이스는 `barrier()`의 Python 코드가 배리어용 더미 텐서를 어디에 만들지 정할 때만 쓰입니다.
#
# 디바이스를 명시한 스크립트에서는 DDP가 모델을 감쌀 때 하는 첫 브로드캐스트(랭크 0의 매개변수와 버퍼 복사)가 `cuda:local_rank`를 쓰므로, 그 뒤의 배리어도 올바른 GPU에서 실행됩니다. 이 경우 `set_device`를 빠뜨려서 생기는 문제는 모든 랭크가 GPU 0에 쓸데없는 CUDA 컨텍스트를 만들어 GPU 0의 메모리를 차지하는 것 정도입니다.
#
# 백엔드가 마지막 방법(rank % GPU 수)으로 엉뚱한 GPU를 고르면 프로그램이 멈춥니다. 이런 일은 머신의 GPU 수가 그 머신에서 띄운 프로세스 수보다 많을 때, 집합 통신을 한 번도 하지 않은 채 배리어를 호출하면 생깁니다. 랭크 0이 데이터를 내려받는 동안 다른 랭크를 기다리게 하는 경우가 대표적입니다. GPU가 8개인 머신 여러 대에 프로세스를 2개씩 띄우면, 전역 랭크(`RANK`) 2는 두 번째 머신의 로컬 랭크(`LOCAL_RANK`) 0인데도 GPU 2를 고릅니다.
#
# 앞에서 권장한 `device_id`는 현재 디바이스를 바꾸지 않으므로, 이 값을 넘기더라도 `set_device`를 생략할 수 없습니다. NCCL 백엔드에서 `device_id`를 넘기면 랭크 간 통신에 쓰는 커뮤니케이터(communicator)가 `init_process_group` 안에서 바로 만들어집니다. 그래서 NCCL 오류도 첫 집합 통신 때가 아니라 `init_process_group`에서 납니다. 이후에 생성하는 프로세스 그룹은 커뮤니케이터를 처음부터 만들지 않고, 이 커뮤니케이터를 쪼개어(`ncclCommSplit`) 씁니다.
#
# 다음 셀은 GPU가 있으면 `LOCAL_RANK=1`만 설정하고 `set_device`는 호출하지 않는 새 프로세스를 띄워, 그 프로세스의 현재 디바이스가 여전히 0인지 확인합니다. GPU가 있든 없든 PyTorch 소스를 읽어 `init_process_group`이 `device_id`를 받기만 할 뿐 `set_device`는 호출하지 않는다는 점도 살펴봅니다. PyTorch 2.13 이상이라면 `barrier`의 Python 코드가 더미 텐서의 디바이스를 고르는 순서와 문서에 적힌 `device_id`의 효과까지 출력 없이 검증합니다.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    probe = ("import torch; print(torch.cuda.current_device(),"
             " torch.zeros(1, device='cuda').device)")
    child = subprocess.run([sys.executable, "-c", probe],
                           env=dict(os.environ, LOCAL_RANK="1"),
                           capture_output=True, text=True, timeout=120)
    print(child.stdout.strip())
    assert child.returncode == 0, child.stderr
    # LOCAL_RANK만으로는 GPU가 정해지지 않는다
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
    # Python 쪽은 device_ids, device_id, 현재 디바이스 순으로 찾는다
    if TORCH >= (2, 13):
        order = [guess.index(s) for s in ("device_ids[0]", "bound_device_id",
                                          "device under current context")]
        assert order == sorted(order)
        assert "creating context on device 0" in guess
        assert "immediately formed" in init.__doc__
        # 이후의 그룹은 이 커뮤니케이터를 나눠 만든다
        assert "ncclCommSplit" in init.__doc__

# %% [markdown]
# ## 데이터 나누기: `DistributedSampler`
#
# 앞에서 보았듯이 DDP는 데이터를 나누지 않으므로 데이터 분배는 직접 맡아야 합니다. 이때 쓰는 것이 `DistributedSampler`로, 데이터셋의 인덱스를 랭크마다 다른 몫으로 나눠 줍니다. 학습 스크립트에서는 샘플러를 `DataLoader`에 넘기고(`DataLoader(dataset, sampler=sampler)`), 샘플러는 자기 랭크와 전체 프로세스 수를 프로세스 그룹에서 읽어 옵니다. 여기서는 프로세스 그룹이 없으므로 이 두 값을 셀에서 직접 지정합니다. 이 예제의 데이터셋은 샘플이 5개뿐이라 랭크 2개에 똑같이 나눌 수 없습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `DistributedSampler`가 샘플 5개를 섞지 않고 랭크 2개에 나눕니다. 각 랭크는 어떤 인덱스를 받을까요?
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
assert shares == [[0, 2, 4], [1, 3, 0]]  # 샘플 0이 두 번
dropped = [list(DistributedSampler(data, num_replicas=2, rank=r,
                                   shuffle=False, drop_last=True))
           for r in range(2)]
print(f"{dropped=}")
assert dropped == [[0, 2], [1, 3]]  # 샘플 4는 쓰이지 않는다
even = [list(DistributedSampler(range(8), num_replicas=2, rank=r,
                                shuffle=False))
        for r in range(2)]
print(f"{even=}")
assert sorted(even[0] + even[1]) == list(range(8))  # 모든 샘플이 한 번씩

# %% [markdown] tags=["answer"]
# **정답:** `[[0, 2, 4], [1, 3, 0]]`입니다. 랭크가 두 개이므로 랭크 `r`은 `r`부터 하나 걸러 인덱스를 받습니다. 모든 랭크가 같은 수의 샘플을 받아야 하므로, 샘플러는 먼저 인덱스 목록을 앞에서부터 반복해 랭크 수의 배수가 되도록 채웁니다. 그래서 샘플 0은 에폭마다 두 번 쓰입니다.
#
# `drop_last=True`를 지정하면 대신 끝부분을 잘라 내고, 샘플 4는 한 번도 쓰이지 않습니다. 모든 샘플이 정확히 한 번씩 쓰이는 것은 샘플 수가 랭크 수의 배수일 때(랭크 2개에 샘플 8개 등)뿐입니다.
#
# - `[[0, 1, 2], [3, 4]]`는 데이터셋을 앞뒤 두 덩어리로 자른다고 본 답입니다. 샘플러는 카드를 돌리듯 인덱스를 하나씩 번갈아 나눠 줍니다.
# - `[[0, 2, 4], [1, 3]]`을 골랐다면 나눠 주는 방식은 맞혔습니다. 놓친 것은 마지막 한 개로, 샘플러는 랭크 1의 모자란 자리를 맨 앞의 샘플 0으로 채워 모든 랭크의 샘플 수를 맞춥니다.
# - `[[0, 2], [1, 3]]`은 `drop_last=True`일 때 나오는 결과입니다. 기본값에서는 남는 샘플을 버리지 않고, 앞쪽 샘플을 더 넣어 개수를 맞춥니다.
#
# 샘플러가 채워 넣은 샘플은 두 번 집계됩니다. 검증 점수처럼 한 에폭 동안 모든 랭크의 결과를 모아 계산하는 값이라면 그만큼 어긋납니다.

# %% [markdown]
# 기본값인 `shuffle=True`에서는 샘플러가 인덱스를 섞은 다음 나눠 줍니다. 다음 셀은 에폭 세 번을 흉내 내어 같은 샘플러를 세 번 순회합니다. 처음 두 번은 연달아, 세 번째는 `sampler.set_epoch(1)`을 호출한 뒤에 돌고, 두 번째와 세 번째 결과를 각각 첫 번째와 비교합니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 다음 셀은 `(second == first, third == first)`를 출력합니다. 결과는 무엇일까요?
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
assert second == first  # set_epoch가 없으면 같은 순서가 반복된다
assert third != first
other = DistributedSampler(range(8), num_replicas=2, rank=1, shuffle=True)
other.set_epoch(1)
assert sorted(third + list(other)) == list(range(8))  # 겹치지 않게 나뉜다

# %% [markdown] tags=["answer"]
# **정답:** `(True, False)`입니다. 샘플러는 `seed + epoch`을 시드로 삼은 난수 생성기로 섞는데, 에폭 값은 `set_epoch`을 호출해야만 바뀝니다. 호출하지 않으면 모든 에폭이 첫 에폭의 순서를 되풀이하고, 각 랭크는 매번 같은 샘플을 받습니다. 그러니 에폭마다 `DataLoader`를 순회하기 전에, 모든 랭크에서 `sampler.set_epoch(epoch)`을 호출하세요.
#
# 모든 랭크가 같은 시드와 에폭을 쓰므로, 순서가 새로 섞여도 랭크끼리 몫이 겹치지 않습니다. 위 셀의 마지막 검증은 랭크 0과 랭크 1의 몫을 합쳐 이 점을 확인합니다.
#
# - `(False, False)`를 골랐다면 샘플러를 순회할 때마다 순서가 저절로 바뀐다고 생각했을 겁니다. 섞는 시드는 에폭 값으로 정해지므로, `set_epoch`을 부르기 전까지는 같은 순서가 되풀이됩니다.
# - `set_epoch`에 아무 효과가 없다고 보면 `(True, True)`를 고르게 됩니다. 하지만 `set_epoch(1)` 뒤에는 시드가 바뀌므로 순서도 바뀝니다.

# %% [markdown]
# ## DataLoader 워커와 프로세스 시작 방식
#
# `DataLoader`는 `num_workers > 0`이면 워커 프로세스에서 배치를 읽어 옵니다. Python이 워커 프로세스를 시작하는 방식은 플랫폼에 따라 다릅니다.
#
# - Windows와 macOS: `spawn`
# - Linux: Python 3.14부터 `forkserver`, 3.13까지는 `fork`
#
# `spawn`과 `forkserver`의 워커는 부모 프로세스의 복사본이 아닙니다. 새 Python 인터프리터로 시작해 스크립트의 메인 모듈을 임포트하고, 데이터셋을 pickle로 넘겨받습니다.
#
# 그래서 스크립트에서는 DataLoader를 만들고 루프를 도는 코드를 `if __name__ == "__main__":` 아래에 두세요. 그러지 않으면 워커가 스크립트를 임포트할 때 그 코드를 다시 실행합니다. 데이터셋 클래스도 워커가 임포트할 수 있도록 모듈 최상위에 정의하세요.
#
# Linux(`fork`)에서 잘 돌던 코드도 `spawn`을 쓰는 Windows·macOS에서는 깨질 수 있고, `forkserver`가 기본인 Python 3.14 이상의 Linux에서도 마찬가지입니다. 지금 쓰는 머신의 기본 시작 방식은 다음 셀에서 확인할 수 있습니다.

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
# ## 정리
#
# - 인덱스를 명시하지 않은 코드(`"cuda"`, `.cuda()`)는 현재 디바이스를 씁니다. 현재 디바이스는 `torch.cuda.set_device(i)`나 `with torch.cuda.device(i):`로 고릅니다.
# - `CUDA_VISIBLE_DEVICES`는 CUDA가 초기화되기 전, 가능하면 Python을 시작하기 전에 설정합니다. `nvidia-smi`와 같은 인덱스를 쓰려면 `CUDA_DEVICE_ORDER=PCI_BUS_ID`도 함께 설정합니다.
# - `nn.DataParallel`은 디바이스 ID가 정확히 하나일 때(`len(device_ids) == 1`)만 모델을 옮기며, `state_dict`의 모든 키 앞에 `module.`을 붙입니다.
# - 여러 GPU로 학습할 때는 `DistributedDataParallel`을 쓰세요. `torchrun`으로 GPU마다 프로세스를 하나씩 실행하고, 각 프로세스에서 `torch.cuda.set_device(local_rank)`를 호출한 뒤 모델을 `DDP(model, device_ids=[local_rank])`로 감쌉니다. 매개변수와 버퍼는 DDP가 맞춰 줍니다. `gloo`를 쓰면 CPU에서도 실행하고 테스트할 수 있습니다.
# - 데이터는 `DistributedSampler`가 나누며, 모든 랭크의 샘플 수를 맞추려고 샘플을 반복해 채웁니다(`drop_last=True`면 끝부분을 잘라 냅니다). 에폭마다 `sampler.set_epoch(epoch)`을 호출하지 않으면 같은 순서가 되풀이됩니다.
