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
# # 모델이 메모리에 들어갈까? 옮기기 전에 필요한 메모리 어림하기
#
# `CUDA out of memory`(CUDA 메모리 부족)는 디바이스 관련 오류 가운데 가장 흔하지만, 미리 막을 수도 있습니다. 모델에 필요한 메모리는 텐서의 모양(shape)과 dtype으로 정해지고, 학습할 때 무엇이 얼마나 더해지는지도 계산할 수 있기 때문입니다.
#
# 이 페이지에서는 모델 자체가 차지하는 메모리와 학습할 때 늘어나는 양을 직접 계산하고, 그 수치를 이 노트북을 실행한 머신에서 PyTorch가 알려 주는 값과 비교해 검증합니다.
#
# 마지막 섹션을 뺀 나머지는 모두 CPU에서 실행하고 검증합니다. GPU 검증이 들어 있는 셀에는 "GPU 검증 포함" 표시가 붙어 있습니다. 이런 셀은 GPU가 없는 머신에서 `torch.cuda.is_available()=False`를 출력합니다.

# %% [markdown] tags=["summary"]
# **요약**
#
# - 모델이 차지하는 메모리는 매개변수와 버퍼의 바이트 수(각각 `numel() * element_size()`)를 더한 값입니다. 학습할 때는 여기에 매개변수마다 변화도(gradient)와 옵티마이저 상태(Adam은 매개변수 하나에 텐서 두 개)가 붙고, 역전파를 위해 저장하는 활성화(activation, 각 계층의 중간 출력)도 더해집니다.
# - 큰 모델은 `torch.device("meta")` 안에서 만들면 메모리를 할당하지 않고 크기를 잴 수 있습니다.
#
# ```python
# def model_bytes(model):
#     tensors = [*model.parameters(), *model.buffers()]
#     return sum(t.numel() * t.element_size() for t in tensors)
#
# with torch.device("meta"):
#     model = MyModel()
# print(model_bytes(model))
# ```

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
# ## 요소당 바이트 수
#
# 뷰(view)가 아니라 자기 스토리지를 온전히 쓰는 텐서의 바이트 수는 요소 개수에 요소 하나의 크기를 곱한 값이고, 요소 하나의 크기는 dtype에 달려 있습니다. 즉 `t.nbytes == t.numel() * t.element_size()`입니다. 모양과 dtype은 데이터가 생기기 전부터 정해져 있으므로 바이트 수도 미리 계산할 수 있습니다.

# %% tags=["claim-F12"]
dtypes = [torch.float64, torch.float32, torch.bfloat16, torch.float16,
          torch.int64, torch.int8, torch.bool]
sizes = {str(d): torch.empty(0, dtype=d).element_size() for d in dtypes}
print(sizes)
assert sizes["torch.float32"] == 4 and sizes["torch.bfloat16"] == 2
assert sizes["torch.int64"] == 8 and sizes["torch.bool"] == 1

t = torch.zeros(1024, 1024, dtype=torch.float16)
print(f"{t.nbytes=}")
assert t.nbytes == t.numel() * t.element_size() == 2 * 2**20

# %% [markdown] tags=["predict"]
# **예측해 보세요:** `col = t[:, :1]`은 이 2 MiB 텐서의 첫 번째 열이고, `col.nbytes`는 2048입니다. `del t` 다음에 `col`은 메모리를 몇 바이트나 붙잡고 있을까요? 다음 셀은 `col`이 참조하는 스토리지의 크기를 출력합니다.
#
# - `col.untyped_storage().nbytes()=2048`
# - `col.untyped_storage().nbytes()=4096`
# - `col.untyped_storage().nbytes()=2097152`

# %%
col = t[:, :1]
del t
print(f"{col.nbytes=}, {col.untyped_storage().nbytes()=}")

# %% tags=["claim-F12", "answer"]
assert col.nbytes == col.numel() * col.element_size() == 2048
assert col.untyped_storage().nbytes() == 2 * 2**20
assert col.clone().untyped_storage().nbytes() == 2048

# %% [markdown] tags=["answer"]
# **정답:** `col.untyped_storage().nbytes()=2097152`입니다. 뷰는 원래 텐서와 스토리지를 공유하고, `del t` 다음에도 스토리지 전체를 붙잡고 있습니다. `nbytes`가 세는 것은 뷰 자신의 요소이지, 뷰가 참조하는 메모리 전체가 아닙니다.
#
# - `col.untyped_storage().nbytes()=2048`을 골랐다면 `del t` 뒤에 뷰가 쓰지 않는 부분은 해제된다고 생각했을 겁니다. 2048은 뷰의 `nbytes`일 뿐, 스토리지는 뷰가 살아 있는 한 통째로 남습니다.
# - `col.untyped_storage().nbytes()=4096`은 열 하나가 쓰는 2048바이트만 남고, 그것이 메모리 페이지(4 KiB) 같은 단위로 올림된다고 본 답입니다. 하지만 스토리지는 일부만 해제되는 일이 없고, 크기도 그대로입니다.
#
# 큰 텐서의 작은 슬라이스를 리스트에 모아 두면 원래 텐서 전체가 메모리에 남는 것도 이 때문입니다. 슬라이스만 따로 두려면 `col.clone()`으로 자기만의 스토리지(2048바이트)에 복사하세요.

# %% [markdown]
# ## 모델의 매개변수와 버퍼
#
# 모델 자체가 차지하는 메모리는 매개변수(변화도로 학습하는 값)와 버퍼(변화도 없이 유지하는 상태)를 합한 것입니다. 배치 정규화의 이동 통계(`running_mean`, `running_var`)는 대표적인 버퍼로, 학습 중 순전파 때마다 갱신됩니다.
#
# `model.parameters()`와 `model.buffers()`는 여러 곳에서 공유하는 텐서도 한 번만 돌려주므로, 아래 `model_bytes` 함수처럼 바이트 수를 더해도 중복으로 세지 않습니다. 이 모델은 `model.state_dict()`로 세어도 결과가 같으며, 다음 셀에서 이 점도 함께 검증합니다. 다만 모델에 따라서는 `state_dict()`로 센 값이 달라질 수 있습니다. `state_dict()`는 공유된(tied) 가중치를 이름마다 따로 나열하고, `persistent=False`로 등록한 버퍼는 빼기 때문입니다.

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
# **예측해 보세요:** `model.half()`는 모델을 16비트 부동소수점으로 변환합니다. 호출한 뒤 매개변수와 버퍼의 dtype은 무엇일까요?
#
# - `['torch.float16']`
# - `['torch.float32']`
# - `['torch.float16', 'torch.int64']`

