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
# # 텐서 옮기기
#
# 텐서를 다른 디바이스로 옮길 때는 `t.to(...)`나 단축 메서드인 `t.cuda()`, `t.cpu()`를 사용합니다. 세 가지 모두 같은 규칙을 따르고, 그 규칙에는 예외가 하나 있습니다. 처음 두 문제에서 그 규칙과 예외를 각각 예측해 보세요.
#
# 이 페이지는 텐서를 다룹니다. `nn.Module.to`는 다른 규칙을 따르므로 [모델 옮기기](03-moving-models.ipynb) 페이지에서 따로 설명합니다.
#
# 모든 셀은 CPU만 있는 머신에서도 실행됩니다. GPU 검증이 들어 있는 셀은 CUDA GPU가 없으면 검증을 건너뛰고 어떤 조건이 맞지 않았는지(`torch.cuda.is_available()=False`)만 출력하거나, GPU가 없을 때의 동작을 검증합니다.
#
# 첫 번째 셀에서는 `expect_error`도 정의합니다. 이 페이지에서는 예상한 오류를 보여 준 뒤 다음 셀로 계속 넘어가도록 이 함수를 씁니다.

# %% [markdown] tags=["summary"]
# **요약**
#
# - `t.to(device)`는 `device`에 있는 텐서를 반환하고, `t`는 원래 자리에 그대로 둡니다. `.to(device)`를 한 뒤에도 텐서가 CPU에 있다면 반환값을 변수에 받지 않았기 때문입니다. `t = t.to(device)`처럼 받아 두세요. `t.cuda()`와 `t.cpu()`도 마찬가지입니다.
# - `t`가 이미 그 디바이스에 있으면 `to`는 복사본이 아니라 `t` 자신을 반환합니다. 독립된 복사본이 필요하면 `clone()`이나 `copy=True`를 쓰세요.
#
# ```python
# x = torch.ones(3)
# x = x.to(device)
# ```

# %% tags=["setup"]
import contextlib
import sys
import time
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
# ## 옮긴 뒤 원래 텐서는 어떻게 될까
#
# GPU가 없어도 텐서를 `meta` 디바이스로 옮겨 보면 `to`를 호출할 때 어떤 일이 일어나는지 확인할 수 있습니다. `meta`는 모든 PyTorch 빌드에 있는 디바이스로, `meta` 텐서에는 모양(shape)과 dtype만 있고 데이터는 없습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `x`는 CPU에 있습니다. `m = x.to("meta")` 다음에 `print(x.device, m.device)`는 무엇을 출력할까요?
#
# - `meta meta`
# - `cpu meta`
# - `cpu cpu`

# %%
x = torch.arange(4.0)
m = x.to("meta")
print(x.device, m.device)

# %% tags=["claim-F7", "answer"]
print(m)
assert m is not x
assert x.device.type == "cpu"  # 원래 텐서는 CPU에 그대로 있다
assert m.device.type == "meta"
assert m.shape == x.shape and m.dtype == x.dtype

# %% [markdown] tags=["answer"]
# **정답:** `cpu meta`입니다. `to`는 `meta`에 있는 새 텐서를 반환하고, `x`는 원래 자리에 그대로 둡니다. 위 셀의 검증에서는 `m`이 `x`와 모양·dtype이 같은 새 텐서라는 것도 확인합니다.
#
# - `meta meta`를 골랐다면 `to`가 `x`를 직접 옮긴다고 생각했을 겁니다. 모델의 `to`라면 그렇지만, 텐서의 `to`는 다릅니다.
# - `cpu cpu`는 반환값 `m`까지 CPU에 있다고 여긴 답입니다. `m`은 `to`가 `meta`에 새로 만든 텐서입니다.
#
# 그러니 반환값을 받아 두어야 하며, 보통은 `t = t.to(device)`처럼 같은 이름에 다시 대입합니다.

# %% [markdown]
# `meta` 텐서에는 데이터가 없으므로, `meta`로 옮겨 보면 `to`가 변수에 어떤 영향을 주는지만 알 수 있고 복사에 드는 비용은 알 수 없습니다. `meta`로 옮길 때는 실제로 복사되는 데이터가 없으니, CPU로 다시 가져올 데이터도 없습니다. 다음 셀의 오류 메시지도 "meta 텐서에는 데이터가 없어 복사해 낼 수 없다"고 알려 줍니다.

