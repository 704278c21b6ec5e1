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
# # 팩트체크: 자주 보는 주장 검증하기
#
# 모델을 GPU로 옮기는 방법을 다룬 블로그 글과 Q&A 답변에는 몇 가지 주장이 되풀이해서 나옵니다. 그중 일부는 처음부터 틀렸고, 나머지는 예전 릴리스(PyTorch 1.7)에서는 맞았지만 그 뒤로 바뀌었습니다. 이 페이지에서는 주장을 하나씩 소개하고 판정을 내린 다음, 사용 중인 머신에서 코드를 실행해 직접 검증합니다.
#
# 모든 판정은 `assert`로 검증합니다. 이후 PyTorch 릴리스에서 동작이 바뀌면 검증이 실패하므로, 페이지 내용이 낡았다는 것을 바로 알 수 있습니다.
#
# - 모든 코드는 GPU 없이도 실행됩니다.
# - GPU가 필요한 부분은 GPU가 없을 때 건너뛰고, 어떤 조건이 맞지 않았는지(`torch.cuda.is_available()=False` 등)만 출력하거나 GPU가 없을 때의 동작을 확인합니다.
# - 결과가 머신마다 다를 때는 실행 중인 머신에 맞는 결과가 나오는지 확인합니다.
# - 예상한 오류는 첫 번째 셀에서 정의하는 `expect_error`가 잡아서 출력하므로 노트북이 멈추지 않습니다.

# %% [markdown] tags=["summary"]
# **요약**
#
# - `model.to(device)`만으로 모델이 옮겨집니다. `Module.to`는 모듈 자체를 바꾸고 같은 모듈을 반환하므로, `model = model.to(device)`로 써도 하는 일은 같고, 메모리가 절약되지도 않습니다.
# - `nn.DataParallel`은 모델을 옮겨 주지 않습니다(디바이스 ID가 하나일 때만 예외입니다). `device=0`은 현재 가속기의 0번 디바이스이며, `cuda:0`이라는 보장은 없습니다.
# - 주장별 판정은 페이지 끝의 표에 모아 두었습니다.
#
# ```python
# model.to(device)
# x = x.to(device)
# ```

# %% tags=["setup"]
import contextlib
import copy
import inspect
import sys
import types
import weakref

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
# ## 주장: model.to(device)만으로는 모델이 옮겨지지 않는다
#
# **주장:** `model.to(device)`만 호출하면 모델에는 아무 변화가 없고, `model = model.to(device)`처럼 다시 대입해야 비로소 GPU에 올라간다.
#
# 검증에서는 모델을 GPU로 옮기고, GPU가 없으면 대신 `meta` 디바이스로 옮깁니다. `meta` 디바이스의 텐서에는 모양(shape)과 dtype만 있고 데이터는 없습니다. 매개변수가 어디로 갔는지, 어떤 객체가 반환되는지는 확인할 수 있지만 속도나 메모리에 대해서는 알 수 없습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `model`에 다시 대입하지 않고 `returned = model.to(target)`을 실행합니다. 다음 셀은 `returned`가 `model` 자신인지, 그리고 모델의 가중치가 대상 디바이스에 있는지(`moved`)를 출력합니다. 결과는 무엇일까요?
#
# - `returned is model=False, moved=False`
# - `returned is model=False, moved=True`
# - `returned is model=True, moved=True`

# %%
target = device if device.type == "cuda" else torch.device("meta")

model = nn.Linear(4, 2)
weight_before = model.weight
returned = model.to(target)

moved = model.weight.device.type == target.type
print(f"{returned is model=}, {moved=}")

# %% tags=["claim-M1", "gpu-only", "answer"]
assert returned is model
assert model.weight.device.type == target.type
assert model.bias.device.type == target.type
# CPU와 GPU 사이에서는 Parameter가 그대로, meta로 옮기면 교체된다
assert (model.weight is weight_before) == (target.type == "cuda")

# %% [markdown] tags=["answer"]
# **정답:** `returned is model=True, moved=True`입니다. **판정: 틀림**. `nn.Module.to`는 새 모듈을 만들지 않고 모듈 자체를 변환한 뒤, 그 모듈 자신을 반환합니다. 그래서 다시 대입하든 안 하든 `model`은 이미 옮겨져 있습니다. 다시 대입해도 문제는 없지만, 이동이 일어나는 것은 대입 덕분이 아닙니다.
#
# - `returned is model=False, moved=False`는 주장을 그대로 믿은 답입니다. 옮긴 복사본을 반환하고 원래 `model`은 그대로 두는 것은 `Tensor.to`의 동작입니다. `Module.to`는 그렇지 않습니다.
# - `returned is model=False, moved=True`가 나오려면 옮겨진 `model`과 별개로 모듈이 하나 더 생겨야 합니다. 그런 모듈은 만들어지지 않으므로 이 조합은 나오지 않습니다.
#
# 대상 디바이스에 따른 차이가 하나 있습니다. CPU와 GPU 사이에서 옮기면 `Parameter` 객체가 그대로 유지되지만, `meta`로 옮기면 새 객체로 교체됩니다. 위 검증 셀은 이번 실행에 해당하는 경우(GPU 또는 `meta`)만 확인합니다.

