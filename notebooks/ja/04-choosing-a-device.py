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
# `"cuda"` を決め打ちしたコードは、ノート PC でも Mac でも CPU だけの CI ランナーでも動きません。
# このページでは、使えるアクセラレータがあればそれを使い、なければ CPU にフォールバックする小さな
# ヘルパー関数を作ります。あわせて、`device=0` のような整数だけのデバイス指定が今の PyTorch で何を
# 意味するのかも説明します。これは 2.5 で変わりました。

# %%
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## おなじみのチェック
#
# `torch.cuda.is_available()` が `True` になるのは、PyTorch のビルドが CUDA に対応していて、
# ドライバが動作し、GPU が 1 枚以上見えているときだけです。CUDA 専用のコードの前に置く判定としては
# 今でも正解です。ただし分かるのは CUDA のことだけです（ROCm ビルドの AMD GPU も `cuda` として
# 見えます）。Mac では Apple の GPU（`mps` デバイス）が使える状態でも `False` を返します。

# %%
cuda_ok = torch.cuda.is_available()
mps_ok = torch.backends.mps.is_available()
print("cuda:", cuda_ok, torch.cuda.device_count(), "| mps:", mps_ok)

if cuda_ok:
    assert torch.cuda.device_count() >= 1
if mps_ok:
    assert not cuda_ok

# %% [markdown]
# ## すべてのアクセラレータに共通の API
#
# 2.6 からは `torch.accelerator` があり、ビルドが対応しているアクセラレータが CUDA でも Apple の
# MPS でも Intel の XPU でも、同じ書き方で扱えます。スクリプトが知りたいことは 2 つで、それぞれに
# 関数が対応しています。
#
# - `torch.accelerator.is_available()`: いまアクセラレータを使えるか。
# - `torch.accelerator.current_accelerator()`: それは何か。`device(type='cuda')` のような
#   インデックスなしの `torch.device` を返します。
#
# アクセラレータにまったく対応していないビルドでは、2.7 以降の `current_accelerator()` は `None` を
# 返します（2.6 では代わりにエラーになっていました）。モジュール自体が 2.6 より前には存在せず、
# Colab や古い環境ではもっと古い torch が入っていることもあるので、セルではまず `hasattr` で確認します。

# %% tags=["claim-O5"]
if not hasattr(torch, "accelerator"):
    print("skipped: torch.accelerator needs torch >= 2.6; this is", torch.__version__)
else:
    available = torch.accelerator.is_available()
    print("is_available:", available)
    if available or torch.__version__ >= "2.7":  # 2.6 ではアクセラレータがないと例外になる
        acc = torch.accelerator.current_accelerator()
        print("current_accelerator:", acc)
        if available:
            assert acc.type != "cpu" and acc.index is None
        if acc is None:
            assert not available
        if cuda_ok:
            assert acc.type == "cuda"

# %% [markdown]
# 落とし穴が 1 つあります。`current_accelerator()` が表すのはマシンではなく*ビルド*です。GPU のない
# マシン（たとえば Colab の CPU ランタイム）に入った CUDA ビルドの PyTorch は、`is_available()` が
# `False` でも `cuda` を返します。ですから先に `is_available()` を確かめるか、2.7 以降なら
# `current_accelerator(check_available=True)` を使います。こちらはアクセラレータが使えないときは
# `None` を返します。

# %% tags=["claim-O5"]
if hasattr(torch, "accelerator") and torch.__version__ >= "2.7":
    acc = torch.accelerator.current_accelerator()
    usable = torch.accelerator.current_accelerator(check_available=True)
    print("build:", acc, "| usable:", usable, "| torch.version.cuda:", torch.version.cuda)
    if torch.version.cuda is not None:
        assert acc == torch.device("cuda")  # GPU が見えていなくても cuda
    if torch.accelerator.is_available():
        assert usable == acc
    else:
        assert usable is None
else:
    print("skipped: check_available needs torch >= 2.7; this is", torch.__version__)

# %% [markdown]
# ## CPU にフォールバックするヘルパー
#
# デバイス選びは 1 つの関数にまとめ、スクリプトの冒頭で一度だけ呼びます。torch 2.6 以降では
# `torch.accelerator` に問い合わせ、それより古いリリースでは CUDA と MPS を名前で順に確かめます。

# %% tags=["claim-O5"]
def pick_device() -> torch.device:
    """Return the accelerator if one is usable, otherwise the CPU."""
    if hasattr(torch, "accelerator"):  # torch >= 2.6
        if torch.accelerator.is_available():
            return torch.accelerator.current_accelerator()
        return torch.device("cpu")
    # 古い torch: バックエンドを名前で 1 つずつ確かめる
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
# このヘルパーが返すデバイスにはインデックスがありません。アクセラレータの場合、それは「その種類の
# カレントデバイス」を意味し、変更しない限りインデックス 0 です。変え方は次のページで扱います。

# %% [markdown]
# ## 整数のデバイス指定の意味
#
# 古いコードでは「1 枚目の GPU」のつもりで `torch.device(0)`、`device=0`、`.to(0)` と書いている
# ことがあります。PyTorch 2.4 までは、整数は常に CUDA を指していました。2.5 からは「現在の
# アクセラレータのインデックス 0」という意味になり、NVIDIA のマシンでは `cuda:0`、Mac では `mps:0`、
# Intel GPU では `xpu:0` になります。CPU 専用ビルドでは指す先がないので、整数を渡すと、
# アクセラレータのデバイスにアクセスできないという `RuntimeError` になります。
#
# セルでは、実行しているマシンでの正しい結果を assert します。

# %% tags=["claim-O1"]
no_accelerator_built = (torch.__version__ >= "2.7"
                        and torch.accelerator.current_accelerator() is None)

try:
    d = torch.device(0)
    t = torch.zeros(2, device=0)
except RuntimeError as err:
    print("RuntimeError:", err)
    assert device.type == "cpu"  # 使えるアクセラレータがない場合に限る
    if no_accelerator_built:
        assert "Cannot access accelerator device when none is available" in str(err)
else:
    print(d, t.device)
    assert device.type != "cpu"
    assert d == t.device == torch.device(device.type, 0)

# %% [markdown]
# つまり整数は「GPU」を表す移植性のある書き方ではありません。マシンの種類ごとに意味が変わり、
# CPU だけのマシンではエラーになります。ヘルパーが返したデバイスを渡すか、`"cuda:0"` のように
# 意図をそのまま書きましょう。

# %% [markdown]
# ## まとめ
#
# - `torch.cuda.is_available()` が答えるのは CUDA のことだけです。
# - `torch.accelerator.is_available()` と `current_accelerator()`（2.6 以降。ビルドがアクセラレータに
#   対応していなければ 2.7 以降は `None`）は CUDA、MPS、XPU などをまとめて扱えます。
#   `current_accelerator()` はビルドを表すので、`is_available()` も確認します。
# - CPU にフォールバックする `pick_device()` ヘルパーを 1 つ用意すれば、スクリプトはどこでも動きます。
# - 2.5 以降、整数のデバイス指定は CUDA とは限らず現在のアクセラレータのインデックスであり、
#   アクセラレータのないマシンではエラーになります。