# %%
before = model_bytes(model)
model.half()
print(sorted({str(t.dtype) for t in [*model.parameters(), *model.buffers()]}))
print(f"{before=}, {model_bytes(model)=}")

# %% tags=["claim-F12", "answer"]
kept = [k for k, t in model.state_dict().items() if t.dtype == torch.int64]
print(kept)
assert kept == ["1.num_batches_tracked"]
assert model_bytes(model) == (before - 8) // 2 + 8

# %% [markdown] tags=["answer"]
# **정답:** `['torch.float16', 'torch.int64']`입니다. `.half()`는 `.to(torch.float16)`처럼 부동소수점 매개변수와 버퍼만 변환합니다. 배치 정규화가 처리한 배치 수를 세는 `num_batches_tracked`는 정수라서 `int64`로 남고, 나머지 텐서는 모두 크기가 절반이 됩니다.
#
# - `['torch.float16']`은 `.half()`가 정수 버퍼까지 모든 텐서를 변환한다고 여길 때 나오는 답입니다. 정수 텐서는 변환되지 않습니다.
# - `['torch.float32']`를 골랐다면 반환값을 받지 않았으니 아무것도 바뀌지 않는다고 생각했을 겁니다. 하지만 `Module.half()`는 `Module.to`처럼 새 모듈을 만들지 않고 모듈 자체를 바꿉니다.
#
# 부동소수점 텐서가 모두 `float32`인 모델을 `float16`으로 바꾸면 메모리가 거의 절반으로 줄어듭니다. 정확히 절반이 되지 않는 것은 정수 카운터의 크기(이 모델에서는 8바이트)가 그대로이기 때문입니다. 위 셀에서 이 차이까지 검증했습니다.

# %% [markdown]
# ## `meta` 디바이스에 만들어 메모리를 쓰지 않고 크기 재기
#
# `meta` 텐서는 모양과 dtype은 있지만 데이터가 없어서, 만들어도 메모리를 차지하지 않습니다. 그래서 `with torch.device("meta"):` 블록 안에서는 아무리 큰 모델도 만들 수 있고, 어느 디바이스에 둘지 정하기 전에 바이트 수부터 셀 수 있습니다. 아래 셀에서는 매개변수가 1,250억 개(`float32`로 500 GB)인 모델을 만듭니다.
#
# 세션에서 처음 `meta` 연산을 실행하면 PyTorch가 `meta`용 커널을 불러오는데, 버전에 따라 시간이 조금 걸립니다. 이 시간이 측정값에 섞이지 않도록, 아래 셀은 재기 전에 연산을 한 번 미리 실행합니다.

# %% tags=["claim-F13"]
torch.empty(1, device="meta") + 1  # 시간을 재기 전에 `meta`용 커널을 불러온다
start = time.perf_counter()
with torch.device("meta"):
    big = make_mlp(250_000, 250_000, 250_000)
seconds = time.perf_counter() - start
n_big = sum(p.numel() for p in big.parameters())
gigabytes = model_bytes(big) / 1e9
print(f"{n_big=:,}, {gigabytes=:.1f}, {seconds=:.3f}")
assert all(t.is_meta for t in [*big.parameters(), *big.buffers()])
assert model_bytes(big) > 500e9
assert seconds < 10  # 넉넉하게 잡은 값: 실제로는 몇 밀리초

# %% [markdown]
# 다만 주의할 점이 있습니다. `meta` 텐서에는 값이 없으므로 아무것도 읽어 낼 수 없습니다.

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
# **정답:** `NotImplementedError`입니다. 메시지는 다음과 같습니다.
#
# ```
# Cannot copy out of meta tensor; no data!
# ```
#
# "meta 텐서에는 데이터가 없어 복사해 낼 수 없다"라는 뜻입니다. 0이라는 값은 어디에도 저장된 적이 없으므로 복사해 올 것이 없습니다.
#
# - `tensor([0., 0., 0.])`은 `torch.zeros`로 만들었으니 0이 들어 있으리라고 본 답입니다. 하지만 `meta`에서는 `zeros`도 모양과 dtype만 정할 뿐입니다.
# - `RuntimeError`는 디바이스 관련 오류가 대부분 `RuntimeError`라는 데서 나온 추측입니다. PyTorch는 이 복사를 구현되지 않은 동작으로 보고 `NotImplementedError`를 일으킵니다. 위 검증은 오류의 타입이 정확히 `NotImplementedError`인지 확인합니다.

