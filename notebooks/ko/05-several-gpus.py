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
# GPU가 두 개 이상이면, 인덱스를 지정하지 않은 CUDA 호출은 모두 **현재 디바이스**로 갑니다. 이 페이지에서는 현재 디바이스가 정해지는 방식, 프로세스에서 GPU를 숨기는 방법, `nn.DataParallel`이 실제로 하는 일, `DistributedDataParallel`의 동작 방식을 살펴봅니다. DDP는 CPU 프로세스 두 개로 실제로 실행합니다.
#
# GPU가 필요한 셀은 결과 대신 충족되지 않은 조건(`torch.cuda.is_available()=False`나 `n_gpus=0`)을 출력합니다. 나머지 셀은 어느 머신에서나 실행됩니다.

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

# torch 버전을 숫자 튜플로 만든다("2.13.0+cpu"라면 (2, 13))
# (2, 7) 같은 튜플과 비교하기 위해서다
TORCH = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])

# torch.accelerator(torch 2.6 이상)를 쓰므로, 버전이 낮으면 여기서 멈춘다
TOO_OLD_TEXT = (
    "이 노트북에는 torch 2.6 이상이 필요합니다"
    "(torch.accelerator를 사용합니다). 지금 torch는 {}입니다. "
    "torch를 업데이트하고(pip install -U torch) "
    "커널을 다시 시작하세요."
)
if TORCH < (2, 6):
    raise RuntimeError(TOO_OLD_TEXT.format(torch.__version__))


@contextlib.contextmanager
def expect_error(kind, fragment=""):
    # 블록이 `kind` 예외를 발생시키고 메시지에 `fragment`가 들어 있는지
    # 확인한다. 오류는 출력하고 `caught.error`에 남기며(이후 셀의
    # 검증에 쓴다), 노트북은 계속 진행한다
    caught = types.SimpleNamespace(error=None)
    try:
        yield caught
    except kind as err:
        assert fragment in str(err), err
        caught.error = err
        sys.stdout.flush()  # 블록이 먼저 출력한 내용을 먼저 보여 준다
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError(f"expected {kind.__name__}")


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
n_gpus = torch.cuda.device_count()
print(torch.__version__, device, n_gpus)

# %% [markdown]
# ## 현재 디바이스
#
# 현재 CUDA 디바이스는 스레드마다 하나씩 있으며, 처음에는 GPU 0입니다. `torch.cuda.current_device()`로 조회하고 `torch.cuda.set_device(i)`로 바꿉니다. `with torch.cuda.device(i):`는 블록 안에서만 바꾸고, 블록이 끝나면 원래대로 되돌립니다. `.cuda()`나 `"cuda"`처럼 인덱스를 지정하지 않는 코드는 모두 이 디바이스를 씁니다. 셀에서는 마지막 GPU를 쓰며, GPU가 하나인 머신에서는 GPU 0입니다.

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
# ## 디바이스 이름 cuda의 의미
#
# `torch.device("cuda")`에는 인덱스가 없습니다. `cuda:0`의 별칭이 아니라 "현재 CUDA 디바이스"를 뜻하며, 실제로 어느 디바이스인지는 텐서를 만들거나 옮기는 시점에 정해집니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `torch.device("cuda")`의 인덱스는 무엇일까요? 셀은 디바이스와 그 `.index`를 출력합니다.
#
# - `0`: 그렇다면 `"cuda"`가 `cuda:0`과 같은 뜻이 되는데, 그렇지 않습니다.
# - `None`: `"cuda"`는 어떤 GPU도 가리키지 않습니다. 현재 디바이스는 텐서를 만들거나 옮길 때 비로소 조회됩니다.

# %%
d = torch.device("cuda")
print(repr(d), d.index)
assert d.index is None
assert d != torch.device("cuda", 0)