# %% [markdown]
# 모듈의 다른 변환 메서드(`.cpu()`, `.double()`, `.half()`, `.float()`, 그리고 뒤에서 다룰 `.cuda()`)도 같은 규칙을 따릅니다. 모듈 자체를 변환하고 모듈 자신을 반환합니다.

# %% tags=["claim-M1"]
other = nn.Linear(4, 2)
for convert in (other.double, other.half, other.float, other.cpu):
    assert convert() is other

print(other.weight.dtype, other.weight.device)
assert other.weight.dtype == torch.float32

# %% [markdown]
# 이런 주장이 나온 것은 텐서가 정말로 그렇게 동작하기 때문입니다. `Tensor.to`는 원래 텐서를 그대로 두고 새 디바이스에 있는 텐서를 반환합니다. 그래서 텐서를 옮길 때는 반환값을 받아 두어야 합니다.

# %% tags=["claim-M1"]
t = torch.ones(3)
moved = t.to(target)

print(t.device, moved.device)
assert moved is not t
assert t.device.type == "cpu"
assert moved.device.type == target.type

# %% [markdown]
# ## 주장: 모델을 다시 대입하면 메모리가 절약된다
#
# **주장:** 대입 없이 `model.to(device)`만 쓰면 모델 복사본이 하나 더 남으므로, `model = model.to(device)`로 써야 메모리를 덜 쓴다.
#
# **판정: 틀림**. 두 표기 모두 같은 객체의 같은 메서드를 호출하므로 하는 일도 같습니다. 각 매개변수를 변환해서 모듈에 다시 넣을 뿐입니다. 모듈은 더 이상 예전 텐서를 참조하지 않으므로, 다른 곳에 참조가 남아 있지 않다면 예전 텐서는 바로 해제됩니다.
#
# 아래 셀에서는 모델을 두 개 만들어 하나는 대입 없이, 하나는 다시 대입하는 방식으로 변환합니다. CPU에서 float32를 float64로 변환하는데, 이 변환도 다른 디바이스로 옮길 때처럼 새 메모리를 할당합니다. 예전 스토리지에 대한 약한 참조(weakref)는 스토리지를 붙잡아 두지 않으므로, 이 참조로 예전 스토리지가 사라졌는지 확인할 수 있습니다.

# %% tags=["claim-M2"]
def weak_storages(module):
    return [weakref.ref(p.untyped_storage()) for p in module.parameters()]


a = nn.Linear(256, 256)
b = nn.Linear(256, 256)
a_object, b_object = a, b
a_old, b_old = weak_storages(a), weak_storages(b)
assert all(ref() is not None for ref in a_old + b_old)

a.to(torch.float64)
b = b.to(torch.float64)

for module, original, old in ((a, a_object, a_old), (b, b_object, b_old)):
    assert module is original
    dtypes = [p.dtype for p in module.parameters()]
    assert dtypes == [torch.float64, torch.float64]
    assert all(ref() is None for ref in old)

print(a.weight.dtype, b.weight.dtype, [ref() for ref in a_old + b_old])

# %% [markdown]
# GPU에서 "해제된다"는 것은 PyTorch의 캐싱 할당자에 반환된다는 뜻입니다. 할당자는 그 메모리를 다음 텐서를 위해 남겨 둡니다.
#
# - `torch.cuda.memory_allocated()`(텐서가 실제로 쓰는 메모리)는 바로 줄어듭니다.
# - `torch.cuda.memory_reserved()`(할당자가 확보해 둔 메모리)는 줄지 않습니다.
# - `nvidia-smi`는 이렇게 확보된 메모리를 세므로, 여기서도 변화가 보이지 않습니다.
#
# `torch.cuda.empty_cache()`를 호출해야 쓰지 않는 부분이 드라이버에 반환됩니다. PyTorch 공식 문서의 [CUDA 메모리 관리 설명](https://docs.pytorch.org/docs/stable/notes/cuda.html#memory-management)(영어)에도 같은 내용이 있습니다.
#
# GPU가 있으면 아래 셀은 크기가 같은 모델 두 개를 각각 다른 표기로 GPU에 옮기고, 두 방식이 쓴 GPU 메모리가 같은지를 이동 직후 사용량과 최대 사용량으로 비교합니다. 이어서 각 모델을 삭제하고, `empty_cache()` 전후로 `memory_allocated()`와 `memory_reserved()` 값이 어떻게 바뀌는지 확인합니다.

