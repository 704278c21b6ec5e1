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
# # 불러오기·환경·메모리 오류 읽는 법
#
# 이 페이지에서는 학습 코드 자체가 아니라 그 주변에서 나는 오류를 다룹니다. 체크포인트 불러오기, 머신에 없는 GPU 지정, 워커 프로세스 시작, PyTorch 설치, GPU 메모리 부족이 여기에 해당합니다. 섹션 제목은 대부분 오류 메시지를 그대로 옮긴 것이라, 트레이스백에 나온 문구로 검색하면 바로 찾아갈 수 있습니다.
#
# 섹션마다 메시지의 뜻을 풀이하고, 오류를 일으키는 코드와 해결 코드를 함께 실행해 봅니다. 한 연산에 서로 다른 디바이스의 텐서가 섞여서 나는 오류는 [디바이스 불일치 오류 읽는 법](07-device-errors.ipynb) 페이지에서 다룹니다.
#
# 여기서 다루는 오류 여섯 가지 가운데 셋은 GPU 없이도 재현할 수 있습니다. PyTorch의 CPU 전용 빌드를 쓰거나, 저장된 디바이스 정보만 `cuda`로 고쳐 쓴 체크포인트를 이용하면 됩니다.
#
# 나머지 셋(잘못된 디바이스 인덱스, fork한 자식 프로세스에서 CUDA 사용, 메모리 부족)은 GPU가 있어야 납니다. 이런 오류를 다루는 셀은 해결 코드를 어느 머신에서나 실행하고, 오류를 재현하는 부분은 GPU가 있을 때만 실행합니다. 본문에 실은 세 오류의 메시지는 PyTorch 소스에서 그대로 옮겨 왔고, 릴리스마다 문구가 다른 메시지에는 어느 버전의 문구인지도 밝혀 두었습니다.

# %% [markdown] tags=["summary"]
# **요약**
#
# - GPU에서 저장한 체크포인트도 `map_location`을 지정하면 어느 머신에서나 불러올 수 있습니다.
# - DataLoader 워커에는 CUDA가 필요 없습니다. 워커는 CPU 텐서로 배치를 만들고, 디바이스로 옮기는 일은 메인 프로세스의 루프에서 합니다. CUDA를 써야 하는 워커라면 `fork`가 아니라 `spawn`(또는 `forkserver`)으로 시작하세요.
# - `Torch not compiled with CUDA enabled`는 PyTorch가 CPU 전용 빌드라는 뜻입니다. CUDA 빌드를 설치하거나, GPU가 없을 때는 CPU를 쓰도록 디바이스를 정해 두세요.
# - 페이지 끝의 표에 메시지별로 흔한 원인과 해결 방법을 정리했습니다.
#
# ```python
# state = torch.load(path, map_location=device)
# for (x,) in DataLoader(data, num_workers=2):
#     x = x.to(device)
# ```

# %% tags=["setup"]
import contextlib
import inspect
import multiprocessing
import os
import subprocess
import sys
import tempfile
import types
import warnings
import zipfile

import torch
from torch.utils.data import DataLoader, TensorDataset

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
# ## Attempting to deserialize object on a CUDA device
#
# "CUDA 디바이스에 객체를 역직렬화하려 했다"는 뜻의 오류입니다. 전체 메시지는 다음과 같습니다.
#
# ```
# Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.
# ```
#
# 메시지 뒷부분은 `torch.cuda.is_available()`이 `False`라고 알려 주고, CPU만 있는 머신이라면 `torch.load`에 `map_location=torch.device('cpu')`를 지정해 스토리지(텐서의 실제 데이터)를 CPU에 올리라고 안내합니다.
#
# 체크포인트에는 스토리지마다 저장할 때의 디바이스가 기록되어 있고, `torch.load`는 각 스토리지를 기록된 디바이스에 다시 올립니다. GPU에서 저장한 파일에는 `cuda:0` 같은 디바이스가 적혀 있는데, CUDA GPU를 쓸 수 없는 머신에는 그런 디바이스가 없으니 스토리지를 올릴 곳이 없습니다. 해결 방법은 메시지대로 `map_location`을 지정하는 것입니다.
#
# GPU 없이도 이런 파일을 만들 수 있도록, 여기서는 CPU 텐서를 저장한 뒤 파일 안의 디바이스 문자열만 고쳐 씁니다.
#
# 체크포인트는 zip 아카이브이고, 그 안의 `data.pkl`에 pickle로 직렬화한 객체 구조가 들어 있습니다. 각 스토리지의 디바이스도 여기에 짧은 문자열로 기록됩니다. `torch.load`는 이 문자열만 보고 디바이스를 정하므로, 고쳐 쓴 파일도 GPU에서 저장한 파일과 똑같은 과정으로 불러옵니다.
#
# 다만 흉내 내어 만든 파일이므로, 디바이스 문자열이 아닌 부분은 GPU에서 실제로 저장한 파일과 다를 수 있습니다.
#
# 먼저 이 파일을 `map_location` 없이 불러와 봅니다. GPU가 있으면 텐서가 `cuda:0`에 올라가고, 없으면 오류가 납니다. 그다음 `map_location`을 지정하는 해결 코드를 실행해 봅시다.