# %% tags=["claim-F7"]
with expect_error(NotImplementedError, "no data"):
    m.cpu()
assert m.is_meta

# %% [markdown]
# ## `cuda()`와 `cpu()` 단축 메서드
#
# `t.cuda()`는 `t.to("cuda")`처럼 현재 CUDA 디바이스에 있는 텐서를, `t.cuda(i)`는 `cuda:i`에 있는 텐서를 반환합니다. `t.cpu()`는 `t.to("cpu")`와 같습니다. 둘 다 `to`와 같은 규칙을 따릅니다.
#
# GPU가 있으면 다음 셀은 `x`를 GPU로 복사했다가 다시 CPU로 가져오고, 두 호출이 모두 새 텐서를 반환했는지, `x`가 CPU에 그대로 있는지 `assert`로 검증합니다.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    g = x.cuda()
    back = g.cpu()
    print(x.device, g.device, back.device)
    assert g.device == torch.device("cuda", torch.cuda.current_device())
    assert g.device == x.to("cuda").device
    assert x.cuda(0).device == torch.device("cuda", 0)
    assert x.device.type == "cpu"  # 원래 텐서는 CPU에 그대로 있다
    assert back is not x and torch.equal(back, x)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 이미 그 디바이스에 있는 텐서 옮기기
#
# 학습 코드에서는 텐서가 이미 원하는 디바이스에 있는지 모르는 채로 `.to(device)`를 호출하는 일이 흔합니다. 텐서가 이미 요청한 디바이스에 있고 dtype도 같을 때 `to`는 어떻게 동작할까요?

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `a`는 이미 `device`에 있습니다. 다음 셀에서는 `b = a.to(device)`를 실행하고 `b[0]`에 `1.0`을 쓴 다음,
# `b`가 `a`와 같은 객체인지, 그리고 `a[0]`의 값이 무엇인지 출력합니다. 무엇이 출력될까요?
#
# - `b is a=False, a[0].item()=0.0`
# - `b is a=True, a[0].item()=1.0`
# - `b is a=False, a[0].item()=1.0`

# %%
a = torch.zeros(3, device=device)
b = a.to(device)
b[0] = 1.0
print(f"{b is a=}, {a[0].item()=}")

# %% tags=["claim-F1", "gpu-only", "answer"]
assert b is a
assert a[0].item() == 1.0  # b에 쓴 값이 a를 바꿨다
assert a.to(a.dtype) is a
assert a.to(device, torch.float32) is a
same = a.cuda() if a.is_cuda else a.cpu()
assert same is a
images = torch.zeros(2, 3, 4, 5, device=device)
# 이미 요청한 메모리 형식이면 텐서 자신이 반환된다
assert images.to(memory_format=torch.contiguous_format) is images
# 메모리 형식이 달라지면 데이터를 재배치한 복사본이 반환된다
rearranged = images.to(memory_format=torch.channels_last)
assert rearranged is not images and rearranged.data_ptr() != images.data_ptr()
assert rearranged.is_contiguous(memory_format=torch.channels_last)

# %% [markdown] tags=["answer"]
# **정답:** `b is a=True, a[0].item()=1.0`입니다. 바꿀 것이 없으므로 `to`는 텐서 자신을 반환합니다. `b`는 복사본이 아니므로 `b`에 쓴 값은 곧 `a`에 쓴 값입니다.
#
# - `b is a=False, a[0].item()=0.0`은 `to`가 매번 복사본을 만든다면 나올 값입니다. 바꿀 것이 하나도 없으면 복사본은 만들어지지 않습니다.
# - `b is a=False, a[0].item()=1.0`을 골랐다면 뷰(view)처럼 `a`와 스토리지를 공유하는 다른 객체를 떠올렸을 겁니다. 하지만 돌아오는 것은 다른 객체가 아니라 `a` 자신이므로 `b is a`는 `True`입니다.
#
# `to`는 디바이스나 dtype이 바뀔 때, `memory_format`으로 지금과 다른 메모리 형식을 지정할 때, `copy=True`를 넘길 때만 복사합니다. 예를 들어 기본 메모리 형식(`torch.contiguous_format`)의 4차원 텐서에서 `t.to(memory_format=torch.channels_last)`를 호출하면 데이터를 재배치한 복사본이 반환됩니다.
#
# CPU 텐서에서 `t.cpu()`를 호출해도 텐서 자신이 반환되고, 이미 현재 GPU에 있는 텐서에서 `t.cuda()`를 호출해도 마찬가지입니다. `t.cuda()`의 경우는 GPU가 있을 때만 위 셀에서 검증합니다.

