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
# # 디바이스 불일치 오류 읽는 법
#
# 이 페이지는 디바이스 불일치로 나는 오류 메시지를 하나씩 살펴봅니다. 섹션 제목은 오류 메시지 그대로이고, 흔한 원인은 그 아래 소제목으로 나눴습니다. 오류는 아니지만 GPU의 값을 읽을 때 생기는 대기와, 손실을 더해 갈 때 늘어나는 메모리 사용량도 NumPy 변환 섹션에서 함께 다룹니다. 트레이스백에 나온 문구로 페이지를 검색하면 해당 섹션을 찾을 수 있습니다.
#
# 섹션마다 메시지의 뜻과 그 오류를 일으키는 전형적인 코드를 보여 주고, 바로 다음 셀에서 해결 방법을 실행합니다.
#
# 체크포인트 불러오기, 머신 구성, 워커 프로세스, GPU 메모리와 관련된 오류는 [불러오기·환경·메모리 오류 읽는 법](09-setup-and-memory-errors.ipynb) 페이지를 보세요.
#
# GPU가 없으면 비슷한 오류 두 가지로 대신 보여 줍니다. 하나는 `meta` 텐서를 섞어 일으킨 디바이스 불일치이고, 다른 하나는 dtype 불일치입니다. `meta` 텐서는 모양(shape)과 dtype만 있고 데이터는 없는 텐서입니다. GPU에서 나오는 메시지는 섹션마다 적어 두었습니다.
#
# GPU에서만 일으킬 수 있는 오류는 GPU 검증이 들어 있는 셀에서 다룹니다. GPU가 없으면 이 셀들은 GPU 부분을 건너뛰고 충족되지 않은 조건(예: `torch.cuda.is_available()=False`)을 출력합니다. 해당 오류의 메시지는 PyTorch 소스에 적힌 그대로 본문에 옮기고, 어느 버전의 메시지인지도 밝혀 둡니다.

# %% [markdown] tags=["summary"]
# **요약**
#
# - 디바이스 오류는 대부분 서로 다른 디바이스에 있는 텐서가 한 연산에 함께 들어갈 때 납니다. 모델, 손실 함수, 입력을 모두 한 디바이스에 두세요. 텐서의 `.to()`는 새 텐서를 돌려주므로 `x = x.to(device)`처럼 결과를 다시 대입해야 합니다.
# - 페이지 끝의 표에 메시지별로 흔한 원인과 해결 방법을 정리했습니다.
#
# ```python
# model.to(device)
# loss_fn.to(device)
# x, y = x.to(device), y.to(device)
# ```

# %% tags=["setup"]
import contextlib
import importlib.util
import inspect
import sys
import types

import torch
from torch import nn

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
print(f"{torch.__version__=}, {device=}, {torch.backends.cuda.is_built()=}")

# %% [markdown]
# ## Expected all tensors to be on the same device
#
# "모든 텐서가 같은 디바이스에 있어야 한다"는 뜻의 오류입니다.
#
# 연산 하나에 서로 다른 두 디바이스(대개 CUDA GPU와 CPU)의 텐서가 함께 들어왔을 때 납니다. 메시지의 나머지 부분은 버전에 따라 바뀌어 왔고, 연산에 따라서도 다릅니다. PyTorch 2.8부터는 GPU에 있는 선형 계층에 CPU 배치를 넣으면 아래 메시지가 나옵니다.
#
# ```
# Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)
# ```
#
# 이 메시지는 "모든 텐서가 같은 디바이스에 있어야 하는데, `mat1`이 `cpu`에 있어 다른 텐서들의 디바이스 `cuda:0`과 다르다"는 뜻입니다. 여기서 `mat1`은 메시지 끝에 나오는 `addmm` 연산의 첫 번째 행렬 인자로, 이 예에서는 입력 배치입니다. `+` 같은 요소별 연산에서는 지금도 아래 메시지가 나옵니다.
#
# ```
# Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# ```
#
# 뒷부분은 "디바이스를 적어도 두 개(`cuda:0`과 `cpu`) 발견했다"라는 내용입니다.
#
# 로그에서 찾을 때는 두 메시지에 공통된 앞부분을 검색어로 쓰세요.
#
# 메시지가 지목한 텐서가 잘못 놓인 텐서라는 보장은 없습니다. **모델**을 CPU에 그대로 두었다면, 메시지는 오히려 제대로 GPU에 올린 입력을 지목합니다. 모델과 입력을 모두 같은 디바이스에 두세요. 입력은 `x = x.to(device)`처럼 `to`가 돌려준 텐서를 변수에 다시 대입해야 합니다.
#
# 아래 셀들은 어느 머신에서나 실행되며, 대상 디바이스 `target`을 씁니다.
#
# - GPU가 있으면 `target`은 GPU이고, 셀은 실제 CUDA 메시지가 나오는지 검증합니다.
# - GPU가 없으면 `target`은 `meta`입니다. 이 셀들이 쓰는 연산(선형 계층, `+`, 손실 함수)은 `meta` 텐서와 CPU 텐서가 섞이면 CUDA에서처럼 오류를 냅니다. 다만 메시지는 `Tensor on device … is not on the expected device …!`("텐서가 있어야 할 디바이스에 있지 않다")로 다르고, 두 디바이스를 적는 순서도 연산마다 다릅니다.
#
# `meta`에서는 디바이스를 아예 검사하지 않는 연산도 있습니다. 다음 셀에서 보듯, `meta` 행렬과 CPU 행렬을 `torch.mm`으로 곱하면 오류 없이 `meta` 텐서가 나옵니다. 그래서 이 방법으로 재현할 수 있는 불일치는 일부 연산에 한정됩니다.
#
# 또 `meta`로는 텐서가 어느 디바이스에 놓이는지만 확인할 수 있고, 속도나 메모리 사용량은 알 수 없습니다.