# %% tags=["claim-M2", "gpu-only"]
if torch.cuda.is_available():
    used = []
    for reassign in (False, True):
        m = nn.Linear(1024, 1024)
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        if reassign:
            m = m.to(device)
        else:
            m.to(device)
        torch.cuda.synchronize()
        after = torch.cuda.memory_allocated()
        peak = torch.cuda.max_memory_allocated()
        used.append((after - before, peak - before))
        reserved = torch.cuda.memory_reserved()
        del m  # 마지막 참조: 메모리는 캐시로 돌아간다
        assert torch.cuda.memory_allocated() == before
        assert torch.cuda.memory_reserved() == reserved  # 아직 확보된 상태
    print(f"{used=}")
    assert used[0] == used[1]
    torch.cuda.empty_cache()
    print(f"{reserved=}, {torch.cuda.memory_reserved()=}")
    assert torch.cuda.memory_reserved() < reserved  # 드라이버에 반환되었다
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 주장: torch.cuda.copy()로 매개변수를 GPU에 복사한다
#
# **주장:** `torch.cuda.copy()`라는 함수가 있어서 모델 매개변수를 GPU로 복사해 준다.
#
# 검증에서는 주장대로 텐서를 넘겨 호출해 봅니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `torch.cuda.copy(torch.ones(3))`을 호출하면, GPU가 있든 없든 어떤 오류가 날까요?
#
# - `Torch not compiled with CUDA enabled`
# - `has no attribute 'copy'`
# - `missing 1 required positional argument`

# %%
with expect_error(Exception) as caught:
    torch.cuda.copy(torch.ones(3))

# %% tags=["claim-M3", "answer"]
assert type(caught.error) is AttributeError
assert "has no attribute 'copy'" in str(caught.error)
assert not hasattr(torch.cuda, "copy")

# %% [markdown] tags=["answer"]
# **정답:** `has no attribute 'copy'`(`AttributeError`, "`torch.cuda`에 `copy` 속성이 없다")입니다. **판정: 틀림**. 그런 함수는 없으므로 GPU가 있든 없든 똑같이 실패합니다.
#
# - `Torch not compiled with CUDA enabled`("Torch가 CUDA를 지원하도록 컴파일되지 않았다")는 함수는 있는데 CUDA가 없어서 실패하는 상황을 떠올린 선택지입니다. 하지만 애초에 그런 함수가 없습니다.
# - `missing 1 required positional argument`("필수 위치 인자 하나가 빠졌다")도 함수가 있어야 나올 수 있는 오류입니다. 실제 호출은 인자를 검사하는 단계까지 가지도 못하고, 속성을 찾는 시점에 실패합니다.

# %% [markdown]
# 실제로 쓸 도구는 따로 있습니다.
#
# - `dst.copy_(src)`: 이미 있는 텐서에 값을 복사합니다(디바이스는 상관없습니다).
# - `t.to(device)`: 해당 디바이스에 있는 텐서를 반환합니다.
# - `t.clone()`: 같은 디바이스에 새 메모리를 할당해 복사합니다.
#
# 모델 전체를 옮길 때는 `model.to(device)`를 씁니다.

# %% tags=["claim-M3"]
src = torch.arange(4.0)
dst = torch.empty(4, device=device)
dst.copy_(src)
moved = src.to(device)
cloned = src.clone()

print(dst, moved, cloned)
assert torch.equal(dst.cpu(), src)
assert torch.equal(moved.cpu(), src)
assert torch.equal(cloned, src) and cloned.data_ptr() != src.data_ptr()

# %% [markdown]
# ## 주장: model.cuda()는 model.to('cuda')보다 메모리를 더 쓴다
#
# **주장:** `.cuda()`는 모델을 옮기는 비싼 방법이고, `.to('cuda')`가 메모리를 덜 쓴다.
#
# **판정: 틀림**. 둘 다 같은 내부 메서드 `Module._apply`를 호출하는 짧은 래퍼이고, 실제로 모든 매개변수와 버퍼를 변환하는 것은 이 메서드입니다. 어떤 머신에서든 소스 코드를 직접 읽어 확인할 수 있습니다.

# %% tags=["claim-M4"]
for name in ("cuda", "to", "cpu", "double"):
    assert "self._apply(" in inspect.getsource(getattr(nn.Module, name)), name

print(inspect.getsource(nn.Module.cuda).strip().splitlines()[-1].strip())
print(inspect.signature(nn.Module.cuda))
assert "dtype" not in inspect.signature(nn.Module.cuda).parameters

# %% [markdown]
# 인덱스를 붙이지 않으면 둘 다 현재 CUDA 디바이스를 씁니다. 실제 차이는 받는 인자에 있습니다. `.cuda()`는 위에 출력한 시그니처처럼 디바이스 하나만 받습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `nn.Linear(2, 2).to(target, torch.float16)`은 한 번의 호출로 디바이스와 dtype을 함께 넘깁니다. 다음 셀은 가중치의 디바이스와 dtype을 출력합니다. 가중치의 dtype은 무엇이 될까요? 아니면 오류가 날까요?
#
# - `torch.float32`
# - `TypeError`
# - `torch.float16`

