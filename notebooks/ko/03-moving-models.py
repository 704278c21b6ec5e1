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
# # 모델 옮기기
#
# 텐서와 모델에는 모두 `.to()` 메서드가 있지만, 둘의 동작은 다릅니다. 이 페이지에서는 `Module.to`가
# 모델과 매개변수(parameter), 버퍼를 어떻게 바꾸는지, 무엇을 옮기지 않고 남겨 두는지 살펴봅니다. 이어서
# 다음 내용을 다룹니다.
#
# - 모델이 어느 디바이스에 있는지 알아내는 방법
# - 디바이스 불일치 오류를 읽는 방법
# - 모델을 옮길 때 옵티마이저 상태가 어떻게 되는지
# - GPU에서 저장한 체크포인트를 CPU에서 불러오는 방법
#
# 이 페이지의 셀은 다음과 같이 동작합니다.
#
# - 본문에서 설명하는 PyTorch의 동작은 이 페이지의 출력을 만든 머신에서 코드 셀의 `assert`로
#   검증합니다.
# - GPU 검증이 들어 있는 셀은 먼저 GPU가 있는지 확인합니다. GPU가 없는 머신에서는
#   `torch.cuda.is_available()=False`만 출력하고 GPU 검증은 실행하지 않습니다. GPU 검증이
#   들어 있는 셀의 수는 제목 아래 줄에 나옵니다.
# - GPU에서만 나오는 오류 메시지는 PyTorch 소스에서 버전을 밝혀 인용합니다.
# - 예상한 오류는 첫 번째 셀에서 정의하는 `expect_error`가 잡아서 검증하고 출력하므로, 오류가
#   나도 노트북은 멈추지 않습니다.

# %% [markdown] tags=["summary"]
# **요약**
#
# - `model.to(device)`는 매개변수와 버퍼를 옮긴 뒤 모델 자신을 반환합니다. 다시 대입할 필요가 없습니다. 입력도 모두 같은 디바이스에 두세요.
# - 옵티마이저는 모델을 옮긴 뒤에 만드세요. GPU에서 저장한 체크포인트를 CPU에서 불러올 때는 `map_location`을 지정하세요.
#
# ```python
# model = nn.Linear(10, 1)
# model.to(device)
# x = torch.randn(8, 10).to(device)
# optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# state = torch.load(path, map_location="cpu", weights_only=True)
# ```

# %% tags=["setup"]
import contextlib
import os
import pickle
import sys
import tempfile
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
print(torch.__version__, device)

# %% [markdown]
# ## `model.to(device)`가 바꾸는 것
#
# `Tensor.to`는 원래 텐서를 바꾸지 않습니다. 변환된 텐서(변환할 것이 없으면 그 텐서 자신)를
# 반환하므로 반환값을 받아 두어야 합니다. 반면 `Module.to`는 다른 규칙을 따르며, 같은 계열인
# `.cpu()`, `.cuda()`, `.double()`도 마찬가지입니다.
#
# GPU가 없어도 이동을 확인할 수 있도록, 이 페이지에서는 `meta` 디바이스를 씁니다. `meta` 텐서에는
# 모양(shape)과 dtype만 있고 데이터는 없으며, `meta` 디바이스는 어느 머신에서나 쓸 수 있습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 다음 셀은 먼저 `model.double()`을, 그다음에 `model.to("meta")`를
# 호출합니다. 두 호출 모두 반환값을 변수에 대입하지 않습니다. `print(model.weight.device, model.weight.dtype)`는
# 무엇을 출력할까요?
#
# - `cpu torch.float32`
# - `meta torch.float32`
# - `cpu torch.float64`
# - `meta torch.float64`

# %%
model = nn.Linear(3, 2)
model.double()
model.to("meta")
print(model.weight.device, model.weight.dtype)

# %% tags=["claim-M1", "gpu-only", "answer"]
assert model.weight.device.type == "meta"
assert model.weight.dtype == torch.float64

model = nn.Linear(3, 2)
assert model.to(device) is model
assert model.cpu() is model
assert model.double() is model  # dtype 변환도 마찬가지다
if torch.cuda.is_available():
    assert model.cuda() is model
else:
    print(f"{torch.cuda.is_available()=}")

t = torch.ones(3)
t_meta = t.to("meta")
print(t.device, t_meta.device)
assert t_meta is not t
assert t.device.type == "cpu"  # 원래 텐서는 옮겨지지 않았다
assert t.to(t.device) is t  # 할 일이 없으면 같은 텐서가 돌아온다

# %% [markdown] tags=["answer"]
# **정답:** `meta torch.float64`입니다. `Module.to`는 새 모듈을 만들지 않고, 매개변수와 버퍼를
# 변환해 **모듈 자체를** 바꾼 뒤 그 모듈을 반환합니다. `.cpu()`와 `.double()`, GPU가 있을 때의
# `.cuda()`도 마찬가지입니다. 그래서 두 변환이 모두 적용됩니다. `model = model.to(device)`라고 써도
# 문제는 없지만, 다시 대입할 필요는 없습니다.
#
# - `cpu torch.float32`는 텐서였다면 맞았을 답입니다. 위 코드에서도 `t.to("meta")`를 호출한 뒤의 `t`는
#   여전히 CPU에 있습니다. 하지만 `Module.to`는 복사본을 만들지 않습니다.
# - 두 호출 중 하나는 효과가 없으리라 예상했다면 `meta torch.float32`나 `cpu torch.float64`를 골랐을
#   겁니다. 실제로는 두 호출 모두 모델을 바꿉니다.