# %% [markdown]
# ## 강제로 복사하기
#
# 독립된 텐서가 필요하면 명시적으로 요청해야 합니다. `t.to(device, copy=True)`는 항상 새 텐서를 반환하고, `t.clone()`은 같은 디바이스에 복사본을 만듭니다.

# %% tags=["claim-F1"]
c = a.to(device, copy=True)
c[1] = 5.0
print(a)
print(c)
assert c is not a
assert a[1].item() == 0.0  # 복사본은 원래 텐서와 독립적이다
d = a.clone()
assert d is not a and d.device == a.device

# %% [markdown]
# `.cuda()`와 `.cpu()`에는 `copy` 인자가 없습니다. `to(..., copy=True)`나 `clone()`을 사용하세요. 다음 셀에 두 번 나오는 `got an unexpected keyword argument 'copy'`는 "예상하지 못한 키워드 인자 `copy`를 받았다"는 뜻입니다.

# %% tags=["claim-F1"]
for method in (a.cuda, a.cpu):
    with expect_error(TypeError, "copy"):
        method(copy=True)
assert a.to(device, copy=True) is not a

# %% [markdown]
# ### 뷰 옮기기
#
# `base[2:4]` 같은 슬라이스는 뷰이므로 `base`와 스토리지를 공유합니다. 이 뷰를 다른 디바이스로 옮기면 뷰의 요소만 복사한 새 텐서가 생기고, 이 텐서는 자기 스토리지를 따로 가집니다.
#
# 새 텐서는 더는 뷰가 아니므로, 여기에 값을 써도 `base`는 바뀌지 않고 `base`에 값을 써도 새 텐서는 그대로입니다. 반면 뷰가 이미 있는 디바이스를 `to`에 넘기면 뷰 자신이 반환되므로, `base`와 계속 스토리지를 공유합니다.
#
# 다음 셀은 GPU 대신 `meta` 디바이스를 쓰므로 어느 머신에서나 실행됩니다. 출력의 `moved._base is None=True`는 `moved`가 더 이상 다른 텐서의 뷰가 아니라는 뜻이고, 스토리지 크기(`nbytes()`)는 `base`의 요소 6개가 아니라 뷰의 요소 2개 분량입니다.

# %%
base = torch.arange(6.0)
view = base[2:4]
stay = view.to("cpu")
moved = view.to("meta")
print(f"{stay is view=}, {moved._base is None=}")
print(f"{moved.untyped_storage().nbytes()=}")
assert view._base is base and stay is view
assert stay.data_ptr() == base.data_ptr() + 2 * base.element_size()
assert moved._base is None and not moved._is_view()
assert moved.storage_offset() == 0
# 요소 6개가 아니라 2개 분량
assert moved.untyped_storage().nbytes() == view.numel() * view.element_size()

# %% [markdown]
# ## 디바이스와 dtype을 한 번에
#
# `to`는 디바이스와 dtype을 한 번에 바꿀 수 있습니다. 위치 인자로 넘길 때는 디바이스를 먼저, dtype을 나중에 쓰세요. 순서가 헷갈린다면 키워드 인자로 넘기세요.

# %%
t = torch.arange(3)
u = t.to(device, torch.float16)
v = t.to(dtype=torch.float16, device=device)
print(t.dtype, u.dtype, v.dtype)
print(u.device, v.device)
assert t.dtype == torch.int64  # t 자체는 바뀌지 않는다
assert u.dtype == v.dtype == torch.float16
assert u.device.type == v.device.type == device.type

# %% [markdown]
# dtype을 먼저 쓰면 `to`의 어떤 시그니처와도 맞지 않아 `TypeError`가 발생합니다. 다음 셀이 출력하는 영어 메시지는 "인자 조합이 올바르지 않다"는 뜻이며, 받을 수 있는 인자 목록을 보여 줍니다.