# %%
both = nn.Linear(2, 2).to(target, torch.float16)
print(both.weight.device, both.weight.dtype)

# %% tags=["claim-M4", "answer"]
assert both.weight.device.type == target.type
assert both.weight.dtype == torch.float16
with expect_error(TypeError):
    nn.Linear(2, 2).cuda(target, torch.float16)  # 디바이스만 받는다

# %% [markdown] tags=["answer"]
# **정답:** `torch.float16`입니다. `Module.to`는 디바이스와 dtype을 함께 받아 둘 다 변환합니다. `.cuda()`는 디바이스만 받으므로 dtype을 바꿀 수 없고, dtype까지 넘기면 `TypeError`가 발생합니다. 이 `TypeError`는 바로 위 셀의 마지막 줄에서 확인했습니다. 출력된 메시지는 "`Module.cuda()`는 위치 인자를 1~2개 받는데 3개가 주어졌다"는 뜻이며, 이 개수에는 `self`도 들어갑니다.
#
# - `torch.float32`를 예상했다면 `to`가 dtype 인자를 무시한다고 본 것입니다.
# - `TypeError`를 고르기 쉬운 것은 `Module.to`도 `.cuda()`처럼 디바이스만 받는다고 여기기 때문입니다. 하지만 이 오류는 `.cuda()`에 dtype까지 넘겼을 때만 납니다.

# %% [markdown]
# GPU가 있는 머신에서는 아래 셀이 똑같은 모델 두 개를 각각 다른 메서드로 옮기고, 사용한 메모리와 옮겨 간 위치가 같은지 검증합니다.

# %% tags=["claim-M4", "gpu-only"]
if torch.cuda.is_available():
    by_cuda = nn.Linear(1024, 1024)
    by_to = copy.deepcopy(by_cuda)
    used = []
    for move in (by_cuda.cuda, lambda: by_to.to("cuda")):
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        move()
        torch.cuda.synchronize()
        after = torch.cuda.memory_allocated()
        peak = torch.cuda.max_memory_allocated()
        used.append((after - before, peak - before))
    print(used, by_cuda.weight.device, by_to.weight.device)
    assert used[0] == used[1]
    assert by_cuda.weight.device == by_to.weight.device
    current = torch.device("cuda", torch.cuda.current_device())
    assert by_cuda.weight.device == current
    assert torch.equal(by_cuda.weight, by_to.weight)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 주장: nn.DataParallel이 모델을 GPU로 옮겨 준다
#
# **주장:** 모델을 `nn.DataParallel`로 감싸면 GPU로 옮기는 일까지 알아서 해 준다.
#
# **판정: 대체로 틀림**. 결과는 래퍼가 실제로 사용할 디바이스 ID(`device_ids`, 지정하지 않으면 인식되는 모든 GPU)가 몇 개인지에 따라 달라집니다.
#
# - 가속기가 없거나, `DataParallel`이 지원하지 않는 Apple GPU(MPS)만 있을 때: `device_ids`가 빈 목록이 되고, 래퍼는 모델을 옮기지 않고 그대로 호출합니다.
# - 디바이스 ID가 정확히 하나일 때: 생성자가 모델을 그 GPU로 옮깁니다. GPU가 하나인 머신에서는 기본적으로 이렇게 동작합니다. GPU가 여러 개인 머신에서 `device_ids=[1]`을 넘길 때도 마찬가지여서, 모델이 `cuda:1`로 옮겨집니다.
# - 디바이스 ID가 두 개 이상일 때: 래퍼는 아무것도 옮기지 않으며, 첫 순전파에서 "매개변수와 버퍼가 `device_ids[0]`에 있어야 한다"는 오류가 납니다.
#
# 여기서는 Intel XPU처럼 `DataParallel`이 다룰 수 있는 다른 가속기도 GPU로 칩니다([여러 GPU](05-several-gpus.ipynb#nndataparallel이-실제로-하는-일) 참고). 다음 셀에서 실행 중인 머신이 어느 경우에 해당하는지 직접 확인해 봅시다. GPU가 여러 개이면 디바이스 ID를 하나만 넘겨 감싼 경우도 확인하고, GPU가 없으면 첫 번째 경우만 확인합니다.
#
# 디바이스 ID가 두 개 이상일 때 나는 이 오류의 원인과 해결 방법은 [디바이스 불일치 오류 읽는 법](07-device-errors.ipynb#module-must-have-its-parameters-and-buffers-on-device-cuda0-device_ids0-but-found-one-of-them-on-device-cpu)에서 자세히 다룹니다.

# %% tags=["claim-M5", "gpu-only"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(3, 4)
print(f"{dp.device_ids=}, {model.weight.device=}")
assert dp.module is model

if len(dp.device_ids) == 0:
    out = dp(x)
    assert model.weight.device.type == "cpu"
    assert out.device.type == "cpu"
