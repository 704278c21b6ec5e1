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
# `"cuda"` をハードコードしたコードは、Mac でも、NVIDIA の GPU を搭載していないノート PC でも、CPU だけの CI ランナーでも失敗します。このページでは、使えるアクセラレータがあればそれを使い、なければ CPU にフォールバックする小さなヘルパー関数を作ります。また、`device=0` のような整数だけのデバイス指定は 2.5 で意味が変わったので、現在の PyTorch で何を意味するのかも説明します。
#
# 検証に必要なものがこのマシンにない場合、セルは満たされなかった条件を `hasattr(torch, 'accelerator')=False` のようにコードの形で表示します。最初のセルでは `expect_error` も定義します。このページでは、想定どおりのエラーを表示したうえで先に進むためにこれを使います。

# %% tags=["setup"]
import contextlib
import sys
import types

import torch

# torch のバージョンを数値のタプルにする（"2.13.0+cpu" なら (2, 13)）
# (2, 7) などのタプルと比較するため
TORCH = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])

# torch.accelerator（torch 2.6 以降）を使うので、古い torch ではここで止める
TOO_OLD_TEXT = (
    "このノートブックには torch 2.6 以降が必要です"
    "（torch.accelerator を使うため）。いまの torch は {} です。"
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
        sys.stdout.flush()  # ブロックが先に出力したものを先に表示する
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError(f"expected {kind.__name__}")


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## 従来の方法：GPU が使えるかを確認する
#
# `torch.cuda.is_available()` が `True` になるのは、その PyTorch ビルドが CUDA に対応していて、ドライバが動作し、GPU が1枚以上見えているときだけです。CUDA 固有のコードの前に置く判定としては、今でもこれが正しい方法です。ただし、この関数がわかるのは CUDA のことだけです（ROCm ビルドの AMD GPU も `cuda` として見えます）。そのため Mac では、Apple の GPU（`mps` デバイス）が使える状態でも `False` になります。GPU がなければ、セルは `cuda_ok=False` と表示し、GPU の枚数は検証しません。

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
# 2.6 以降では、ビルドが対応しているアクセラレータが何であっても（CUDA、Apple の MPS、Intel の XPU など）、`torch.accelerator` が共通の窓口になります。スクリプトが知りたいことは2つあり、それぞれに次の関数が答えます。
#
# - `torch.accelerator.is_available()`: 今、アクセラレータを使えるか。
# - `torch.accelerator.current_accelerator()`: どの種類か。`device(type='cuda')` のような、インデックスを持たない `torch.device` を返します。
#
# 使えるアクセラレータがない場合の振る舞いは、リリースによって異なります。2.7 以降の `current_accelerator()` は、アクセラレータに対応していないビルドでは `None` を返します。2.6 では代わりに `RuntimeError` を送出します。セルでは、このマシンの torch での振る舞いを assert で検証します。アクセラレータが使える場合の検証は、アクセラレータのあるマシンでだけ実行されます。このモジュールは 2.6 より前には存在せず、古い環境ではそれより古い torch が入っていることもあるので、セルではまず `hasattr` で確認します。

# %% [markdown] tags=["predict"]
# **予想：** このセルを実行するマシンで、`torch.accelerator.current_accelerator()` は何を返すでしょうか。セルはそれを `acc` として表示します。
#
# - `acc=device(type='cuda')`：CUDA ビルドの PyTorch の場合です。返るのはアクセラレータの種類だけで、インデックスはありません。
# - `acc=device(type='cuda', index=0)`：`current_accelerator()` が表すのは特定の GPU ではなくアクセラレータの種類なので、インデックスは付きません。
# - `acc=None`：PyTorch のビルドがどのアクセラレータにも対応していない場合です（CPU 専用ビルドで、torch 2.7 以降）。

# %% tags=["claim-O5", "gpu-only"]
if not hasattr(torch, "accelerator"):
    print(f"{hasattr(torch, 'accelerator')=}")
else:
    available = torch.accelerator.is_available()
    print(f"{available=}")
    if available or TORCH >= (2, 7):
        acc = torch.accelerator.current_accelerator()
        print(f"{acc=}")
        if available:
            assert acc.type != "cpu" and acc.index is None
        if acc is None:
            assert not available
        if cuda_ok:
            assert acc.type == "cuda"
    else:
        with expect_error(RuntimeError, "Cannot access accelerator device when none is available"):
            torch.accelerator.current_accelerator()

# %% [markdown]
# 2.7 以降には落とし穴が1つあります。`current_accelerator()` が表すのはマシンではなく**ビルド**です。GPU のないマシン（たとえば Colab の CPU ランタイム）で CUDA ビルドの PyTorch を使うと、`is_available()` は `False` を返すのに、`current_accelerator()` はそれでも `cuda` を返します（2.6 では、このようなマシンで同じ呼び出しが例外を送出します）。そのため、先に `is_available()` で確認するか、2.7 以降なら `current_accelerator(check_available=True)` を呼び出してください。こちらは、アクセラレータが使えなければ `None` を返します。GPU がなければ、セルはこの呼び出しが `None` を返すことを検証します。それより古い torch では、このセルは `TORCH >= (2, 7)=False` と表示します。

# %% tags=["claim-O5", "gpu-only"]
if TORCH >= (2, 7):
    acc = torch.accelerator.current_accelerator()
    usable = torch.accelerator.current_accelerator(check_available=True)
    print(f"{acc=}, {usable=}, {torch.version.cuda=}")
    if torch.version.cuda is not None:
        assert acc == torch.device("cuda")  # GPU が見えていなくても cuda になる
    if torch.accelerator.is_available():
        assert usable == acc
    else:
        assert usable is None
else:
    print(f"{TORCH >= (2, 7)=}")

# %% [markdown]
# ## CPU にフォールバックするヘルパー
#
# デバイスの選択は1つの関数にまとめ、スクリプトの冒頭で一度だけ呼び出します。この関数は、いま使えるアクセラレータがあればそれを選び、なければ CPU を選びます。デバイスどうしを比較したり、最も速いものを探したりはしません。torch 2.6 以降では `torch.accelerator` に問い合わせ、それより古いリリースでは CUDA と MPS を名前で順に試します。

# %% [markdown] tags=["predict"]
# **予想：** このセルを実行するマシンで、`print(device, y.device)` は何を表示するでしょうか。
#
# - `cuda cuda:0`：使える GPU がある場合です。ヘルパーが返す `device` にはインデックスがありませんが、テンソルは必ず特定の1枚の GPU 上に作られるので、`y.device` は `cuda:0` になります。
# - `cpu cpu`：使えるアクセラレータがない場合です。`pick_device()` は CPU にフォールバックします。
# - `cuda:0 cuda:0`：`current_accelerator()` が返すデバイスにはインデックスがないので、`device` は `cuda:0` ではなく `cuda` と表示されます。

# %% tags=["claim-O5"]
# 使えるアクセラレータがあればそれを、なければ CPU を返す
def pick_device() -> torch.device:
    if hasattr(torch, "accelerator"):  # torch 2.6 以降
        if torch.accelerator.is_available():
            return torch.accelerator.current_accelerator()
        return torch.device("cpu")
    # 古い torch: 各バックエンドに名前で問い合わせる
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


device = pick_device()
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(3, 4, device=device)
y = model(x)
print(device, y.device)

assert y.device.type == device.type
assert (device.type == "cuda") == cuda_ok
assert device.index is None

# %% [markdown]
# このヘルパーが返すデバイスにはインデックスがありません。アクセラレータの場合、これは「その種類の現在のデバイス」を意味し、変更しない限りインデックス 0 です。変更の方法は次のページで説明します。

# %% [markdown]
# ## 整数のデバイス指定の意味
#
# 古いコードでは、「1枚目の GPU」のつもりで `torch.device(0)`、`device=0`、`.to(0)` と書かれていることがあります。PyTorch 2.4 までは、整数は常に CUDA を指していました。2.5 以降は「現在のアクセラレータのインデックス 0」を意味し、NVIDIA のマシンでは `cuda:0`、Mac では `mps:0`、Intel の GPU では `xpu:0` になります。アクセラレータがなければ指す先がないので、`torch.device(0)` そのものが `RuntimeError: Cannot access accelerator device when none is available.` を送出します。2.7 以降では、アクセラレータ向けにビルドされた PyTorch（GPU のないマシン上の CUDA ビルド）は `0` をそのまま `cuda:0` に変換し、エラーはそこにテンソルを作成した時点で発生します。
#
# セルでは、実行しているマシンでの結果を assert で検証します。

# %% [markdown] tags=["predict"]
# **予想：** このセルを実行するマシンで、`device=0` を指定するとどうなるでしょうか。
#
# - `Cannot access accelerator device when none is available`：アクセラレータがまったくない場合です。インデックス 0 が指す先がありません。
# - `device(type='cuda', index=0)`：CUDA ビルドの PyTorch の場合です。0 は現在のアクセラレータ（CUDA）のインデックス 0 を指します。
# - `device(type='cpu')`：整数が CPU を指すことはありません。

# %% tags=["claim-O1", "gpu-only"]
usable = torch.accelerator.is_available()
# 2.7 以降の current_accelerator() は、ビルドが対応しているアクセラレータを返す（なければ None）。
# 2.6 では使えるアクセラレータがないと例外になるので、問い合わせるのは 2.7 以降だけにする
built_for = torch.accelerator.current_accelerator() if usable or TORCH >= (2, 7) else None
print(f"{usable=}, {built_for=}")

if usable:
    t = torch.zeros(2, device=0)
    print(f"{torch.device(0)=}, {t.device=}")
    assert torch.device(0) == t.device == torch.device(pick_device().type, 0)
elif built_for is None:
    with expect_error(RuntimeError, "Cannot access accelerator device when none is available"):
        torch.zeros(2, device=0)
    assert pick_device() == torch.device("cpu")
else:
    print(f"{torch.device(0)=}")
    assert torch.device(0) == torch.device(built_for.type, 0)
    try:
        torch.zeros(2, device=0)
    except RuntimeError as err:  # メッセージはドライバによって変わるので、型だけを確認する
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
    else:
        raise AssertionError("expected RuntimeError")

# %% [markdown]
# したがって、整数は「GPU」を指す移植性のある書き方ではありません。マシンの種類ごとに意味が変わり、CPU だけのマシンではエラーになります。ヘルパーが返したデバイスを渡すか、`"cuda:0"` のように意図を明示してください。

# %% [markdown]
# ## まとめ
#
# - `torch.cuda.is_available()` が答えるのは CUDA についてだけです。
# - `torch.accelerator.is_available()` と `current_accelerator()`（2.6 以降）は、CUDA、MPS、XPU などを扱えます。2.7 以降の `current_accelerator()` はビルドを表し、ビルドがアクセラレータに対応していなければ `None` を返します。2.6 では、使えるアクセラレータがないと例外を送出します。先に `is_available()` を確認してください。
# - 使えるアクセラレータを選び、なければ CPU にフォールバックする `pick_device()` ヘルパーを1つ用意すれば、スクリプトはどこでも実行できます。
# - 2.5 以降、整数のデバイス指定は現在のアクセラレータ上のインデックスで、CUDA とは限りません。アクセラレータのないマシンではエラーになります。