# %%
with expect_error(TypeError, "invalid combination of arguments"):
    t.to(torch.float16, device)

# %% [markdown]
# ## `cuda()`는 CUDA 디바이스만 받는다
#
# `t.cuda()`는 CUDA 디바이스나 그 인덱스(정수)만 받습니다. 다른 디바이스를 넘기면 오류가 납니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** GPU가 있든 없든, `t.cuda("cpu")`를 호출하면 어떤 오류가 날까요?
#
# - `Torch not compiled with CUDA enabled`
# - `TypeError`
# - `must be cuda device`

# %%
with expect_error(Exception) as caught:
    t.cuda("cpu")

# %% tags=["answer"]
assert type(caught.error) is RuntimeError
assert "must be cuda device" in str(caught.error)

# %% [markdown] tags=["answer"]
# **정답:** `must be cuda device`(`RuntimeError`의 메시지)입니다. 출력된 `Invalid device, must be cuda device`는 "디바이스가 잘못되었다. CUDA 디바이스여야 한다"라는 내용입니다. `cuda()`는 CUDA를 쓰기 전에 인자부터 검사하므로, 어느 머신에서나 메시지가 같습니다.
#
# - `Torch not compiled with CUDA enabled`("Torch가 CUDA를 지원하도록 컴파일되지 않았다")는 CPU 전용 빌드라면 이 오류부터 날 것이라고 본 답입니다. 하지만 앞에서 말했듯이 `"cpu"`는 인자를 검사하는 단계에서 이미 거부됩니다.
# - `TypeError`를 고른 것은 인자의 타입이 틀렸다고 여겼기 때문일 겁니다. 하지만 타입은 맞습니다. `"cpu"`는 디바이스를 나타내는 올바른 값이지만 CUDA 디바이스가 아니므로, `cuda()`에는 넘길 수 없습니다.

# %% [markdown]
# ## 존재하지 않는 GPU 인덱스
#
# 없는 GPU를 요청하면(예: GPU가 한 개인 머신에서 `cuda:1`), 예전에는 `CUDA error: invalid device ordinal`("CUDA 오류: 디바이스 번호가 잘못되었다")이라는 메시지와 함께 `RuntimeError`가 발생했습니다. PyTorch 2.8부터는 같은 메시지로 `torch.AcceleratorError`가 발생합니다. `AcceleratorError`는 `RuntimeError`의 하위 클래스이므로, 예전 버전에 맞춰 작성한 `except RuntimeError`로도 그대로 잡힙니다.
#
# GPU가 있는 머신에서는 다음 셀이 마지막 GPU 바로 다음 인덱스인 `torch.cuda.device_count()`를 요청합니다. 그리고 오류 메시지에 `invalid device ordinal`이 들어 있는지, PyTorch 2.8부터는 예외 타입이 `torch.AcceleratorError`인지도 검증합니다.

# %% tags=["claim-O4", "gpu-only"]
if torch.cuda.is_available():
    n = torch.cuda.device_count()
    try:
        torch.ones(1).cuda(n)
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
        assert "invalid device ordinal" in str(err)
        if TORCH >= (2, 8):
            assert isinstance(err, torch.AcceleratorError)
    else:
        raise AssertionError("expected RuntimeError")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 고정 메모리와 `non_blocking`