# %% [markdown]
# ## 매개변수와 버퍼
#
# `.to()`를 호출한 뒤에도 모듈은 같은 객체입니다. 그렇다면 그 안의 텐서들도 그대로일까요? 변환의
# 종류에 따라 다릅니다. 아래의 작은 모듈은 매개변수, 버퍼(`register_buffer`로 등록한 텐서),
# 버퍼로 등록하지 않은 일반 텐서 속성을 하나씩 갖고 있습니다. 마지막 속성은 [다음 섹션](#버퍼로-등록하지-않은-텐서-속성)에서 다룹니다.

# %%
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3))  # 매개변수
        self.register_buffer("offset", torch.zeros(3))  # 버퍼
        self.mask = torch.ones(3)  # 일반 텐서 속성

    def forward(self, x):
        return x * self.weight * self.mask + self.offset


# %% [markdown]
# `meta`로 옮기면 매개변수는 새 `Parameter` 객체로, 버퍼는 새 텐서로 교체됩니다.

# %% tags=["claim-F3"]
model = Scaled()
weight, offset = model.weight, model.offset

model.to("meta")
print(f"{model.weight is weight=}, {model.offset is offset=}")
assert isinstance(model.weight, nn.Parameter)
assert model.weight is not weight  # 새 Parameter 객체
assert model.offset is not offset  # 새 버퍼 텐서

# %% [markdown]
# `meta`에서 다른 디바이스로 옮길 때는 사정이 다릅니다. 복사할 데이터가 없으므로 `.to("cpu")`는 오류를
# 일으킵니다. 다음 셀의 메시지는 "meta 텐서에는 데이터가 없어 복사해 낼 수 없다"는 뜻이고, 이럴 때는
# `Module.to()` 대신 `Module.to_empty()`를 쓰라는 안내가 이어집니다.
#
# `to_empty(device=...)`는 대상 디바이스에 초기화되지 않은 스토리지만 할당하므로 값은 직접 채워야
# 합니다. 기본 제공 계층이라면 `reset_parameters()`로 초기화할 수 있습니다.

# %% tags=["claim-F7"]
with expect_error(NotImplementedError, "to_empty"):
    model.to("cpu")

layer = nn.Linear(3, 2, device="meta")
layer.to_empty(device="cpu")  # 스토리지만 할당하고 값은 아직 없다
layer.reset_parameters()
print(layer.weight.device, layer.weight.is_meta)
assert layer.weight.device.type == "cpu"
assert torch.isfinite(layer.weight).all()

# %% [markdown]
# 이번에는 디바이스는 그대로 두고 dtype만 바꿔 봅니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 다음 셀은 `model.double()`을 호출하기 전에 `weight`와 `offset`을 변수에 받아
# 둡니다. 호출한 뒤에는 무엇을 출력할까요?
#
# - `model.weight is weight=True, model.offset is offset=True`
# - `model.weight is weight=True, model.offset is offset=False`
# - `model.weight is weight=False, model.offset is offset=False`

# %%
model = Scaled()
weight, offset = model.weight, model.offset

model.double()
print(f"{model.weight is weight=}, {model.offset is offset=}")

# %% tags=["claim-F3", "gpu-only", "answer"]
assert model.weight.dtype == torch.float64
assert model.weight is weight  # 같은 Parameter 객체
assert model.offset is not offset  # 버퍼는 새 텐서

if torch.cuda.is_available():
    offset = model.offset
    model.to(device)
    print(f"{model.weight is weight=}, {model.offset is offset=}")
    assert model.weight.device.type == "cuda"
    assert model.weight is weight  # 같은 Parameter 객체가 GPU로 옮겨졌다
    assert model.offset is not offset
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown] tags=["answer"]
# **정답:** `model.weight is weight=True, model.offset is offset=False`입니다. `double()`은 각
# `Parameter`를 같은 Python 객체로 남겨 두고, 그 안에 든 실제 텐서(`param.data`)만 바꿔 끼웁니다.
# 버퍼는 일반 텐서이므로 변환되면 새 텐서 객체로 교체됩니다.
#
# - 버퍼도 매개변수처럼 같은 객체로 남는다고 생각하면 `model.weight is weight=True, model.offset is offset=True`를
#   고르게 됩니다. 하지만 그렇게 남는 것은 `Parameter`뿐입니다.
# - `model.weight is weight=False, model.offset is offset=False`는 dtype 변환에서도 매개변수가 새 객체로
#   바뀐다고 본 답입니다. 위에서 본 것처럼 이 결과는 `meta`로 옮길 때 나옵니다.
#
# 어떤 객체가 그대로 남는지는 변환의 종류에 따라 다릅니다.
#
# - **dtype 변환, CPU ↔ CUDA 이동:** 각 `Parameter`가 같은 객체로 남으므로, 매개변수를 참조하고
#   있던 코드도 여전히 올바른 매개변수를 가리킵니다. CUDA로 옮길 때도 같은 객체로 남는지는 GPU가
#   있으면 위 셀에서 확인합니다.
# - **`meta`로 이동:** 매개변수마다 새 `Parameter` 객체가 만들어집니다.
# - **버퍼:** dtype 변환이든 디바이스 이동이든, 변환되면 언제나 새 텐서 객체가 됩니다.


