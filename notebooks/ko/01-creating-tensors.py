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
# 모든 텐서는 어느 한 디바이스에 있습니다. 그 디바이스는 CPU일 수도, GPU일 수도, `meta` 같은 특수한 디바이스일 수도 있습니다. 이 페이지에서는 텐서를 어느 디바이스에 생성할지 지정하는 방법과, 텐서가 어디에 있는지 확인하는 방법을 알아봅니다.
#
# 아래 셀은 모두 GPU가 없는 머신에서도 실행됩니다. GPU가 없으면 GPU 검증이 들어 있는 셀은 GPU 부분을 건너뛰고, 충족되지 않은 조건(`torch.cuda.is_available()=False` 등)만 출력합니다. GPU가 없을 때의 동작을 따로 확인하는 셀도 있습니다.
#
# 첫 번째 셀에서는 `expect_error` 함수도 정의합니다. 예상한 오류를 보여 주는 셀에서는 이 함수를 써서, 오류가 나도 노트북이 멈추지 않고 계속 실행되게 합니다.

# %% [markdown] tags=["summary"]
# **요약**
#
# - 텐서는 쓸 디바이스에 바로 만드세요. 팩토리 함수(`torch.zeros`, `torch.randn`, `torch.tensor` 등)에 `device=`를 넘기면 CPU에 먼저 만들었다가 복사하는 일이 없습니다.
# - 텐서가 어디 있는지는 `t.device`로 확인합니다. `t.device`를 문자열과 직접 비교하면 항상 `False`가 나오므로, `torch.device` 객체와 비교하거나 `t.device.type`을 `"cuda"` 같은 문자열과 비교하세요.
#
# ```python
# device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
# x = torch.zeros(2, 3, device=device)
# assert x.device.type == device.type
# ```

# %% tags=["setup"]
import contextlib
import sys
import threading
import timeit
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


print(torch.__version__)
print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 디바이스 지정하기
#
# `torch.device`는 타입(`cpu`, `cuda`, `mps`, `meta` 등)과 생략할 수 있는 인덱스로 이루어집니다. 문자열로 만들 수도 있고, PyTorch에서 디바이스를 받는 곳이라면 어디에든 문자열을 그대로 넘겨도 됩니다. 인덱스 없이 쓴 `cuda`는 특정 GPU가 아니라 "현재 CUDA 디바이스"를 뜻합니다.

# %%
cpu = torch.device("cpu")
gpu0 = torch.device("cuda:0")
gpu = torch.device("cuda")

print(repr(cpu), repr(gpu0), repr(gpu))
assert (gpu0.type, gpu0.index) == ("cuda", 0)
assert (gpu.type, gpu.index) == ("cuda", None)
assert torch.device("cuda", 1) == torch.device("cuda:1")

# %% [markdown]
# 문자열로 `torch.device`를 만들 때 PyTorch는 표기만 검사할 뿐 하드웨어는 확인하지 않습니다. 그래서 위 셀은 GPU가 없는 머신에서도 실행됩니다. 하드웨어는 그 디바이스에 실제로 텐서를 생성할 때만 필요합니다.
#
# 단, 정수만 넘기는 경우는 다릅니다. `torch.device(0)`은 현재 가속기가 무엇인지부터 확인합니다(아래 [정수로 디바이스 지정하기](#정수로-디바이스-지정하기) 참고).

# %% [markdown]
# ## 팩토리 함수의 `device=` 인자
#
# `torch.tensor`, `torch.zeros`, `torch.ones`, `torch.randn`, `torch.arange`를 비롯한 팩토리 함수는 모두 `device=` 인자를 받습니다. 기본값은 CPU입니다. 문자열을 넘기든 `torch.device`를 넘기든 결과는 같습니다.

# %%
a = torch.tensor([0.1, 0.2])
b = torch.zeros(2, 3, device="cpu")
c = torch.arange(4, device=torch.device("cpu"))

for t in (a, b, c):
    print(t.device)
    assert t.device == torch.device("cpu")

