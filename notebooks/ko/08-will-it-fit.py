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
# # 메모리에 들어갈까: 옮기기 전에 모델의 메모리 어림하기
#
# "CUDA out of memory"는 디바이스 관련 오류 중 가장 자주 만나는 오류입니다. 하지만 미리 예상할 수 있습니다. 모델에 필요한 메모리는 형태와 dtype으로 정해지고, 학습 단계가 여기에 무엇을 더하는지도 셀 수 있기 때문입니다.
#
# 이 페이지에서는 둘 다 계산하고, 각 수치를 PyTorch가 알려 주는 값과 비교해 실행한 머신에서 검증합니다.
#
# - 원소당 바이트 수, 모델의 매개변수와 버퍼
# - 이 머신의 메모리보다 훨씬 큰 모델을 `meta` 디바이스에 만들고, CPU 메모리에 먼저 복사하지 않고 디바이스에서 실제 모델로 만드는 방법
# - 학습이 더하는 것: 변화도, 옵티마이저 상태, autograd가 저장하는 활성화
# - GPU에서: PyTorch 할당자가 알려 주는 값, 그리고 `nvidia-smi`가 더 크게 보여 주는 이유
#
# 마지막 절을 뺀 나머지는 모두 CPU에서 실행하고 검증합니다. GPU용 셀에는 표시가 있고, GPU가 없는 머신에서는 `torch.cuda.is_available()=False`를 출력합니다.

# %% tags=["setup"]
import contextlib
import os
import sys
import tempfile
import time
import types
import warnings

import torch
from torch import nn
from torch.autograd.graph import saved_tensors_hooks

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
print(torch.__version__, device)

# %% [markdown]
# ## 원소당 바이트 수
#
# 텐서의 메모리는 원소 개수에 원소 하나의 바이트 수를 곱한 값입니다. 원소 하나의 바이트 수는 dtype이 정합니다. 즉 `t.nbytes == t.numel() * t.element_size()`입니다. 형태와 dtype은 데이터가 생기기 전부터 알 수 있으므로 크기도 미리 알 수 있습니다.

# %% tags=["claim-F12"]
dtypes = [torch.float64, torch.float32, torch.bfloat16, torch.float16,
          torch.int64, torch.int8, torch.bool]
sizes = {str(d): torch.empty(0, dtype=d).element_size() for d in dtypes}
print(sizes)
assert sizes["torch.float32"] == 4 and sizes["torch.bfloat16"] == 2
assert sizes["torch.int64"] == 8 and sizes["torch.bool"] == 1

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `t = torch.zeros(1024, 1024, dtype=torch.float16)`일 때 `print(f"{t.nbytes=}")`는 무엇을 출력할까요?
#
# - `t.nbytes=1048576`
# - `t.nbytes=2097152`
# - `t.nbytes=4194304`

# %%
t = torch.zeros(1024, 1024, dtype=torch.float16)
print(f"{t.nbytes=}")

# %% tags=["claim-F12", "answer"]
assert t.nbytes == t.numel() * t.element_size() == 1024 * 1024 * 2

# %% [markdown] tags=["answer"]
# **정답:** `t.nbytes=2097152`입니다. 약 100만 개의 원소가 각각 2바이트이므로 2MiB입니다. 원소당 1바이트라면 `int8`이나 `bool`이고, 4바이트라면 기본값인 `float32`입니다.

# %% [markdown]
# ## 모델의 매개변수와 버퍼
#
# 모델 자체의 메모리는 매개변수(변화도로 학습하는 값)와 버퍼(변화도 없이 유지하는 상태)입니다. 버퍼의 예로 배치 정규화의 이동 통계가 있는데, 학습 중에는 순전파마다 갱신됩니다. `model.state_dict()`에는 정확히 이 둘이 들어 있으므로, 그 바이트 수가 곧 모델의 바이트 수입니다.
#
# 아래 함수는 이것들을 더합니다. 셀에서는 `state_dict()`의 합과 같은지 검증합니다.

