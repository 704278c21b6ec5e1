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
# # どこでも動くデバイスの選び方
#
# `"cuda"` をハードコードしたコードは、Mac でも、NVIDIA の GPU を搭載していないノート PC でも、CPU だけの CI ランナーでも動きません。このページでは、マシンに合わせてデバイスを選ぶ小さなヘルパー関数を作ります。また、`device=0` のように整数だけでデバイスを指定したときの意味は PyTorch 2.5 で変わったので、現在の意味も説明します。
#
# 「GPU での検証を含む」セルは、GPU のないマシンでは代わりに GPU がないときの動作を検証するか、満たされなかった条件（例：`cuda_ok=False`）を表示します。最初のセルでは、想定どおりのエラーが出たらそれを表示し、ノートブックを止めずに先へ進めるためのヘルパー関数 `expect_error` も定義します。

# %% [markdown] tags=["summary"]
# **結論**
#
# - `torch.cuda.is_available()` が調べるのは CUDA だけです。`torch.accelerator`（PyTorch 2.6 以降）なら CUDA、MPS、XPU などをまとめて扱えます。
# - 使えるアクセラレータがあればそれを、なければ CPU を返すヘルパー関数を1つ用意しておくと、同じスクリプトがどのマシンでも動きます。
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

# torch のバージョンを数値のタプルにし（"2.13.0+cpu" なら (2, 13)）、
# (2, 7) などと比較できるようにする
TORCH = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])

# このチュートリアルは torch.accelerator（torch 2.6 以降）を使うので、
# 古い torch ではここで止める
TOO_OLD_TEXT = (
    "このノートブックは torch.accelerator を使うため、"
    "torch 2.6 以降が必要です。"
    "インストールされている torch は {} です。"
    "torch を更新して（pip install -U torch）、"
    "カーネルを再起動してください。"
)
if TORCH < (2, 6):
    raise RuntimeError(TOO_OLD_TEXT.format(torch.__version__))


@contextlib.contextmanager
def expect_error(kind, fragment=""):
    # ブロックが `kind` の例外を送出し、メッセージに `fragment` を
    # 含むことを確かめる。エラーは表示して `caught.error` に残し
    # （後のセルの検証で使う）、ノートブックは先に進む
    caught = types.SimpleNamespace(error=None)
    try:
        yield caught
    except kind as err:
        assert fragment in str(err), err
        caught.error = err
        sys.stdout.flush()  # ブロックの出力をエラーより先に表示する
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError(f"expected {kind.__name__}")


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## 従来の方法：GPU が使えるかを確認する
#
# `torch.cuda.is_available()` が `True` を返すのは、その PyTorch ビルドが CUDA に対応していて、ドライバが動作し、GPU が1枚以上見えているときだけです。CUDA 固有の処理を実行する前には、今でもこの関数で確認するのが正しい方法です。
#
# ただし、この関数が調べるのは CUDA だけです（ROCm ビルドの PyTorch では、AMD の GPU も `cuda` として見えます）。そのため Mac では、Apple の GPU（`mps` デバイス）が使える状態でも `False` を返します。GPU がなければ、次のセルは `cuda_ok=False` と表示し、GPU の枚数は検証しません。

# %% tags=["gpu-only"]
cuda_ok = torch.cuda.is_available()
mps_ok = torch.backends.mps.is_available()
print(f"{cuda_ok=}, {torch.cuda.device_count()=}, {mps_ok=}")

if cuda_ok:
    assert torch.cuda.device_count() >= 1
if mps_ok:
    assert not cuda_ok

# %% [markdown]
# ## すべてのアクセラレータに共通の API
#
# PyTorch 2.6 で加わった `torch.accelerator` を使うと、CUDA、Apple の MPS、Intel の XPU などを同じ関数で扱えます。このページのコードもこの API を使うので、それより古い PyTorch では最初のセルでエラーになります。スクリプトで確かめたいことは2つあり、それぞれ次の関数で調べられます。
#
# - `torch.accelerator.is_available()`：今、アクセラレータが使えるか。
# - `torch.accelerator.current_accelerator()`：アクセラレータの種類は何か。
#
# 使えるアクセラレータがないときの `current_accelerator()` の動作は、PyTorch のバージョンによって異なります。PyTorch 2.6 では `RuntimeError` が送出されます。そこで次のセルでは、アクセラレータが使える場合か、PyTorch が 2.7 以降の場合にだけ、この関数を呼び出します。