elif len(dp.device_ids) == 1:
    out = dp(x)
    on = model.weight.device
    assert on.type != "cpu" and on.index == dp.device_ids[0]
    assert out.device == on
else:
    assert model.weight.device.type == "cpu"
    expected = "module must have its parameters and buffers on device"
    with expect_error(RuntimeError, expected):
        dp(x)
    last = dp.device_ids[-1]
    one = nn.DataParallel(nn.Linear(4, 2), device_ids=[last])
    print(f"{one.module.weight.device=}")
    assert one.module.weight.device == torch.device("cuda", last)

# %% [markdown]
# 그러니 감싸기 전에 모델을 직접 옮기세요. 그러면 GPU 개수와 상관없이 동작합니다. 두 가지를 더 알아 두면 좋습니다.
#
# - 래퍼는 `state_dict`의 모든 키 앞에 `module.`을 붙입니다. 접두사 없는 키가 필요하면 `dp.module.state_dict()`를 저장하세요.
# - `DataParallel` 공식 문서도 여러 GPU로 학습한다면 머신이 한 대뿐이어도 `DistributedDataParallel`을 쓰라고 권장합니다.

# %% tags=["claim-M5"]
wrapped = nn.DataParallel(nn.Linear(4, 2).to(device))
out = wrapped(torch.randn(3, 4))
print(out.device, list(wrapped.state_dict()), list(wrapped.module.state_dict()))

assert out.device.type == device.type
assert list(wrapped.state_dict()) == ["module.weight", "module.bias"]
assert list(wrapped.module.state_dict()) == ["weight", "bias"]
assert "recommended to use" in nn.DataParallel.__doc__
assert "DistributedDataParallel" in nn.DataParallel.__doc__

# %% [markdown]
# ## 주장: GPU에 올린 Linear(10, 1)에 torch.randn(10, 1)을 넣을 수 있다
#
# **주장:** 널리 퍼진 예제대로 `nn.Linear(10, 1)`을 디바이스로 옮긴 다음 CPU에서 만든 `torch.randn(10, 1)`을 넣어 호출하면 동작한다.
#
# **판정: 틀림(버그 두 개)**. 계층은 GPU에 있는데 입력은 CPU에 남아 있고, 모양도 틀렸습니다. `Linear(10, 1)`은 마지막 차원에 특징(feature)이 10개 있는 `(N, 10)` 모양의 입력을 받습니다. 예제 그대로 실행하면 어떤 머신에서든 실패합니다.
#
# 어느 버그가 먼저 드러나는지는 머신에 따라 다르고, 다음 셀의 출력도 그에 따라 달라집니다. GPU가 있는 머신에서는 모양 검사보다 디바이스 검사가 먼저 실행되므로 디바이스 불일치 오류가 납니다. CPU만 있는 머신에서는 모든 텐서가 CPU에 있으므로 모양 오류만 납니다. 모양 오류의 메시지 `mat1 and mat2 shapes cannot be multiplied`는 "`mat1`과 `mat2`의 모양으로는 행렬 곱을 할 수 없다"는 뜻입니다.

# %% tags=["gpu-only"]
net = nn.Linear(10, 1).to(device)
x = torch.randn(10, 1)
first = "shapes cannot be multiplied"  # CPU만 있는 머신
if device.type == "cuda":
    first = "same device"  # 디바이스 검사가 먼저 실행된다
with expect_error(RuntimeError, first):
    net(x)

# %% [markdown]
# 입력을 디바이스로 옮기는 것(`x = x.to(device)`)만으로는 부족합니다. 모양 오류는 그대로 남습니다.

# %%
x = x.to(device)
with expect_error(RuntimeError, "shapes cannot be multiplied"):
    net(x)

# %% [markdown]
# 해결 방법: 특징이 10개인 샘플 `N`개로 이루어진 배치를 계층과 같은 디바이스에 만듭니다.

# %% tags=["claim-M6"]
N = 4
x = torch.randn(N, 10, device=device)
y = net(x)

print(y.shape, y.device)
assert y.shape == (N, 1)
assert y.device == net.weight.device

# %% [markdown]
# ## 오래된 정보: 정수 디바이스는 CUDA GPU를 뜻한다
#
# **예전(PyTorch 1.7):** `torch.device(0)`과 `device=0`은 `cuda:0`의 줄임말이었습니다.
#
# **지금:** PyTorch 2.5부터 정수는 현재 **가속기**에서 그 번호의 디바이스를 뜻합니다. 가속기는 CUDA일 수도 있고, Apple의 MPS나 Intel의 XPU일 수도 있습니다. 가속기를 전혀 지원하지 않는 torch 빌드(CPU 전용 휠 등)에서는 다음 오류가 발생합니다.
#
# ```
# Cannot access accelerator device when none is available.
# ```
#
# "쓸 수 있는 가속기가 없어서 가속기 디바이스에 접근할 수 없다"는 뜻입니다. 가속기를 지원하는 빌드라도 쓸 수 있는 GPU가 없는 머신이라면 역시 오류가 납니다. 정수가 CPU를 뜻하는 경우는 없습니다.
#
# CUDA를 가리키려면 `"cuda:0"`이라고 쓰세요. 다음 셀에서 실행 중인 머신의 결과를 확인합니다.
#
# 자세한 내용은 [불러오기·환경·메모리 오류 읽는 법](09-setup-and-memory-errors.ipynb#cannot-access-accelerator-device-when-none-is-available)을 보세요.