# %% tags=["claim-F12"]
def model_bytes(model):
    tensors = [*model.parameters(), *model.buffers()]
    return sum(t.numel() * t.element_size() for t in tensors)


def make_mlp(d_in, d_hidden, d_out):
    return nn.Sequential(nn.Linear(d_in, d_hidden), nn.BatchNorm1d(d_hidden),
                         nn.ReLU(), nn.Linear(d_hidden, d_out))


model = make_mlp(1024, 4096, 1024)
n_params = sum(p.numel() for p in model.parameters())
print(f"{n_params=}, {model_bytes(model)=}")
assert model_bytes(model) == sum(t.nbytes for t in model.state_dict().values())
assert n_params == 1024 * 4096 + 4096 + 2 * 4096 + 4096 * 1024 + 1024

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `model.half()`는 모델을 16비트 부동소수점으로 변환합니다. 변환한 뒤 매개변수와 버퍼의 dtype은 무엇일까요?
#
# - `['torch.float16']`
# - `['torch.float32']`
# - `['torch.float16', 'torch.int64']`

# %%
before = model_bytes(model)
model.half()
print(sorted({str(t.dtype) for t in model.state_dict().values()}))
print(f"{before=}, {model_bytes(model)=}")

# %% tags=["claim-F12", "answer"]
kept = [k for k, t in model.state_dict().items() if t.dtype == torch.int64]
print(kept)
assert kept == ["1.num_batches_tracked"]
assert model_bytes(model) == (before - 8) // 2 + 8

# %% [markdown] tags=["answer"]
# **정답:** `['torch.float16', 'torch.int64']`입니다. `.half()`는 `.to(torch.float16)`처럼 부동소수점 매개변수와 버퍼만 변환합니다.
#
# 배치 정규화가 처리한 배치 수를 세는 `num_batches_tracked`는 정수라서 `int64`로 남고, 나머지는 모두 절반이 됩니다. 모두 `float32`인 모델을 `float16`으로 바꾸면 메모리가 절반이 됩니다(정수 카운터 몇 바이트는 빼고).

# %% [markdown]
# ## 이 머신보다 큰 모델: `meta`에 만들기
#
# `meta` 디바이스의 텐서는 형태와 dtype은 있지만 데이터가 없습니다. 그래서 만들어도 메모리를 쓰지 않습니다. `with torch.device("meta"):` 안에서는 모델이 아무리 커도 이런 방식으로 몇 밀리초 만에 만들어집니다. 어디에 둘지 정하기 전에 바이트 수를 셀 수 있다는 뜻입니다.
#
# 아래 셀에서는 매개변수가 200억 개(`float32`로 80GB)인 모델을 만듭니다.

# %% tags=["claim-F13"]
start = time.perf_counter()
with torch.device("meta"):
    big = make_mlp(100_000, 100_000, 100_000)
seconds = time.perf_counter() - start
n_big = sum(p.numel() for p in big.parameters())
gigabytes = model_bytes(big) / 1e9
print(f"{n_big=:,}, {gigabytes=:.1f}, {seconds=:.3f}")
assert all(t.is_meta for t in big.state_dict().values())
assert model_bytes(big) > 80e9
assert seconds < 10  # 넉넉하게 잡은 값: 실제로는 몇 밀리초

# %% [markdown]
# 여기에 함정이 있습니다. meta 텐서에는 값이 없으므로 아무것도 읽어 낼 수 없습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `small = torch.zeros(3, device="meta")`일 때 `small.cpu()`는 어떻게 될까요?
#
# - `tensor([0., 0., 0.])`
# - `RuntimeError`
# - `NotImplementedError`

# %%
small = torch.zeros(3, device="meta")
with expect_error(Exception) as caught:
    print(small.cpu())

# %% tags=["claim-F13", "answer"]
assert type(caught.error) is NotImplementedError
assert "no data" in str(caught.error)

# %% [markdown] tags=["answer"]
# **정답:** `NotImplementedError`("Cannot copy out of meta tensor; no data!")입니다. 0은 한 번도 저장된 적이 없으므로 복사할 것이 없습니다.
#
# 참고로 `big`의 가중치처럼 CPU 메모리에 들어가지 않을 만큼 큰 meta 텐서는 그보다 먼저 CPU 할당자가 `RuntimeError`를 냅니다.