# %% [markdown]
# ## 버퍼로 등록하지 않은 텐서 속성
#
# `Module.to`는 모듈에 등록된 것, 즉 매개변수, 버퍼, 하위 모듈만 변환합니다. 그런데 `Scaled`
# 모듈은 `self.mask = torch.ones(3)`처럼 텐서 하나를 일반 속성으로 갖고 있습니다.
# 아래에서는 GPU가 있으면 GPU를, 없으면 `meta`를 대상 디바이스로 씁니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 다음 셀은 `model = Scaled().to(target)`을 실행한 뒤 각 텐서의 디바이스를
# 출력합니다. `mask` 줄에는 무엇이 나올까요?
#
# - `mask meta`
# - `mask cuda:0`
# - `mask cpu`

# %%
target = torch.device("cuda" if torch.cuda.is_available() else "meta")
model = Scaled().to(target)

for name in ["weight", "offset", "mask"]:
    print(name, getattr(model, name).device)

# %% tags=["claim-F5", "answer"]
assert model.weight.device.type == target.type
assert model.offset.device.type == target.type
assert model.mask.device.type == "cpu"  # 원래 자리에 남는다
assert "mask" not in model.state_dict()
with expect_error(RuntimeError, "device"):
    model(torch.ones(3, device=target))  # 순전파에서 디바이스가 섞인다

# %% [markdown] tags=["answer"]
# **정답:** GPU가 있든 없든 `mask cpu`입니다. 일반 속성으로 저장한 텐서는 `Module.to`가 알지
# 못하므로 `state_dict`에도 들어가지 않고 원래 자리에 남습니다. 그래서 순전파에서 디바이스가 섞여,
# 위 코드처럼 모델을 호출하면 디바이스 오류가 납니다. GPU가 없을 때의 메시지는 `meta` 디바이스가
# 자체 검사에서 내는 것으로, "텐서가 있어야 할 디바이스에 있지 않다"는 뜻입니다.
#
# - `mask meta`(GPU가 없을 때)는 모델이 가진 텐서라면 무엇이든 함께 옮겨진다고 본 답입니다. 함께 옮겨지는 것은
#   `weight` 같은 매개변수와 `offset` 같은 버퍼, 즉 등록된 텐서뿐입니다.
# - `mask cuda:0`(GPU가 있을 때)도 같은 오해에서 나온 답입니다. 일반 속성은 GPU가 있어도 CPU에 그대로 남습니다.

# %% [markdown]
# 해결 방법은 그 텐서를 버퍼로 등록하는 것입니다. 모델과 함께 옮기되 `state_dict`에는 넣고 싶지
# 않다면 `persistent=False`를 지정하세요.

# %% tags=["claim-F5"]
class Masked(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3))
        self.register_buffer("mask", torch.ones(3), persistent=False)

    def forward(self, x):
        return x * self.weight * self.mask


model = Masked().to(target)
print(model.mask.device)
assert model.mask.device.type == target.type
assert "mask" not in model.state_dict()

# %% [markdown]
# ## 매개변수에 다시 대입하지 않기
#
# `model.weight = model.weight.to(d)`처럼 매개변수 하나만 직접 옮기는 방법은 통하지 않습니다.
# 핵심은 매개변수에 `to`를 호출하면 무엇이 반환되느냐입니다. 다음 셀은 반환값의 타입 이름과
# `requires_grad`를 출력합니다. `requires_grad`가 `True`이면 반환값이 여전히 변화도(gradient)를
# 추적한다는 뜻입니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `model.weight`는 CPU에 있는 `Parameter`이고, `moved = model.weight.to("meta")`에서는
# 실제로 변환이 일어납니다. 다음 셀은 무엇을 출력할까요?
#
# - `Tensor True`
# - `Parameter True`
# - `Tensor False`

# %%
model = nn.Linear(3, 2)
moved = model.weight.to("meta")
print(type(moved).__name__, moved.requires_grad)

# %% tags=["claim-F5", "answer"]
assert type(moved) is torch.Tensor
assert moved.requires_grad and not moved.is_leaf  # autograd가 기록한다
w = model.weight
assert w.to(w.device) is w  # 할 일이 없으면 Parameter 자신이 돌아온다

# %% [markdown] tags=["answer"]
# **정답:** `Tensor True`입니다. 실제로 변환이 일어나면 반환값은 `Parameter`가 아닌 일반
# `Tensor`입니다. autograd가 이 변환을 기록하므로 이 텐서는 여전히 변화도를 추적합니다. 다만
# 매개변수에 연산을 적용한 결과이므로 잎(leaf) 텐서는 아닙니다.
#
# - `Parameter True`를 골랐다면 변환한 뒤에도 타입이 `Parameter`로 유지된다고 생각했을 겁니다. `to()`가
#   `Parameter` 자신을 반환하는 것은 변환할 것이 없을 때뿐입니다(위 코드의 `w.to(w.device) is w`).
# - `Tensor False`에는 타입이 바뀌면 연산 그래프에서도 떨어져 나간다는 오해가 담겨 있습니다.
#   실제로는 변환도 연산 그래프에 기록되므로, 반환값에서 매개변수까지 변화도가 전달됩니다.

# %% [markdown]
# 다음 셀처럼 `moved`를 `model.weight`에 대입하면 `TypeError`가 납니다.

# %% tags=["claim-F5"]
with expect_error(TypeError, "cannot assign"):
    model.weight = moved