# %% tags=["gpu-only"]
SAME_DEVICE = "Expected all tensors to be on the same device"
target = device if device.type == "cuda" else torch.device("meta")
if target.type == "cuda":
    MISMATCH = SAME_DEVICE
else:
    MISMATCH = "is not on the expected device"
print(f"{target=}")

layer = nn.Linear(3, 2).to(target)
with expect_error(RuntimeError, MISMATCH):
    layer(torch.randn(4, 3))
y = layer(torch.randn(4, 3, device=target))
print(f"{y.device=}")
assert y.device.type == target.type

# torch.mm은 meta 텐서가 섞여도 디바이스를 검사하지 않는다
unchecked = torch.mm(torch.ones(2, 2, device="meta"), torch.ones(2, 2))
print(f"{unchecked.device=}")
assert unchecked.device.type == "meta"

# %% [markdown]
# ### 순전파 중에 만든 텐서
#
# 가장 흔한 원인은 `forward` 메서드나 손실 함수 안에서 디바이스를 지정하지 않고 만든 텐서입니다. `torch.zeros(n)`이나 `torch.tensor(values)` 같은 팩토리 함수는 모델과 입력이 어디에 있든 텐서를 CPU(또는 기본 디바이스)에 만듭니다. 이런 텐서는 `forward`를 호출할 때마다 새로 만들어지므로, 모델을 옮겨도 문제가 해결되지 않습니다.

# %% tags=["gpu-only"]
class Shifted(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 2)

    def forward(self, x):
        shift = torch.tensor([1.0, -1.0])  # 호출할 때마다 CPU에 만들어진다
        return self.linear(x) + shift


model = Shifted().to(target)
x = torch.randn(4, 3, device=target)
with expect_error(RuntimeError, MISMATCH):
    model(x)

# %% [markdown]
# 해결하려면 텐서를 입력과 같은 디바이스에 만들면 됩니다. 방법은 세 가지입니다.
#
# - 팩토리 함수에 `device=x.device`를 넘깁니다.
# - `x.new_zeros(...)`를 씁니다(`new_ones`, `new_full`, `new_tensor`도 있습니다). 이렇게 만든 텐서는 `x`의 디바이스와 dtype을 그대로 따릅니다.
# - 같은 모양의 텐서라면 `torch.zeros_like(x)`를 씁니다.
#
# 모델에 속한 상수는 버퍼로 등록하는 편이 낫습니다. 그러면 `model.to()`가 버퍼도 함께 옮겨 줍니다([모델 옮기기](03-moving-models.ipynb) 참고).

# %%
class ShiftedFixed(Shifted):
    def forward(self, x):
        shift = torch.tensor([1.0, -1.0], device=x.device)
        bias = x.new_zeros(x.shape[0], 2)
        noise = torch.zeros_like(x)
        for t in (shift, bias, noise):
            assert t.device == x.device
        assert bias.dtype == x.dtype
        return self.linear(x + noise) + shift + bias


model = ShiftedFixed().to(target)
y = model(x)
print(f"{y.device=}, {y.shape=}")
assert y.device.type == target.type

# %% [markdown]
# 요소별 연산(`+`, `*`, 비교 등)에는 예외가 하나 있습니다. 0차원 텐서(`torch.tensor(2.0)`처럼 차원이 없는 스칼라 텐서)는 CPU에 있어도 됩니다. PyTorch는 이런 텐서를 Python 숫자처럼 다룹니다. 요소별 연산이 아니면 대개 이 예외가 적용되지 않습니다. 예를 들어 GPU에 있는 `a`, `b`로 `torch.addmm(torch.tensor(1.0), a, b)`를 호출하면 디바이스 검사에서 실패합니다.
#
# 다음 셀의 요소별 연산 예는 어느 머신에서나 실행되고, `addmm` 예는 GPU가 있을 때만 검증합니다.

# %% tags=["gpu-only"]
scaled = x * torch.tensor(2.0)  # 요소별 연산: 0차원 CPU 텐서는 허용된다
print(f"{scaled.device=}")
assert scaled.device.type == target.type
if torch.cuda.is_available():
    a = torch.randn(2, 2, device="cuda")
    # addmm은 요소별 연산이 아니므로 0차원 예외가 없다
    with expect_error(RuntimeError, SAME_DEVICE):
        torch.addmm(torch.tensor(1.0), a, a)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ### 일반 리스트나 딕셔너리에 넣은 하위 모듈
