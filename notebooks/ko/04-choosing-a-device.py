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
# # 어디서나 동작하도록 디바이스 고르기
#
# `"cuda"`를 하드코딩하면 Mac에서도, NVIDIA GPU가 없는 랩톱에서도, CPU만 있는 CI 러너에서도 오류가 납니다. 이 페이지에서는 쓸 수 있는 가속기가 있으면 그것을 쓰고, 없으면 CPU를 쓰는 작은 도우미(helper) 함수를 만듭니다. 또한 `device=0`처럼 정수로 지정한 디바이스가 최신 PyTorch에서 무엇을 가리키는지도 설명합니다. 정수 디바이스의 의미는 PyTorch 2.5에서 바뀌었습니다.
#
# 'GPU 검증 포함' 셀은 GPU를 쓸 수 있는 머신에서만 GPU 관련 검증을 실행합니다. GPU가 없으면 `cuda_ok=False`처럼 어떤 조건이 맞지 않았는지 출력하거나, GPU가 없을 때의 동작을 대신 확인합니다. 첫 번째 셀에서는 `expect_error`도 정의합니다. 이 함수는 예상한 오류를 출력한 뒤, 노트북이 멈추지 않고 다음 셀로 넘어가게 해 줍니다.

# %% [markdown] tags=["summary"]
# **요약**
#
# - `torch.cuda.is_available()`은 CUDA를 쓸 수 있는지만 알려 줍니다. `torch.accelerator`(PyTorch 2.6 이상)를 쓰면 CUDA, MPS, XPU 등을 같은 함수로 다룰 수 있습니다.
# - 가속기가 있으면 가속기를, 없으면 CPU를 반환하는 도우미 함수 하나를 두면 어느 머신에서나 같은 스크립트가 돌아갑니다.
#
# ```python
# def pick_device() -> torch.device:
#     if torch.accelerator.is_available():
#         return torch.accelerator.current_accelerator()
#     return torch.device("cpu")
# ```

# %% tags=["setup"]
import contextlib
import sys
import types

import torch

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
# ## 예전 방법: CUDA GPU를 쓸 수 있는지 확인하기
#
# `torch.cuda.is_available()`은 지금 쓰는 PyTorch 빌드가 CUDA를 지원하고, 드라이버가 정상적으로 동작하며, GPU가 하나 이상 인식될 때만 `True`를 반환합니다. CUDA 전용 코드를 실행하기 전에 확인하는 용도라면 지금도 이 함수를 쓰면 됩니다.
#
# 하지만 이 함수가 확인하는 것은 CUDA뿐입니다. 그래서 Mac에서는 Apple GPU(`mps` 디바이스)를 쓸 수 있어도 `False`를 반환합니다. 참고로 ROCm 빌드에서는 AMD GPU도 `cuda` 디바이스로 인식됩니다.
#
# 다음 셀은 CUDA와 MPS를 쓸 수 있는지 출력합니다. GPU가 없는 머신에서는 `cuda_ok=False`가 나오고, GPU 개수를 확인하는 검증은 건너뜁니다.

# %% tags=["gpu-only"]
cuda_ok = torch.cuda.is_available()
mps_ok = torch.backends.mps.is_available()
print(f"{cuda_ok=}, {torch.cuda.device_count()=}, {mps_ok=}")

if cuda_ok:
    assert torch.cuda.device_count() >= 1
if mps_ok:
    assert not cuda_ok