# %% [markdown]
# ## `meta`에서 실제 디바이스로
#
# `meta`에 만든 모델에 실제 메모리를 할당하는 방법은 두 가지입니다.
#
# - `model.to_empty(device=...)`: 모든 매개변수와 버퍼에 그 디바이스의 메모리를 할당합니다. 값을 초기화하지 않으므로 그 메모리에 남아 있던 내용이 그대로 보입니다. 그러니 할당한 뒤에는 각 계층의 `reset_parameters()` 등으로 초기화하세요. 참고로 `torch.use_deterministic_algorithms(True)`를 설정해 두면 초기화되지 않은 부동소수점 텐서는 NaN으로, 정수 텐서는 그 dtype의 최댓값으로 채워집니다(아래 셀에서 둘 다 검증합니다).
# - `model.load_state_dict(state, assign=True)`: 불러온 텐서를 그대로 모델의 매개변수로 삼습니다. 매개변수를 먼저 만들고 거기에 복사할 필요가 없습니다.
#
# 체크포인트를 불러오는 방법도 중요합니다. `torch.load(path, map_location=device)`는 체크포인트의 스토리지를 하나씩 `device`로 보냅니다. 그래서 `device`가 GPU라면 체크포인트 전체가 한꺼번에 CPU 메모리에 올라오는 일이 없습니다. 반대로 `device`가 CPU라면 결국 체크포인트 전체가 CPU 메모리에 올라옵니다. 아래 셀에서는 `map_location`에 함수를 주고 그 함수가 받는 스토리지의 크기를 기록해, 스토리지가 하나씩 전달되는지 확인합니다.
#
# `mmap=True`를 쓰면 `torch.load`가 파일을 통째로 읽지 않고 메모리 매핑하므로, 실제로 읽는 페이지만 운영 체제의 파일 캐시를 거쳐 메모리에 들어옵니다.
#
# PyTorch 튜토리얼 [체크포인트에서 `nn.Module`을 불러올 때의 팁](https://docs.pytorch.org/tutorials/recipes/recipes/module_load_state_dict_tips.html)(영어)에서는 큰 모델을 CPU로 불러올 때 `mmap=True`와 `assign=True`를 같이 쓰라고 권합니다. CPU에서 `meta`에 만든 모델에 `torch.load(..., mmap=True)`로 읽은 체크포인트를 `assign=True`로 넣으면 매개변수가 메모리 매핑된 파일의 뷰가 되어 복사가 전혀 일어나지 않습니다.
#
# 체크포인트에 들어 있지 않은 것도 있습니다. 모델이 직접 계산해 두는 조회 테이블(lookup table)처럼 `persistent=False`로 등록한 버퍼입니다. `assign=True`로 불러와도 이 버퍼는 `meta`에 남으므로, 직접 다시 계산해 채우세요.

# %% tags=["claim-F13"]
class WithTable(nn.Module):  # 체크포인트에 들어가지 않는 버퍼를 가진 모델
    def __init__(self):
        super().__init__()
        self.mlp = make_mlp(8, 16, 4)
        self.register_buffer("table", torch.arange(4.0), persistent=False)


with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "model.pt")
    torch.save(WithTable().state_dict(), path)

    handed = []

    def one_by_one(storage, location):  # map_location에는 함수도 넘길 수 있다
        handed.append(storage.nbytes())
        return storage

    state = torch.load(path, map_location=one_by_one, weights_only=True)
    stored = [t.untyped_storage().nbytes() for t in state.values()]
    assert sorted(handed) == sorted(stored)  # 스토리지를 하나씩 넘긴다

    state = torch.load(path, mmap=True, map_location=device,
                       weights_only=True)
    with torch.device("meta"):
        fresh = WithTable()
    fresh.load_state_dict(state, assign=True)
    weight = fresh.mlp[0].weight
    print(f"{weight.device=}, {fresh.table.device=}")
    assert weight.device.type == device.type
    assert weight.data_ptr() == state["mlp.0.weight"].data_ptr()  # 복사 없음
    assert isinstance(weight, nn.Parameter) and weight.requires_grad
    assert fresh.table.is_meta  # 체크포인트에 없다
    del state, fresh, weight

with torch.device("meta"):
    empty = make_mlp(8, 16, 4)
empty.to_empty(device=device)
for layer in empty:
    if hasattr(layer, "reset_parameters"):
        layer.reset_parameters()
assert all(t.device.type == device.type
           for t in [*empty.parameters(), *empty.buffers()])

torch.use_deterministic_algorithms(True)  # 초기화되지 않은 메모리를 채운다
try:
    with torch.device("meta"):
        filled = make_mlp(8, 16, 4)
    filled.to_empty(device=device)
    counter = filled[1].num_batches_tracked.item()
    assert filled[0].weight.isnan().all()  # 부동소수점: NaN
    assert counter == torch.iinfo(torch.int64).max  # 정수: 최댓값
finally:
    torch.use_deterministic_algorithms(False)

# %% [markdown]
# ## 학습할 때 추가로 드는 메모리
#
# 학습 단계에서는 모델 외에도 여러 가지가 메모리를 차지합니다.
#
# - 매개변수마다 하나씩, 매개변수와 같은 크기의 변화도
# - 옵티마이저 상태(옵티마이저마다 다름)
# - 역전파에서 변화도를 계산하려고 autograd가 순전파 동안 저장하는 활성화

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 매개변수 텐서가 6개인 모델에 쓸 Adam 옵티마이저를 만듭니다. 만든 직후 `optimizer.state`에는 항목이 몇 개 있을까요?
#
# - `len(optimizer.state)=0`
# - `len(optimizer.state)=6`
# - `len(optimizer.state)=12`

# %%
model = make_mlp(64, 128, 10)
optimizer = torch.optim.Adam(model.parameters())
print(f"{len(optimizer.state)=}")

# %% tags=["claim-F14", "answer"]
model(torch.randn(32, 64)).pow(2).mean().backward()
optimizer.step()
param_bytes = sum(p.nbytes for p in model.parameters())
grad_bytes = sum(p.grad.nbytes for p in model.parameters())
state_bytes = sum(s[k].nbytes for s in optimizer.state.values()
                  for k in ("exp_avg", "exp_avg_sq"))
steps = [s["step"] for s in optimizer.state.values()]
print(f"{len(optimizer.state)=}, {param_bytes=}, {grad_bytes=}, {state_bytes=}")
assert len(optimizer.state) == 6
assert grad_bytes == param_bytes
assert state_bytes == 2 * param_bytes
assert all(s.numel() == 1 for s in steps)

optimizer.zero_grad()
assert all(p.grad is None for p in model.parameters())