# %% [markdown]
# 출력된 `cannot assign ... as parameter 'weight'`는 "`weight`는 매개변수 이름이므로 `Parameter`나
# `None`만 대입할 수 있다"고 알려 줍니다.
#
# 함정은 변환할 것이 없을 때 생깁니다. 예를 들어 `d`가 CPU이고 가중치도 CPU에 있으면 `.to()`가
# 매개변수 자체를 반환하므로 대입이 성공합니다. 그래서 CPU에서는 문제가 드러나지 않다가, 같은 코드를 GPU에서
# 처음 실행할 때 실패합니다. 매개변수를 따로 옮기지 말고 `model.to(d)`로 모듈 전체를 옮기세요.

# %% [markdown]
# ## 모델은 어느 디바이스에 있을까
#
# 모듈에는 `.device` 속성이 없습니다. 모듈 안의 텐서들이 한 디바이스에 모여 있어야 한다는 제약이
# 없기 때문입니다. 큰 모델은 여러 디바이스에 나눠 둘 수 있고, `nn.ReLU`처럼 매개변수가 아예 없는
# 모듈도 있습니다.
#
# 흔히 쓰는 관용구인 `next(model.parameters()).device`는 첫 번째 매개변수의 디바이스를 알려
# 줍니다. 모델 전체를 한꺼번에 옮겼다면 이것으로 충분합니다. 확실히 하려면 모든 매개변수와 버퍼의
# 디바이스를 모아서 확인하세요.

# %%
def devices(module):
    return {t.device for t in [*module.parameters(), *module.buffers()]}


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
print(next(model.parameters()).device, sorted(map(str, devices(model))))
assert next(model.parameters()).device.type == device.type
assert not hasattr(model, "device")
assert next(nn.ReLU().parameters(), None) is None  # 확인할 대상이 없다

model[2].to("meta")  # 여기서는 `meta`가 두 번째 디바이스 역할을 한다
print(sorted(map(str, devices(model))))
assert len(devices(model)) == 2

# %% [markdown]
# ## 디바이스 불일치 오류 읽기
#
# 모델과 입력이 서로 다른 디바이스에 있으면, 둘을 섞는 연산이 `RuntimeError`를 일으키며
# 실패합니다. 해결 방법은 언제나 같습니다. 모델과 모든 입력을 쓰려는 디바이스 한 곳에 모으면 됩니다.
# 코드로 쓰면 `model.to(device)`와 `x = x.to(device)`입니다. `Tensor.to`는 `x` 자체를 바꾸지 않으므로,
# 반환값을 반드시 `x`에 다시 대입하세요.
#
# 메시지에 이름이 나온 텐서를 옮기면 된다고 단정해서는 안 됩니다. PyTorch 2.8부터는 GPU에 있는 선형
# 계층에 CPU 입력을 넣으면 CUDA 연산의 디바이스 검사에서 다음 메시지가 나옵니다. GPU에서만 볼 수 있으므로
# PyTorch 소스에서 인용합니다.
#
# ```
# Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)
# ```
#
# "모든 텐서가 같은 디바이스에 있어야 하는데, `mat1`이 `cpu`에 있어 다른 텐서들의 디바이스 `cuda:0`과
# 다르다"는 뜻입니다.
#
# - 입력이 2차원이면 `nn.Linear`는 `addmm(bias, input, weight.T)`를 실행하므로 `mat1`이 곧
#   입력입니다. `wrapper_CUDA_addmm`은 불일치를 감지한 연산의 이름입니다.
# - 검사는 모든 인자를 첫 번째 인자인 편향과 비교합니다. 그래서 **모델**을 CPU에 남겨 둔 채 GPU에 있는
#   입력을 넣어도 메시지에는 역시 `mat1`이 나오며, 이번에는
#   `mat1 is on cuda:0, different from other tensors on cpu`가 됩니다. 메시지를 따라 `mat1`을
#   옮기면, 모델을 GPU로 옮겨야 할 상황에서 오히려 입력을 CPU로 되돌리게 됩니다.
#
# PyTorch 2.8 이전에는 같은 검사가 `but found at least two devices, cuda:0 and cpu!`라는 문구를 냈습니다.
# "디바이스를 적어도 두 개(`cuda:0`과 `cpu`) 발견했다"라는 내용이고, 인자 이름은 이 문구 다음, 즉 메시지
# 맨 끝에 나왔습니다.
# `+`, `*` 같은 요소별 연산은 TensorIterator(요소별 연산을 실행하는 PyTorch 내부 구조)가 검사하므로,
# 지금도 인자 이름 없이 이 문구가 나옵니다.
#
# 실제 코드에서 불일치의 흔한 원인은 `forward` 메서드나 손실 함수 안에서 디바이스를 지정하지 않고
# 만든 텐서입니다. 그 예와 해결 방법은 별도 페이지인
# [디바이스 불일치 오류 읽는 법](07-device-errors.ipynb#expected-all-tensors-to-be-on-the-same-device)에서
# 다룹니다.

# %% [markdown]
# 요소별 연산에는 예외가 하나 있습니다. `torch.tensor(2.0)` 같은 0차원 CPU 텐서는 CUDA 텐서와 `+`, `*`로 계산할 때 Python 숫자처럼 쓸 수 있습니다. 다른 연산에는 이런 예외가 없어서, `a`와 `b`가 GPU에 있어도 `torch.addmm(torch.tensor(1.0), a, b)`는 디바이스 검사에서 실패합니다. GPU가 있으면 다음 셀에서 지금까지 설명한 동작을 하나씩 확인합니다.