#
# 모델에 따라서는 계층을 Python 리스트나 딕셔너리에 담아 두기도 합니다. 다음 셀에서는 두 모델을 만들어 둘 다 `target`으로 옮깁니다. `PlainContainers`는 계층을 일반 리스트·딕셔너리에, `RegisteredContainers`는 같은 구성의 계층을 `nn.ModuleList`·`nn.ModuleDict`에 넣습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `PlainContainers`의 리스트에는 `Linear(3, 3)` 두 개가, 딕셔너리에는 `Linear(3, 1)`이 들어 있습니다. 계층마다 가중치와 편향이 있습니다. `plain.parameters()`가 나열하는 매개변수는 몇 개일까요?
#
# - `len(list(plain.parameters()))=6`
# - `len(list(plain.parameters()))=4`
# - `len(list(plain.parameters()))=0`
# - `len(list(plain.parameters()))=2`

# %%
class PlainContainers(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = [nn.Linear(3, 3), nn.Linear(3, 3)]
        self.heads = {"score": nn.Linear(3, 1)}


class RegisteredContainers(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 3)])
        self.heads = nn.ModuleDict({"score": nn.Linear(3, 1)})


plain = PlainContainers().to(target)
registered = RegisteredContainers().to(target)
print(f"{len(list(plain.parameters()))=}")
print(f"{len(list(registered.parameters()))=}")

# %% tags=["answer"]
print(f"{plain.blocks[0].weight.device=}")
print(f"{registered.blocks[0].weight.device=}")
assert list(plain.parameters()) == []
assert len(list(registered.parameters())) == 6
assert dict(plain.named_children()) == {}  # 아무것도 등록되지 않았다
assert set(dict(registered.named_children())) == {"blocks", "heads"}
assert plain.blocks[0].weight.device.type == "cpu"
assert plain.heads["score"].weight.device.type == "cpu"
assert registered.blocks[0].weight.device.type == target.type
assert registered.heads["score"].weight.device.type == target.type

# %% [markdown] tags=["answer"]
# **정답:** `len(list(plain.parameters()))=0`입니다. 모듈의 속성에 값을 대입하면 `nn.Module.__setattr__`가 그 값이 모듈인지 보고, 모듈이면 그 순간 하위 모듈로 등록합니다. 리스트와 딕셔너리는 모듈이 아니므로 세 계층 중 어느 것도 등록되지 않았고, `parameters()`와 `to()`는 일반 컨테이너 안을 들여다보지 않습니다.
#
# - `6`은 `RegisteredContainers`의 매개변수 개수입니다. 이 답을 골랐다면 일반 컨테이너 안의 계층도 등록된다고 생각했을 겁니다. `nn.ModuleList`와 `nn.ModuleDict`는 그 자체가 모듈이어서 담긴 계층을 등록하지만, 리스트와 딕셔너리는 그렇지 않습니다.
# - `4`는 리스트 안의 두 계층(계층마다 가중치와 편향 하나씩)만 등록된다고 본 답입니다. Python 리스트에 담긴 모듈은 등록되지 않습니다.
# - `2`를 골랐다면 딕셔너리 안의 계층 하나(가중치와 편향)만 센 것입니다. 딕셔너리도 리스트처럼 안의 계층을 등록하지 않습니다.
#
# 위 셀의 `assert` 문은 `to(target)`이 일반 컨테이너의 계층을 CPU에 남겨 두었다는 것도 검증합니다. GPU에서 학습하면 이 계층들을 지나는 첫 순전파에서 바로 디바이스 불일치 오류가 납니다.

# %% [markdown]
# 이 예처럼 모든 계층을 일반 컨테이너에 넣은 모델로 옵티마이저를 만들면, 넘길 매개변수가 하나도 없어 `ValueError`가 납니다. 일부 계층만 일반 컨테이너에 있다면 옵티마이저는 오류 없이 만들어지고 그 계층들만 조용히 학습에서 빠지므로, 문제를 찾기가 더 어렵습니다. 다음 셀의 `optimizer got an empty parameter list`는 "옵티마이저에 넘긴 매개변수 목록이 비어 있다"는 뜻입니다.

# %%
with expect_error(ValueError, "empty parameter list"):
    torch.optim.SGD(plain.parameters(), lr=0.1)
optimizer = torch.optim.SGD(registered.parameters(), lr=0.1)
assert len(optimizer.param_groups[0]["params"]) == 6

# %% [markdown]
# ### 가중치 텐서를 받는 손실 함수
#
# `nn.CrossEntropyLoss(weight=...)`나 `nn.BCEWithLogitsLoss(pos_weight=...)`처럼 텐서를 인자로 받아 만든 손실 함수는 그 텐서를 버퍼로 등록해 둡니다. 이런 손실 함수를 CPU에서 만들어 놓고 GPU 텐서를 넣어 호출하면, 그 순간 버퍼와 입력의 디바이스가 섞입니다. 손실 함수도 모듈이므로 모델처럼 옮기세요.

# %% tags=["gpu-only"]
class_weights = torch.tensor([1.0, 3.0])
loss_fn = nn.CrossEntropyLoss(weight=class_weights)
print(f"{list(dict(loss_fn.named_buffers()))=}")
bce = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))
assert "pos_weight" in dict(bce.named_buffers())

logits = torch.randn(4, 2, device=target)
labels = torch.tensor([0, 1, 1, 0], device=target)
with expect_error(RuntimeError, MISMATCH):
    loss_fn(logits, labels)