# %% [markdown]
# ## `meta`에서 실제 디바이스로: CPU에 먼저 복사하지 않고
#
# `meta`에 만든 모델을 실제 모델로 만드는 방법은 두 가지입니다.
#
# - `model.to_empty(device=...)`: 모든 매개변수와 버퍼에 그 디바이스의 메모리를 할당합니다. 초기화하지 않으므로 값은 그 메모리에 남아 있던 내용입니다. 이어서 각 층의 `reset_parameters()` 등으로 초기화하세요.
# - `model.load_state_dict(state, assign=True)`: 불러온 텐서를 그대로 모델의 매개변수로 삼습니다. 매개변수를 먼저 만들고 거기에 복사할 필요가 없습니다.
#
# `torch.load(path, mmap=True, map_location=device)`를 쓰면 체크포인트를 CPU 메모리로 읽어 들이지 않고 파일에서 매핑하며, 각 텐서는 `device`로 보냅니다. 이 둘을 함께 쓰면 가중치가 중간에 CPU 메모리에 통째로 복사되지 않고 목표 디바이스에 도착합니다(PyTorch 튜토리얼 "체크포인트에서 `nn.Module`을 불러올 때의 팁"도 이 조합을 권합니다).

# %% tags=["claim-F13"]
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "mlp.pt")
    torch.save(make_mlp(8, 16, 4).state_dict(), path)

    with torch.device("meta"):
        fresh = make_mlp(8, 16, 4)
    state = torch.load(path, mmap=True, map_location=device,
                       weights_only=True)
    fresh.load_state_dict(state, assign=True)
    weight = fresh[0].weight
    print(f"{weight.device=}, {type(weight).__name__=}")
    assert weight.device.type == device.type
    assert weight.data_ptr() == state["0.weight"].data_ptr()  # 복사하지 않았다
    assert isinstance(weight, nn.Parameter) and weight.requires_grad

    empty = make_mlp(8, 16, 4).to("meta").to_empty(device=device)
    for layer in empty:
        if hasattr(layer, "reset_parameters"):
            layer.reset_parameters()
    assert all(t.device.type == device.type
               for t in empty.state_dict().values())
    del state, fresh, weight

# %% [markdown]
# ## 학습이 더하는 것
#
# 학습 단계에서는 모델보다 훨씬 많은 것이 메모리에 남습니다.
#
# - 매개변수마다 하나씩, 매개변수와 같은 크기의 변화도
# - 옵티마이저 상태: 모멘텀 없는 SGD는 없음, 모멘텀이 있는 SGD는 매개변수마다 1개, Adam은 2개(변화도의 평균과 변화도 제곱의 평균)
# - 역전파에서 변화도를 계산하려고 autograd가 순전파 동안 저장하는 활성화
#
# 앞의 두 가지는 매개변수로 정해집니다. 활성화는 모델, 배치, 그리고 어떤 텐서에 변화도가 필요한지에 따라 달라집니다. `torch.autograd.graph.saved_tensors_hooks`를 쓰면 autograd가 저장하는 텐서를 모두 볼 수 있으므로 셀 수 있습니다.

# %% [markdown] tags=["predict"]
# **예측해 보세요:** Adam으로 한 단계를 진행한 뒤, 매개변수 1바이트당 Adam은 몇 바이트의 상태를 가질까요? 아래 셀은 그 비율을 출력합니다.
#
# - `adam_ratio=1.0`
# - `adam_ratio=2.0`
# - `adam_ratio=0.5`

# %%
model = make_mlp(64, 128, 10)
optimizer = torch.optim.Adam(model.parameters())
loss = model(torch.randn(32, 64)).pow(2).mean()
loss.backward()
optimizer.step()
param_bytes = model_bytes(model) - sum(b.nbytes for b in model.buffers())
state_bytes = sum(s[k].nbytes for s in optimizer.state.values()
                  for k in ("exp_avg", "exp_avg_sq"))