# %% tags=["claim-O3", "gpu-only"]
model = nn.Linear(4, 2).to(device)
x = torch.randn(8, 4)  # CPU에 만든다

if torch.cuda.is_available():
    named = "but got mat1" if TORCH >= (2, 8) else "found at least two devices"
    with expect_error(RuntimeError, named):
        model(x)  # 입력을 CPU에 남겨 둔 경우
    with expect_error(RuntimeError, named):
        nn.Linear(4, 2)(x.to(device))  # 모델을 CPU에 남겨 둔 경우
    with expect_error(RuntimeError, "found at least two devices"):
        x.to(device) + x  # 요소별 연산: TensorIterator가 검사한다
    x = x.to(device)  # 해결 방법: 반환값을 받아 둔다
    y = model(x)
    print(f"{y.device=}")
    assert y.device == model.weight.device
    two = torch.tensor(2.0)  # 0차원 CPU 텐서
    assert (y * two).device == y.device  # 요소별 연산에서는 허용된다
    with expect_error(RuntimeError, "Expected all tensors to be on the same"):
        torch.addmm(two, x.T, x)  # 요소별 연산이 아니므로 허용되지 않는다
else:
    print(f"{torch.cuda.is_available()=}")
    assert model(x).device.type == "cpu"

# %% [markdown]
# GPU가 없으면 CUDA의 메시지는 볼 수 없지만, `meta` 디바이스에는 자체 디바이스 검사가 있습니다.
# 메시지는 CUDA와 달리 `Tensor on device … is not on the expected device …!`("텐서가 기대한
# 디바이스에 있지 않다")입니다. 이 검사로 다음 두 가지를 확인할 수 있습니다.
#
# - 모델과 입력 중 어느 쪽을 CPU에 남겨도 선형 계층은 실패합니다.
# - 요소별 연산에서는 0차원 CPU 텐서가 허용됩니다.

# %% tags=["claim-F7"]
meta_model = nn.Linear(4, 2).to("meta")
with expect_error(RuntimeError, "is not on the expected device"):
    meta_model(torch.randn(8, 4))  # 입력을 CPU에 남겨 둔 경우
cpu_model = nn.Linear(4, 2)  # 모델을 CPU에 남겨 둔 경우
with expect_error(RuntimeError, "is not on the expected device"):
    cpu_model(torch.randn(8, 4, device="meta"))

y = meta_model(torch.randn(8, 4, device="meta"))  # 둘 다 `meta`에 있다
scaled = y * torch.tensor(2.0)  # 요소별 연산: 0차원 CPU 텐서는 허용된다
print(f"{y.device=}, {scaled.device=}")
assert scaled.device.type == "meta"

# %% [markdown]
# ## 옵티마이저는 모델을 옮긴 다음에 만들기
#
# 옵티마이저는 모델의 `Parameter` 객체를 참조하고, 첫 `step()`에서 매개변수마다 **상태**를 만들어
# 보관합니다. Adam은 `exp_avg`와 `exp_avg_sq`라는 두 가지 이동 평균을 상태로 유지합니다.
#
# CPU에서 CUDA로 옮길 때는 `Parameter` 객체가 바뀌지 않으므로, 옮기기 전에 만든 옵티마이저도 여전히 올바른
# 매개변수를 가리킵니다. 하지만 옵티마이저에 이미 상태가 있다면 같은 `Parameter` 객체를 가리킨다는 것만으로는 충분하지 않습니다.
# 상태는 모듈의 일부가 아니므로 `model.to()`가 옮기지 않고, 원래 디바이스에 그대로 남기 때문입니다.
#
# `optimizer.load_state_dict(optimizer.state_dict())`를 호출하면 상태를 각 매개변수의 디바이스로 옮길 수 있습니다. GPU가 있으면 다음 셀에서 상태가 원래 디바이스에 남는지, 다시 불러오면 옮겨지는지 확인합니다.

# %% tags=["claim-F4", "gpu-only"]
model = nn.Linear(4, 2)  # CPU에 있다
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()  # Adam의 상태가 CPU에 만들어진다

model.to(device)
params = optimizer.param_groups[0]["params"]
assert params[0] is model.weight  # 여전히 같은 Parameter

