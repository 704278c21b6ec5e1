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
# `"cuda"` をハードコードしたコードは、Mac でも、NVIDIA の GPU を積んでいないノート PC でも、CPU だけの CI ランナーでも失敗します。このページでは、使えるアクセラレータがあればそれを使い、なければ CPU にフォールバックする小さなヘルパー関数を作ります。また、`device=0` のような整数だけのデバイス指定は 2.5 で意味が変わったので、現在の PyTorch で何を意味するのかも説明します。

# %%
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## 昔ながらのチェック
#
# `torch.cuda.is_available()` が `True` になるのは、その PyTorch ビルドが CUDA に対応していて、ドライバが動作し、GPU が1枚以上見えているときだけです。CUDA 固有のコードの前に置く判定としては、今でもこれが正しい方法です。ただし、この関数がわかるのは CUDA のことだけです（ROCm ビルドの AMD GPU も `cuda` として見えます）。そのため Mac では、Apple の GPU（`mps` デバイス）が使える状態でも `False` になります。

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
# 2.6 以降では、ビルドが対応しているアクセラレータが何であっても（CUDA、Apple の MPS、Intel の XPU など）、`torch.accelerator` が共通の窓口になります。スクリプトが知りたいことは2つあり、それぞれに次の関数が答えます。
#
# - `torch.accelerator.is_available()`: 今、アクセラレータを使えるか。
# - `torch.accelerator.current_accelerator()`: どの種類か。`device(type='cuda')` のような、インデックスを持たない `torch.device` を返します。
#
# アクセラレータにまったく対応していないビルドでは、2.7 以降の `current_accelerator()` は `None` を返します（2.6 では代わりにエラーになっていました）。このモジュールは 2.6 より前には存在せず、Colab や古い環境ではそれより古い torch が入っていることもあるので、セルではまず `hasattr` で確認します。

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
# 落とし穴が1つあります。`current_accelerator()` が表すのはマシンではなく**ビルド**です。GPU のないマシン（たとえば Colab の CPU ランタイム）で CUDA ビルドの PyTorch を使うと、`is_available()` は `False` を返すのに、`current_accelerator()` はそれでも `cuda` を返します。ですから、先に `is_available()` で確認するか、2.7 以降なら `current_accelerator(check_available=True)` を呼び出してください。こちらは、アクセラレータが使えなければ `None` を返します。

# %% tags=["claim-O5"]
if hasattr(torch, "accelerator") and torch.__version__ >= "2.7":
    acc = torch.accelerator.current_accelerator()
    usable = torch.accelerator.current_accelerator(check_available=True)
    print("build:", acc, "| usable:", usable, "| torch.version.cuda:", torch.version.cuda)
    if torch.version.cuda is not None:
        assert acc == torch.device("cuda")  # GPU が見えていなくても cuda になる
    if torch.accelerator.is_available():
        assert usable == acc
    else:
        assert usable is None
else:
    print("skipped: check_available needs torch >= 2.7; this is", torch.__version__)

# %% [markdown]
# ## CPU にフォールバックするヘルパー
#
# デバイスの選択は1つの関数にまとめ、スクリプトの冒頭で一度だけ呼び出します。この関数は、torch 2.6 以降では `torch.accelerator` に問い合わせ、それより古いリリースでは CUDA と MPS を名前で順に試します。

# %% tags=["claim-O5"]
def pick_device() -> torch.device:
    """Return the accelerator if one is usable, otherwise the CPU."""
    if hasattr(torch, "accelerator"):  # torch >= 2.6
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
# 古いコードでは、「1枚目の GPU」のつもりで `torch.device(0)`、`device=0`、`.to(0)` と書かれていることがあります。PyTorch 2.4 までは、整数は常に CUDA を指していました。2.5 以降は「現在のアクセラレータのインデックス 0」を意味し、NVIDIA のマシンでは `cuda:0`、Mac では `mps:0`、Intel の GPU では `xpu:0` になります。CPU 版のビルドでは指す先がないので、整数を渡すと、アクセラレータのデバイスにアクセスできないという内容の `RuntimeError` が送出されます。
#
# セルでは、実行しているマシンでの結果を assert で検証します。

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
# したがって、整数は「GPU」を指す移植性のある書き方ではありません。マシンの種類ごとに意味が変わり、CPU だけのマシンではエラーになります。ヘルパーが返したデバイスを渡すか、`"cuda:0"` のように意図を明示してください。

# %% [markdown]
# ## まとめ
#
# - `torch.cuda.is_available()` が答えるのは CUDA についてだけです。
# - `torch.accelerator.is_available()` と `current_accelerator()`（2.6 以降。2.7 以降は、ビルドがアクセラレータに対応していなければ `None`）は、CUDA、MPS、XPU などを扱えます。`current_accelerator()` はビルドを表すので、`is_available()` も確認します。
# - CPU にフォールバックする `pick_device()` ヘルパーを1つ用意すれば、スクリプトはどこでも実行できます。
# - 2.5 以降、整数のデバイス指定は現在のアクセラレータ上のインデックスで、CUDA とは限りません。アクセラレータのないマシンではエラーになります。