#
# 페이징 가능한(pageable) 일반 CPU 메모리에서 GPU로 복사하면 CPU는 복사가 끝날 때까지 기다립니다. 원본이 고정(page-locked) 메모리에 있으면 `to("cuda", non_blocking=True)`는 현재 CUDA 스트림의 큐에 복사 작업을 넣기만 하고 곧바로 반환합니다. 그래서 GPU가 복사와 연산을 하는 동안 CPU는 다른 작업을 할 수 있습니다.
#
# 그렇다고 저절로 빨라지는 것은 아닙니다. `pin_memory()`는 고정 메모리에 새 텐서를 만들어 데이터를 복사한 뒤 그 텐서를 반환하므로, 호출하는 것 자체가 복사 한 번입니다. 원래 텐서는 그대로 남습니다. 또한 메모리 고정에는 가속기가 필요합니다. 다음 셀은 실행한 머신에 따라 아래 중 하나를 검증합니다.
#
# - 쓸 수 있는 가속기가 있는 머신(예: GPU 머신)에서는 `pin_memory()`가 고정 메모리에 만든 복사본을 반환하고 원래 텐서는 고정되지 않은 채로 남는지 검증합니다.
# - 어떤 가속기용으로도 빌드되지 않은 PyTorch(CPU 전용 빌드)에서는 `pin_memory()`가 다음 오류를 내는지 검증합니다. PyTorch 2.6에서는 가속기용 빌드라도 쓸 수 있는 가속기가 없으면 같은 오류가 납니다.
#
#   ```
#   RuntimeError: Cannot access accelerator device when none is available.
#   ```
#
#   이 메시지는 "쓸 수 있는 가속기가 없어서 가속기 디바이스에 접근할 수 없다"는 뜻입니다.
#
# - 가속기용으로 빌드된 PyTorch 2.7 이상을 가속기가 없는 머신에서 쓰는 경우(예: Colab CPU 런타임에서 CUDA 빌드를 쓰는 경우)에는 해당 가속기 런타임(CUDA 등)이 내는 `RuntimeError`가 발생하는지 검증합니다. 메시지는 드라이버에 따라 달라집니다.

# %% tags=["claim-F10", "gpu-only"]
NO_ACCELERATOR = "Cannot access accelerator device when none is available"
host = torch.randn(1024, 1024)
usable = torch.accelerator.is_available()
# 2.7부터 current_accelerator()는 빌드가 대상으로 하는 가속기를
# 반환한다(없으면 None). 2.6에서는 쓸 수 있는 가속기가 없으면 예외가 난다
built_for = None
if usable or TORCH >= (2, 7):
    built_for = torch.accelerator.current_accelerator()
print(f"{usable=}, {built_for=}")

if usable:
    pinned = host.pin_memory()
    print(f"{host.is_pinned()=}, {pinned.is_pinned()=}")
    assert pinned.is_pinned() and not host.is_pinned()
    # 메모리를 고정하면서 데이터가 새 메모리로 복사되었다
    assert pinned.data_ptr() != host.data_ptr()
    assert torch.equal(pinned, host)
elif built_for is None:
    with expect_error(RuntimeError, NO_ACCELERATOR):
        host.pin_memory()
else:
    # 메시지는 드라이버에 따라 달라지므로 타입만 검증한다
    try:
        host.pin_memory()
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
    else:
        raise AssertionError("expected RuntimeError")

# %% [markdown]
# 다음 셀에서는 복사할 때 CPU가 GPU를 기다리는지 직접 확인합니다. 행렬 곱으로 GPU를 바쁘게 만들어 두고(큐에 넣기만 하므로 호출은 바로 반환됩니다), 복사를 한 다음, 쌓인 작업이 모두 끝났는지 `stream.query()`로 스트림에 물어봅니다. GPU가 있으면 `stream.query()`가 다음 값을 돌려주는지 검증합니다.
#
# - 페이징 가능한 메모리에서 일반 복사를 한 뒤에는 `True`입니다. `to`가 큐에 쌓여 있던 작업과 복사가 모두 끝난 뒤에야 반환되었기 때문입니다.
# - `pinned.to("cuda", non_blocking=True)` 뒤에는 `False`입니다. GPU가 아직 일하는 중에 호출이 반환되었기 때문입니다.
# - 반대 방향인 `to("cpu", non_blocking=True)` 뒤에도 `False`입니다. 그래서 CPU 쪽 텐서의 값은 `torch.cuda.synchronize()`가 반환될 때까지 보장되지 않습니다. 값을 읽기 전에 동기화하세요.
#
# `copy_and_ask` 함수는 두 번 실행됩니다. 첫 번째 실행은 GPU 라이브러리와 메모리 캐시를 준비하기 위한 워밍업일 뿐입니다.

