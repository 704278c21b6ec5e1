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
# # 디바이스에 텐서 생성하기
#
# 모든 텐서는 정확히 하나의 디바이스에 존재합니다. CPU일 수도, GPU일 수도, `meta` 같은 특수한 디바이스일 수도 있습니다.
# 이 페이지에서는 텐서를 어디에 생성할지 지정하는 방법과 텐서가 어디에 있는지 확인하는 방법을 알아봅니다.
# 아래 셀은 모두 GPU가 없는 머신에서도 실행됩니다. GPU가 필요한 셀은 GPU가 없으면 그렇다고 출력하고 건너뜁니다.

# %%
import torch

print(torch.__version__)
print("CUDA available:", torch.cuda.is_available())

# %% [markdown]
# ## 디바이스 지정하기
#
# `torch.device`는 타입(`cpu`, `cuda`, `mps`, `meta` 등)과 생략 가능한 인덱스로 이루어집니다.
# 문자열로 만들 수도 있고, PyTorch가 디바이스를 받는 곳이라면 어디에든 문자열을 그대로 넘길 수도 있습니다.
# 인덱스 없이 쓴 `cuda`는 특정 GPU가 아니라 "현재 CUDA 디바이스"를 뜻합니다.

# %%
cpu = torch.device("cpu")
gpu0 = torch.device("cuda:0")
gpu = torch.device("cuda")

print(repr(cpu), repr(gpu0), repr(gpu))
assert (gpu0.type, gpu0.index) == ("cuda", 0)
assert (gpu.type, gpu.index) == ("cuda", None)
assert torch.device("cuda", 1) == torch.device("cuda:1")

# %% [markdown]
# `torch.device` 객체를 만들 때는 문자열 표기만 검사할 뿐 하드웨어는 확인하지 않습니다. 그래서 위 셀은 GPU가 없는 머신에서도 실행됩니다.
# 하드웨어는 그 디바이스에 실제로 텐서를 생성할 때만 필요합니다.

# %% [markdown]
# ## 팩토리 함수의 device 인자
#
# `torch.tensor`, `torch.zeros`, `torch.ones`, `torch.randn`, `torch.arange`를 비롯한 팩토리 함수는 모두 `device=` 인자를 받습니다.
# 기본값은 CPU입니다. 문자열을 넘기든 `torch.device`를 넘기든 결과는 같습니다.

# %%
a = torch.tensor([0.1, 0.2])
b = torch.zeros(2, 3, device="cpu")
c = torch.arange(4, device=torch.device("cpu"))

for t in (a, b, c):
    print(t.device)
    assert t.device == torch.device("cpu")

# %% [markdown]
# GPU에 텐서를 생성하려면 CUDA 디바이스를 넘기면 됩니다. 이 셀은 NVIDIA GPU가 필요하며,
# GPU가 없는 머신에서는 그 사실만 출력하고 아무것도 하지 않습니다.

# %%
if torch.cuda.is_available():
    g = torch.ones(2, 3, device="cuda")
    print(g.device)
    assert g.device.type == "cuda"
    assert g.device.index == torch.cuda.current_device()
else:
    print("skipped: no CUDA GPU on this machine")

# %% [markdown]
# ## 텐서 위치 확인하기
#
# 텐서가 어디에 있는지는 `t.device`가 정확히 알려 줍니다. `t.is_cuda`와 `t.is_cpu`는 자주 하는 확인을 짧게 쓰기 위한 단축 속성입니다.
# `is_cpu`는 torch 1.13부터 있습니다(오래된 튜토리얼에는 없다고 적혀 있기도 합니다).

# %% tags=["claim-O2"]
t = torch.randn(3)
print(t.device, t.is_cpu, t.is_cuda)
assert t.is_cpu and not t.is_cuda
assert t.device.type == "cpu"

# %% [markdown]
# 디바이스는 문자열이 아니라 다른 `torch.device`와 비교해야 합니다. CPU 텐서라도 `t.device == "cpu"`는 `False`입니다.
# 어느 GPU든 상관없다면 `.type`을 비교하십시오. `cuda:0`과 `cuda`는 서로 같지 않기 때문입니다.

# %%
print(t.device == torch.device("cpu"), t.device == "cpu", t.device.type == "cpu")
assert t.device == torch.device("cpu")
assert (t.device == "cpu") is False
assert torch.device("cuda:0") != torch.device("cuda")
assert torch.device("cuda:0").type == torch.device("cuda").type