# %% tags=["claim-O1", "gpu-only"]
cpu_only_build = (
    torch.version.cuda is None
    and torch.version.hip is None
    and getattr(torch.version, "xpu", None) is None
    and not torch.backends.mps.is_built()
)
try:
    result = torch.zeros(1, device=torch.device(0)).device
except (RuntimeError, AssertionError) as err:
    result = err

print(cpu_only_build, repr(result))
assert isinstance(result, Exception) or result.type != "cpu"
if torch.cuda.is_available():
    assert result == torch.device("cuda", 0)
elif cpu_only_build and TORCH >= (2, 5):
    assert "none is available" in str(result)

# %% [markdown]
# ## 오래된 정보: 텐서에는 is_cpu 속성이 없다
#
# **예전(PyTorch 1.7):** `t.is_cuda`는 있었지만 `t.is_cpu`는 없어서 대신 `t.device.type`을 비교했습니다.
#
# **지금:** `Tensor.is_cpu`는 PyTorch 1.13부터 있습니다.

# %% tags=["claim-O2"]
t = torch.ones(2, device=device)
print(t.is_cpu, t.is_cuda, t.device)
assert hasattr(torch.Tensor, "is_cpu")
assert t.is_cpu == (t.device.type == "cpu")
assert t.is_cuda == (t.device.type == "cuda")
assert torch.ones(1).is_cpu

# %% [markdown]
# ## 오래된 정보: 디바이스 불일치 오류 메시지
#
# **예전(PyTorch 1.7):** CUDA 행렬 곱은 모든 텐서가 GPU에 있는지 검사하고(ATen의 `checkAllSameGPU`) CPU에 있는 텐서를 나열했습니다. 검사 대상은 `addmm(bias, input, weight.T)`의 세 인자 `self`, `mat1`, `mat2`, 그리고 출력 `out`(편향과 같은 디바이스에 만들어짐)이었습니다. 그래서 어느 쪽이 CPU에 남았는지에 따라 메시지가 달랐습니다.
#
# - CPU에 있는 입력을 GPU에 있는 계층에 넣은 경우(`mat1`이 GPU에 없음):
#
#   ```
#   Tensor for argument #2 'mat1' is on CPU, but expected it to be on GPU (while checking arguments for addmm)
#   ```
#
#   "인자 #2 `mat1`이 CPU에 있는데 GPU에 있어야 한다"는 뜻입니다.
#
# - GPU에 있는 입력을 CPU에 남은 계층에 넣은 경우(`out`과 `self`가 GPU에 없음):
#
#   ```
#   Tensor for 'out' is on CPU, Tensor for argument #1 'self' is on CPU, but expected them to be on GPU (while checking arguments for addmm)
#   ```
#
#   "`out`과 인자 #1 `self`가 CPU에 있는데 GPU에 있어야 한다"는 뜻입니다.
#
# **지금:** 두 경우 모두 메시지가 `Expected all tensors to be on the same device`("모든 텐서가 같은 디바이스에 있어야 한다")로 시작합니다. 뒤에는 실행된 연산의 인자 이름이 하나 나옵니다.
#
# 이 검사를 하는 것은 CUDA 커널이 아니라, PyTorch가 디스패처용으로 생성한 래퍼(`wrapper_CUDA_addmm`)입니다. 래퍼는 커널을 실행하기 전에 각 텐서 인자를 첫 번째 인자와 비교해, 디바이스가 다른 인자 가운데 가장 앞에 있는 것의 이름을 알려 줍니다.
#
# 메시지 뒷부분의 문구는 릴리스마다 바뀌어 왔으므로(PyTorch 2.8에서도 달라졌습니다), 로그에서 찾을 때는 공통된 앞부분인 `Expected all tensors to be on the same device`로 검색하세요.
#
# `+`나 `*` 같은 요소별 연산은 TensorIterator(PyTorch 내부의 요소별 연산 실행 구조)를 거치므로, 지금도 메시지가 인자 이름 없이 `but found at least two devices, cuda:0 and cpu!`로 끝납니다. 이 부분은 "디바이스를 적어도 두 개(`cuda:0`과 `cpu`) 발견했다"는 뜻입니다.
#
# 어느 인자의 이름이 나올지는 계층이 실행하는 연산에 달려 있습니다. 편향이 있는 `Linear`에 2차원 입력을 넣으면 `addmm(bias, input, weight.T)`가 실행되고, 이 연산의 인자 이름은 `self`, `mat1`, `mat2`입니다. autograd는 실행된 연산을 결과의 `grad_fn`에 기록하므로, 편향이 없는 계층이 무엇을 실행하는지는 CPU에서도 알 수 있습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `nn.Linear(10, 1, bias=False)`는 2차원 입력에 어떤 연산을 실행할까요? 다음 셀은 그 연산을 기록한 autograd 노드의 이름을 출력합니다.
#
# - `AddmmBackward0`
# - `LinearBackward0`
# - `MmBackward0`