print(f"adam_ratio={state_bytes / param_bytes}")

# %% tags=["claim-F14", "answer"]
grad_bytes = sum(p.grad.nbytes for p in model.parameters())
steps = [s["step"] for s in optimizer.state.values()]
print(f"{grad_bytes=}, {param_bytes=}, {len(steps)=}")
assert grad_bytes == param_bytes
assert state_bytes == 2 * param_bytes
assert len(steps) == len(list(model.parameters()))

# %% [markdown] tags=["answer"]
# **정답:** `adam_ratio=2.0`입니다. Adam은 매개변수마다 같은 크기의 텐서 두 개(`exp_avg`, `exp_avg_sq`)와 숫자 하나짜리 `step`을 가집니다.
#
# 변화도까지 더하면, `float32` 모델을 Adam으로 학습할 때는 활성화를 빼고도 모델 크기의 4배가 필요합니다. 가중치, 변화도, 그리고 상태 텐서 두 개입니다.

# %% [markdown]
# 아래 함수는 순전파에서 autograd가 저장하는 것을 셉니다. 저장된 텐서의 스토리지를 한 번씩만 세고, 매개변수(이미 센 것)는 뺍니다.
#
# 이 모델에서 저장되는 것은 첫 번째 층의 입력과 `ReLU`의 출력입니다. `ReLU`의 출력은 마지막 층의 입력이기도 합니다. 따라서 4바이트 숫자 `batch × (64 + 128)`개입니다. 셀에서는 센 값이 이 계산과 같은지 검증합니다.

# %% tags=["claim-F14"]
def saved_bytes(model, x):
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    saved = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in params:
            saved[storage.data_ptr()] = storage.nbytes()
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(saved.values())


mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
counted = saved_bytes(mlp, torch.randn(32, 64))
computed = 32 * (64 + 128) * 4
print(f"{counted=}, {computed=}")
assert counted == computed

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 배치를 32개에서 64개로 늘리면 저장되는 활성화는 어떻게 바뀔까요? 아래 셀은 새 값을 이전 값으로 나눈 비율을 출력합니다.
#
# - `ratio=1.0`
# - `ratio=2.0`
# - `ratio=4.0`

# %%
doubled = saved_bytes(mlp, torch.randn(64, 64))
print(f"ratio={doubled / counted}")

# %% tags=["claim-F14", "answer"]
assert doubled == 64 * (64 + 128) * 4

# %% [markdown] tags=["answer"]
# **정답:** `ratio=2.0`입니다. 저장되는 활성화는 모두 예제 하나당 행 하나를 가지므로 배치에 비례해 늘어납니다. 반면 가중치, 변화도, 옵티마이저 상태는 바뀌지 않습니다. 학습 단계에서 메모리가 부족하면 먼저 배치를 줄여 보세요.

# %% [markdown]
# 저장하는 양을 줄이는 방법은 두 가지입니다.
#
# - 학습하지 않을 때는 `torch.no_grad()`나 `torch.inference_mode()` 안에서 아무것도 저장되지 않습니다. 역전파가 없기 때문입니다.
# - `torch.autocast`는 행렬 곱 같은 대상 연산을 정밀도가 낮은 dtype으로 실행합니다. 이 연산들이 저장하는 활성화는 바이트 수가 절반이 되지만, 변화도가 필요한 가중치는 정밀도가 낮은 복사본도 저장합니다. `device_type`에는 연산이 실행되는 디바이스를 지정해야 합니다. `autocast(device_type="cuda")`는 CPU에서 실행되는 연산에는 아무 영향이 없습니다.

# %% tags=["claim-F14"]
x = torch.randn(32, 64)
with torch.no_grad():
    no_grad = saved_bytes(mlp, x)
with torch.inference_mode():
    inference = saved_bytes(mlp, x)
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    autocast = saved_bytes(mlp, x)
    low = mlp(x).dtype