# %% [markdown]
# ## 모든 가속기를 한 API로 다루기
#
# PyTorch 2.6에서 추가된 `torch.accelerator`는 CUDA, Apple MPS, Intel XPU 등 가속기의 종류와 상관없이 같은 함수로 동작합니다. 이 노트북에 PyTorch 2.6 이상이 필요한 것도 이 API를 쓰기 때문이며, 그보다 오래된 PyTorch에서는 첫 번째 셀에서 실행이 멈춥니다. 스크립트에 필요한 정보는 다음 두 함수로 얻습니다.
#
# - `torch.accelerator.is_available()`: 지금 가속기를 쓸 수 있는가?
# - `torch.accelerator.current_accelerator()`: 어떤 종류의 가속기인가? PyTorch 2.6에서는 쓸 수 있는 가속기의 종류를, 2.7부터는 설치된 PyTorch 빌드가 지원하는 가속기의 종류를 알려 줍니다.
#
# 쓸 수 있는 가속기가 없을 때 `current_accelerator()`가 어떻게 동작하는지는 버전에 따라 다릅니다. PyTorch 2.6에서는 `RuntimeError`가 발생합니다. 그래서 아래 셀에서는 가속기를 쓸 수 있거나 PyTorch가 2.7 이상일 때만 이 함수를 호출합니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 다음 셀을 실행하는 머신에서 `torch.accelerator.current_accelerator()`는 무엇을
# 반환할까요? 결과는 `acc=…` 형태로 출력됩니다.
#
# - `acc=device(type='cuda')`
# - `acc=device(type='cuda', index=0)`
# - `acc=device(type='cpu')`
# - `acc=None`

# %%
available = torch.accelerator.is_available()
print(f"{available=}")
if available or TORCH >= (2, 7):
    acc = torch.accelerator.current_accelerator()
    print(f"{acc=}")
else:  # torch 2.6이고 쓸 수 있는 가속기가 없는 경우
    with expect_error(Exception) as caught:
        torch.accelerator.current_accelerator()

# %% tags=["claim-O5", "gpu-only", "answer"]
if available or TORCH >= (2, 7):
    assert acc is None or (acc.type != "cpu" and acc.index is None)
    if available:
        assert acc is not None
    if acc is None:
        assert not available and torch.version.cuda is None
    if cuda_ok:
        assert acc == torch.device("cuda")
else:
    assert isinstance(caught.error, RuntimeError)
    assert "Cannot access accelerator device" in str(caught.error)

# %% [markdown] tags=["answer"]
# **정답:** PyTorch 빌드에 따라 다릅니다. 위 검증 셀은 이 머신에서 나온 결과가 맞는지 확인합니다.
#
# - `acc=None`: PyTorch 2.7 이상에서, CPU 전용 빌드처럼 가속기를 지원하지 않는 PyTorch를 쓰면 나옵니다.
# - `acc=device(type='cuda')`: CUDA 빌드에서 나옵니다. 2.7부터는 GPU를 쓸 수 없는 머신에서도 마찬가지입니다(아래에서 자세히 다룹니다). CUDA GPU를 쓸 수 있는 머신에서는 위 검증 셀이 이 값인지 확인합니다.
# - `acc=device(type='cuda', index=0)`은 나오지 않습니다. `current_accelerator()`가 가리키는 것은 특정 GPU가 아니라 가속기의 종류이므로 인덱스가 붙지 않습니다.
# - `acc=device(type='cpu')`도 나오지 않습니다. CPU는 가속기가 아니며, 가속기를 지원하지 않는 빌드에서는 `None`이 나옵니다.
#
# PyTorch 2.6에서는 쓸 수 있는 가속기가 없으면 값을 반환하지 않고 `RuntimeError: Cannot access accelerator device when none is available.`("쓸 수 있는 가속기가 없어서 가속기 디바이스에 접근할 수 없다")가 발생합니다.

# %% [markdown]
# 2.7부터는 함정이 하나 있습니다. `current_accelerator()`가 알려 주는 것은 이 머신에 있는 가속기가 아니라, 설치된 PyTorch **빌드**가 지원하는 가속기입니다. GPU가 없는 머신(예: Colab CPU 런타임)에서 CUDA 빌드 PyTorch를 쓰면, `is_available()`이 `False`인데도 `current_accelerator()`는 `cuda`를 반환합니다. 2.6에서는 이런 머신에서 같은 호출이 예외를 일으킵니다.
#
# 따라서 먼저 `is_available()`을 확인하거나, PyTorch 2.7 이상이라면 `current_accelerator(check_available=True)`를 호출하세요. 이렇게 호출하면 가속기를 쓸 수 없을 때 `None`을 반환합니다. 다음 셀은 GPU가 없는 머신에서 실제로 `None`이 나오는지 확인합니다. PyTorch 2.6에서는 이 확인을 건너뛰고 `TORCH >= (2, 7)=False`만 출력합니다.