# %% [markdown]
# GPU에 텐서를 생성하려면 CUDA 디바이스를 넘기면 됩니다. 다음 셀은 GPU가 있으면 인덱스 없이 `"cuda"`를 넘겨 텐서를 만들고, 그 텐서가 현재 CUDA 디바이스에 생겼는지 `assert`로 검증합니다.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    g = torch.ones(2, 3, device="cuda")
    print(g.device)
    assert g.device.type == "cuda"
    assert g.device.index == torch.cuda.current_device()
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 디바이스에 바로 생성하기
#
# GPU에서 쓸 텐서는 `torch.randn(64, 3, device=device)`처럼 처음부터 GPU에 생성하세요. `torch.randn(64, 3).to(device)`라고 쓰면 먼저 CPU 메모리에 텐서를 만들어 값을 채운 다음 GPU로 복사합니다. `device=`를 넘기면 CPU에 텐서를 만들 필요도, GPU로 복사할 필요도 없습니다.
#
# 주의할 점이 하나 있습니다. CPU와 CUDA의 난수 생성기는 서로 다른 알고리즘을 씁니다. 그래서 똑같이 `torch.manual_seed(0)`을 호출했더라도 `torch.randn(3)`과 `torch.randn(3, device="cuda")`는 서로 다른 값을 반환합니다. 같은 디바이스에서는 다시 실행해도 같은 값이 나오지만, GPU에 바로 생성한 텐서는 CPU에서 만들어 옮긴 텐서와 값이 다릅니다.

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
direct = torch.randn(64, 3, device=device)
print(f"{direct.device=}")
assert direct.device.type == device.type

torch.manual_seed(0)
on_cpu = torch.randn(1000)
torch.manual_seed(0)
# 같은 시드, 같은 디바이스라면 같은 값이 다시 나온다
assert torch.equal(torch.randn(1000), on_cpu)

# %% [markdown]
# GPU에서도 시드가 같으면 같은 값이 다시 나오는지, 그리고 그 값이 CPU에서 나온 값과 다른지는 GPU가 있을 때 다음 셀에서 검증합니다.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    torch.manual_seed(0)  # CPU와 모든 GPU의 시드를 설정한다
    on_cpu = torch.randn(1000)
    torch.manual_seed(0)
    on_gpu = torch.randn(1000, device="cuda")
    torch.manual_seed(0)
    assert torch.equal(torch.randn(1000, device="cuda"), on_gpu)
    print(f"{torch.equal(on_gpu.cpu(), on_cpu)=}")
    # 시드는 같아도 난수 생성기가 다르므로 값도 다르다
    assert not torch.equal(on_gpu.cpu(), on_cpu)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 텐서 위치 확인하기
#
# 텐서가 어디에 있는지는 `t.device`가 정확히 알려 줍니다. CPU인지 CUDA인지만 알면 될 때는 `t.is_cpu`와 `t.is_cuda` 속성으로 더 간단히 확인할 수 있습니다. `is_cpu`는 PyTorch 1.13부터 있는 속성입니다. 오래된 튜토리얼에는 이 속성이 없다고 적혀 있기도 합니다.

# %% tags=["claim-O2"]
t = torch.randn(3)
print(t.device, t.is_cpu, t.is_cuda)
assert t.is_cpu and not t.is_cuda
assert t.device.type == "cpu"

# %% [markdown]
# 코드에서 텐서의 위치를 판별할 때는 디바이스를 비교합니다. CPU 텐서라면 다음 세 가지 비교를 떠올릴 수 있습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `t`는 CPU 텐서입니다. 다음 셀은 `t.device == torch.device("cpu")`, `t.device == "cpu"`,
# `t.device.type == "cpu"`의 결과를 이 순서대로 출력합니다. 무엇이 나올까요?
#
# - `True True True`
# - `True False False`
# - `False False True`
# - `True False True`

# %%
print(t.device == torch.device("cpu"), t.device == "cpu",
      t.device.type == "cpu")

# %% tags=["answer"]
assert t.device == torch.device("cpu")
assert (t.device == "cpu") is False
assert t.device.type == "cpu"
assert torch.device("cuda:0") != torch.device("cuda")
assert torch.device("cuda:0").type == torch.device("cuda").type