# %%
x = torch.randn(4, 10)
no_bias = nn.Linear(10, 1, bias=False)
print(f"{no_bias(x).grad_fn.name()=}")

# %% tags=["answer"]
assert no_bias(x).grad_fn.name() == "MmBackward0"
assert nn.Linear(10, 1)(x).grad_fn.name() == "AddmmBackward0"

# %% [markdown] tags=["answer"]
# **정답:** `MmBackward0`입니다. 편향이 없으면 더할 것이 없으므로 계층은 `mm(input, weight.T)`를 실행합니다. 이 연산의 인자 이름은 `self`와 `mat2`입니다.
#
# - `AddmmBackward0`을 골랐다면 편향이 없어도 계층이 `addmm`으로 계산한다고 생각했을 겁니다. 이 노드는 편향이 있는 계층이 기록합니다(위 셀의 두 번째 `assert`에서 확인).
# - `LinearBackward0`은 함수 이름 `linear`가 그대로 노드 이름이 된다고 짐작한 경우입니다. 기록되는 것은 `linear` 자체가 아니라 `linear`가 실행하는 연산입니다.
#
# 메시지에 어느 인자 이름이 나오는지는 이 연산의 인자 순서로 정해집니다. 편향이 있으면 첫 번째 인자는 계층과 같은 디바이스에 있는 편향입니다. 그래서 모델과 입력 중 무엇이 GPU에 있든 메시지에는 입력인 `mat1`이 나옵니다. 편향이 없으면 첫 번째 인자가 입력이므로, 이번에는 언제나 가중치인 `mat2`가 나옵니다.
#
# 결국 이름만 보고는 무엇을 옮겨야 할지 알 수 없으니, 모델과 모든 입력을 사용하려는 디바이스 하나에 두세요.
#
# GPU가 있으면 아래 셀은 모델과 입력 중 어느 쪽을 CPU에 남기든 편향이 있는 계층에서는 `mat1`이, 없는 계층에서는 `mat2`가 나오는지 검증합니다. 덧셈에서 나는 메시지의 문구도 확인합니다. CPU만 있는 머신에는 섞을 두 번째 디바이스가 없으므로 이 셀은 충족되지 않은 조건만 출력합니다.
#
# 원인과 해결 방법은 [디바이스 불일치 오류 읽는 법](07-device-errors.ipynb#expected-all-tensors-to-be-on-the-same-device)에 정리해 두었습니다.

# %% tags=["claim-O3", "gpu-only"]
if torch.cuda.is_available():
    MISMATCH = "Expected all tensors to be on the same device"
    for bias, named, other in ((True, "mat1", "mat2"), (False, "mat2", "mat1")):
        gpu_layer = nn.Linear(10, 1, bias=bias).to(device)
        cpu_layer = nn.Linear(10, 1, bias=bias)
        for layer, on in ((gpu_layer, "cpu"), (cpu_layer, device)):
            with expect_error(RuntimeError, MISMATCH) as caught:
                layer(torch.randn(4, 10, device=on))
            assert named in str(caught.error)
            assert other not in str(caught.error)
    with expect_error(RuntimeError, "found at least two devices"):
        torch.ones(2, device=device) + torch.ones(2)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 오래된 정보: 없는 GPU 인덱스를 지정하면 일반 RuntimeError가 발생한다
#
# **예전(PyTorch 1.7):** 없는 GPU를 요청하면(예: GPU가 하나인 머신에서 `t.cuda(1)`) `RuntimeError: CUDA error: invalid device ordinal` 오류("CUDA 오류: 디바이스 번호가 잘못되었다")가 발생했습니다.
#
# **지금:** PyTorch 2.8부터는 같은 오류가 `torch.AcceleratorError`로 발생합니다. `RuntimeError`의 하위 클래스이므로 기존의 `except RuntimeError:` 코드로도 그대로 잡힙니다. GPU가 없는 머신에서는 클래스 관계만 확인합니다.
#
# 자세한 내용은 [불러오기·환경·메모리 오류 읽는 법](09-setup-and-memory-errors.ipynb#cuda-error-invalid-device-ordinal)을 보세요.

# %% tags=["claim-O4", "gpu-only"]
if hasattr(torch, "AcceleratorError"):
    print(torch.AcceleratorError.__mro__)
    assert issubclass(torch.AcceleratorError, RuntimeError)