loss_fn.to(target)
loss = loss_fn(logits, labels)
print(f"{loss_fn.weight.device=}, {class_weights.device=}, {loss.device=}")
assert loss_fn.weight.device.type == target.type
assert class_weights.device.type == "cpu"  # 넘긴 텐서는 원래 자리에 남는다
assert loss.device.type == target.type

# %% [markdown]
# ### 중첩된 배치 옮기기
#
# 배치는 텐서를 담은 딕셔너리나 튜플인 경우가 많습니다. 이런 컨테이너에는 `.to()` 메서드가 없어서, 다음 셀처럼 딕셔너리에서 이 메서드를 호출하면 `'dict' object has no attribute 'to'`("dict 객체에 `to` 속성이 없다")라는 오류가 납니다. 텐서마다 `.to()`를 호출하고, 돌려받은 새 텐서로 컨테이너를 다시 만들어야 합니다. 짧은 재귀 함수 하나로 딕셔너리·리스트·튜플을 처리하고, 그 밖의 값(문자열, 숫자)은 그대로 두면 됩니다.

# %%
batch = {
    "image": torch.randn(2, 3),
    "label": torch.tensor([0, 1]),
    "extra": ("id-7", [torch.arange(2)]),
}
with expect_error(AttributeError, "has no attribute 'to'"):
    batch.to(target)


def to_device(obj, device):
    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, dict):
        return {key: to_device(value, device) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(value, device) for value in obj)
    return obj


moved = to_device(batch, target)
print(f"{moved['image'].device=}, {moved['extra'][0]=}")
print(f"{moved['extra'][1][0].device=}")
assert moved["image"].device.type == moved["label"].device.type == target.type
assert moved["extra"][1][0].device.type == target.type
assert moved["extra"][0] == "id-7" and isinstance(moved["extra"], tuple)
assert batch["image"].device.type == "cpu"  # 원래 배치는 그대로다

# %% [markdown]
# ## can't convert cuda:0 device type tensor to numpy
#
# "`cuda:0` 디바이스의 텐서는 NumPy로 변환할 수 없다"는 뜻의 오류입니다.
#
# NumPy 배열은 CPU 메모리에 있으므로 `t.numpy()`는 CPU 텐서에만 쓸 수 있습니다. CUDA 텐서에서 호출하면 아무것도 복사하지 않고 이 `TypeError`를 냅니다. 메시지 뒤에는 `Use Tensor.cpu() to copy the tensor to host memory first.`("먼저 `Tensor.cpu()`로 호스트 메모리에 복사하라")라는 안내가 붙습니다. 또 CPU 텐서라도 변화도(gradient)를 추적하고 있으면 `numpy()`를 쓸 수 없습니다.
#
# 흔히 쓰는 해결 방법은 `t.detach().cpu().numpy()`입니다. `detach()`는 연산 그래프에서 떼어 낸 텐서를 돌려주고, `cpu()`는 데이터를 CPU로 복사합니다(이미 CPU에 있는 텐서는 복사하지 않고 그대로 돌려줍니다). `t.numpy(force=True)`는 이 과정을 한 번에 처리합니다. 켤레 비트가 켜진 복소수 텐서(`conj()`의 결과)는 그냥 `numpy()`로는 변환되지 않지만, `force=True`를 주면 켤레 연산을 실제로 적용한 뒤 변환해 줍니다.
#
# 다만 `bfloat16` 텐서는 두 방법 모두 `TypeError: Got unsupported ScalarType BFloat16`으로 실패합니다. NumPy에 이 dtype이 없기 때문입니다. `t.detach().cpu().float().numpy()`처럼 먼저 float32로 바꾼 뒤 변환하세요.
#
# 다음 셀은 GPU 없이도 실행되며, `cuda:0` 메시지 자체는 GPU가 있을 때만 검증합니다. 변화도를 추적하는 텐서에 대한 검사(`requires grad` 오류)는 CPU 텐서에서도 일어나므로 그대로 보여 줍니다. 디바이스 검사 코드는 디바이스 종류와 상관없이 같아서, `meta` 텐서로 호출하면 메시지의 `cuda:0` 자리에 `meta`가 들어간 같은 문장이 나옵니다.
#
# 출력에 나오는 영어 메시지의 뜻은 다음과 같습니다.
#
# - `Can't call numpy() on Tensor that requires grad`: 변화도를 추적하는 텐서에는 `numpy()`를 호출할 수 없다(뒤에 `tensor.detach().numpy()`를 쓰라는 안내가 붙습니다).
# - `can't convert meta device type tensor to numpy`: `meta` 디바이스의 텐서는 NumPy로 변환할 수 없다.
# - `Can't call numpy() on Tensor that has conjugate bit set`: 켤레 비트가 켜진 텐서에는 `numpy()`를 호출할 수 없다(뒤에 `tensor.resolve_conj().numpy()`를 쓰라는 안내가 붙습니다).
# - `Got unsupported ScalarType BFloat16`: BFloat16 타입은 지원하지 않는다.
#
# 다음 셀에는 NumPy가 필요합니다. PyTorch를 설치해도 NumPy가 함께 설치되지는 않으므로, NumPy가 없으면 셀은 `HAS_NUMPY=False`만 출력하고 넘어갑니다.