# %% [markdown]
# GPU가 하나뿐이면 이렇게 정해지는 디바이스는 항상 `cuda:0`입니다. 두 개 이상이면 차이가 생깁니다. `cuda:1`에 있는 텐서 `t`에 `t.to("cuda")`를 호출하면, 현재 디바이스가 GPU 0일 때는 `cuda:0`으로 복사되고, GPU 1일 때는 `t` 자신이 그대로 반환됩니다. GPU가 두 개 이상이면 셀은 복사되는 모습을, 하나뿐이면 `t` 자신이 반환되는 모습을 보여 주고, GPU가 없으면 `n_gpus=0`을 출력합니다.

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
# ## CUDA_VISIBLE_DEVICES로 GPU 숨기기
#
# 환경 변수 `CUDA_VISIBLE_DEVICES`에는 프로세스에 보여 줄 GPU를 나열합니다. 번호는 0부터 다시 매겨지므로, `CUDA_VISIBLE_DEVICES=1`이면 GPU 1이 `cuda:0`이 되고 보이는 GPU는 그것 하나뿐입니다. 어느 물리 GPU가 "GPU 1"인지는 CUDA의 번호 매기기 방식에 따라 정해집니다. CUDA는 기본적으로 가장 빠른 GPU에 첫 번호를 주므로, `nvidia-smi`가 보여 주는 순서(PCI 버스 순서)와 다를 수 있습니다. `nvidia-smi`와 같은 번호를 쓰려면 `CUDA_DEVICE_ORDER=PCI_BUS_ID`도 함께 설정하십시오.
#
# CUDA는 이 변수들을 프로세스 안에서 초기화될 때 한 번만 읽습니다. 셸에서 설정하거나(`CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=1 python train.py`), 새로 시작하는 프로세스의 환경 변수로 설정하십시오. 여기서는 Python 자식 프로세스에 빈 문자열을 넘겨 GPU가 하나도 보이지 않는 것을 확인합니다. GPU가 있는 머신에서는 두 번째 자식 프로세스에 마지막 GPU 하나만 보입니다.

# %% tags=["claim-F9", "gpu-only"]
probe = "import torch; print(torch.cuda.device_count())"
settings = [""]
if n_gpus:
    ours = os.environ.get("CUDA_VISIBLE_DEVICES")  # 이 프로세스가 이미 제한되어 있을 수 있다
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
# CUDA가 한번 초기화되고 나면 같은 프로세스에서 `os.environ`을 바꿔도 아무 효과가 없으며, GPU는 계속 보입니다. 그래서 이 변수는 첫 CUDA 호출보다 먼저 설정해야 하고, Python을 시작하기 전에 설정하는 것이 가장 안전합니다. 셀은 이 과정을 새 자식 프로세스에서 실행하므로, 이 노트북에서 앞서 실행한 코드의 영향을 받지 않습니다. CUDA가 초기화된 뒤 변수를 비워도 새 텐서는 여전히 GPU에 만들어집니다. GPU가 없으면 `torch.cuda.is_available()=False`만 출력합니다.

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
    assert child.stdout.split()[-1].startswith("cuda:")  # 너무 늦게 바꾼 값은 CUDA가 무시했다
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## nn.DataParallel이 실제로 하는 일
#
# `nn.DataParallel(model)`은 흔히 "모델을 GPU에 올려 주는 것"으로 여겨집니다. 실제 동작은 래퍼가 찾은 가속기(CUDA GPU, Apple MPS, Intel XPU, MTIA, PrivateUse1 백엔드 순으로 찾습니다)와 래퍼가 받는 디바이스 ID(`device_ids`, 생략하면 그 종류에서 보이는 모든 디바이스)에 따라 다릅니다.
#
# - 가속기가 전혀 없거나 Apple GPU(`DataParallel`이 지원하지 않는 MPS)만 있을 때: `device_ids`가 빈 목록이 되고, 래퍼는 모델을 있던 자리에 둔 채 호출만 합니다. 아무것도 옮기지 않습니다.
# - 디바이스 ID가 정확히 하나일 때: 생성자가 모델을 그 디바이스로 옮깁니다. GPU가 하나인 머신의 기본 동작이 이것이고(XPU 등 위에 든 다른 가속기가 하나일 때도 같습니다), GPU가 여러 개인 머신에서 `device_ids=[1]`을 넘길 때도 마찬가지입니다(모델은 `cuda:1`로 옮겨집니다).
# - 디바이스 ID가 두 개 이상일 때: 아무것도 옮기지 않습니다. `forward`는 파라미터가 `device_ids[0]`에 있는지 확인하고, 없으면 `RuntimeError`를 일으킵니다. 따라서 모델을 직접 그곳으로 옮겨야 합니다.
#
# 셀에서는 이 머신에 해당하는 분기를 확인합니다. GPU가 여러 개이면 디바이스 ID를 하나만 넘겨 감싼 경우도 확인합니다. GPU가 없으면 첫 번째 경우만 확인합니다.