# %% [markdown] tags=["answer"]
# **정답:** `True False True`입니다. `torch.device`끼리는 같은 디바이스를 나타내면 `True`가 나오고, `.type`은 일반 문자열이므로 문자열과 비교할 수 있습니다. 하지만 `torch.device`를 문자열과 비교하면 항상 `False`가 나오므로, CPU 텐서라도 `t.device == "cpu"`는 `False`입니다.
#
# - `True True True`를 골랐다면 `t.device`가 `cpu`로 출력되니 문자열 `"cpu"`와도 같다고 생각했을 겁니다. 하지만 `torch.device` 객체와 문자열은 자료형이 달라서 `==`는 `False`를 반환합니다.
# - `True False False`는 `.type`으로 비교해도 `False`가 나온다고 본 답입니다. `.type`의 값은 일반 문자열 `"cpu"`이므로 `"cpu"`와 비교하면 `True`입니다.
# - `False False True`는 `torch.device` 객체끼리의 비교까지 `False`일 때 나오는 값입니다. CPU 텐서의 `t.device`는 언제나 `torch.device("cpu")`와 같으므로 첫 번째 비교는 `True`입니다.
#
# 디바이스는 `torch.device` 객체와 비교하고, 어느 GPU인지는 상관없다면 `.type`을 비교하세요. `torch.device("cuda:0")`과 `torch.device("cuda")`는 서로 같지 않지만, 두 디바이스의 `.type`은 같습니다.

# %% [markdown]
# ## 정수로 디바이스 지정하기
#
# 예전에는 `device=0`이나 `torch.device(0)`이 `cuda:0`을 뜻했습니다. PyTorch 2.5부터는 정수가 "현재 가속기에서 그 인덱스에 해당하는 디바이스"를 가리킵니다. 이 가속기는 CUDA일 수도 있고, Apple의 MPS나 Intel의 XPU일 수도 있습니다.
#
# 그래서 정수를 디바이스로 바꿀 때는 문자열과 달리 PyTorch가 현재 가속기가 무엇인지 확인합니다. `torch.device(0)`은 텐서를 만들기도 전에, 디바이스를 만드는 이 단계에서 이미 실패할 수 있습니다.
#
# - 쓸 수 있는 가속기가 있으면 `torch.device(0)`은 그 가속기의 0번 디바이스(예: `cuda:0`)가 됩니다.
# - 어떤 가속기용으로도 빌드되지 않은 PyTorch, 즉 CPU 전용 빌드에서는 `torch.device(0)` 자체가 다음 오류를 냅니다. `device=0`과 `model.to(0)`도 마찬가지입니다. PyTorch 2.6에서는 가속기용 빌드라도 쓸 수 있는 가속기가 없으면 같은 오류가 납니다.
#
#   ```
#   RuntimeError: Cannot access accelerator device when none is available.
#   ```
#
#   이 메시지는 "쓸 수 있는 가속기가 없어서 가속기 디바이스에 접근할 수 없다"는 뜻입니다.
#
# - PyTorch 2.7부터는 가속기용 빌드(예: Colab CPU 런타임에 설치된 CUDA 빌드)라면 가속기가 없어도 `torch.device(0)` 호출 자체는 오류를 내지 않습니다. 이때 `torch.device(0)`은 그 빌드가 지원하는 가속기의 0번 디바이스(CUDA 빌드라면 `cuda:0`)가 되고, 오류는 그 디바이스에 텐서를 생성할 때 비로소 발생합니다.
#
# 다음 셀은 이 머신이 세 경우 중 어디에 해당하는지 확인하고, 그 경우의 동작을 검증합니다.

# %% tags=["claim-O1", "gpu-only"]
NO_ACCELERATOR = "Cannot access accelerator device when none is available"
usable = torch.accelerator.is_available()
# 2.7부터 current_accelerator()는 빌드가 대상으로 하는 가속기를
# 반환한다(없으면 None). 2.6에서는 쓸 수 있는 가속기가 없으면 예외가 난다
built_for = None
if usable or TORCH >= (2, 7):
    built_for = torch.accelerator.current_accelerator()
print(f"{usable=}, {built_for=}")

if usable:
    x = torch.zeros(1, device=0)
    print(f"{torch.device(0)=}, {x.device=}")
    assert torch.device(0) == x.device == torch.device(built_for.type, 0)
elif built_for is None:
    with expect_error(RuntimeError, NO_ACCELERATOR):
        torch.device(0)
    with expect_error(RuntimeError, NO_ACCELERATOR):
        torch.zeros(1, device=0)
    with expect_error(RuntimeError, NO_ACCELERATOR):
        torch.nn.Linear(2, 2).to(0)