# %% tags=["gpu-only"]
HAS_NUMPY = importlib.util.find_spec("numpy") is not None
if HAS_NUMPY:
    w = torch.ones(3, requires_grad=True)
    with expect_error(RuntimeError, "requires grad"):
        w.numpy()
    with expect_error(TypeError, "can't convert meta device type"):
        torch.ones(3, device="meta").numpy()
    if torch.cuda.is_available():
        with expect_error(TypeError, "can't convert cuda:0 device type"):
            w.detach().to("cuda:0").numpy()
    array = w.to(device).detach().cpu().numpy()
    print(f"{type(array).__name__=}, {array.tolist()=}")
    assert array.tolist() == [1.0, 1.0, 1.0]
    assert w.to(device).numpy(force=True).tolist() == [1.0, 1.0, 1.0]
    conjugated = torch.tensor([1 + 2j]).conj()
    with expect_error(RuntimeError, "conjugate bit"):
        conjugated.numpy()
    assert conjugated.numpy(force=True).tolist() == [1 - 2j]

    bf16 = torch.ones(3, dtype=torch.bfloat16, device=device)
    with expect_error(TypeError, "Got unsupported ScalarType BFloat16"):
        bf16.detach().cpu().numpy()
    with expect_error(TypeError, "Got unsupported ScalarType BFloat16"):
        bf16.numpy(force=True)
    assert bf16.detach().cpu().float().numpy().tolist() == [1.0, 1.0, 1.0]
else:
    print(f"{HAS_NUMPY=}")

# %% [markdown]
# ### 값을 읽으면 CPU가 GPU를 기다린다
#
# CUDA 텐서에 `.item()`이나 `.tolist()`를 호출하거나 `print(t)`로 출력하면 데이터가 CPU로 복사됩니다(`.numpy()`는 앞에서 본 것처럼 복사하지 않고 오류를 냅니다). 스트림은 GPU 작업이 순서대로 쌓이는 대기열이며, 이 복사도 스트림에서 실행됩니다. 그래서 복사는 현재 스트림에 먼저 쌓인 작업이 모두 끝난 뒤에야 시작되고, CPU는 그 복사가 끝날 때까지 기다립니다. 이때 다른 스트림의 작업까지 기다리지는 않습니다. 디바이스 전체의 작업을 기다리려면 `torch.cuda.synchronize()`를 씁니다.
#
# 기다리는 동안 CPU는 다음 작업을 스트림에 넣지 못하므로, 스트림이 비면 GPU는 다음 단계의 작업이 올 때까지 쉬게 됩니다. 한 단계에 한 번 호출하는 `.item()`도 단계마다 이런 빈틈을 만들고, 루프 안에서 요소마다 호출하면 빈틈이 요소 수만큼 생깁니다.
#
# 학습 루프에서는 평균 손실을 출력하려고 손실을 더해 가는 일이 흔합니다. 다음 셀은 세 단계 동안 손실을 두 가지 방법으로 더합니다. 하나는 `total_tensor += loss`, 다른 하나는 `total_float += loss.item()`입니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `total_tensor`는 Python float `0.0`에서 시작합니다. 세 단계 동안 `total_tensor += loss`를 실행하고 나면 그 타입(`kind`)은 무엇일까요? 또 autograd의 연산 그래프가 달려 있을까요? `tracked`는 `grad_fn`이 있는지를 나타냅니다.
#
# - `kind='float', tracked=False`
# - `kind='Tensor', tracked=True`
# - `kind='Tensor', tracked=False`

# %%
model = nn.Linear(3, 1).to(device)
total_tensor = 0.0
total_float = 0.0
for _ in range(3):
    loss = model(torch.randn(8, 3, device=device)).pow(2).mean()
    total_tensor += loss
    total_float += loss.item()

kind = type(total_tensor).__name__
tracked = getattr(total_tensor, "grad_fn", None) is not None
print(f"{kind=}, {tracked=}")

# %% tags=["answer"]
print(f"{type(total_float).__name__=}, {total_tensor.device=}")
assert isinstance(total_tensor, torch.Tensor)
assert total_tensor.grad_fn is not None
assert total_tensor.device.type == device.type
assert isinstance(total_float, float)
assert abs(total_tensor.item() - total_float) < 1e-4
running = torch.zeros((), device=device) + loss.detach()
assert running.grad_fn is None and running.device.type == device.type


def graph_nodes(node):
    # `node`에서 next_functions를 따라 닿는 노드의 종류
    kinds, todo = [], [node]
    while todo:
        node = todo.pop()
        kinds.append(type(node).__name__)
        todo += [n for n, _ in node.next_functions if n is not None]
    return kinds


steps = graph_nodes(total_tensor.grad_fn).count("MeanBackward0")
print(f"{steps=}")
assert steps == 3  # 각 단계의 그래프가 합계에 매달려 있다