# %% [markdown] tags=["answer"]
# **정답:** `len(optimizer.state)=0`입니다. Adam은 첫 번째 `step()`에서 상태를 만듭니다. 그래서 옵티마이저를 만들 때까지는 문제없다가도 첫 단계에서 메모리가 부족해질 수 있습니다.
#
# - `len(optimizer.state)=6`을 골랐다면 옵티마이저를 만들 때 매개변수마다 상태가 생긴다고 생각했을 겁니다.
# - `len(optimizer.state)=12`는 Adam의 상태 텐서 두 개가 각각 따로 항목이 된다고 생각할 때 나오는 답입니다. 항목은 매개변수마다 하나이고, `exp_avg`와 `exp_avg_sq`는 그 항목 안에 들어 있습니다.
#
# 첫 단계가 지나면 매개변수마다 그 매개변수와 크기가 같은 텐서 두 개(`exp_avg`, `exp_avg_sq`)와 요소 하나짜리 `step`이 생깁니다. `step`은 기본적으로 CPU에 있지만, `fused=True`나 `capturable=True`이면 GPU에 있습니다. `amsgrad=True`이면 텐서가 하나 더 생깁니다.
#
# 변화도까지 더하면, `float32` 모델을 Adam으로 학습할 때는 활성화를 빼고도 모델 크기의 4배가 필요합니다.
#
# `zero_grad()`는 기본적으로 변화도를 0으로 채우지 않고 `None`으로 바꿉니다. 그래서 다음 순전파 동안에는 변화도가 메모리를 차지하지 않습니다. 변화도는 역전파가 진행되면서 차례로 만들어지고, 그동안 활성화는 하나씩 해제됩니다.
#
# 덕분에 변화도를 0으로 채워 계속 메모리에 두는 방식(`set_to_none=False`)보다 순전파가 끝나는 시점의 사용량이 변화도 전체 크기만큼 적을 수 있습니다. 다만 변화도, 상태, 임시 텐서가 함께 있는 `optimizer.step()` 안의 최대 사용량은 달라지지 않습니다.

# %% [markdown]
# 아래 함수는 순전파에서 autograd가 저장하는 텐서의 바이트 수를 셉니다. 같은 스토리지는 한 번만 세고, 이미 센 모델의 매개변수와 버퍼는 뺍니다.
#
# 배치 정규화가 없는 2계층 모델에서는 첫 번째 계층의 입력과 `ReLU`의 출력이 저장됩니다. `ReLU`의 출력은 마지막 계층의 입력이기도 해서 `ReLU`와 마지막 계층이 둘 다 저장하지만, 스토리지가 같으므로 한 번만 셉니다. 따라서 센 값은 `32 * (64 + 128) * 4`바이트여야 합니다. 배치 크기 32에, 샘플 하나가 저장하는 값 64 + 128개와 `float32` 요소 하나의 4바이트를 곱한 값입니다.

# %% tags=["claim-F14"]
def saved_bytes(model, x):
    own = {t.untyped_storage().data_ptr()
           for t in [*model.parameters(), *model.buffers()]}
    saved = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in own:
            saved[storage.data_ptr()] = storage.nbytes()
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(saved.values())


mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
counted = saved_bytes(mlp, torch.randn(32, 64))
print(f"{counted=}")
assert counted == 32 * (64 + 128) * 4

# %% [markdown] tags=["predict"]
# **예측해 보세요:** 마지막 계층만 미세 조정할 때처럼 `mlp[0].requires_grad_(False)`로 첫 번째 계층을 고정합니다. 다음 셀에서 `saved_bytes`가 센 값은 어떻게 될까요?
#
# - `counted=24576`
# - `counted=16384`
# - `counted=8192`
# - `counted=0`

# %%
mlp[0].requires_grad_(False)
counted = saved_bytes(mlp, torch.randn(32, 64))
print(f"{counted=}")

# %% tags=["claim-F14", "answer"]
assert counted == 32 * 128 * 4
mlp[0].requires_grad_(True)
small_batch = saved_bytes(mlp, torch.randn(32, 64))
large_batch = saved_bytes(mlp, torch.randn(64, 64))
print(f"{small_batch=}, {large_batch=}")
assert large_batch == 2 * small_batch

# %% [markdown] tags=["answer"]
# **정답:** `counted=16384`입니다. autograd는 변화도를 계산하는 데 필요할 때만 텐서를 저장합니다. 첫 번째 계층을 고정하면 마지막 계층보다 앞에는 변화도가 필요한 것이 없으므로, 첫 번째 계층의 입력은 저장되지 않고 `ReLU`도 아무것도 저장하지 않습니다. 마지막 계층의 가중치에는 여전히 변화도가 필요하고, 이를 계산하려면 마지막 계층의 입력이 있어야 합니다. 저장되는 것은 이 입력, 곧 4바이트짜리 값 32 × 128개뿐입니다.
#
# - `counted=24576`은 고정하기 전에 센 값입니다. 매개변수를 고정해도 autograd가 저장하는 양은 그대로라고 생각하면 이 답을 고르게 됩니다.
# - `counted=8192`는 첫 번째 계층의 입력(32 × 64개)만 저장될 때의 값입니다. 하지만 고정한 계층의 입력은 변화도 계산에 쓰이지 않으므로 저장되지 않습니다.
# - `counted=0`처럼 아무것도 저장되지 않는 것은 변화도가 필요한 매개변수가 하나도 없을 때뿐입니다.
#
# 위 검증에서는 활성화가 배치 크기에 비례해 늘어나는지도 확인합니다. 저장되는 활성화는 샘플마다 한 행씩 차지하므로, 배치 크기를 두 배로 늘리면 바이트 수도 두 배가 됩니다. 가중치, 변화도, 옵티마이저 상태는 그대로입니다.
#
# 학습 중 메모리가 부족할 때 흔히 쓰는 해결 방법은 활성화를 줄이는 것입니다.
#
# - 배치 크기를 줄이고, 유효 배치 크기는 변화도 누적으로 유지합니다.
# - 활성화 체크포인팅(`torch.utils.checkpoint`)으로 활성화를 일부만 저장하고, 나머지는 역전파 때 다시 계산합니다.