# %% [markdown]
# ## 정수로 디바이스 지정하기
#
# 예전에는 `device=0`이나 `torch.device(0)`이 `cuda:0`을 뜻했습니다. torch 2.5부터 정수는 "현재 가속기에서 그 인덱스에 해당하는 디바이스"를 뜻합니다.
# 가속기는 CUDA일 수도 있고, Apple의 MPS나 Intel의 XPU일 수도 있습니다.
# 가속기가 없는 머신에서 디바이스 `0`에 텐서를 생성하면 오류가 발생합니다.

# %% tags=["claim-O1"]
has_accelerator = torch.cuda.is_available() or (
    hasattr(torch, "accelerator") and torch.accelerator.is_available()
)
try:
    x = torch.zeros(1, device=0)
    print(x.device)
    assert has_accelerator and x.device.index == 0
except RuntimeError as err:
    print(type(err).__name__, err)
    assert not has_accelerator

# %% [markdown]
# ## 매번 지정하지 않고 디바이스에 생성하기
#
# torch 2.0부터는 팩토리 함수가 사용할 기본 디바이스를 지정할 수 있습니다. `with` 블록 안에서만 적용할 수도 있고,
# `torch.set_default_device`로 프로그램 전체에 적용할 수도 있습니다. 텐서를 옮기는 것이 아니라 처음부터 그 디바이스에 생성하므로
# CPU에서 GPU로 복사하는 과정도 필요 없습니다. `device=`를 명시하면 여전히 그 값이 우선합니다.
# 아래 셀은 `meta` 디바이스(다음 섹션에서 설명합니다)를 사용하므로 어떤 머신에서든 실행됩니다.

# %% tags=["claim-F6"]
with torch.device("meta"):
    inside = torch.zeros(2)
    explicit = torch.zeros(2, device="cpu")

outside = torch.zeros(2)
print(inside.device, explicit.device, outside.device)
assert inside.device.type == "meta"
assert explicit.device.type == "cpu"
assert outside.device.type == "cpu"

# %% tags=["claim-F6"]
torch.set_default_device("meta")
try:
    made = torch.ones(3)
    print(made.device)
    assert made.device.type == "meta"
finally:
    torch.set_default_device(None)

assert torch.ones(3).device.type == "cpu"

# %% [markdown]
# GPU 머신에서는 `with torch.device("cuda"):`로도 똑같이 할 수 있습니다.

# %%
if torch.cuda.is_available():
    with torch.device("cuda"):
        w = torch.randn(4, 4)
    print(w.device)
    assert w.is_cuda
else:
    print("skipped: no CUDA GPU on this machine")

# %% [markdown]
# ## meta 디바이스
#
# `meta` 디바이스의 텐서에는 shape와 dtype만 있고 데이터는 없습니다. 그래서 메모리를 차지하지 않고, 어떤 머신에서든 만들 수 있습니다.
# 모델 출력의 shape를 미리 따져 보는 것처럼 계획을 세울 때 유용하고, 이 사이트에서는 GPU가 없을 때 이동이 어떻게 동작하는지 보여 주는 데에도 사용합니다.
# 다만 한계도 있습니다. 출력할 값이 없고, 오류 메시지까지 GPU와 똑같이 재현해 주지는 못합니다.

# %% tags=["claim-F7"]
m = torch.empty(1000, 1000, device="meta")
print(m)
assert m.shape == (1000, 1000) and m.dtype == torch.float32
assert m.is_meta


# %%
try:
    m.tolist()
except (NotImplementedError, RuntimeError) as err:
    print(type(err).__name__)
else:
    raise AssertionError("a meta tensor should have no data to read")

# %% [markdown]
# ## 정리
#
# - 텐서를 생성할 위치는 팩토리 함수의 `device=` 인자나 `with torch.device(...)`로 지정합니다.
# - 텐서의 위치는 `.device`로 확인합니다. `.is_cpu`와 `.is_cuda`는 단축 속성입니다.
# - 정수로 지정한 디바이스는 현재 가속기의 인덱스이며, 반드시 CUDA인 것은 아닙니다.
# - `meta` 텐서는 shape만 있고 데이터는 없으며, 어떤 머신에서든 쓸 수 있습니다.