# %% [markdown] tags=["predict"]
# **予想：** 次のセルを実行するマシンで、`torch.accelerator.current_accelerator()` は何を返すでしょうか（戻り値は `acc` として表示されます）。
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
else:  # torch 2.6 で、使えるアクセラレータがない場合
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
# **答え：** PyTorch のビルドによって変わります。このマシンでの結果は、上のセルで検証しています。
#
# - `acc=None`：PyTorch 2.7 以降の CPU 専用ビルド、つまりどのアクセラレータにも対応していないビルドの場合です。
# - `acc=device(type='cuda')`：CUDA ビルドの場合です。PyTorch 2.7 以降は、GPU が使えないマシンでもこの値になります（詳しくは後述）。CUDA の GPU が使えるマシンでこの値になることも、検証の対象です。
# - `acc=device(type='cuda', index=0)` を選んだなら、特定の GPU が返ると考えたのでしょう。`current_accelerator()` が表すのはアクセラレータの種類なので、インデックスは付きません。
# - `acc=device(type='cpu')` は、CPU もアクセラレータの1つとして返ると考えた答えです。実際には CPU はアクセラレータとして扱われないため、どのアクセラレータにも対応していないビルドでは `None` が返ります。
#
# PyTorch 2.6 でアクセラレータが使えない場合は、代わりに次のエラーが送出されます。
#
# ```
# RuntimeError: Cannot access accelerator device when none is available.
# ```
#
# 「使えるアクセラレータがないので、アクセラレータのデバイスにアクセスできない」という意味です。

# %% [markdown]
# PyTorch 2.7 以降には落とし穴が1つあります。`current_accelerator()` が返すのは、このマシンで実際に使えるアクセラレータではなく、PyTorch の**ビルド**が対応しているアクセラレータの種類です。GPU のないマシン（たとえば Colab の CPU ランタイム）で CUDA ビルドの PyTorch を使うと、`is_available()` は `False` を返すのに、`current_accelerator()` は `cuda` を返します。PyTorch 2.6 では、このようなマシンで `current_accelerator()` を呼び出すと例外が送出されます。
#
# そのため、先に `is_available()` で確認するか、PyTorch 2.7 以降なら `current_accelerator(check_available=True)` を呼び出してください。`check_available=True` を付けると、アクセラレータが使えないときは `None` が返ります。GPU のないマシンでは、この呼び出しが `None` を返すことを次のセルで確かめます。PyTorch 2.6 では、検証の代わりに `TORCH >= (2, 7)=False` と表示します。

# %% tags=["claim-O5", "gpu-only"]
if TORCH >= (2, 7):
    acc = torch.accelerator.current_accelerator()
    usable = torch.accelerator.current_accelerator(check_available=True)
    print(f"{acc=}, {usable=}, {torch.version.cuda=}")
    if torch.version.cuda is not None:
        assert acc == torch.device("cuda")  # GPU が見えていなくても cuda
    if torch.accelerator.is_available():
        assert usable == acc
    else:
        assert usable is None
else:
    print(f"{TORCH >= (2, 7)=}")

# %% [markdown]
# ## CPU にフォールバックするヘルパー
#
# デバイスの選択は1つの関数にまとめ、スクリプトの冒頭で一度だけ呼び出します。この関数は、アクセラレータが使えればその種類のデバイスを、使えなければ CPU を返します。デバイスどうしを比較したり、最も速いものを探したりはしません。

# %% [markdown] tags=["predict"]
# **予想：** 次のセルを実行するマシンで、`print(device, y.device)` は何を表示するでしょうか。
#
# - `cuda:0 cuda:0`
# - `cpu cpu`
# - `cuda cuda:0`