# %% tags=["claim-O5", "gpu-only"]
if TORCH >= (2, 7):
    acc = torch.accelerator.current_accelerator()
    usable = torch.accelerator.current_accelerator(check_available=True)
    print(f"{acc=}, {usable=}, {torch.version.cuda=}")
    if torch.version.cuda is not None:
        assert acc == torch.device("cuda")  # GPU가 보이지 않아도 cuda
    if torch.accelerator.is_available():
        assert usable == acc
    else:
        assert usable is None
else:
    print(f"{TORCH >= (2, 7)=}")

# %% [markdown]
# ## 가속기가 없으면 CPU를 쓰는 도우미 함수
#
# 디바이스를 고르는 코드는 함수 하나에 모아 두고, 그 함수를 스크립트 맨 앞에서 한 번만 호출하세요. 아래 `pick_device()`는 쓸 수 있는 가속기가 있는지만 확인할 뿐, 디바이스끼리 성능을 비교해 가장 빠른 것을 고르지는 않습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 다음 셀을 실행하는 머신에서 `print(device, y.device)`는 무엇을 출력할까요?
#
# - `cuda:0 cuda:0`
# - `cpu cpu`
# - `cuda cuda:0`

# %%
# 쓸 수 있는 가속기가 있으면 그것을, 없으면 CPU를 반환한다
def pick_device() -> torch.device:
    if torch.accelerator.is_available():
        return torch.accelerator.current_accelerator()
    return torch.device("cpu")


device = pick_device()
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(3, 4, device=device)
y = model(x)
print(device, y.device)

# %% tags=["claim-O5", "gpu-only", "answer"]
assert y.device.type == device.type
assert (device.type == "cuda") == cuda_ok
assert device.index is None
if cuda_ok:
    assert y.device == torch.device("cuda", torch.cuda.current_device())

# %% [markdown] tags=["answer"]
# **정답:** 쓸 수 있는 가속기가 없는 머신에서는 `cpu cpu`가 출력됩니다. `pick_device()`가 CPU를 고르기 때문입니다.
#
# - `cuda cuda:0`: CUDA GPU를 쓸 수 있는 머신에서 나오며, 그런 머신에서는 위 검증 셀이 이 출력을 확인합니다. 도우미 함수가 반환한 디바이스에는 인덱스가 없지만, 텐서는 항상 특정 GPU 하나에 만들어집니다. 인덱스가 없으면 현재 디바이스가 쓰이고, 현재 디바이스를 따로 바꾸지 않았다면 0번 GPU입니다.
# - `cuda:0 cuda:0`은 나오지 않습니다. `current_accelerator()`는 인덱스 없는 디바이스를 반환하므로 첫 번째 값인 `device`는 `cuda`로 출력됩니다.

# %% [markdown]
# 인덱스가 없는 가속기 디바이스는 "그 종류의 현재 디바이스"를 뜻합니다. 현재 디바이스를 바꾸는 방법은 '[여러 GPU](05-several-gpus.ipynb#현재-디바이스)' 페이지에서 다룹니다.

# %% [markdown]
# ## 정수 디바이스의 의미
#
# 오래된 코드에는 "첫 번째 GPU"라는 뜻으로 `torch.device(0)`, `device=0`, `.to(0)`이라고 쓴 곳이 있습니다. PyTorch 2.4까지는 정수가 항상 CUDA 디바이스의 인덱스였습니다. 2.5부터는 정수 n이 "현재 가속기의 n번 디바이스"를 뜻하므로, 0은 NVIDIA 머신에서는 `cuda:0`, Mac에서는 `mps:0`, Intel GPU 머신에서는 `xpu:0`이 됩니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 다음 셀을 실행하는 머신에서 `device=0`은 무엇이 될까요?
#
# - `device(type='cpu')`
# - `Cannot access accelerator device when none is available`
# - `device(type='cuda', index=0)`