# %% [markdown] tags=["answer"]
# **정답:** `kind='Tensor', tracked=True`입니다. Python 숫자와 텐서를 더하면 결과는 텐서이고, 더한 텐서와 같은 디바이스에 놓입니다. 따라서 첫 단계의 `0.0 + loss`부터 합계는 이미 텐서입니다.
#
# `loss`는 변화도를 추적하는 텐서이므로, 단계마다 실행하는 `+=`는 모두 autograd가 기록하는 텐서 연산입니다. 그래서 합계는 모든 단계의 연산 그래프를 참조하고, 합계가 살아 있는 동안 어느 그래프도 해제되지 않습니다. 위 셀의 검증에서도 세 단계의 그래프를 모두 찾았습니다.
#
# `backward()`를 호출하지 않는 코드(위 셀이나 `no_grad` 없이 도는 평가 루프 등)에서는 그래프가 계속 쌓이는 것이 문제가 됩니다. 합계가 각 단계의 그래프와, 그 그래프가 역전파를 위해 저장해 둔 텐서를 모두 붙잡고 있어서 메모리 사용량이 단계마다 늘어납니다.
#
# - `kind='Tensor', tracked=False`를 골랐다면 합계가 텐서이긴 해도 `+=`는 기록되지 않는다고 생각했을 겁니다. 합계에 연산 그래프가 달리지 않게 하려면 `loss.detach()`를 더해야 합니다.
# - `kind='float', tracked=False`를 예상했다면 Python 숫자 `0.0`에서 시작했으니 합계도 숫자로 남는다고 여긴 것입니다. 숫자와 텐서를 더하는 순간 결과는 텐서가 됩니다. 합계가 `float`로 남는 것은 `total_float`처럼 `loss.item()`을 더할 때뿐입니다.
#
# 보통은 `loss.detach()`를 손실과 같은 디바이스에 둔 합계에 더해 두고(`running += loss.detach()`), N 단계마다 `running.item()`으로 읽습니다. 그러면 CPU가 기다리는 것도 N 단계에 한 번뿐입니다.
#
# 이 합계가 연산 그래프 없이 `device`에 놓인 텐서로 남는다는 점은 CPU에서도 검증할 수 있습니다. 하지만 시간이 얼마나 줄어드는지는 알 수 없습니다. CPU에서는 연산이 반환될 때 계산이 이미 끝나 있어서 GPU처럼 작업이 스트림에 쌓이지 않기 때문입니다.

# %% [markdown]
# GPU가 있으면 `.item()`이 스트림의 작업을 기다리는지 다음 셀에서 검증합니다. 행렬 곱을 스트림에 쌓고 `.item()`으로 값 하나를 읽은 뒤, 현재 CUDA 스트림의 `query()`로 쌓인 작업이 모두 끝났는지 확인합니다. `.item()`이 기다리므로 이때는 모두 끝나 있어야 합니다.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    stream = torch.cuda.current_stream()
    big = torch.randn(4096, 4096, device="cuda")
    out = torch.empty_like(big)
    for _ in range(2):  # 첫 번째 회차는 워밍업일 뿐이다
        for _ in range(10):
            torch.mm(big, big, out=out)
        value = out[0, 0].item()
        idle = stream.query()
    print(f"{idle=}")
    assert idle
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same
#
# "입력 타입과 가중치 타입이 같아야 한다"는 뜻의 오류입니다.
#
# 합성곱 계층은 입력의 **타입**이 가중치와 편향의 타입과 같은지 검사하기도 합니다. 여기서 타입은 디바이스와 dtype을 합친 것으로, `torch.FloatTensor`는 CPU의 float32, `torch.cuda.FloatTensor`는 CUDA GPU의 float32입니다. 따라서 이 메시지는 CPU 입력이 GPU에 있는 합성곱에 들어갔다는 뜻입니다. 해결 방법은 다른 디바이스 불일치와 같습니다. `x = x.to(device)`처럼 입력을 모델과 같은 디바이스에 두세요.
#
# 같은 실수라도 합성곱에서는 나오는 메시지가 한 가지가 아닙니다. 어느 것이 나올지는 PyTorch가 어떤 구현으로 합성곱을 실행하느냐에 달려 있으며, 아래에서는 이 구현을 '경로'라고 부릅니다. PyTorch는 입력을 보고 경로를 고릅니다(`Convolution.cpp`의 `_select_conv_backend`).
#
# - oneDNN은 Intel이 만든 CPU용 딥러닝 라이브러리로, 예전 이름은 MKLDNN입니다. oneDNN이 포함된 빌드에서는 CPU의 float32 입력(이미지 여러 장의 배치 등)을 대부분 oneDNN이 처리합니다. 포함 여부는 `torch.backends.mkldnn.is_available()`로 확인할 수 있습니다.
#
#   이 경로에서는 oneDNN이 타입을 검사합니다. 이때 메시지는 `... should be the same or input should be a MKLDNN tensor and weight is a dense tensor`로 끝납니다. 이 섹션 제목의 메시지 뒤에 "또는 입력이 MKLDNN 텐서이고 가중치가 밀집 텐서여야 한다"가 덧붙은 것입니다.
# - 작은 이미지 한 장은 PyTorch 자체의 범용 합성곱 경로(`slow_conv2d`)를 탑니다. 이 경로로 가려면 입력의 요소 수가 20,480개 이하이고, 필터(합성곱 커널)의 가로나 세로 중 한쪽이 3 이하이며, `groups=1`이어야 합니다.
#
#   이 경로는 타입을 직접 검사하지 않습니다. 하지만 실제 계산 코드를 실행하기 전에, PyTorch가 자동으로 만든 래퍼 함수(`wrapper_CUDA___slow_conv2d_forward`)가 디바이스를 검사합니다. 그래서 이 페이지의 첫 섹션과 같은 메시지가 나오고, 뒷부분은 "`weight`가 `cuda:0`에 있어 다른 텐서들의 디바이스 `cpu`와 다르다"라는 내용입니다.
#
#   ```
#   Expected all tensors to be on the same device, but got weight is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA___slow_conv2d_forward)
#   ```
#
#   PyTorch 2.8 이전에는 같은 검사의 메시지가 다음과 같았습니다.
#
#   ```
#   Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument weight in method wrapper_CUDA___slow_conv2d_forward)
#   ```
#
#   첫 섹션에서 본 두 번째 메시지와 같은 형식이고, 끝에 인자 이름 `weight`가 붙습니다.
#
# - 반대로 CPU에 남겨 둔 합성곱에 GPU 입력을 넣으면 cuDNN(NVIDIA가 만든 GPU용 딥러닝 라이브러리) 경로가 선택되고, `Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same`이라는 메시지가 나옵니다.
#
# 이 메시지들은 PyTorch 소스에서 그대로 옮긴 것입니다. 위에서 든 입력에 대해서는 PyTorch 2.6과 2.13이 같은 경로를 고릅니다. GPU가 있으면 이 섹션의 마지막 셀에서 세 메시지를 모두 검증합니다.
#
# dtype 불일치는 GPU가 없어도 일으킬 수 있고, 경로 선택의 영향을 똑같이 받습니다. float64로 바꾼 합성곱에 float32 이미지를 넣으면, 경로를 고르기도 전에 편향 검사에서 실패합니다. 메시지는 `Input type (float) and bias type (double) should be the same`입니다. "입력 타입(float)과 편향 타입(double)이 같아야 한다"는 뜻으로, 이번에는 텐서 타입 대신 dtype 이름이 나옵니다.
#
# 편향이 없으면 작은 이미지 한 장은 범용 경로에서 처리되고, 그 경로의 계산 코드가 `expected scalar type Float but found Double`("Float 타입이어야 하는데 Double 타입을 받았다")라고 알립니다.