# %% [markdown]
# 저장하는 양을 줄이는 방법이 두 가지 더 있습니다.
#
# - 학습하지 않을 때 `torch.no_grad()`나 `torch.inference_mode()` 안에서 실행하면 역전파를 하지 않으므로 아무것도 저장되지 않습니다. 다만 순전파 도중에는 중간 결과가 잠시 메모리에 올라옵니다. 그래서 추론에도 가중치 외에 메모리가 더 필요하며, 그 양은 중간 결과가 가장 많이 쌓이는 순간의 크기입니다. 텍스트를 생성하는 모델이라면 KV 캐시도 더해집니다.
# - `torch.autocast`는 행렬 곱 같은 일부 연산을 정밀도가 낮은 dtype으로 실행합니다(기본값은 CUDA에서 `float16`, CPU에서 `bfloat16`). 이 연산들이 저장하는 활성화는 바이트 수가 절반이 됩니다. 또 입력 쪽으로 변화도를 전달해야 하는 계층은 가중치를 낮은 정밀도로 바꾼 복사본도 저장합니다. `mlp`에서는 첫 번째 계층의 입력 `x`에 변화도가 필요 없으므로 마지막 계층만 해당합니다.
#
# `autocast`의 `device_type`에는 연산이 실제로 실행되는 디바이스를 지정해야 합니다. `autocast(device_type="cuda")`는 CPU에서 실행되는 연산에 아무 영향도 주지 않습니다.

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
# 절반 크기의 활성화와 마지막 계층 가중치의 bfloat16 복사본
assert autocast == 32 * (64 + 128) * 2 + 128 * 10 * 2
assert low == torch.bfloat16
assert torch.get_autocast_dtype("cpu") == torch.bfloat16
assert torch.get_autocast_dtype("cuda") == torch.float16

# CUDA가 없으면 autocast를 끈다는 경고가 나온다
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    with torch.autocast(device_type="cuda"):
        elsewhere = mlp(x).dtype
print(f"{elsewhere=}")
assert elsewhere == torch.float32  # CPU 연산은 float32로 실행됐다

# %% [markdown]
# `no_grad`와 `inference_mode`가 아끼는 메모리는 같습니다. 다만 `inference_mode`는 autograd가 평소 해 두는 기록 두 가지를 더 건너뜁니다. 하나는 텐서가 제자리 연산으로 몇 번 바뀌었는지 세는 버전 카운터이고, 다른 하나는 어떤 텐서가 어느 텐서의 뷰인지 적어 두는 뷰 추적입니다. 그만큼 연산마다 드는 비용이 조금 줄어듭니다.
#
# 이 모드에서 만든 텐서를 추론 텐서라고 하며, `is_inference()`가 참을 돌려줍니다. 추론 텐서에는 버전 카운터가 없고, 여기서 만든 뷰는 뷰로 기록되지 않습니다. 그 대신 autograd는 이런 텐서를 역전파용으로 저장할 수 없습니다.
#
# 결과를 다시 학습에 넣지 않는 곳(평가, 서빙)에서는 `inference_mode`를 쓰세요. 결과가 학습에 이어질 수도 있다면 `no_grad`를 쓰거나, 블록 밖에서 추론 텐서를 `clone()`하세요.

# %% tags=["claim-F14"]
layer = nn.Linear(4, 4)
with torch.no_grad():
    plain = layer(torch.randn(2, 4))
    plain_view = plain.view(-1)
with torch.inference_mode():
    inferred = layer(torch.randn(2, 4))
    inferred_view = inferred.view(-1)
print(f"{plain.is_inference()=}, {inferred.is_inference()=}")
print(f"{plain_view._is_view()=}, {inferred_view._is_view()=}")
assert not plain.is_inference() and inferred.is_inference()
assert plain_view._is_view() and not inferred_view._is_view()
assert plain._version == 0
with expect_error(RuntimeError, "do not track version counter"):
    inferred._version
with expect_error(RuntimeError, "cannot be saved for backward"):
    layer(inferred)
assert layer(inferred.clone()).requires_grad  # clone한 텐서는 일반 텐서다

# %% [markdown]
# ## 어떤 모델에나 쓸 수 있는 어림값
#
# 이 섹션에서 "가중치"는 편향을 포함한 모델의 모든 매개변수를 가리킵니다. 학습 단계 하나에 필요한 메모리는 가중치, 변화도, 옵티마이저 상태, 활성화 네 부분의 합이고, 혼합 정밀도(아래에서 설명합니다)를 쓰면 마스터 가중치가 더해집니다. 이 가운데 활성화를 뺀 부분은 가중치의 dtype, 옵티마이저, 혼합 정밀도 사용 여부가 정해지면 매개변수 개수만으로 계산할 수 있습니다.
#
# 추론할 때 메모리에 계속 남는 것은 가중치뿐이고, 순전파 도중에는 앞에서 본 것처럼 중간 결과가 잠시 함께 올라옵니다. 학습할 때는 가중치에 다음 항목이 더해집니다.
#
# - 매개변수마다 변화도 하나. dtype은 가중치와 같습니다.
# - 옵티마이저 상태. 일반 SGD에는 없고, 모멘텀을 쓰는 SGD는 매개변수와 크기가 같은 텐서 하나(`momentum_buffer`), Adam과 AdamW는 둘(`exp_avg`, `exp_avg_sq`)입니다.
# - 마스터 가중치. 혼합 정밀도일 때만 있는 가중치의 `float32` 복사본입니다.
#
# 이 페이지에서 말하는 혼합 정밀도는 가중치와 변화도를 16비트로 두고 계산도 16비트로 하는 방식입니다. 옵티마이저는 `float32` 마스터 가중치를 갱신하고, 상태도 `float32`로 둡니다. 가중치보다 훨씬 작은 갱신값은 16비트 가중치에 더하면 사라지기 때문입니다. 다음 셀에서 dtype마다 `1`에 `1e-4`를 더해 이를 확인합니다.
#
# 마스터 가중치를 갱신하려면 `float32` 변화도가 필요합니다. 이 페이지의 어림값은 매개변수마다 갱신 직전에 16비트 변화도를 `float32`로 바꾼 복사본을 만들고, 갱신이 끝나면 곧바로 해제하는 구현을 가정합니다.
#
# 이렇게 하면 `float32` 변화도 복사본은 한 번에 매개변수 텐서 하나 분량만 존재하므로, 어림값에서는 이 복사본을 뺐습니다. 다음 셀의 검증도 같은 방식으로 셉니다.
#
# Megatron-LM처럼 16비트 변화도 대신 `float32` 변화도 버퍼를 두는 구현에서는 매개변수 하나당 2바이트가 더 듭니다.
#
# `torch.autocast`를 쓰는 자동 혼합 정밀도(AMP)는 방식이 다릅니다. 가중치는 `float32` 그대로 두고 연산만 16비트로 실행하므로, 메모리는 혼합 정밀도 없는 `float32` 학습과 똑같이 세면 되고 줄어드는 것은 활성화뿐입니다.
#
# 활성화는 배치 크기와 계층 구성에 따라 달라서 매개변수 개수만으로는 정해지지 않습니다. 직접 만든 모델이라면 앞에서 쓴 `saved_bytes`로 세어 보세요. 나머지 부분은 아래 `estimate` 함수가 바이트 단위로 계산합니다.
#
# 다음 셀은 dtype, 옵티마이저, 혼합 정밀도 사용 여부의 모든 조합마다 이 페이지의 작은 모델(`make_mlp`)로 학습 단계를 실제로 한 번 실행한 뒤, 각 부분의 어림값을 메모리에 남아 있는 텐서의 바이트 수와 비교합니다. Adam이 매개변수 텐서마다 두는 요소 하나짜리 `step`은 텐서 하나에 몇 바이트밖에 되지 않으므로 계산에서 뺐습니다.