else:
    print(f"{torch.device(0)=}")
    assert torch.device(0) == torch.device(built_for.type, 0)
    # 메시지는 드라이버에 따라 달라지므로 타입만 검증한다
    try:
        torch.zeros(1, device=0)
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
    else:
        raise AssertionError("expected RuntimeError")

# %% [markdown]
# ## 디바이스를 매번 지정하지 않고 텐서 만들기
#
# PyTorch 2.0부터는 `device=`를 매번 넘기지 않아도 되도록, 팩토리 함수가 쓸 기본 디바이스를 정해 둘 수 있습니다. 기본 디바이스는 `with torch.device(...)` 블록이나 `torch.set_default_device(...)` 호출로 바꿉니다. 어느 쪽을 쓰든 텐서는 다른 곳에서 옮겨 오는 것이 아니라, `device=`를 넘겼을 때처럼 처음부터 그 디바이스에 생성됩니다.
#
# 아래 셀은 이 페이지 뒷부분에서 설명하는 [`meta` 디바이스](#meta-디바이스)를 사용하므로 어떤 머신에서든 실행됩니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 다음 셀은 `with torch.device("meta"):` 안에서 `device=` 없이 텐서 하나, `device="cpu"`로 텐서 하나를
# 만들고, 블록이 끝난 뒤에 `device=` 없이 하나를 더 만듭니다. 세 텐서의 디바이스는 차례로 어떻게 출력될까요?
#
# - `meta meta cpu`
# - `cpu cpu cpu`
# - `meta cpu cpu`
# - `meta cpu meta`

# %%
with torch.device("meta"):
    inside = torch.zeros(2)
    explicit = torch.zeros(2, device="cpu")

outside = torch.zeros(2)
print(inside.device, explicit.device, outside.device)

# %% tags=["claim-F6", "answer"]
assert inside.device.type == "meta"
assert explicit.device.type == "cpu"
assert outside.device.type == "cpu"

# %% [markdown] tags=["answer"]
# **정답:** `meta cpu cpu`입니다. `with` 블록이 바꾸는 것은 기본값뿐입니다. 디바이스를 지정하지 않은 팩토리 함수 호출은 `meta`를 쓰지만, 직접 넘긴 `device="cpu"`는 블록 안에서도 기본값보다 우선합니다. 블록이 끝나면 기본값은 원래대로 돌아갑니다.
#
# - `meta meta cpu`는 블록의 기본값이 직접 넘긴 `device=`까지 덮어쓴다고 예상한 답입니다. 실제로는 호출에 쓴 `device=`가 우선합니다.
# - `cpu cpu cpu`를 골랐다면 블록이 기본값을 바꾸지 못한다고 생각했을 겁니다. 블록 안에서 디바이스를 지정하지 않고 만든 텐서는 실제로 `meta`에 생깁니다.
# - `meta cpu meta`는 블록이 끝난 뒤에도 기본값이 `meta`로 남아 있을 때 나오는 결과입니다. `with`의 효과는 블록을 실행하는 동안에만 유지됩니다.

# %% [markdown]
# `torch.set_default_device`를 쓰면 블록 없이도 같은 방식으로 기본 디바이스를 정할 수 있습니다. 이 값은 다음에 다시 호출할 때까지 유지되고, `None`을 넘기면 CPU로 돌아갑니다. 이 페이지의 셀은 `finally`에서 기본값을 되돌리므로, 도중에 오류가 나도 `meta`가 나머지 셀의 기본값으로 남지 않습니다.

# %% tags=["claim-F6"]
torch.set_default_device("meta")
try:
    made = torch.ones(3)
    print(made.device)
    assert made.device.type == "meta"
finally:
    torch.set_default_device(None)

assert torch.ones(3).device.type == "cpu"

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 다음 셀은 기본 디바이스를 `torch.set_default_device("meta")`로 정해 두고, 현재 스레드와 새 스레드에서 각각
# `torch.zeros(2)`로 텐서를 만든 다음, `torch.frombuffer`로 이미 있는 메모리 위에도 텐서를 하나 만듭니다.
# 출력되는 디바이스는 이 순서대로 무엇일까요?
#
# - `meta meta meta`
# - `meta cpu cpu`
# - `meta meta cpu`
# - `meta cpu meta`