# %%
conv = nn.Conv2d(1, 2, 3).double()
image = torch.randn(1, 1, 5, 5)
with expect_error(RuntimeError, "Input type (float) and bias type (double)"):
    conv(image)
no_bias = nn.Conv2d(1, 2, 3, bias=False).double()
with expect_error(RuntimeError, "expected scalar type Float but found Double"):
    no_bias(image)

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 같은 float64 합성곱(편향 없음)에 이번에는 float32 이미지 여덟 장의 배치를 넣습니다. 다음 셀을 실행하는 머신에서는 어떤 메시지가 나올까요?
#
# - `expected scalar type Float but found Double`
# - `bias type (double)`
# - `weight type (torch.DoubleTensor)`

# %%
images = torch.randn(8, 1, 5, 5)
with expect_error(Exception) as caught:
    no_bias(images)

# %% tags=["answer"]
mkldnn = torch.backends.mkldnn
onednn = mkldnn.is_available() and mkldnn.enabled
print(f"{onednn=}")
assert type(caught.error) is RuntimeError
if onednn:
    assert "weight type (torch.DoubleTensor)" in str(caught.error)
else:
    assert "expected scalar type Float" in str(caught.error)

# %% [markdown] tags=["answer"]
# **정답:** oneDNN이 있는 빌드(위 출력의 `onednn=True`)에서는 `weight type (torch.DoubleTensor)`가 나옵니다. 여덟 장의 배치는 oneDNN이 처리하며, 이 경로에서는 텐서 타입(여기서는 CPU의 float32와 CPU의 float64)을 서로 비교합니다.
#
# - `expected scalar type Float but found Double`은 oneDNN이 없는 빌드에서 나오는 메시지입니다. 그런 빌드에서는 배치도 범용 경로로 갑니다.
# - 이 합성곱에는 편향이 없으므로 `bias type (double)`은 나올 수 없습니다.
#
# 앞에서 본 GPU 합성곱의 메시지가 여러 가지인 것도 같은 이유입니다.
#
# `to`에 텐서를 넘기면 디바이스와 dtype을 그 텐서에 맞춘 텐서를 돌려줍니다. 그래서 `x.to(conv.weight)` 하나로 dtype 불일치와 디바이스 불일치를 한꺼번에 해결할 수 있습니다.

# %%
image = image.to(conv.weight)
out = conv(image)
print(f"{image.dtype=}, {out.dtype=}")
assert image.dtype == out.dtype == torch.float64