# %% tags=["gpu-only"]
def retag(path, old, new):
    # torch.save가 사용하는 pickle 프로토콜 2는 문자열을
    # b"X" + 4바이트 길이 + UTF-8 바이트 형태로 기록한다
    old_bytes = b"X" + len(old).to_bytes(4, "little") + old.encode()
    new_bytes = b"X" + len(new).to_bytes(4, "little") + new.encode()
    with zipfile.ZipFile(path) as archive:
        records = [(info, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w") as archive:
        for info, data in records:
            if info.filename.endswith("/data.pkl"):
                assert old_bytes in data
                data = data.replace(old_bytes, new_bytes)
            archive.writestr(info, data)


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    torch.save({"weight": torch.arange(3.0)}, path)
    retag(path, "cpu", "cuda:0")

    if torch.cuda.is_available():
        loaded = torch.load(path, weights_only=True)
        assert loaded["weight"].device == torch.device("cuda", 0)
    else:
        with expect_error(RuntimeError, "Attempting to deserialize object"):
            torch.load(path, weights_only=True)

    on_cpu = torch.load(path, map_location="cpu", weights_only=True)
    here = torch.load(path, map_location=device, weights_only=True)

print(f"{on_cpu['weight']=}, {here['weight'].device=}")
assert on_cpu["weight"].device.type == "cpu"
assert torch.equal(on_cpu["weight"], torch.arange(3.0))
assert here["weight"].device.type == device.type

# %% [markdown]
# `torch.load`의 `weights_only=True`는 PyTorch 2.6부터 기본값입니다. 2.6보다 낮은 버전을 쓰는 프로젝트로 이 코드를 그대로 옮겨도 안전하도록, 여기서는 이 인자를 명시했습니다.

# %% [markdown]
# ## CUDA error: invalid device ordinal
#
# "CUDA 오류: 디바이스 번호가 잘못되었다"는 뜻으로, 지정한 인덱스의 GPU가 없을 때 나는 오류입니다.
#
# 예를 들어 GPU가 하나뿐인 머신에서 `cuda:1`을 지정한 경우입니다. `CUDA_VISIBLE_DEVICES`로 일부 GPU를 숨긴 뒤에도 숨기기 전의 인덱스를 그대로 쓴 경우도 마찬가지입니다. 보이는 GPU의 인덱스는 0부터 다시 매겨지기 때문입니다.
#
# 예외 클래스는 PyTorch 2.7까지는 `RuntimeError`이고, 2.8부터는 `RuntimeError`의 하위 클래스인 `torch.AcceleratorError`입니다. 2.9부터는 메시지의 두 번째 줄에 `GPU device may be out of range, do you have enough GPUs?`("지정한 GPU가 범위를 벗어났을 수 있으니, GPU가 충분히 있는지 확인하라")라는 힌트가 붙습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 이 머신에는 GPU가 있을 수도, 없을 수도 있습니다. PyTorch가 CPU 전용 빌드일 수도 있습니다. 다음 셀이 가장 먼저 출력하는 것은 무엇일까요?
#
# - `seven=device(type='cuda', index=7)`
# - `CUDA error: invalid device ordinal`
# - `Torch not compiled with CUDA enabled`

# %%
seven = torch.device("cuda", 7)
print(f"{seven=}, {torch.cuda.device_count()=}")

# %% tags=["answer"]
assert seven.index == 7
if TORCH >= (2, 8):
    assert issubclass(torch.AcceleratorError, RuntimeError)

# %% [markdown] tags=["answer"]
# **정답:** GPU가 있든 없든, CPU 전용 빌드이든 아니든 `seven=device(type='cuda', index=7)`입니다. `torch.device`는 디바이스를 가리키는 이름표일 뿐이어서, `"cuda"`처럼 이름으로 디바이스 객체를 만들 때 PyTorch는 GPU가 실제로 있는지 검사하지 않습니다. 오류는 그 디바이스에 텐서를 처음 만들 때 납니다(아래 GPU 검증이 들어 있는 셀에서 확인합니다). 디바이스를 정수로 지정할 때는 사정이 다른데, 이는 다음 섹션에서 다룹니다.
#
# - `CUDA error: invalid device ordinal`을 골랐다면 디바이스 객체를 만드는 순간 GPU 인덱스를 검사한다고 생각했을 겁니다.
# - `Torch not compiled with CUDA enabled`는 CPU 전용 빌드라면 `cuda`라는 이름부터 거부된다고 본 답입니다. 이 오류도 CUDA를 실제로 쓰려고 할 때 납니다.

# %% [markdown]
# 아래 셀에서는 GPU가 있으면 마지막 GPU 바로 다음 인덱스를 요청해 `invalid device ordinal` 오류가 나는지 확인하고, 이어서 유효한 인덱스(`torch.cuda.device_count()`보다 작은 값)로 텐서를 만듭니다. PyTorch 2.9부터는 힌트 줄이 붙는지도 확인합니다.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    n = torch.cuda.device_count()
    kind = torch.AcceleratorError if TORCH >= (2, 8) else RuntimeError
    with expect_error(kind, "invalid device ordinal"):
        torch.zeros(1, device=f"cuda:{n}")
    if TORCH >= (2, 9):
        with expect_error(RuntimeError, "do you have enough GPUs?"):
            torch.zeros(1, device=f"cuda:{n}")
    last = torch.zeros(1, device=f"cuda:{n - 1}")
    assert last.device.index == n - 1
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Cannot access accelerator device when none is available.
#
# "쓸 수 있는 가속기가 없어서 가속기 디바이스에 접근할 수 없다"고 알려 주는 오류입니다.
#
# 여기서 가속기란 CUDA GPU, Apple의 MPS, Intel의 XPU 등을 말합니다. PyTorch 2.5부터는 디바이스를 정수로 지정하면(`device=0`, `.to(0)`, `torch.device(0)`) 그 정수를 현재 가속기의 인덱스로 해석하므로, 가속기가 없으면 이 오류가 날 수 있습니다. 가속기 없이 `pin_memory()`를 호출해도 같은 오류가 납니다.
#
# 이 오류가 나는지는 빌드 종류와 버전에 따라 다음과 같이 다릅니다.
#
# - CPU 전용 빌드에서는 항상 납니다.
# - GPU를 쓸 수 없는 머신에 설치한 CUDA 빌드에서도 PyTorch 2.6까지는 납니다. NVIDIA 드라이버가 없는 머신에서 2.6.0+cu124로 확인했습니다.
# - 2.7부터는 이런 빌드에서 이 오류가 나지 않습니다. GPU를 쓸 수 없어도 CUDA 빌드라면 PyTorch가 CUDA를 현재 가속기로 여기므로, `torch.device(0)`은 `cuda:0`을 가리킵니다. 대신 그 디바이스에 텐서를 만들 때 `Found no NVIDIA driver on your system`("NVIDIA 드라이버를 찾을 수 없다")처럼 원인을 알려 주는 다른 오류가 납니다. NVIDIA 드라이버가 없는 머신에서 2.11.0+cu130으로 확인했습니다.
#
# 해결 방법은 다음과 같습니다.
#
# - 디바이스를 정수로 지정하지 말고, 처음에 한 번 정해 둔 `device`(가속기가 없으면 CPU)를 쓰세요. GPU가 있는 것이 확실하다면 `"cuda:0"`처럼 이름으로 적어도 됩니다.
# - `pin_memory()`는 가속기가 있을 때만 호출하세요.
#
# 다음 셀은 앞의 빌드별 설명 가운데 이 머신이 어느 경우에 해당하는지 보여 주며, GPU가 있으면 `device=0`으로 텐서를 만듭니다.

# %% tags=["gpu-only"]
usable = torch.accelerator.is_available()
# 2.7부터 current_accelerator()는 빌드 대상 가속기를 돌려준다
# (없으면 None). 2.6은 쓸 수 있는 가속기가 없으면 예외를 낸다
if usable or TORCH >= (2, 7):
    built_for = torch.accelerator.current_accelerator()
else:
    built_for = None
print(f"{usable=}, {built_for=}")
if usable:
    index_device = torch.zeros(1, device=0).device
    print(f"{index_device=}")
    assert index_device.type != "cpu"
elif built_for is None:
    with expect_error(RuntimeError, "none is available"):
        torch.zeros(1, device=0)
    with expect_error(RuntimeError, "none is available"):
        torch.ones(3).pin_memory()
else:
    # 가속기용 빌드를 가속기가 없는 머신에서 쓰는 경우:
    # 정수 0은 그 가속기의 인덱스 0을 뜻한다
    print(f"{torch.device(0)=}")
    assert torch.device(0) == torch.device(built_for.type, 0)
    try:
        torch.zeros(1, device=0)
    except RuntimeError as err:  # 드라이버가 없다는 등의 이유를 알려 준다
        sys.stdout.flush()
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError("expected RuntimeError")

named = torch.zeros(1, device=device)
print(f"{named.device=}")
assert named.device.type == device.type

# %% [markdown]
# ### `pin_memory=True`와 `non_blocking=True`
#
# 앞에서 본 것처럼 가속기 없이 `pin_memory()`를 직접 호출하면 오류가 나지만, DataLoader의 `pin_memory=True` 옵션은 다릅니다. `DataLoader(..., pin_memory=True)`는 고정(page-locked) 메모리에 배치를 담아 돌려줍니다. `t.to(device, non_blocking=True)`는 GPU로 복사하는 작업을 큐에 넣기만 하고 곧바로 반환할 수 있습니다. 가속기가 없어도 DataLoader는 오류를 내지 않고 고정되지 않은 배치를 내놓으며, `to(..., non_blocking=True)`는 `non_blocking` 없이 호출할 때와 똑같이 동작합니다. 그래서 같은 루프를 어느 머신에서나 그대로 실행할 수 있습니다.
#
# `pin_memory=True`인데 가속기를 찾지 못했을 때 DataLoader가 경고를 내는지는 버전에 따라 다릅니다. PyTorch 2.6은 아무 경고 없이 넘어가고, 2.13은 다음 경고를 냅니다.
#
# ```
# 'pin_memory' argument is set as true but no accelerator is found, then device pinned memory won't be used.
# ```
#
# `pin_memory=True`로 설정했지만 가속기를 찾지 못해 고정 메모리를 쓰지 않는다는 내용입니다.
#
# 메모리 고정으로 학습이 얼마나 빨라지는지는 [텐서 옮기기](02-moving-tensors.ipynb) 페이지에서 따로 측정합니다.
#
# 다음 셀은 루프에서 난 경고를 모아 그 종류(`UserWarning`)를 출력하고, GPU가 있으면 배치가 실제로 고정 메모리에 있었는지도 확인합니다.

# %% tags=["gpu-only"]
loader = DataLoader(
    TensorDataset(torch.randn(8, 3), torch.arange(8)),
    batch_size=4,
    pin_memory=True,
)
with warnings.catch_warnings(record=True) as warned:
    warnings.simplefilter("always")
    for features, labels in loader:
        pinned = features.is_pinned()
        features = features.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)

print([w.category.__name__ for w in warned])
print(f"{pinned=}, {features.device=}, {labels.device=}")
assert features.device.type == labels.device.type == device.type
if torch.cuda.is_available():
    assert pinned
elif not torch.accelerator.is_available():
    assert not pinned
    if TORCH >= (2, 13):  # 가속기를 찾지 못했다는 경고
        assert any("no accelerator" in str(w.message) for w in warned)

# %% [markdown]
# 반대로 GPU에서 CPU로 복사할 때 `to("cpu", non_blocking=True)`를 쓰면, 데이터가 다 도착하기 전에 호출이 반환될 수 있습니다. 이렇게 받은 CPU 텐서를 읽기 전에는 `torch.cuda.synchronize()`를 호출하세요. 이 동작은 [텐서 옮기기](02-moving-tensors.ipynb) 페이지에서 GPU로 검증합니다.

# %% [markdown]
# ## Cannot re-initialize CUDA in forked subprocess
#
# 이 오류는 "fork한 자식 프로세스에서는 CUDA를 다시 초기화할 수 없다"라고 알립니다. 전체 메시지는 다음과 같습니다.
#
# ```
# Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method
# ```
#
# 메시지는 멀티프로세싱에서 CUDA를 쓰려면 시작 방식으로 `'spawn'`을 지정해야 한다고 덧붙입니다. Python 3.13까지 Linux에서는 `multiprocessing`과 DataLoader 워커가 기본으로 `fork` 방식을 씁니다. `fork`는 부모 프로세스를 복제해 자식 프로세스를 만듭니다. 부모가 이미 CUDA를 초기화했다면, fork로 만든 자식은 CUDA를 다시 초기화할 수 없어 CUDA를 전혀 쓰지 못합니다. Python 3.14부터는 Linux의 기본값이 `forkserver`로 바뀌었습니다.
#
# 다음 셀은 자식 프로세스를 fork해 그 안에서 `device`에 텐서를 만듭니다. GPU가 있으면 부모가 먼저 GPU 텐서를 하나 만들어 두므로, fork할 때는 CUDA가 이미 초기화되어 있습니다. 따라서 자식은 이 오류로 실패하고, 오류 메시지를 부모에게 돌려보냅니다.
#
# GPU가 없으면 CUDA가 한 번도 초기화되지 않으므로 이 오류는 일어날 수 없고, 자식은 문제없이 CPU 텐서를 만듭니다. 어느 경우든 마지막에는 `torch.cuda.is_initialized()`의 값과 자식 프로세스의 결과를 출력합니다.
#
# 이 셀은 `fork`를 안전하게 쓸 수 있는 Linux에서만 실행되며, 기본 시작 방식과 상관없이 `fork`를 직접 지정합니다.

# %% tags=["gpu-only"]
def child(queue, device):
    try:
        queue.put(("ok", torch.ones(2, device=device).sum().item()))
    except RuntimeError as err:
        queue.put(("error", str(err)))


if sys.platform.startswith("linux"):
    torch.ones(1, device=device)  # GPU가 있으면 여기서 CUDA가 초기화된다
    fork = multiprocessing.get_context("fork")
    queue = fork.SimpleQueue()
    process = fork.Process(target=child, args=(queue, device))
    process.start()
    outcome, result = queue.get()
    process.join()
    print(f"{torch.cuda.is_initialized()=}, {outcome=}, {result=}")
    if sys.version_info < (3, 14):
        assert multiprocessing.get_context().get_start_method() == "fork"
    if torch.cuda.is_initialized():
        assert outcome == "error"
        assert "Cannot re-initialize CUDA in forked subprocess" in result
    else:
        assert outcome == "ok" and result == 2.0
else:
    print(f"{sys.platform=}")

# %% [markdown] tags=["predict"]
# **예측해 보세요:** GPU가 있다면 이 프로세스는 이미 CUDA를 초기화한 상태입니다. 이제 DataLoader가 워커 프로세스 두 개를 시작해(Linux에서 Python 3.13 이하라면 `fork`로) 배치를 만들고, 루프 안에서 각 배치를 `device`로 옮깁니다. 다음 셀은 무엇을 출력할까요?
#
# - `devices={'cuda'}`
# - `Cannot re-initialize CUDA in forked subprocess`
# - `devices={'cpu'}`

# %%
dataset = TensorDataset(torch.randn(8, 3))
loader = DataLoader(dataset, batch_size=4, num_workers=2)
devices = set()
for (features,) in loader:
    devices.add(features.device.type)  # 워커가 만든 텐서의 디바이스
    features = features.to(device)
print(f"{devices=}, {features.device=}")

# %% tags=["answer"]
assert devices == {"cpu"}
assert features.device.type == device.type

# %% [markdown] tags=["answer"]
# **정답:** GPU가 있든 없든 `devices={'cpu'}`입니다. 워커는 데이터셋을 읽고 CPU 텐서를 묶어 배치로 만들 뿐입니다. CUDA에는 전혀 손대지 않으므로, CUDA를 쓴 프로세스에서 fork되어도 문제가 없고, 만든 텐서가 GPU에 놓이지도 않습니다. 디바이스로 옮기는 일은 메인 프로세스의 루프에서 합니다.
#
# - `devices={'cuda'}`는 워커가 배치를 GPU에 만들어 준다고 예상한 답입니다.
# - `Cannot re-initialize CUDA in forked subprocess`를 골랐다면 fork한 워커에서는 언제나 이 오류가 난다고 생각했을 겁니다. 이 오류는 워커가 CUDA를 건드릴 때만 나는데, 이 데이터셋은 CUDA를 쓰지 않습니다.
#
# 이 오류를 피하는 가장 흔한 방법은 워커에는 CPU 작업만 맡기는 것입니다. 그러면 메인 프로세스가 GPU를 쓴 뒤에도 `fork`한 워커가 문제없이 동작합니다. DataLoader도 원래 그렇게 쓰도록 만들어졌습니다.

# %% [markdown]
# 자식 프로세스에서 꼭 CUDA를 써야 한다면 `spawn`으로 시작하세요. `multiprocessing.get_context("spawn")`이나 `DataLoader(..., multiprocessing_context="spawn")`을 지정하면 됩니다.
#
# `forkserver`로 시작해도 됩니다. 이 방식에서는 새로 띄운 서버 프로세스가 자식을 fork합니다. 서버 프로세스는 메인 스크립트를 임포트해도 `if __name__ == "__main__":` 가드 아래 코드는 실행하지 않습니다. 따라서 CUDA를 쓰는 코드가 가드 아래에 있으면 서버는 CUDA를 초기화하지 않습니다.
#
# `spawn`과 `forkserver`에는 다음 규칙이 똑같이 적용됩니다. CUDA를 쓰는 코드는 이 가드 아래에 두고, 데이터셋 클래스는 모듈 최상위에 정의하세요. 자세한 내용은 [여러 GPU](05-several-gpus.ipynb) 페이지를 참고하세요.

# %% [markdown]
# ## Torch not compiled with CUDA enabled
#
# "Torch가 CUDA를 지원하도록 컴파일되지 않았다"라는 오류입니다.
#
# CPU 전용 빌드(버전 문자열이 대개 `+cpu`로 끝납니다)에서 `.cuda()`나 `device="cuda"` 등으로 CUDA를 쓰려고 하면 이 메시지와 함께 `AssertionError`가 납니다. 다만 CUDA 함수라고 해서 늘 이 메시지가 나오지는 않습니다. 예를 들어 `torch.cuda.set_device(0)`은 원인이 같은데도 `AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'`("`torch._C`에 `_cuda_setDevice` 속성이 없다")로 실패합니다.
#
# CUDA 빌드라도 CUDA를 초기화할 수 없는 머신에서는 원인을 알려 주는 다른 오류(`RuntimeError`)가 납니다. NVIDIA 드라이버가 없는 머신에서 PyTorch 2.6.0+cu124를 쓰면 다음과 같습니다.
#
# ```
# Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx
# ```
#
# NVIDIA 드라이버를 찾을 수 없으니 NVIDIA GPU가 있는지 확인하고 드라이버를 설치하라고 안내합니다.
#
# 해결 방법은 두 가지입니다.
#
# - GPU를 쓰려면 NVIDIA GPU와 드라이버가 있는 머신에서 CPU 전용 빌드를 CUDA 빌드로 바꾸세요. macOS용 CUDA 빌드는 없으므로 Apple 실리콘 Mac에서는 `mps` 디바이스를 쓰세요.
# - 어떤 머신에서든 돌아가게 하려면, 이 튜토리얼의 모든 페이지처럼 디바이스를 한 번 정해 두고 코드 전체에서 그 값을 쓰세요.
#
# PyPI에서 `pip install torch`로 받으면 Linux(x86-64)에는 CUDA 빌드가, Windows에는 CPU 전용 빌드가 설치됩니다. CPU 전용 빌드를 CUDA 빌드로 바꿀 때는 설치된 torch를 먼저 제거하세요. 같은 버전의 torch가 이미 설치되어 있으면 pip은 다시 설치하지 않습니다.
#
# 제거한 뒤 드라이버와 GPU가 모두 지원하는 CUDA 버전을 골라, 그 버전용 PyTorch 공식 패키지 저장소(`--index-url`로 지정하는 주소)에서 설치하세요. 명령은 Windows와 Linux에서 같습니다. 주소 끝의 `cu128`은 고른 CUDA 버전(예: `cu126`)으로 바꿔 쓰세요.
#
# ```
# python -m pip uninstall -y torch
# python -m pip install torch --index-url https://download.pytorch.org/whl/cu128
# ```
#
# PyTorch 버전마다 고를 수 있는 CUDA 버전은 pytorch.org의 설치 안내(Get Started) 페이지에서 확인하세요. torchvision과 torchaudio도 같은 주소에서 설치합니다.
#
# Blackwell 세대 GPU(GeForce RTX 50 시리즈, B200)를 쓰려면 `cu128` 이상으로 빌드된 torch가 필요합니다. PyPI에서 받는 Linux용 torch는 PyTorch 2.8부터 `cu128` 이상으로 빌드되어 있습니다. `cu128` 빌드는 2.7부터 나왔지만, PyPI에 있는 2.7의 Linux용 torch는 `cu126` 빌드입니다. `cu126` 빌드에는 Blackwell용 코드가 들어 있지 않아서, 이런 torch를 Blackwell GPU에서 쓰면 다음 경고가 납니다.
#
# ```
# ... is not compatible with the current PyTorch installation.
# ```
#
# `...` 자리에 나오는 GPU가 지금 설치된 PyTorch와 호환되지 않는다는 경고입니다.
#
# 다음 셀은 설치된 PyTorch가 CPU 전용 빌드인지 CUDA 빌드인지, GPU를 쓸 수 있는지 보여 주고, GPU가 있으면 CUDA 텐서를 만듭니다.

# %% tags=["gpu-only"]
print(f"{torch.version.cuda=}, {torch.backends.cuda.is_built()=}")
print(f"{torch.cuda.is_available()=}")
if sys.platform == "darwin":
    assert not torch.backends.cuda.is_built()  # macOS용 CUDA 빌드는 없다
# 빌드가 지원하지 않는 GPU에서 나오는 경고 문구가 torch.cuda에 있다
assert "not compatible with the current" in inspect.getsource(torch.cuda)
if not torch.backends.cuda.is_built():
    with expect_error(AssertionError, "Torch not compiled with CUDA enabled"):
        torch.zeros(1, device="cuda")
    with expect_error(AssertionError, "Torch not compiled with CUDA enabled"):
        torch.ones(1).cuda()
    with expect_error(AttributeError, "_cuda_setDevice"):
        torch.cuda.set_device(0)
elif not torch.cuda.is_available():
    # 드라이버가 없거나 오래됐거나 GPU가 없는 등 이유는 여러 가지다
    try:
        torch.zeros(1, device="cuda")
    except RuntimeError as err:
        sys.stdout.flush()
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError("expected RuntimeError")
else:
    assert torch.zeros(1, device="cuda").is_cuda

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
assert torch.zeros(1, device=device).device.type == device.type

# %% [markdown]
# ## CUDA out of memory
#
# GPU 메모리가 모자랄 때 나는 오류로, "CUDA 메모리가 부족하다"는 뜻입니다. PyTorch 2.6부터 2.13까지 메시지는 다음처럼 시작하며, … 자리에 크기가 들어갑니다.
#
# ```
# CUDA out of memory. Tried to allocate …. GPU 0 has a total capacity of … of which … is free.
# ```
#
# 메시지는 이어서 이 프로세스가 쓰는 메모리를 보여 줍니다. 드라이버가 프로세스 목록을 제공하면 다른 프로세스가 쓰는 메모리도 함께 나옵니다. 마지막 부분은 다음과 같습니다.
#
# ```
# Of the allocated memory … is allocated by PyTorch, and … is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.
# ```
#
# 메시지에는 할당하려던 크기, GPU의 전체 용량과 여유 공간, 이 프로세스가 쓰는 메모리, 그중 PyTorch가 할당한 양과 예약만 되고 할당되지 않은 양(여기서는 '비어 있는 예약 메모리'라고 부르겠습니다)이 차례로 나옵니다. 마지막 문장은 비어 있는 예약 메모리가 크면 단편화(빈 메모리가 잘게 쪼개져 쓰지 못하게 되는 현상)를 피하도록 `expandable_segments`를 설정해 보라는 권고입니다.
#
# 위에 인용한 메시지의 마지막 부분은 PyTorch 2.6의 문구입니다. 이 부분에 나오는 환경 변수 이름은 버전마다 다릅니다. 2.9와 2.10의 메시지는 `PYTORCH_ALLOC_CONF`를, 2.12의 메시지는 다시 `PYTORCH_CUDA_ALLOC_CONF`를 권합니다. 2.11의 문구는 확인하지 못했습니다. 어느 이름을 설정하면 되는지는 이 섹션 끝의 표를 보세요.
#
# 메시지에 나오는 수치의 뜻은 다음과 같습니다.
#
# - 할당된 메모리(메시지의 `allocated by PyTorch`, `torch.cuda.memory_allocated()`): PyTorch의 캐싱 할당자가 나눠 준 블록의 총량입니다. 살아 있는 텐서뿐 아니라 cuBLAS 같은 라이브러리의 작업 공간도 들어가며, 각 텐서의 크기는 512바이트의 배수로 올려 잡힙니다.
# - 예약된 메모리(`torch.cuda.memory_reserved()`): 캐싱 할당자가 GPU에서 확보해 둔 메모리 전체입니다.
# - 비어 있는 예약 메모리(`reserved by PyTorch but unallocated`): 예약된 메모리 가운데 텐서가 들어 있지 않은 부분으로, 대략 `torch.cuda.memory_reserved() - torch.cuda.memory_allocated()`입니다. 해제된 텐서의 메모리는 드라이버에 반환되지 않고 캐싱 할당자에 남으므로, `torch.cuda.empty_cache()`를 호출하기 전까지 `nvidia-smi`에서는 계속 사용 중으로 보입니다.
# - 참고로 `nvidia-smi`의 사용량은 이 프로세스가 예약한 메모리, CUDA 컨텍스트, 같은 GPU를 쓰는 다른 프로세스의 사용량을 모두 더한 값입니다.
#
# 먼저 해 볼 것은 다음과 같습니다.
#
# - 배치 크기를 줄입니다.
# - 손실을 기록하려고 누적할 때는 `loss` 텐서 대신 `loss.detach()`를 더합니다('디바이스 불일치 오류 읽는 법' 페이지의 [값을 읽으면 CPU가 GPU를 기다린다](07-device-errors.ipynb#값을-읽으면-cpu가-gpu를-기다린다) 섹션 참고).
# - 평가할 때는 `torch.no_grad()`를 씁니다.
# - 더는 필요 없는 큰 텐서는 `del`합니다.
# - 비어 있는 예약 메모리가 크면 메시지에 나온 `expandable_segments` 설정을 씁니다(Linux만 해당).
#
# 실행하기 전에 모델에 필요한 메모리를 어림해 GPU에 들어갈지 판단하는 방법은 [모델이 메모리에 들어갈까?](08-will-it-fit.ipynb) 페이지에서 다룹니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 이 오류가 나면 배치를 줄여 다시 시도할 수 있도록 학습 루프의 한 단계를 `try`로 감쌌다고 해 봅시다. 다음 셀의 두 `except` 중 어느 쪽이 이 오류를 잡을까요?
#
# - `handler='RuntimeError'`
# - `handler='Exception'`

# %%
try:
    raise torch.OutOfMemoryError("CUDA out of memory.")
except RuntimeError:
    handler = "RuntimeError"
except Exception:
    handler = "Exception"
print(f"{handler=}")

# %% tags=["answer"]
assert handler == "RuntimeError"
assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
assert issubclass(torch.OutOfMemoryError, RuntimeError)

# %% [markdown] tags=["answer"]
# **정답:** `handler='RuntimeError'`입니다. 이 오류의 예외 클래스인 `torch.OutOfMemoryError`는 `RuntimeError`의 하위 클래스이므로, 어느 머신에서든 첫 번째 `except`가 잡습니다. `torch.cuda.OutOfMemoryError`는 같은 클래스의 다른 이름입니다. 이 오류만 잡으려면 `except torch.OutOfMemoryError`라고 씁니다.
#
# - `handler='Exception'`은 메모리 부족을 `RuntimeError`와 무관한 별도의 예외로 여긴 답입니다. 이 예외는 앞의 `except RuntimeError`에서 먼저 잡힙니다.

# %% [markdown]
# GPU가 있다면 GPU 전체 메모리의 두 배를 요청해 이 오류를 직접 일으켜 봅니다. 이어서 해제한 텐서의 메모리가 할당된 메모리에서는 빠지지만 `torch.cuda.empty_cache()`를 호출할 때까지 예약된 메모리에 남는다는 것을 검증합니다.

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    total = torch.cuda.get_device_properties(0).total_memory
    with expect_error(torch.OutOfMemoryError, "CUDA out of memory"):
        torch.empty(2 * total, dtype=torch.uint8, device="cuda:0")

    torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated(0)
    block = torch.empty(256 * 2**20, dtype=torch.uint8, device="cuda:0")
    del block
    reserved = torch.cuda.memory_reserved(0)
    torch.cuda.empty_cache()
    allocated_change = torch.cuda.memory_allocated(0) - before
    print(f"{allocated_change=}, {reserved=}")
    print(f"{torch.cuda.memory_reserved(0)=}")
    assert allocated_change == 0
    assert reserved >= 256 * 2**20
    assert torch.cuda.memory_reserved(0) < reserved
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# 예약된 메모리가 있어도 쓰지 못할 때가 있습니다. 할당자는 GPU 메모리를 세그먼트라는 큰 덩어리로 확보해 잘라 쓰는데, 세그먼트 안의 빈 블록이 모두 다음 요청보다 작으면 새 텐서를 놓을 곳이 없습니다. 앞에서 말한 단편화가 바로 이런 상태입니다. 할당자 설정 `expandable_segments:True`를 켜면 세그먼트를 새로 잡지 않고 기존 세그먼트를 늘려 쓰므로, 단계마다 배치 모양(shape)이 바뀔 때 특히 도움이 됩니다.
#
# `expandable_segments`는 Linux에서만 동작합니다. Windows 빌드는 이 설정을 무시하고 `expandable_segments not supported on this platform`이라는 경고("이 플랫폼에서는 지원하지 않는다")를 냅니다. 이 값을 담는 환경 변수(아래 참고)는 할당자가 처음 초기화될 때 한 번만 읽히므로, 가장 확실한 방법은 `import torch`보다 먼저 설정하는 것입니다.
#
# PyTorch 버전별로 할당자 설정을 어느 이름의 환경 변수에서 읽는지는 다음과 같습니다.
#
# | PyTorch 버전 | 기존 이름 `PYTORCH_CUDA_ALLOC_CONF` | 새 이름 `PYTORCH_ALLOC_CONF` |
# |---|---|---|
# | 2.6–2.8 | 읽음 | 읽지 않음 |
# | 2.9–2.11 | 읽음(사용 중단 경고가 나옴) | 읽음(2.9.1에서는 `expandable_segments`가 켜지지 않음, [pytorch#183387](https://github.com/pytorch/pytorch/issues/183387)) |
# | 2.12 | 읽음(새 이름의 별칭으로 처리됨, [pytorch#167659](https://github.com/pytorch/pytorch/pull/167659)) | 읽음 |
# | 2.13 | 경고 없이 읽음. 두 이름이 모두 있으면 기존 이름을 따름 | 읽음 |
#
# 2.9부터 2.11까지는 기존 이름을 설정하면 `PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead`라는 경고가 나옵니다. 기존 이름은 사용 중단되었으니 새 이름을 쓰라는 안내입니다. 이 문구는 PyTorch 소스의 `c10/core/AllocatorConfig.cpp`에 있습니다.
#
# 여러 버전에서 돌릴 스크립트라면 기존 이름(`PYTORCH_CUDA_ALLOC_CONF`) 하나만 설정하세요. 일부 버전에서 경고가 나올 뿐 동작에는 문제가 없습니다.
#
# 다음 셀은 새 프로세스를 띄워 할당자가 읽어 들인 설정을 출력하고, 위에서 설명한 2.13의 두 동작을 검증합니다. GPU에서는 `torch.cuda.memory._snapshot()`으로 세그먼트 자체도 확인할 수 있습니다.

# %%
if TORCH >= (2, 13):  # 기존 이름을 경고 없이 읽는다
    probe = ("import torch; "
             "print(torch._C._accelerator_getAllocatorSettings())")
    env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True")
    env.pop("PYTORCH_ALLOC_CONF", None)
    child = subprocess.run([sys.executable, "-c", probe], env=env,
                           capture_output=True, text=True, timeout=120)
    print(f"{child.stdout.strip()=}")
    assert child.stdout.strip() == "expandable_segments:True"
    assert "deprecated" not in child.stderr
    both = dict(env, PYTORCH_ALLOC_CONF="expandable_segments:False")
    child = subprocess.run([sys.executable, "-c", probe], env=both,
                           capture_output=True, text=True, timeout=120)
    print(f"{child.stdout.strip()=}")  # 둘 다 있으면 2.13은 기존 이름을 쓴다
    assert child.stdout.strip() == "expandable_segments:True"
else:
    print(f"{torch.__version__=}")

# %% [markdown]
# ## 정리
#
# | 메시지(일부) | 흔한 원인 | 해결 방법 |
# |---|---|---|
# | `Attempting to deserialize object on a CUDA device` | GPU에서 저장한 체크포인트를 GPU 없는 머신에서 불러오기 | `torch.load(path, map_location=device)` |
# | `CUDA error: invalid device ordinal` | 존재하지 않는 GPU 인덱스 지정 | `torch.cuda.device_count()`보다 작은 인덱스 사용 |
# | `Cannot access accelerator device when none is available.` | 가속기 없이 디바이스를 정수로 지정하거나 `pin_memory()` 호출 | 디바이스를 이름으로 지정, `pin_memory()`는 가속기가 있을 때만 호출 |
# | `Cannot re-initialize CUDA in forked subprocess` | 부모가 CUDA를 쓴 뒤 fork한 자식에서 CUDA 사용 | 워커는 CPU 작업만, 디바이스로 옮기기는 메인 프로세스에서. 또는 `spawn` 사용 |
# | `Torch not compiled with CUDA enabled` | CPU 전용 빌드에서 CUDA 사용(`set_device`는 대신 `no attribute '_cuda_setDevice'` 오류를 냄) | CUDA 빌드 설치(Blackwell GPU는 `cu128` 이상, macOS에서는 `mps` 사용). 또는 디바이스를 한 번 정해 두고 쓰기 |
# | `CUDA out of memory` | GPU 여유 메모리보다 큰 할당 요청 | 배치 줄이기, 손실은 `detach()`해서 누적, 평가할 때는 `no_grad()` 사용, 필요 없는 큰 텐서는 `del`로 삭제. 할당된 메모리와 예약된 메모리를 구분해 읽기 |