# %% tags=["claim-M5", "gpu-only"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(8, 4)
where = next(model.parameters()).device
print(f"{dp.device_ids=}, {where=}")
if not torch.accelerator.is_available() or torch.backends.mps.is_available():
    assert dp.device_ids == []  # 가속기가 없거나 MPS: 작업을 나눌 곳이 없다

if len(dp.device_ids) == 0:
    y = dp(x)  # 모듈을 호출하기만 한다
    assert where.type == "cpu" and y.device.type == "cpu"
elif len(dp.device_ids) == 1:
    assert where.type != "cpu" and where.index == dp.device_ids[0]  # 생성자가 옮겼다
    y = dp(x)
    assert y.device == where
else:
    assert where.type == "cpu"  # 옮기지 않았다
    with expect_error(RuntimeError, "must have its parameters and buffers on device"):
        dp(x)
    model.to(f"cuda:{dp.device_ids[0]}")  # 해결: 직접 옮긴다
    y = dp(x)
    assert y.device == torch.device("cuda", dp.device_ids[0])

    last = dp.device_ids[-1]
    one = nn.DataParallel(nn.Linear(4, 2), device_ids=[last])
    print(f"{one.module.weight.device=}")
    assert one.module.weight.device == torch.device("cuda", last)  # 디바이스 ID가 하나: 그 GPU로 옮겼다
print(f"{y.device=}")

# %% [markdown]
# 알아 둘 점이 두 가지 더 있습니다. 래퍼는 모델을 `dp.module`로 갖고 있으므로, 래퍼의 `state_dict`에서는 모든 키 앞에 `module.`이 붙습니다. 감싸지 않은 모델에 불러올 체크포인트라면 `dp.module.state_dict()`를 저장하십시오. 또 `DataParallel`의 문서 자체가, 머신이 한 대뿐이더라도 `DistributedDataParallel`을 쓰라고 권장합니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `dp`는 `Linear`를 `nn.DataParallel`로 감싼 것입니다. `dp.state_dict()`의 키는 무엇일까요?
#
# - `['weight', 'bias']`: 이것은 감싸기 전 모델인 `dp.module.state_dict()`의 키입니다.
# - `['module.weight', 'module.bias']`: 래퍼는 모델을 `dp.module`로 가지고 있으므로 모든 키 앞에 `module.`이 붙습니다.

# %% tags=["claim-M5"]
keys = list(dp.state_dict())
print(keys)
assert keys == ["module.weight", "module.bias"]
assert dp.module is model
assert list(dp.module.state_dict()) == ["weight", "bias"]

doc = " ".join(nn.DataParallel.__doc__.split())
doc = re.sub(r"\.\. \w+:: ", "", doc)  # ".. warning::" 같은 reST 지시어를 없앤다
doc = re.sub(r":\w+:`~?([\w.]+)`", r"\1", doc)  # :class:`~a.B` -> a.B
advice = [s for s in doc.split(". ") if "DistributedDataParallel" in s]
print(advice[0])
assert advice