# %% [markdown]
# GPU가 있으면 다음 셀은 GPU에 있는 합성곱에 CPU 배치를, 이어서 작은 CPU 이미지 한 장을 넣고, 각 경로가 내는 메시지를 검증합니다. 그다음 CPU에 있는 합성곱에 GPU 배치를 넣습니다.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    conv = nn.Conv2d(3, 8, 3).to(device)
    mkldnn = torch.backends.mkldnn
    onednn = mkldnn.is_available() and mkldnn.enabled
    # CPU 배치: oneDNN이 타입을 검사한다
    # (oneDNN이 없으면 계산 코드보다 먼저 래퍼가 디바이스를 검사한다)
    cpu_input = "weight type (torch.cuda.FloatTensor)"
    with expect_error(RuntimeError, cpu_input if onednn else SAME_DEVICE):
        conv(torch.randn(8, 3, 32, 32))
    # 작은 CPU 이미지 한 장: 범용 경로. 계산 코드보다 먼저 래퍼가 검사한다
    with expect_error(RuntimeError, SAME_DEVICE) as caught:
        conv(torch.randn(1, 3, 5, 5))
    assert "slow_conv2d_forward" in str(caught.error)
    # CPU에 있는 합성곱에 GPU 배치: cuDNN이 타입을 검사한다
    cudnn = torch.backends.cudnn
    gpu_input = "Input type (torch.cuda.FloatTensor)"
    uses_cudnn = cudnn.is_available() and cudnn.enabled
    with expect_error(RuntimeError, gpu_input if uses_cudnn else SAME_DEVICE):
        nn.Conv2d(3, 8, 3)(torch.randn(8, 3, 32, 32, device=device))

    out = conv(torch.randn(8, 3, 32, 32).to(device))
    assert out.device == conv.weight.device
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on device: cpu
#
# "모듈의 매개변수와 버퍼는 `cuda:0`(`device_ids[0]`)에 있어야 하는데, 그중 하나가 `cpu`에 있다"는 뜻의 오류입니다.
#
# `nn.DataParallel`은 GPU가 두 개 이상인 머신에서, 감싼 모델이 `device_ids`의 첫 GPU에 없을 때 이 오류를 냅니다. `device_ids`에 GPU가 두 개 이상이면(기본값은 머신의 모든 GPU) `DataParallel`은 모델을 옮기지 않고, `forward` 메서드 안에서 매개변수와 버퍼가 모두 첫 GPU에 있는지 검사만 합니다. `device_ids`에 GPU가 하나뿐이면 모델을 그 GPU로 옮겨 주므로 오류 없이 실행됩니다. 두 경우 모두 팩트체크 페이지의 '[주장: nn.DataParallel이 모델을 GPU로 옮겨 준다](06-fact-check.ipynb#주장-nndataparallel이-모델을-gpu로-옮겨-준다)' 섹션에서 직접 검증합니다.
#
# 해결 방법은 감싸기 전에 `model.to("cuda:0")`을 호출하는 것이고, 더 나은 방법은 `DataParallel` 문서에서도 권장하는 `DistributedDataParallel`을 쓰는 것입니다. 일반 리스트에 넣은 계층([앞에서 설명한 경우](#일반-리스트나-딕셔너리에-넣은-하위-모듈))의 매개변수는 `model.to()`로도 옮겨지지 않고, 이 검사에도 걸리지 않습니다.
#
# 이 검사 코드는 `DataParallel.forward`의 Python 소스에 있으므로, GPU가 없어도 다음 셀처럼 읽어 볼 수 있습니다.

# %%
source = inspect.getsource(nn.DataParallel.forward)
print(f"{'module must have its parameters and buffers' in source=}")
assert "module must have its parameters and buffers" in source
assert "DistributedDataParallel" in nn.DataParallel.__doc__

# %% [markdown]
# GPU가 두 개 이상이면 다음 셀은 CPU에 있는 모델을 감싸 오류를 보여 준 뒤, 모델을 먼저 `cuda:0`으로 옮기고 다시 감싸서 동작하는지 검증합니다. 그보다 적으면 GPU 개수를 출력합니다.

# %% tags=["gpu-only"]
if torch.cuda.device_count() >= 2:
    dp = nn.DataParallel(nn.Linear(4, 2))
    with expect_error(RuntimeError, "parameters and buffers on device cuda:0"):
        dp(torch.randn(8, 4))
    dp = nn.DataParallel(nn.Linear(4, 2).to("cuda:0"))
    out = dp(torch.randn(8, 4))
    assert out.device == torch.device("cuda", 0)
else:
    print(f"{torch.cuda.device_count()=}")

# %% [markdown]
# ## 정리
#
# | 메시지(일부) | 흔한 원인 | 해결 방법 |
# |---|---|---|
# | `Expected all tensors to be on the same device` | 입력, `forward` 안에서 만든 텐서, 일반 리스트에 넣은 계층, 손실 함수가 CPU에 남음. GPU의 합성곱에 작은 CPU 이미지 한 장을 넣음 | 모델·손실 함수·입력을 모두 한 디바이스에 두기. `forward` 안의 텐서는 `device=x.device`, `x.new_zeros`, `zeros_like`로 만들기. 계층은 `ModuleList`·`ModuleDict`에 담기. 손실 함수는 `loss_fn.to(device)`로 옮기기 |
# | `can't convert cuda:0 device type tensor to numpy` | GPU 텐서에서 `.numpy()`를 호출함 | `t.detach().cpu().numpy()` 또는 `t.numpy(force=True)`(`bfloat16`이면 먼저 `.float()`) |
# | `Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)` | GPU의 합성곱에 CPU 배치를 넣음 | `x = x.to(device)`. dtype까지 다르면 `x.to(conv.weight)` |
# | `module must have its parameters and buffers on device cuda:0` | GPU가 두 개 이상인 머신에서 CPU에 있는 모델을 `DataParallel`로 감쌈 | 먼저 `model.to("cuda:0")` 호출하기. 또는 `DistributedDataParallel` 쓰기 |