# %% tags=["claim-F14"]
STATE_TENSORS = {"sgd": 0, "sgd-momentum": 1, "adam": 2}  # 매개변수 하나당


def estimate(n_params, dtype=torch.float32, training=True, optimizer="adam",
             mixed=False):
    size = torch.empty(0, dtype=dtype).element_size()
    if not training:
        return {"weights": n_params * size, "gradients": 0, "optimizer": 0,
                "master": 0}
    state = 4 if mixed else size  # 혼합 정밀도: 옵티마이저는 float32로 계산
    master = 4 if mixed and size < 4 else 0  # 16비트 가중치의 float32 복사본
    return {"weights": n_params * size, "gradients": n_params * size,
            "optimizer": STATE_TENSORS[optimizer] * n_params * state,
            "master": n_params * master}


def nbytes(tensors):
    return sum(t.nbytes for t in tensors)


def counted(model, dtype, make_optimizer, mixed):
    # 학습 단계를 한 번 실행한 뒤 메모리에 남은 텐서로 같은 부분을 센다
    weights = list(model.to(dtype).parameters())
    master = weights
    if mixed and dtype != torch.float32:
        master = [w.detach().float().requires_grad_() for w in weights]
    optimizers = [make_optimizer([m]) for m in master]  # 갱신은 하나씩
    model(torch.randn(32, 64, dtype=dtype)).sum().backward()
    widest = 0  # 동시에 존재하는 float32 변화도의 최대 바이트 수
    for m, w, optimizer in zip(master, weights, optimizers):
        if m is not w:
            m.grad = w.grad.float()  # 갱신 직전에 만들고…
            widest = max(widest, sum(4 * p.numel() for p in master
                                     if p.grad is not None))
        optimizer.step()
        if m is not w:
            m.grad = None  # …갱신 뒤에 해제한다
            with torch.no_grad():
                w.copy_(m)  # 16비트 가중치를 복사본에 맞춘다
    held = [t for o in optimizers for s in o.state.values()
            for k, t in s.items() if k != "step"]
    copies = [] if master is weights else master
    assert widest == max((4 * m.numel() for m in copies), default=0)
    assert all(m.grad is None for m in copies)
    return {"weights": nbytes(weights),
            "gradients": nbytes(w.grad for w in weights),
            "optimizer": nbytes(held),
            "master": nbytes(copies)}