# %%
# 使えるアクセラレータがあればそれを、なければ CPU を返す
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
# **答え：** 使えるアクセラレータがないマシンでは、`pick_device()` が CPU にフォールバックするので `cpu cpu` です。
#
# CUDA の GPU が使えれば `cuda cuda:0` になります（上のセルで検証しています）。GPU 上のテンソルは、必ずどれか1枚の GPU に置かれます。インデックスのないデバイスを指定すると現在のデバイス（変更していなければインデックス 0）が使われるので、`y.device` は `cuda:0` と表示されます。
#
# - `cuda:0 cuda:0` は、`device` にもインデックスが付くと考えた答えです。`current_accelerator()` が返すデバイスにはインデックスがないため、`device` は `cuda` とだけ表示されます。

# %% [markdown]
# アクセラレータの場合、インデックスのないデバイスは「その種類の現在のデバイス」を意味します。現在のデバイスを変更する方法は、次のページ「[複数の GPU](05-several-gpus.ipynb)」で説明します。

# %% [markdown]
# ## 整数でデバイスを指定したときの意味
#
# 古いコードでは、「1枚目の GPU」のつもりで `torch.device(0)`、`device=0`、`.to(0)` と書かれていることがあります。PyTorch 2.4 までは、整数は常に CUDA を指していました。PyTorch 2.5 以降では、`0` は「現在のアクセラレータのインデックス 0」を意味し、NVIDIA の GPU では `cuda:0`、Mac では `mps:0`、Intel の GPU では `xpu:0` になります。

# %% [markdown] tags=["predict"]
# **予想：** 次のセルを実行するマシンで、`device=0` を指定するとどうなるでしょうか。
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
# 2.7 以降の current_accelerator() は、この PyTorch が対応する
# アクセラレータの種類を返す（なければ None）。2.6 では使える
# アクセラレータがないと例外になるので、その場合は呼ばない
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
else:  # アクセラレータ向けのビルドだが、ここでは使えない
    assert torch.device(0) == torch.device(built_for.type, 0)
    assert isinstance(error, RuntimeError)  # メッセージはドライバ次第

# %% [markdown] tags=["answer"]
# **答え：** マシンによって異なります。このマシンでどうなるかは、上のセルで確かめています。
#
# - `Cannot access accelerator device when none is available`：使えるアクセラレータがなく、PyTorch のビルドがどのアクセラレータにも対応していない場合です。PyTorch 2.6 では、使えるアクセラレータがなければ常にこの結果になります。インデックス 0 が指す先がないため、テンソルを作る前の `torch.device(0)` の時点で、この `RuntimeError` が送出されます。
# - `device(type='cuda', index=0)`：CUDA の GPU が使えるマシンでは、`0` は現在のアクセラレータ（CUDA）のインデックス 0、つまり `cuda:0` を指します。PyTorch 2.7 以降は、GPU のないマシンでも CUDA ビルドなら同じく `cuda:0` を指し、エラーになるのは `cuda:0` 上にテンソルを作ろうとした時点です。
# - `device(type='cpu')` を選んだなら、アクセラレータがないときは CPU が使われると考えたのでしょう。しかし、整数が CPU を指すことはありません。

# %% [markdown]
# つまり、整数で GPU を指定するコードには移植性がありません。整数が指すデバイスはマシンの種類によって変わり、CPU だけのマシンではエラーになります。`pick_device()` が返したデバイスを渡すか、`"cuda:0"` のようにデバイスの種類を明示してください。

# %% [markdown]
# ## まとめ
#
# - `torch.cuda.is_available()` が調べるのは CUDA だけです。
# - `torch.accelerator.is_available()` と `current_accelerator()`（PyTorch 2.6 以降）は、CUDA、MPS、XPU などを扱えます。
# - PyTorch 2.7 以降の `current_accelerator()` は、PyTorch のビルドが対応するアクセラレータの種類を返します（対応するものがなければ `None`）。PyTorch 2.6 では、使えるアクセラレータがないと例外を送出します。先に `is_available()` で確認してください。
# - 使えるアクセラレータがあればそれを選び、なければ CPU にフォールバックする `pick_device()` のようなヘルパー関数を1つ用意すれば、同じスクリプトをどこでも実行できます。
# - PyTorch 2.5 以降、デバイスを整数で指定すると、現在のアクセラレータのインデックスとして解釈されます。CUDA を指すとは限らず、アクセラレータのないマシンではエラーになります。