print(f"{no_grad=}, {inference=}, {autocast=}, {low=}")
assert no_grad == inference == 0
# 절반 크기의 활성화와 마지막 층 가중치의 bfloat16 복사본
assert autocast == 32 * (64 + 128) * 2 + 128 * 10 * 2
assert low == torch.bfloat16

with warnings.catch_warnings(record=True):  # CUDA가 없으면 꺼진다고 경고한다
    warnings.simplefilter("always")
    with torch.autocast(device_type="cuda"):
        elsewhere = mlp(x).dtype
print(f"{elsewhere=}")
assert elsewhere == torch.float32  # CPU 연산은 float32로 실행됐다

# %% [markdown]
# 학습 단계의 메모리 어림값은 이 네 부분의 합이고, 모두 모델과 배치로 계산할 수 있습니다. 아래 셀에서는 Adam의 경우로 어림값을 만들고, 한 단계 뒤 PyTorch가 실제로 가진 것과 부분별로 비교해 검증합니다.

# %% tags=["claim-F14"]
def estimate(model, batch_example, optimizer="adam"):
    weights = model_bytes(model)
    params = weights - sum(b.nbytes for b in model.buffers())
    states = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
    return {"weights": weights, "gradients": params,
            "optimizer": states * params,
            "activations": saved_bytes(model, batch_example)}


parts = estimate(mlp, torch.randn(32, 64))
print(parts, f"total={sum(parts.values())}")

optimizer = torch.optim.Adam(mlp.parameters())
mlp(torch.randn(32, 64)).sum().backward()
optimizer.step()
held = sum(s[k].nbytes for s in optimizer.state.values()
           for k in ("exp_avg", "exp_avg_sq"))
assert parts["gradients"] == sum(p.grad.nbytes for p in mlp.parameters())
assert parts["optimizer"] == held
assert parts["weights"] == sum(t.nbytes for t in mlp.state_dict().values())

# %% [markdown]
# ## GPU에서: 할당자가 알려 주는 값
#
# CUDA GPU에서 PyTorch는 드라이버로부터 큰 블록 단위로 메모리를 받아 두고, 캐싱 할당자를 통해 텐서에 직접 나눠 줍니다.
#
# - `torch.cuda.memory_allocated()`: 지금 텐서가 쓰고 있는 바이트 수
# - `torch.cuda.memory_reserved()`: 할당자가 드라이버에서 받아 둔 바이트 수(사용 여부와 관계없이). `nvidia-smi`가 프로세스에 대해 보여 주는 값이 이것입니다(CUDA 컨텍스트 몫이 더해집니다).
# - `torch.cuda.max_memory_allocated()`: 시작 시점 또는 마지막 `torch.cuda.reset_peak_memory_stats()` 호출 이후 `memory_allocated`의 최댓값
# - `torch.cuda.mem_get_info()`: 드라이버가 보는 디바이스의 남은 메모리와 전체 메모리의 바이트 수
#
# 텐서를 해제하면 그 메모리는 드라이버가 아니라 할당자로 돌아갑니다. `memory_allocated`는 줄지만 `memory_reserved`는 줄지 않습니다. `torch.cuda.empty_cache()`는 쓰이지 않는 블록을 드라이버에 돌려줍니다. 텐서를 해제하는 것은 아니고, 캐시된 블록은 PyTorch가 원래 다시 쓰므로 메모리가 부족해 멈추는 프로그램에는 거의 도움이 되지 않습니다.
#
# GPU가 없는 머신에서는 다음 셀이 `torch.cuda.is_available()=False`를 출력합니다. GPU에서 실행했는지는 페이지 위쪽 줄에 나옵니다. 셀이 검증하는 내용의 근거는 PyTorch 문서와 할당자의 소스입니다(notebooks/gpu-evidence.yml).