# %%
try:
    print(f"{torch.device(0)=}")
    t = torch.zeros(2, device=0)
    print(f"{t.device=}")
except RuntimeError as err:
    error = err
    print(f"{type(err).__name__}: {err}", file=sys.stderr)
else:
    error = None

# %% tags=["claim-O1", "gpu-only", "answer"]
usable = torch.accelerator.is_available()
# 2.7부터 current_accelerator()는 이 PyTorch 빌드가 지원하는 가속기의
# 종류를 알려 준다(없으면 None). 2.6에서는 쓸 수 있는 가속기가 없으면
# 예외가 발생하므로 그때는 호출하지 않는다
if usable or TORCH >= (2, 7):
    built_for = torch.accelerator.current_accelerator()
else:
    built_for = None
print(f"{usable=}, {built_for=}")

if usable:
    assert error is None
    assert torch.device(0) == t.device == torch.device(built_for.type, 0)
elif built_for is None:
    assert "Cannot access accelerator device" in str(error)
    assert pick_device() == torch.device("cpu")
else:  # 가속기용 빌드지만 여기서는 가속기를 쓸 수 없다
    assert torch.device(0) == torch.device(built_for.type, 0)
    assert isinstance(error, RuntimeError)  # 메시지는 드라이버에 따라 다르다

# %% [markdown] tags=["answer"]
# **정답:** 머신과 설치된 PyTorch 빌드·버전에 따라 달라집니다. 이 머신의 결과는 위 검증 셀에서 확인했습니다.
#
# - `Cannot access accelerator device when none is available`: CPU 전용 빌드를 쓰거나, PyTorch 2.6에서 쓸 수 있는 가속기가 없으면 0이 가리킬 디바이스가 없습니다. 그래서 텐서를 만들기도 전에 `torch.device(0)`에서 바로 이 `RuntimeError`가 발생합니다.
# - `device(type='cuda', index=0)`: CUDA 머신에서는 0이 `cuda:0`을 가리킵니다. 2.7부터는 GPU가 없는 머신이라도 CUDA 빌드라면 `0`이 `cuda:0`으로 해석되고, 오류는 그 디바이스에 텐서를 만들 때에야 발생합니다.
# - `device(type='cpu')`는 나오지 않습니다. 정수 디바이스가 CPU를 가리키는 일은 없습니다.

# %% [markdown]
# 이처럼 정수 하나가 어느 머신에서나 같은 종류의 디바이스를 가리키지는 않으며, CPU만 있는 머신에서는 아예 오류가 납니다. 그러니 정수 대신 도우미 함수가 반환한 디바이스를 넘기세요. 특정 GPU를 지정해야 한다면 `"cuda:0"`처럼 종류와 인덱스를 함께 적으세요.

# %% [markdown]
# ## 정리
#
# - `torch.cuda.is_available()`은 CUDA를 쓸 수 있는지만 알려 줍니다.
# - `torch.accelerator.is_available()`과 `current_accelerator()`(2.6 이상)는 CUDA, MPS, XPU 등을 다룹니다. 2.7부터 `current_accelerator()`는 머신에 실제로 있는 가속기가 아니라 설치된 PyTorch 빌드가 지원하는 가속기 종류를 알려 주며, 지원하는 가속기가 없으면 `None`이 나옵니다. 2.6에서는 쓸 수 있는 가속기가 없으면 예외가 발생합니다. 먼저 `is_available()`을 확인하세요.
# - 쓸 수 있는 가속기가 있으면 그것을, 없으면 CPU를 고르는 `pick_device()` 도우미 함수 하나로 스크립트를 어디서나 실행할 수 있습니다.
# - 2.5부터 정수 디바이스 n은 현재 가속기의 n번 디바이스를 뜻하며, CUDA라는 보장은 없습니다. 쓸 수 있는 가속기가 없는 머신에서는 오류가 납니다(PyTorch 2.7 이상의 CUDA 빌드라면 텐서를 만들 때 납니다).