# %%
# 현재 스레드에서 만든 텐서, 새 스레드에서 만든 텐서, 이미 있는 메모리
# 위에 만든 텐서의 디바이스를 반환한다
def three_devices():
    in_thread = []
    worker = threading.Thread(
        target=lambda: in_thread.append(torch.zeros(2).device.type))
    worker.start()
    worker.join()
    wrapped = torch.frombuffer(bytearray(8), dtype=torch.float32)
    return torch.zeros(2).device.type, *in_thread, wrapped.device.type


torch.set_default_device("meta")
try:
    with_default = three_devices()
finally:
    torch.set_default_device(None)
print(*with_default)

# %% tags=["claim-F6", "answer"]
here, in_thread, wrapped = with_default
assert here == "meta"
assert in_thread == "cpu"  # 새 스레드에는 기본 디바이스가 적용되지 않았다
assert wrapped == "cpu"

# %% [markdown] tags=["answer"]
# **정답:** `meta cpu cpu`입니다. 기본 디바이스는 설정한 스레드에만 적용되므로, 새 스레드(데이터 로딩 스레드, 웹 서버의 워커 등)에서는 여전히 CPU에 텐서가 생성됩니다. 또 `torch.frombuffer`는 이미 CPU에 있는 메모리를 그대로 감싸므로 새로 할당하는 것이 없고, 기본 디바이스의 영향도 받지 않습니다. `torch.from_numpy`도 마찬가지이며, 이 점은 뒤의 셀에서 검증합니다.
#
# - `meta meta meta`는 다른 스레드와 `frombuffer`가 예외라는 점을 놓친 답입니다.
# - `meta meta cpu`를 골랐다면 `frombuffer`가 예외라는 것은 알았지만, 기본값이 프로세스 전체에 적용된다고 생각했을 겁니다.
# - `meta cpu meta`는 `frombuffer`도 기본 디바이스를 따른다고 예상한 답입니다.

# %% [markdown]
# `with torch.device(...)` 블록에도 같은 제약이 있습니다. 두 방식 모두 `torch.utils._device.DeviceContext`를 쓰는데, 이 설정은 그 코드를 실행한 스레드에만 적용되기 때문입니다. 두 방식의 가장 큰 차이는 적용 범위입니다.
#
# - `with` 블록의 기본값은 들여쓴 블록이 끝나는 곳까지만 유효하므로, 코드만 보고도 범위를 알 수 있습니다.
# - `set_default_device`는 다시 호출할 때까지 그 스레드가 이후에 실행하는 모든 코드(라이브러리 코드 포함)에 영향을 줍니다.
#
# 두 방식에는 비용이 든다는 공통점도 있습니다. `torch.set_default_device` 공식 문서에는 이 설정을 켜 두면 팩토리 함수뿐 아니라 Python에서 torch API를 호출할 때마다 약간의 오버헤드가 생긴다는 경고가 있습니다. `with torch.device(...)` 블록 안의 호출도 같은 `DeviceContext`를 거치므로 마찬가지입니다. 얼마나 느려지는지는 환경마다 다릅니다.
#
# 다음 셀은 세 가지를 확인합니다.
#
# - `with` 블록 안에서도 앞의 세 경우(현재 스레드, 새 스레드, `frombuffer`)에 텐서가 어느 디바이스에 생기는지
# - NumPy가 설치되어 있으면 두 방식에서 `torch.from_numpy`로 만든 텐서가 어느 디바이스에 생기는지
# - 작은 텐서의 `add` 실행 시간이, 기본 디바이스를 정하지 않았을 때에 비해 `with` 블록 안과 `set_default_device` 이후에 각각 몇 배인지(이 머신 기준)
#
# 시간은 잴 때마다 달라지므로 이 비율은 `assert`로 검증하지 않습니다.

# %% tags=["claim-F6"]
with torch.device("meta"):
    in_block = three_devices()
print(*in_block)
assert in_block == ("meta", "cpu", "cpu")

try:
    import numpy
except ImportError:
    numpy = None
if numpy is not None:
    with torch.device("meta"):
        from_block = torch.from_numpy(numpy.zeros(2))
    torch.set_default_device("meta")
    try:
        from_default = torch.from_numpy(numpy.zeros(2))
    finally:
        torch.set_default_device(None)
    print(f"{from_block.device=}, {from_default.device=}")
    assert from_block.device.type == from_default.device.type == "cpu"