else:
    print(f"{hasattr(torch, 'AcceleratorError')=}")

if torch.cuda.is_available():
    missing = torch.cuda.device_count()
    try:
        torch.zeros(1).to(f"cuda:{missing}")
    except RuntimeError as err:
        print(type(err).__name__, str(err).splitlines()[0])
        assert "invalid device ordinal" in str(err)
        if hasattr(torch, "AcceleratorError"):
            assert isinstance(err, torch.AcceleratorError)
    else:
        raise AssertionError("expected a RuntimeError")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 오래된 정보: 디바이스는 torch.cuda.is_available()로 고른다
#
# **예전(PyTorch 1.7):** `"cuda" if torch.cuda.is_available() else "cpu"`가 흔히 쓰는 방법이었습니다.
#
# **지금:** NVIDIA GPU에서는 이 방법이 여전히 잘 동작하며, 이 페이지에서도 씁니다. 어느 가속기에서나 쓸 수 있는 방법으로는 `torch.accelerator` 모듈(PyTorch 2.6 이상)이 있습니다. 이 모듈은 CUDA, MPS, XPU 등을 모두 인식합니다. `torch.accelerator.current_accelerator()`는 사용 중인 torch 빌드가 지원하는 가속기를 알려 주고, 지원하는 가속기가 없으면 `None`을 반환합니다(`None`을 반환하는 동작은 PyTorch 2.7부터입니다). 이 값은 빌드에 대한 정보이므로, 지금 실제로 디바이스를 쓸 수 있는지 알려 주는 `torch.accelerator.is_available()`과 함께 쓰세요.
#
# 아래 셀은 이 방법으로 디바이스를 고릅니다. GPU가 있으면 CUDA가 선택되는지 검증하고, GPU가 없으면 CUDA가 선택되지 않는다는 것만 확인합니다. PyTorch 2.6에서는 검사 없이 설치된 버전 `TORCH=(2, 6)`만 출력합니다.

# %% tags=["claim-O5", "gpu-only"]
if TORCH >= (2, 7):
    accelerator = torch.accelerator.current_accelerator()
    usable = torch.accelerator.is_available()
    picked = torch.device("cpu")
    if accelerator is not None and usable:
        picked = accelerator
    print(accelerator, usable, picked)

    assert (picked.type == "cuda") == torch.cuda.is_available()
    if torch.cuda.is_available():
        assert accelerator.type == "cuda" and usable
    if cpu_only_build:
        assert accelerator is None and not usable
else:
    print(f"{TORCH=}")

# %% [markdown]
# ## 정리
#
# | 주장 | 판정 | 실제로는 |
# |---|---|---|
# | `model.to(device)`만으로는 모델이 옮겨지지 않는다 | 틀림 | `Module.to`는 모듈 자체를 변환하고 같은 모듈을 반환 |
# | `model = model.to(device)`가 메모리를 아낀다 | 틀림 | 두 표기는 같은 일을 하며, 복사본은 남지 않음 |
# | `torch.cuda.copy()`로 매개변수를 GPU에 복사한다 | 틀림 | 존재하지 않음. `copy_`, `to`, `clone`을 사용 |
# | `.cuda()`가 `.to('cuda')`보다 메모리를 더 쓴다 | 틀림 | 둘 다 `Module._apply`를 거침. `.cuda()`는 dtype을 못 바꿈 |
# | `nn.DataParallel`이 모델을 GPU로 옮겨 준다 | 대체로 틀림 | 디바이스 ID가 정확히 하나(`len(device_ids) == 1`)일 때만 옮김. 직접 옮길 것 |
# | `Linear(10, 1)`에 CPU의 `torch.randn(10, 1)`을 넣을 수 있다 | 틀림 | 디바이스도 모양도 틀림. `torch.randn(N, 10, device=device)`를 사용 |
# | `device=0`은 `cuda:0`이다 | 오래된 정보 | 현재 가속기의 0번 디바이스(PyTorch 2.5부터) |
# | 텐서에는 `is_cpu`가 없다 | 오래된 정보 | `Tensor.is_cpu`가 있음(PyTorch 1.13부터) |
# | 디바이스 불일치 오류 메시지는 예전과 같다 | 오래된 정보 | `Expected all tensors to be on the same device`로 검색. 뒤에 나오는 인자 이름은 실행된 연산에 따라 다름 |
# | 없는 GPU 인덱스는 일반 `RuntimeError`를 일으킨다 | 오래된 정보 | `RuntimeError`의 하위 클래스인 `torch.AcceleratorError`(PyTorch 2.8부터) |
# | 디바이스는 `torch.cuda.is_available()`로 고른다 | 오래된 정보 | CUDA에서는 여전히 동작. 어느 가속기에서나 쓰는 방법은 `torch.accelerator`(PyTorch 2.6 이상. 가속기가 없을 때 `current_accelerator()`가 `None`을 반환하는 것은 PyTorch 2.7부터) |