# %% [markdown]
# ## 권장되는 방법: DistributedDataParallel
#
# `DistributedDataParallel`(DDP)은 디바이스마다 프로세스를 하나씩 실행하며, 보통 `torchrun --nproc-per-node=N train.py`로 시작합니다. 프로세스마다 모델 전체의 복사본을 갖습니다. DDP는 모델을 감쌀 때 랭크 0의 파라미터와 **버퍼**를 모든 프로세스에 복사하고(기본 설정에서는 순전파를 할 때마다 그 전에 랭크 0의 버퍼를 다시 복사합니다), `backward()` 중에는 프로세스 간 기울기를 평균합니다. 그래서 모든 복사본이 똑같이 업데이트되어 계속 같은 상태를 유지합니다.
#
# DDP는 데이터를 나누지 않습니다. 프로세스마다 자기 몫의 데이터를 직접 불러와야 하며, 보통은 `DistributedSampler`를 지정한 `DataLoader`를 씁니다(실행 예 다음에 보여 줍니다). 아래 데모는 데이터 분할을 흉내만 냅니다. 프로세스마다 랭크에 따라 다른 시드로 자기 몫의 무작위 데이터를 만듭니다.
#
# `gloo` 백엔드를 쓰면 DDP가 CPU에서도 동작하므로, 여기서 실제로 실행해 봅니다. 두 프로세스는 가중치도 버퍼 값도 서로 다르게 시작합니다. 안전한 방식(`spawn`)으로 시작한 워커 프로세스는 노트북에서 정의한 함수를 import할 수 없으므로, 학습 스크립트를 임시 파일에 저장한 다음 `python -m torch.distributed.run`으로 실행합니다. `torchrun` 명령이 실행하는 것도 이 모듈입니다. 스크립트는 `os._exit(0)`으로 끝납니다. Python이 종료되는 동안 gloo의 워커 스레드가 아직 autograd 상태를 해제하고 있어서 프로세스가 가끔 비정상 종료되기 때문입니다(torch 2.13에서 확인). 그 시점에는 결과가 이미 저장되어 있습니다. GPU에서라면 스크립트는 `nccl` 백엔드를 쓰고 프로세스마다 GPU를 하나씩 맡깁니다.

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
with socket.socket() as s:  # 비어 있는 포트를 OS에 요청한다
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
assert r0["start"] != r1["start"]  # 초기 가중치가 다르다
assert r0["synced"] == r1["synced"] == r0["start"]  # 모든 랭크가 랭크 0의 가중치를 갖는다
assert r0["buffer"] == r1["buffer"] == 0.0  # 모든 랭크가 랭크 0의 버퍼를 갖는다
assert r0["loss"] != r1["loss"]  # 데이터도 다르다
assert r0["params"] == r1["params"]  # 그런데도 학습 후 파라미터는 같다

# %% [markdown]
# DDP가 사용자에게 맡기는 데이터 분할은 `DistributedSampler`가 합니다. 데이터셋의 인덱스를 랭크마다 다른 몫으로 나눠 줍니다. 여기서는 랭크와 전체 랭크 수를 직접 지정해서 프로세스 없이 실행합니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `DistributedSampler`가 샘플 8개를 섞지 않고 랭크 2개에 나눕니다.
# 각 랭크는 어떤 인덱스를 받을까요?
#
# - `[[0, 1, 2, 3], [4, 5, 6, 7]]`: 앞뒤 절반으로 나눈다는 뜻인데, 샘플러는 인덱스를 차례로 번갈아 나눠 줍니다.
# - `[[0, 2, 4, 6], [1, 3, 5, 7]]`: 랭크 `r`은 `r`부터 하나 걸러 인덱스를 받습니다. 모든 샘플이 한 번씩, 겹침 없이 나뉩니다.
# - `[[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3, 4, 5, 6, 7]]`: 모든 랭크가 전체 데이터를 본다는 뜻인데, 데이터를 나누는 것이 샘플러의 일입니다.

# %% tags=["claim-F11"]
data = range(8)
shares = [list(DistributedSampler(data, num_replicas=2, rank=r, shuffle=False)) for r in range(2)]
print(shares)
assert sorted(shares[0] + shares[1]) == list(data)  # 모든 샘플이 한 번씩, 겹치지 않게
assert not set(shares[0]) & set(shares[1])

# %% [markdown]
# ## 정리
#
# - 인덱스를 명시하지 않은 코드(`"cuda"`, `.cuda()`)는 현재 디바이스를 씁니다. 현재 디바이스는 `torch.cuda.set_device(i)`나 `with torch.cuda.device(i):`로 고릅니다.
# - `CUDA_VISIBLE_DEVICES`(`nvidia-smi`와 같은 번호를 쓰려면 `CUDA_DEVICE_ORDER=PCI_BUS_ID`도)는 CUDA가 초기화되기 전, 가능하면 Python을 시작하기 전에 설정합니다.
# - `nn.DataParallel`은 디바이스 ID가 정확히 하나일 때(`len(device_ids) == 1`)만 모델을 옮기며, `state_dict` 키 이름을 `module.*`로 바꿉니다.
# - 여러 GPU에는 `DistributedDataParallel`을 쓰십시오. 파라미터와 버퍼는 DDP가 맞춰 주고, 데이터 분할은 `DistributedSampler`가 맡습니다. `gloo`를 쓰면 CPU에서도 실행하고 테스트할 수 있습니다.