if torch.cuda.is_available():
    state = optimizer.state[model.weight]
    print(model.weight.device, state["exp_avg"].device)
    assert model.weight.device.type == "cuda"
    assert state["exp_avg"].device.type == "cpu"  # 원래 자리에 남는다
    optimizer.load_state_dict(optimizer.state_dict())
    state = optimizer.state[model.weight]
    print(state["exp_avg"].device, state["exp_avg_sq"].device)
    assert state["exp_avg"].device.type == "cuda"
    assert state["exp_avg_sq"].device.type == "cuda"
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ### 옵티마이저 체크포인트 불러오기
#
# 학습을 이어서 할 때도 순서는 같습니다. 모델을 옮기고, 그 매개변수로 옵티마이저를 만든 다음 `optimizer.load_state_dict(checkpoint["optimizer"])`를 호출합니다. 이때 `load_state_dict`는 상태를 다음과 같이 다룹니다.
#
# - `step`을 뺀 모든 상태 텐서는 해당 매개변수가 있는 디바이스로 옮겨지고, 매개변수가 부동소수점이면 dtype도 매개변수에 맞춰집니다. 그래서 `float32` 상태를 `bfloat16` 모델에 불러오면 상태도 `bfloat16`이 되어 정밀도가 떨어집니다(다음 셀에서 확인합니다).
# - `step`은 불러온 그대로 남습니다. 단, 체크포인트에 저장된 옵티마이저 설정에서 `fused`나 `capturable`이 켜져 있으면 `step`도 `float32`로 바뀌어 매개변수가 있는 디바이스로 옮겨집니다. `load_state_dict`가 각 매개변수 그룹(param group)의 설정을 저장된 값으로 덮어쓰기 때문입니다. 다음 셀에서는 fused 옵티마이저가 저장한 체크포인트를 fused가 아닌 옵티마이저에 불러오는 경우도 확인합니다.
#
# Adam과 AdamW는 상태의 `step` 값이 CPU에 있다고 가정합니다. 옵티마이저의 `step()` 메서드를 한 번 호출할 때마다 매개변수별로 이 값을 `.item()`으로 읽으므로, `step` 값이 GPU에 있으면 읽을 때마다 CPU가 GPU를 기다리게 됩니다([pytorch#128208](https://github.com/pytorch/pytorch/issues/128208)). `map_location="cuda"`로 불러오면 `step`까지 GPU에 올라가므로, 옵티마이저 체크포인트는 `torch.load(path, map_location="cpu")`로 불러오고 나머지 이동은 `load_state_dict`에 맡기세요.
#
# 순서를 바꿔 먼저 불러오고 나중에 옮기면, 상태는 불러온 시점의 매개변수에 맞춰 변환되고 `model.to()`는 상태를 그 자리에 남겨 둡니다. GPU를 쓴다면 첫 `step()`에서 CUDA에 있는 매개변수와 CPU에 남은 상태가 한 연산에 섞입니다.
#
# 참고로 혼합 정밀도 학습에서 `float32` 마스터 가중치를 따로 두는 것은 위에서 말한 정밀도 손실과는 다른 이야기입니다. 16비트 가중치에 아주 작은 갱신값을 더하면 반올림되어 사라지므로, 가중치 자체를 `float32`로 한 벌 더 두는 것입니다. PyTorch의 AMP(`autocast`와 `GradScaler`)는 매개변수를 처음부터 `float32`로 두므로 이런 복사본이 필요 없습니다. 자세한 내용은 [모델이 메모리에 들어갈까?](08-will-it-fit.ipynb) 페이지에서 다룹니다.
#
# 불러온 뒤에 옮기면 상태가 그대로 남는 현상은 dtype에서도 생깁니다. 그래서 GPU가 없어도 확인할 수 있도록, 다음 셀은 모델을 `device`로 옮기면서 `float64`로도 바꿉니다.

# %% tags=["claim-F4"]
source = nn.Linear(4, 2)
source_optimizer = torch.optim.Adam(source.parameters())
source(torch.randn(8, 4)).sum().backward()
source_optimizer.step()
# torch.load(path, map_location="cpu")가 반환하는 것과 같이 모두 CPU의 float32다
checkpoint = {"model": source.state_dict(),
              "optimizer": source_optimizer.state_dict()}

# 옮기고, 만들고, 불러온다
resumed = nn.Linear(4, 2).to(device, torch.float64)
resumed.load_state_dict(checkpoint["model"])
resumed_optimizer = torch.optim.Adam(resumed.parameters())
resumed_optimizer.load_state_dict(checkpoint["optimizer"])
state = resumed_optimizer.state[resumed.weight]
print(f"{state['exp_avg'].dtype=}, {state['exp_avg'].device=}")
print(f"{state['step'].device=}, {state['step'].dtype=}")
assert state["exp_avg"].dtype == torch.float64
assert state["exp_avg"].device == resumed.weight.device
assert state["step"].device.type == "cpu"
assert state["step"].dtype == torch.float32  # step은 변환되지 않는다

# bfloat16으로 나타낼 수 없는 float32 값을 bfloat16 모델에 불러온다
checkpoint["optimizer"]["state"][0]["exp_avg"].fill_(1 + 2**-10)
low = nn.Linear(4, 2).to(device, torch.bfloat16)
low_optimizer = torch.optim.Adam(low.parameters())
low_optimizer.load_state_dict(checkpoint["optimizer"])
low_state = low_optimizer.state[low.weight]
print(f"{low_state['exp_avg'].dtype=}, {low_state['exp_avg'][0, 0].item()=}")
assert low_state["exp_avg"].dtype == torch.bfloat16
assert low_state["exp_avg"][0, 0].item() == 1.0  # 2**-10만큼이 사라진다

# fused 옵티마이저가 저장한 체크포인트라면 step은 매개변수 쪽으로 간다
fused_optimizer = torch.optim.Adam(source.parameters(), fused=True)
source(torch.randn(8, 4)).sum().backward()
fused_optimizer.step()
saved = fused_optimizer.state_dict()
saved["state"][0] = {**saved["state"][0],
                     "step": saved["state"][0]["step"].double()}
quick = nn.Linear(4, 2).to(device)
# 이 옵티마이저 자체는 fused가 아니다
quick_optimizer = torch.optim.Adam(quick.parameters())
quick_optimizer.load_state_dict(saved)
quick_step = quick_optimizer.state[quick.weight]["step"]
print(f"{quick_step.device=}, {quick_step.dtype=}")
assert quick_optimizer.param_groups[0]["fused"]  # 체크포인트의 설정
assert quick_step.device == quick.weight.device
assert quick_step.dtype == torch.float32