# %% tags=["claim-F15", "gpu-only"]
if torch.cuda.is_available():
    torch.cuda.synchronize()
    base_alloc = torch.cuda.memory_allocated()
    block = torch.empty(4 * 2**20, dtype=torch.uint8, device="cuda")  # 4 MiB
    alloc = torch.cuda.memory_allocated() - base_alloc
    reserved = torch.cuda.memory_reserved()
    del block
    after_del = torch.cuda.memory_allocated() - base_alloc
    kept = torch.cuda.memory_reserved()
    torch.cuda.empty_cache()
    released = torch.cuda.memory_reserved()
    print(f"{alloc=}, {reserved=}, {after_del=}, {kept=}, {released=}")
    assert alloc == 4 * 2**20  # 512바이트의 배수라서 올림이 없다
    assert reserved >= base_alloc + alloc
    assert after_del == 0
    assert kept == reserved  # 해제한 메모리는 할당자에 남는다
    assert released <= kept
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# 마지막 셀에서는 실제 학습 단계에서 어림값과 할당자의 값을 비교합니다. GPU로 옮긴 모델은 가중치를 가지며, 각 텐서는 512바이트의 배수로 올림됩니다.
#
# Adam으로 한 단계를 진행할 때 확실히 알 수 있는 시점이 두 번 있습니다. 순전파가 끝날 때는 가중치와 저장된 활성화가, `optimizer.step()` 동안에는 가중치, 변화도, Adam 상태가 메모리에 있습니다. 최댓값은 적어도 이 둘 중 큰 쪽입니다. 실제로는 더 큰데, 순전파와 역전파, Adam 업데이트에서 쓰는 임시 텐서 몫이 더해지기 때문입니다(어림값에는 넣지 않았습니다).
#
# 셀에서는 확실한 부분만 검증하고, 최댓값과 어림값 합계의 비율은 출력만 합니다. 계획은 합계로 세우고 여유를 두세요.

# %% tags=["claim-F14", "gpu-only"]
if torch.cuda.is_available():
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    gpu_model = make_mlp(1024, 4096, 1024).to("cuda")
    moved = torch.cuda.memory_allocated() - start
    rounded = sum((t.nbytes + 511) // 512 * 512
                  for t in gpu_model.state_dict().values())
    assert moved == rounded

    x = torch.randn(256, 1024, device="cuda")
    p = estimate(gpu_model, x)
    optimizer = torch.optim.Adam(gpu_model.parameters())
    torch.cuda.reset_peak_memory_stats()
    gpu_model(x).sum().backward()
    optimizer.step()
    peak = torch.cuda.max_memory_allocated() - start
    total = sum(p.values())
    free, device_total = torch.cuda.mem_get_info()
    print(f"{moved=}, {rounded=}, {total=}, {peak=}")
    print(f"peak/total={peak / total:.2f}, {free=}, {device_total=}")
    assert peak >= p["weights"] + p["activations"]
    assert peak >= p["weights"] + p["gradients"] + p["optimizer"]
    assert 0 < free <= device_total
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 정리
#
# - 텐서는 `numel() * element_size()`바이트를 씁니다. 모델이 쓰는 메모리는 매개변수와 버퍼, 곧 `state_dict()`에 든 텐서의 바이트 수입니다. `.half()`로 절반이 되는 것은 부동소수점 텐서뿐입니다.
# - 큰 모델은 `torch.device("meta")` 안에서 만들면 메모리를 쓰지 않고 셀 수 있습니다. meta 텐서에는 값이 없습니다. 실제 모델로 만들려면 `to_empty`를 쓴 뒤 초기화하거나, `torch.load(..., mmap=True, map_location=...)`로 불러와 `load_state_dict(..., assign=True)`를 쓰세요.
# - 학습은 매개변수마다 변화도, 옵티마이저 상태(Adam은 매개변수마다 2개), 저장되는 활성화를 더합니다. 활성화는 배치에 비례해 늘어납니다. `no_grad`와 `inference_mode`에서는 아무것도 저장되지 않고, 올바른 `device_type`을 지정한 `autocast`에서는 정밀도가 낮은 형태로 저장됩니다.
# - GPU에서 `memory_allocated`는 텐서 몫을, `memory_reserved`는 할당자가 받아 둔 몫을 셉니다. 해제한 메모리는 `empty_cache()` 전까지 예약된 채로 남고, `nvidia-smi`가 보여 주는 것은 예약된 양입니다.