else:
    print(f"{numpy=}")

x = torch.ones(4, device="cpu")


def time_add():
    return min(timeit.repeat(lambda: x.add(1), number=2000, repeat=5))


plain_s = time_add()
with torch.device("meta"):
    block_s = time_add()
torch.set_default_device("meta")
try:
    set_s = time_add()
finally:
    torch.set_default_device(None)
print(f"{block_s / plain_s=:.2f}, {set_s / plain_s=:.2f}")

# %% [markdown]
# 디바이스를 지정하는 세 방법은 적용 범위를 보고 고르면 됩니다.
#
# - 호출 한 번: `device=`
# - 범위가 분명한 코드 블록: `with torch.device(...)`
# - 스레드 하나로 실행되는 스크립트나 노트북: `torch.set_default_device`
#
# GPU가 있는 머신에서는 다음 셀로 `with torch.device("cuda"):` 안의 `torch.randn`이 CUDA 텐서를 생성하는지 확인할 수 있습니다.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    with torch.device("cuda"):
        w = torch.randn(4, 4)
    print(w.device)
    assert w.is_cuda
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## `meta` 디바이스
#
# `meta` 디바이스의 텐서에는 모양(shape)과 dtype만 있고 데이터는 없습니다. 그래서 메모리를 차지하지 않고, 어떤 머신에서든 만들 수 있습니다. 모델 출력의 모양을 실제로 계산하지 않고 미리 알아볼 때 유용합니다. 이 페이지에서는 GPU 없이 기본 디바이스의 동작을 보여 주는 데 썼고, 이 튜토리얼의 다른 페이지에서는 GPU가 없을 때 `to`가 어떻게 동작하는지 보여 주는 데에도 씁니다.
#
# 다만 `meta` 디바이스에는 한계도 있습니다. 텐서에 출력할 값이 없고, GPU 대신 `meta`로 동작을 확인하면 오류 메시지가 GPU에서 실행했을 때와 같다는 보장이 없습니다.

# %% tags=["claim-F7"]
m = torch.empty(1000, 1000, device="meta")
print(m)
assert m.shape == (1000, 1000) and m.dtype == torch.float32
assert m.is_meta

# %% [markdown]
# `meta` 텐서에서 `tolist()`처럼 값을 읽으려 하면 오류가 납니다. 다음 셀의 오류 메시지는 "meta 텐서에는 데이터가 없어 복사해 낼 수 없다"고 알려 줍니다.

# %%
with expect_error(NotImplementedError, "no data"):
    m.tolist()

# %% [markdown]
# ## 정리
#
# - 텐서는 사용할 디바이스에 바로 생성합니다. 팩토리 함수에 `device=`를 넘기거나 코드를 `with torch.device(...)` 블록으로 감싸면 CPU에서 복사할 필요가 없습니다. 같은 시드라도 CPU와 CUDA에서는 다른 난수가 나옵니다.
# - `with torch.device(...)`와 `torch.set_default_device`로 정한 기본 디바이스는 설정한 스레드에만 적용되며, `torch.frombuffer`와 `torch.from_numpy`는 이 기본값을 따르지 않습니다. `with` 블록이 끝나면 기본값은 원래대로 돌아갑니다. 기본값이 바뀌어 있는 동안에는 모든 torch 호출에 약간의 비용이 더해집니다.
# - 텐서의 위치는 `.device`로 확인하고, CPU인지 CUDA인지만 알면 될 때는 `.is_cpu`와 `.is_cuda`를 쓰면 간단합니다. 디바이스를 문자열과 직접 비교하지 말고, `torch.device` 객체와 비교하거나 `.type`을 문자열과 비교합니다.
# - 정수로 지정한 디바이스는 현재 가속기에서 그 인덱스의 디바이스를 뜻하며, CUDA라는 보장은 없습니다. PyTorch가 어떤 가속기용으로도 빌드되지 않았으면 `torch.device(0)` 자체가 오류를 냅니다. PyTorch 2.6에서는 쓸 수 있는 가속기가 없기만 해도 그렇습니다.
# - `meta` 텐서에는 모양과 dtype만 있고 데이터는 없으며, 어느 머신에서나 만들 수 있습니다.