OPTIMIZERS = [("sgd", lambda ps: torch.optim.SGD(ps, lr=0.1)),
              ("sgd-momentum",
               lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
              ("adam", torch.optim.Adam), ("adam", torch.optim.AdamW)]
DTYPES = [torch.float32, torch.bfloat16, torch.float16]
n = sum(p.numel() for p in make_mlp(64, 128, 10).parameters())
checked = 0
for dtype in DTYPES:
    for name, make_optimizer in OPTIMIZERS:
        for mixed in (False, True):
            model = make_mlp(64, 128, 10)
            parts = counted(model, dtype, make_optimizer, mixed)
            assert parts == estimate(n, dtype, True, name, mixed), parts
            checked += 1
    inference = {**parts, "gradients": 0, "optimizer": 0, "master": 0}
    assert estimate(n, dtype, training=False) == inference

lost = {str(d): bool(torch.ones((), dtype=d) + 1e-4 == 1) for d in DTYPES}
print(f"{checked=}, {lost=}")
assert lost == {"torch.float32": False, "torch.bfloat16": True,
                "torch.float16": True}

# %% [markdown]
# 예를 들어 매개변수가 10억 개인 모델을 Adam으로 학습한다고 하고, `float32` 학습과 가중치를 `bfloat16`으로 두는 혼합 정밀도 학습을 비교해 봅시다. 다음 셀은 활성화를 뺀 각 부분을 GB(10⁹바이트) 단위로, 합계를 바이트, GB, GiB(2³⁰바이트) 단위로 출력합니다.

# %% tags=["claim-F14"]
fp32 = estimate(10**9, torch.float32, optimizer="adam")
mixed = estimate(10**9, torch.bfloat16, optimizer="adam", mixed=True)
for name, parts in [("fp32", fp32), ("mixed", mixed)]:
    gb = {part: n / 1e9 for part, n in parts.items()}
    total = sum(parts.values())
    print(f"{name}: {gb=}")
    print(f"{name}: {total=:,}, {total / 1e9=:.1f}, {total / 2**30=:.2f}")
assert sum(mixed.values()) == sum(fp32.values()) == 16 * 10**9
assert mixed["weights"] + mixed["gradients"] == mixed["master"]

# %% [markdown]
# 두 합계 모두 16 GB입니다. 혼합 정밀도에서는 가중치와 변화도가 절반(4바이트 대신 2바이트씩)으로 줄지만, 줄어든 만큼을 `float32` 마스터 가중치(4바이트)가 다시 차지합니다. Adam 상태는 두 경우 모두 `float32` 텐서 두 개, 곧 매개변수 하나당 8바이트입니다. `float32` 변화도 버퍼를 두는 구현이라면 매개변수 하나당 18바이트, 모델 전체로는 18 GB가 됩니다.
#
# 즉 가중치, 변화도, 옵티마이저 상태만 놓고 보면 혼합 정밀도를 써도 메모리가 줄지 않습니다. 혼합 정밀도로 줄어드는 것은 이 합계에 없는 활성화입니다(앞 섹션 참고). 실제로 필요한 메모리는 이 합계에 활성화를 더하고, 아래 GPU 섹션에서 보듯 할당자와 드라이버가 쓰는 메모리까지 더한 양입니다.
#
# `estimate`에 매개변수 개수로 1을 넣으면, 설정마다 매개변수 하나당 각 부분이 몇 바이트인지 알 수 있습니다. 다음 셀은 `(dtype, training, optimizer, mixed)`마다 가중치, 변화도, 옵티마이저 상태, 마스터 가중치의 바이트 수를 출력합니다. 아래 메모리 계산기는 입력한 매개변수 개수에 이 값을 곱한 결과를 보여 줍니다. 노트북에서는 직접 만든 모델의 매개변수 개수를 넣어 `estimate`를 호출하세요.

# %% tags=["calculator"]
settings = [(d, False, None, False) for d in DTYPES]
settings += [(d, True, o, m) for d in DTYPES for o in STATE_TENSORS
             for m in (False, True)]
for dtype, training, optimizer, mixed in settings:
    per_parameter = estimate(1, dtype, training, optimizer, mixed)
    key = (str(dtype).removeprefix("torch."), training, optimizer, mixed)
    print(f"{key}: {tuple(per_parameter.values())}")

# %% [markdown]
# ## GPU 할당자가 알려 주는 값
#
# CUDA GPU에서 PyTorch의 캐싱 할당자는 드라이버에서 메모리를 큰 세그먼트 단위로 받아 두었다가 텐서에 나눠 줍니다.
#
# - `torch.cuda.memory_allocated()`: 할당자가 나눠 주어 현재 사용 중인 바이트 수. 텐서뿐 아니라 cuBLAS 같은 라이브러리의 작업 공간도 들어갑니다.
# - `torch.cuda.memory_reserved()`: 나눠 주었든 아니든, 할당자가 드라이버에서 예약해 둔 바이트 수(예약된 메모리).
# - `torch.cuda.max_memory_allocated()`: 프로그램 시작(또는 마지막 `torch.cuda.reset_peak_memory_stats()` 호출) 이후 `memory_allocated`의 최댓값.
# - `torch.cuda.mem_get_info()`: 드라이버가 보는 디바이스의 남은 메모리와 전체 메모리의 바이트 수. 전체에서 남은 메모리를 뺀 값이 `nvidia-smi`가 사용 중이라고 보여 주는 양과 대략 같습니다. 이 사용량에는 모든 프로세스의 예약된 메모리, 프로세스마다 잡히는 CUDA 컨텍스트, 다른 라이브러리가 드라이버에서 직접 받은 메모리가 모두 들어 있습니다.
#
# 텐서를 해제하면 그 메모리는 드라이버가 아니라 할당자로 돌아갑니다. 그래서 `memory_allocated`는 줄지만 `memory_reserved`는 줄지 않습니다.
#
# `torch.cuda.empty_cache()`는 텐서가 하나도 없는 세그먼트를 드라이버에 돌려줄 뿐, 텐서를 해제하지는 않습니다. 할당자는 메모리 부족을 알리기 전에 스스로 같은 일을 하고 다시 시도하므로, 직접 호출해서 메모리 부족 오류를 피할 수 있는 경우는 드뭅니다. `empty_cache()`는 다른 프로세스에 메모리를 내줘야 할 때 쓸모가 있습니다.
#
# 예약된 메모리가 작은 빈 블록들로 잘게 나뉘어, 새로 요청한 크기를 담을 블록이 없을 때도 있습니다. 이를 단편화라고 합니다. 이때 도움이 되는 할당자 설정과 버전별 환경 변수 이름은 [불러오기·환경·메모리 오류 읽는 법](09-setup-and-memory-errors.ipynb#cuda-out-of-memory) 페이지의 `CUDA out of memory` 섹션에서 설명합니다.
#
# 아래 "GPU 검증 포함" 셀이 실제 GPU에서 실행되었는지는 페이지 제목 아래 줄에 적혀 있습니다. 이 셀들이 검증하는 내용은 PyTorch 문서와 할당자 소스를 바탕으로 하며, 출처 목록은 이 튜토리얼 저장소의 `notebooks/gpu-evidence.yml`에 있습니다.

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
    free, total = torch.cuda.mem_get_info()
    outside = (total - free) - released  # 컨텍스트, 다른 프로세스
    print(f"{alloc=}, {reserved=}, {after_del=}, {kept=}, {released=}")
    print(f"{total - free=}, {outside=}")
    assert alloc == 4 * 2**20  # 512바이트의 배수라서 올림이 없다
    assert reserved >= base_alloc + alloc
    assert after_del == 0
    assert kept == reserved  # 해제한 메모리는 할당자에 남는다
    assert released <= kept
    assert total - free >= released
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# PyTorch 2.9부터는 `memory_allocated`, `memory_reserved`, `max_memory_allocated`, `reset_peak_memory_stats`, `empty_cache` 같은 함수를 `torch.accelerator`에서도 쓸 수 있고, CUDA와 XPU 모두에서 동작합니다. PyTorch 2.6~2.8에서는 이 함수들이 백엔드별 모듈(`torch.cuda`와 `torch.xpu`)에만 있고, 이름은 같습니다.
#
# Apple의 `mps`는 예외입니다. `torch.mps`에서는 버전과 상관없이 메모리 사용량을 알려 주는 함수의 이름이 `torch.cuda`와 다릅니다. 텐서가 쓰는 메모리는 `current_allocated_memory()`로, 캐시를 포함해 프로세스가 쓰는 Metal 메모리 전체는 `driver_allocated_memory()`로 확인합니다. 이름이 같은 함수는 `torch.mps.empty_cache()` 하나뿐입니다.
#
# 또 `torch.accelerator`의 메모리 함수에는 `mps`에서 실패하는 버그가 있었습니다([pytorch#167447](https://github.com/pytorch/pytorch/issues/167447)). 이 버그는 pytorch#186748과 pytorch#193838에서 수정되었지만, 어느 버전부터 두 수정이 모두 들어갔는지는 확인하지 않았습니다. 그래서 다음 셀은 백엔드와 버전을 보고 쓸 함수를 고른 뒤, GPU가 있으면 그 함수가 `torch.cuda`와 같은 바이트 수를 돌려주는지 검증합니다.

# %% tags=["gpu-only"]
if torch.backends.mps.is_available():
    allocated = torch.mps.current_allocated_memory  # 모든 버전
elif hasattr(torch.accelerator, "memory_allocated"):  # 2.9+
    allocated = torch.accelerator.memory_allocated
else:
    allocated = torch.cuda.memory_allocated
print(f"{allocated.__module__=}")
assert callable(torch.mps.current_allocated_memory)
assert callable(torch.mps.driver_allocated_memory)
assert callable(torch.mps.empty_cache)  # 공통 이름
assert hasattr(torch.accelerator, "memory_allocated") == (TORCH >= (2, 9))
if torch.cuda.is_available():
    block = torch.empty(2**20, dtype=torch.uint8, device="cuda")
    print(f"{allocated()=}, {torch.cuda.memory_allocated()=}")
    assert allocated() == torch.cuda.memory_allocated()
    if TORCH >= (2, 9):
        reserved = torch.accelerator.memory_reserved()
        assert reserved == torch.cuda.memory_reserved()
    del block
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# 마지막 셀에서는 실제 학습 단계에서 어림값과 할당자의 값을 비교합니다. 모델을 GPU로 옮기면 가중치가 GPU 메모리를 차지하는데, 텐서마다 크기가 512바이트의 배수로 올림되어 할당됩니다.
#
# Adam의 첫 단계에서는 Adam 상태와 cuBLAS의 작업 공간이 만들어집니다. 이렇게 한 번만 일어나는 할당이 섞이지 않도록, 가중치와 Adam 상태가 이미 자리 잡은 두 번째 단계를 잽니다. 이 단계에서는 무엇이 메모리에 있는지 확실히 알 수 있는 시점이 두 번 있습니다. 순전파가 끝난 직후에는 저장된 활성화가, 역전파가 끝난 직후에는 모든 변화도가 올라와 있습니다.
#
# 이 두 시점에 메모리에 있어야 하는 양이 실제 최대 사용량을 넘지 않는지 검증합니다. 반면 두 번째 단계의 최대 사용량이 어림값 합계의 몇 배인지는 출력만 하고 검증하지 않습니다. 최대 사용량에는 순전파, 역전파, Adam 갱신에서 쓰는 임시 텐서와 작업 공간도 들어가는데, 어림값에는 이것들이 빠져 있기 때문입니다. 메모리 계획은 어림값 합계에 여유분을 더해 세우세요.

# %% tags=["claim-F14", "gpu-only"]
if torch.cuda.is_available():
    gpu_model = gpu_optimizer = None  # 다시 실행해도 처음부터 잰다
    torch.cuda.empty_cache()
    start = torch.cuda.memory_allocated()
    gpu_model = make_mlp(1024, 4096, 1024).to("cuda")
    moved = torch.cuda.memory_allocated() - start
    rounded = sum((t.nbytes + 511) // 512 * 512
                  for t in [*gpu_model.parameters(), *gpu_model.buffers()])
    assert moved == rounded

    x = torch.randn(256, 1024, device="cuda")
    p = estimate(sum(t.numel() for t in gpu_model.parameters()))  # Adam
    activations = saved_bytes(gpu_model, x)
    gpu_optimizer = torch.optim.Adam(gpu_model.parameters())
    for step in range(2):  # 첫 단계에서 Adam 상태가 생긴다
        gpu_optimizer.zero_grad()
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        gpu_model(x).sum().backward()
        gpu_optimizer.step()
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
    steady = base - start + peak
    total = sum(p.values()) + activations
    print(f"{moved=}, {rounded=}, {total=}, {steady=}")
    print(f"steady/total={steady / total:.2f}")
    assert base - start >= p["weights"] + p["optimizer"]
    assert peak >= activations and peak >= p["gradients"]
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 정리
#
# - 뷰가 아닌 텐서는 `numel() * element_size()` 바이트를 씁니다. 뷰는 원래 텐서의 스토리지 전체를 메모리에 붙잡아 둡니다. 모델이 쓰는 메모리는 매개변수와 버퍼의 바이트 수를 더한 값입니다(`parameters()`와 `buffers()`로 셉니다). `.half()`로 절반이 되는 것은 부동소수점 텐서뿐입니다.
# - 큰 모델은 `torch.device("meta")` 안에서 만들면 메모리를 쓰지 않고 바이트 수를 셀 수 있습니다. 실제 메모리를 할당하려면 `to_empty`를 쓴 뒤 초기화하거나, `load_state_dict(..., assign=True)`로 체크포인트를 불러오세요. 두 번째 방법을 쓰면 `persistent=False` 버퍼가 `meta`에 남습니다.
# - 학습할 때는 여기에 변화도(매개변수마다 하나), 옵티마이저 상태(Adam은 매개변수마다 두 개이며 첫 단계에서 생김), 저장된 활성화가 더해집니다. 활성화는 변화도 계산에 필요할 때만 저장되고, 배치 크기에 비례해 늘어납니다. `no_grad`와 `inference_mode`에서는 아무것도 저장되지 않고, 올바른 `device_type`을 지정한 `autocast`에서는 행렬 곱과 합성곱의 활성화가 정밀도가 낮은 dtype으로 저장됩니다.
# - 활성화를 빼면 매개변수 하나당 바이트 수는 dtype, 옵티마이저, 혼합 정밀도 사용 여부만으로 결정되므로, 나머지 학습 메모리는 매개변수 개수에 이 값을 곱해 구할 수 있습니다(`estimate` 함수). Adam에서 `float32` 마스터 가중치를 두는 혼합 정밀도도 `float32` 학습과 마찬가지로 매개변수 하나당 16바이트이고, `float32` 변화도 버퍼를 두면 18바이트입니다. 혼합 정밀도로 줄어드는 것은 활성화입니다.
# - GPU에서 `memory_allocated`는 할당자가 나눠 준 양을, `memory_reserved`는 예약된 메모리를 셉니다. 해제한 메모리는 `empty_cache()` 전까지 예약된 채로 남습니다.