# 불러온 뒤 옮기면 상태는 불러온 그대로다
late = nn.Linear(4, 2)
late_optimizer = torch.optim.Adam(late.parameters())
late_optimizer.load_state_dict(checkpoint["optimizer"])
late.to(device, torch.float64)
late_state = late_optimizer.state[late.weight]
print(f"{late.weight.dtype=}, {late_state['exp_avg'].dtype=}")
print(f"{late_state['exp_avg'].device=}")
assert late_optimizer.param_groups[0]["params"][0] is late.weight
assert late_state["exp_avg"].dtype == torch.float32
assert late_state["exp_avg"].device.type == "cpu"

# %% [markdown]
# 이번에는 `step()`까지 실행해 봅니다. 다음 셀은 모델을 CPU에 둔 채 dtype만 바꿉니다. 상태가 예전
# dtype을 유지하므로, 다음 `step()`에서 float64인 새 변화도와 float32 상태가 만나 실패합니다.
# `state_dict`를 다시 불러오면 상태가 각 매개변수의 dtype과 디바이스로 변환되고, `step()`이
# 다시 동작합니다.

# %% tags=["claim-F4"]
model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()  # Adam의 상태가 float32로 만들어진다

model.double()
state = optimizer.state[model.weight]
print(f"{model.weight.dtype=}, {state['exp_avg'].dtype=}")
assert optimizer.param_groups[0]["params"][0] is model.weight
assert state["exp_avg"].dtype == torch.float32  # 변환되지 않는다

optimizer.zero_grad()
model(torch.randn(8, 4, dtype=torch.float64)).sum().backward()
with expect_error(RuntimeError, "expected dtype"):
    optimizer.step()  # float64 변화도와 float32 상태가 만난다

# 상태를 각 매개변수의 dtype으로 변환한다
optimizer.load_state_dict(optimizer.state_dict())
optimizer.step()
state = optimizer.state[model.weight]
print(f"{state['exp_avg'].dtype=}")
assert state["exp_avg"].dtype == torch.float64

# %% [markdown]
# 이 오류는 Adam의 갱신 연산 안에서 납니다. `expected dtype float … but got dtype double`은
# "float32여야 하는데 float64가 들어왔다"는 뜻으로, float32 상태와 float64 변화도가 만났다는 것을
# 알려 줍니다.
#
# 이 모든 문제를 피하는 가장 간단한 규칙은 모델을 먼저 옮기고 나서 옵티마이저를 만드는 것입니다.
# 그러면 상태가 처음부터 매개변수와 같은 디바이스에 만들어집니다.

# %% tags=["claim-F4"]
model = nn.Linear(4, 2).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4, device=device)).sum().backward()
optimizer.step()

state = optimizer.state[model.weight]
print(state["exp_avg"].device)
assert state["exp_avg"].device == model.weight.device

# %% [markdown]
# ## GPU 체크포인트를 CPU에서 불러오기
#
# `torch.save`는 각 텐서의 디바이스를 기록하고, `torch.load`는 따로 지정하지 않으면 각 텐서를 그
# 디바이스로 되돌려 놓습니다. GPU에서 저장한 체크포인트를 GPU가 없는 머신에서 불러오려면
# `map_location`을 지정합니다.
#
# - 문자열 또는 `torch.device`: 모든 텐서를 그곳에 둡니다.
# - 딕셔너리: 저장될 때의 위치를 새 위치로 바꿉니다(예: `{"cuda:0": "cpu"}`).
# - 호출 가능 객체 `(storage, location) -> storage`: 텐서 스토리지마다 위치를 정합니다.
#   `lambda storage, location: storage`를 쓰면 모두 CPU에 남습니다.
#
# 여기서는 `weights_only=True`도 함께 지정합니다. 이 옵션은 pickle 데이터에서 복원할 수 있는 객체를 텐서와
# 일반 컨테이너(딕셔너리, 리스트 등)로 제한하므로, `state_dict`를 안전하게 불러올 수 있습니다. 자세한
# 내용은 아래에서 다룹니다.
#
# `map_location`을 지정하지 않으면, GPU가 없는 머신에서 이런 체크포인트를 불러올 때 `Attempting to deserialize object on a CUDA device` 오류로 멈춥니다. 메시지는 "CUDA 디바이스에 객체를 역직렬화하려 했다"라는 내용입니다. 이 오류를 직접 재현하는 예는 [불러오기·환경·메모리 오류 읽는 법](09-setup-and-memory-errors.ipynb#attempting-to-deserialize-object-on-a-cuda-device)에 있습니다. 아래 셀은 GPU가 있으면 GPU에서, 없으면 CPU에서 체크포인트를 저장합니다.

# %%
tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "checkpoint.pt")

model = nn.Linear(4, 2).to(device)
torch.save(model.state_dict(), path)
print(f"{model.weight.device=}")

# %% tags=["claim-F8", "gpu-only"]
if torch.cuda.is_available():
    as_saved = torch.load(path, weights_only=True)
    on_cpu = torch.load(path, map_location="cpu", weights_only=True)
    print(as_saved["weight"].device, on_cpu["weight"].device)
    assert as_saved["weight"].device.type == "cuda"  # 저장한 곳으로
    assert on_cpu["weight"].device.type == "cpu"
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# 체크포인트를 GPU에서 저장했든 CPU에서 저장했든, 위에서 본 방식(문자열이나 `torch.device`,
# 딕셔너리, 호출 가능 객체) 중 어느 것으로 `map_location`을 지정해도 CPU 텐서를 얻습니다.