# %% tags=["claim-F10", "gpu-only"]
if torch.cuda.is_available():
    host = torch.randn(1024, 1024)
    pinned = host.pin_memory()
    stream = torch.cuda.current_stream()
    w = torch.randn(4096, 4096, device="cuda")
    out = torch.empty_like(w)

    def keep_gpu_busy():
        for _ in range(10):
            torch.mm(w, w, out=out)

    def copy_and_ask():
        keep_gpu_busy()
        x1 = host.to("cuda")
        idle_after_blocking = stream.query()
        keep_gpu_busy()
        x2 = pinned.to("cuda", non_blocking=True)
        idle_after_non_blocking = stream.query()
        keep_gpu_busy()
        host_again = x2.to("cpu", non_blocking=True)
        idle_after_to_cpu = stream.query()
        # 여기서부터 비로소 host_again의 값이 보장된다
        torch.cuda.synchronize()
        same = torch.equal(x1, x2) and torch.equal(host_again, host)
        return (idle_after_blocking, idle_after_non_blocking,
                idle_after_to_cpu, same)

    copy_and_ask()  # 워밍업
    blocking_idle, non_blocking_idle, to_cpu_idle, same = copy_and_ask()
    print(blocking_idle, non_blocking_idle, to_cpu_idle, same)
    assert blocking_idle
    assert not non_blocking_idle
    assert not to_cpu_idle
    assert same
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# 메모리 고정이 이득인지는 머신과 텐서 크기, 기다리는 동안 CPU가 할 일이 있는지에 따라 달라집니다. PyTorch의 [`pin_memory()`와 `non_blocking`에 관한 튜토리얼](https://pytorch.org/tutorials/intermediate/pinmem_nonblock.html)(영어)에서도 고정 메모리 쪽이 더 느린 경우를 측정해 보여 줍니다. 실제로 쓰는 파이프라인에서도 바꾸기 전과 후의 시간을 직접 재 보세요.
#
# GPU가 있으면 아래 셀은 두 방식을 비교합니다. 하나는 일반 메모리에서 그대로 복사하는 방식이고, 다른 하나는 `pin_memory()`로 고정 메모리에 올린 뒤 `non_blocking`으로 복사하는 방식입니다.
#
# GPU로 처음 복사하거나 고정 메모리를 처음 할당할 때는 준비 비용이 한 번 들기 때문에, 먼저 두 방식을 측정 없이 실행해 워밍업합니다. 그다음 각각의 시간을 재서 밀리초 단위로 출력합니다.
#
# 측정값은 실행할 때마다 달라지므로 `assert`로 검증하지는 않습니다. 고정 메모리 쪽 시간에는 `pin_memory()`의 복사 시간도 들어 있습니다.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    big = torch.randn(4096, 4096)
    big.to("cuda")  # 워밍업: 두 방식을 측정 없이 한 번씩 실행한다
    big.pin_memory().to("cuda", non_blocking=True)
    torch.cuda.synchronize()

    t0 = time.perf_counter()
    big.to("cuda")
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    big.pin_memory().to("cuda", non_blocking=True)
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    pageable_ms, pinned_ms = (t1 - t0) * 1e3, (t2 - t1) * 1e3
    print(f"{pageable_ms=:.1f}, {pinned_ms=:.1f}")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 정리
#
# - `t.to(device)`, `t.cuda()`, `t.cpu()`는 대상 디바이스에 있는 텐서를 반환하고, `t`는 원래 자리에 남습니다. 반환값을 받아 두세요(`t = t.to(device)`).
# - 바꿀 것이 없으면 `t` 자신이 반환되므로, 반환된 텐서에 값을 쓰면 `t`도 바뀝니다. 독립된 텐서가 필요하면 `copy=True`나 `clone()`을 사용하세요. `.cuda()`와 `.cpu()`에는 `copy` 인자가 없습니다.
# - `to`로 디바이스와 dtype을 함께 바꿀 때는 디바이스를 먼저 쓰거나 둘 다 키워드 인자로 넘기세요.
# - `t.cuda()`는 CUDA 디바이스만 받습니다. 존재하지 않는 GPU 인덱스를 지정하면 PyTorch 2.8부터 `torch.AcceleratorError`(`RuntimeError`의 일종)가 발생합니다.
# - `pin_memory()`와 `non_blocking=True`를 함께 쓰면 복사가 진행되는 동안 CPU가 다른 작업을 계속할 수 있습니다. 하지만 저절로 빨라지지는 않으며, 가속기도 필요합니다. `non_blocking`으로 CPU에 복사한 값은 동기화한 뒤에 읽으세요.