# %% tags=["claim-F8"]
forms = {
    "str": "cpu",
    "torch.device": torch.device("cpu"),
    "dict": {"cuda:0": "cpu"},
    "callable": lambda storage, location: storage,
}
for name, form in forms.items():
    state = torch.load(path, map_location=form, weights_only=True)
    print(name, state["weight"].device)
    assert all(t.device.type == "cpu" for t in state.values())

cpu_model = nn.Linear(4, 2)
cpu_model.load_state_dict(state)
print(cpu_model.weight.device)

# %% [markdown]
# 정수는 `map_location`으로 쓸 수 없습니다. `torch.load`는 정수를 호출 가능 객체로 취급하므로
# `TypeError`를 일으키며 실패합니다. 메시지 `'int' object is not callable`은 "int 객체는 호출할 수
# 없다"는 뜻입니다.
# 대신 `"cuda:0"`이나 `torch.device("cuda", 0)`이라고 쓰세요.

# %%
with expect_error(TypeError, "not callable"):
    torch.load(path, map_location=0, weights_only=True)

# %% [markdown]
# PyTorch 2.6부터 `weights_only=True`는 `torch.load`의 기본값입니다. 그런데도 위 셀에서 굳이 지정한 것은
# 무엇을 선택했는지 코드에 드러내기 위해서입니다. 이 기본값 때문에 이제 `torch.load`는 따로
# 지정하지 않으면 pickle 데이터에서 임의의 클래스 객체를 복원하지 않습니다. 그래서 PyTorch 2.6 이상으로 업데이트한 뒤, pickle로 저장한
# 모델 전체(`torch.save(model, path)`로 저장한 것)를 불러오지 못하게 된 사람이 많았습니다.
#
# 다음 셀은 긴 메시지의 첫 문장인 `Weights only load failed`("weights_only 방식으로 불러오지
# 못했다")만 출력합니다. 해결하려면 모델 전체 대신 `state_dict()`를 저장했다가 불러오거나, 신뢰할 수 있는 파일에 한해
# `weights_only=False`를 넘기세요.

# %%
whole = os.path.join(tmp.name, "whole-model.pt")
torch.save(nn.Linear(4, 2), whole)  # 모듈 전체를 pickle로 저장한다
try:
    torch.load(whole, map_location="cpu")
except pickle.UnpicklingError as err:
    first = str(err).split(".")[0]  # 메시지가 길어서 첫 문장만 출력한다
    print(f"{type(err).__name__}: {first}", file=sys.stderr)
else:
    raise AssertionError("expected an UnpicklingError")

# 신뢰할 수 있는 파일에만 쓴다
loaded = torch.load(whole, map_location="cpu", weights_only=False)
print(f"{type(loaded).__name__=}")
assert isinstance(loaded, nn.Linear)
tmp.cleanup()

# %% [markdown]
# ## 정리
#
# - `model.to(device)`는 새 모델을 만들지 않고 모델 자체를 바꾼 뒤, 그 모델을 반환합니다. 다시
#   대입할 필요가 없습니다.
# - CPU와 CUDA 사이에서 옮기거나 dtype을 바꿀 때는 `Parameter` 객체가 그대로이고, `meta`로 옮길
#   때는 교체됩니다. 변환된 버퍼는 항상 새 텐서입니다. `meta`에서 다른 디바이스로 옮길 때는
#   `to_empty()`로 옮긴 다음 초기화합니다.
# - 옮겨지는 것은 매개변수, 버퍼, 하위 모듈뿐입니다. 그 밖의 텐서를 함께 옮기려면 `register_buffer`로 등록합니다.
# - 변환한 텐서를 매개변수 이름에 대입하지 말고, 모듈 전체를 옮깁니다.
# - 모델 전체의 디바이스가 하나로 정해져 있지는 않습니다. `next(model.parameters()).device`는 첫 번째
#   매개변수의 디바이스만 알려 주는 관용구일 뿐입니다.
# - 디바이스 불일치 오류가 나면 모델과 모든 입력을 한 디바이스에 둡니다(`model.to(device)`,
#   `x = x.to(device)`). 메시지에 이름이 나온 인자가 옮겨야 할 대상이라는 보장은 없습니다.
# - 모델을 먼저 옮기고 나서 옵티마이저를 만듭니다. 옵티마이저에 이미 상태가 생겼다면, 모델을 옮겨도
#   상태는 예전 디바이스와 dtype에 그대로 남습니다.
# - GPU 체크포인트는 `torch.load(path, map_location="cpu", weights_only=True)`로 CPU에서
#   불러옵니다. `weights_only=True`는 PyTorch 2.6부터 기본값입니다.
# - 학습을 이어서 할 때는 모델을 옮기고 옵티마이저를 만든 뒤, `map_location="cpu"`로 불러온
#   옵티마이저 상태를 `load_state_dict`에 넘깁니다. 상태는 각 매개변수의 디바이스와 dtype에 맞춰집니다.
# - `step` 값은 `load_state_dict`가 옮기지 않으므로, Adam이 가정하는 대로 CPU에 남습니다. 단, 저장된
#   옵티마이저 설정에서 `fused`나 `capturable`이 켜져 있으면 `step`도 `float32`로 바뀌어 매개변수
#   쪽 디바이스로 옮겨집니다.
