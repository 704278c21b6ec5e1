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
# # デバイス上にテンソルを作成する
#
# テンソルは必ずどれか1つのデバイス上に置かれます。CPU、GPU、あるいは `meta` のような特殊なデバイスです。このページでは、テンソルをどこに作成するかを指定する方法と、テンソルがどこにあるかを確認する方法を説明します。以下のセルはすべて GPU のないマシンでも実行できます。GPU が必要なセルは、その旨を表示してスキップします。

# %%
import torch

print(torch.__version__)
print("CUDA available:", torch.cuda.is_available())

# %% [markdown]
# ## デバイスを指定する
#
# `torch.device` は、種類（`cpu`、`cuda`、`mps`、`meta` など）と、省略可能なインデックスを持ちます。文字列から作成できるほか、PyTorch がデバイスを受け取る箇所ならどこにでも文字列をそのまま渡せます。インデックスを省略した `cuda` は、特定の GPU ではなく「現在の CUDA デバイス」を指します。

# %%
cpu = torch.device("cpu")
gpu0 = torch.device("cuda:0")
gpu = torch.device("cuda")

print(repr(cpu), repr(gpu0), repr(gpu))
assert (gpu0.type, gpu0.index) == ("cuda", 0)
assert (gpu.type, gpu.index) == ("cuda", None)
assert torch.device("cuda", 1) == torch.device("cuda:1")

# %% [markdown]
# `torch.device` オブジェクトの作成時にチェックされるのは表記だけで、ハードウェアの有無は確認されません。そのため、上のセルは GPU のないマシンでも動きます。ハードウェアが必要になるのは、そのデバイス上に実際にテンソルを作成するときです。

# %% [markdown]
# ## ファクトリ関数の device 引数
#
# `torch.tensor`、`torch.zeros`、`torch.ones`、`torch.randn`、`torch.arange` をはじめとするファクトリ関数は `device=` 引数を受け取ります。デフォルトは CPU です。文字列を渡しても `torch.device` を渡しても同じ意味になります。

# %%
a = torch.tensor([0.1, 0.2])
b = torch.zeros(2, 3, device="cpu")
c = torch.arange(4, device=torch.device("cpu"))

for t in (a, b, c):
    print(t.device)
    assert t.device == torch.device("cpu")

# %% [markdown]
# GPU 上にテンソルを作成するには、CUDA デバイスを渡します。このセルには NVIDIA の GPU が必要です。GPU のないマシンでは、その旨を表示するだけで何もしません。

# %%
if torch.cuda.is_available():
    g = torch.ones(2, 3, device="cuda")
    print(g.device)
    assert g.device.type == "cuda"
    assert g.device.index == torch.cuda.current_device()
else:
    print("skipped: no CUDA GPU on this machine")

# %% [markdown]
# ## テンソルの場所を確認する
#
# テンソルの場所を完全に知るには `t.device` を見ます。`t.is_cuda` と `t.is_cpu` は、よくある確認を手短に書くためのショートカットです。`is_cpu` は torch 1.13 から存在します（古いチュートリアルには「存在しない」と書かれていることがあります）。

# %% tags=["claim-O2"]
t = torch.randn(3)
print(t.device, t.is_cpu, t.is_cuda)
assert t.is_cpu and not t.is_cuda
assert t.device.type == "cpu"

# %% [markdown]
# デバイスは文字列とではなく、別の `torch.device` と比較してください。CPU 上のテンソルでも `t.device == "cpu"` は `False` になります。どの GPU でもよい場合は `.type` を比較します。`cuda:0` と `cuda` は等しくないからです。

# %%
print(t.device == torch.device("cpu"), t.device == "cpu", t.device.type == "cpu")
assert t.device == torch.device("cpu")
assert (t.device == "cpu") is False
assert torch.device("cuda:0") != torch.device("cuda")
assert torch.device("cuda:0").type == torch.device("cuda").type

# %% [markdown]
# ## 整数によるデバイス指定
#
# 以前は `device=0` や `torch.device(0)` が `cuda:0` を意味していました。torch 2.5 以降、整数は「現在のアクセラレータ上の、そのインデックスのデバイス」を意味します。アクセラレータは CUDA とは限らず、Apple の MPS や Intel の XPU の場合もあります。アクセラレータのないマシンでは、デバイス `0` 上にテンソルを作成しようとするとエラーになります。

# %% tags=["claim-O1"]
has_accelerator = torch.cuda.is_available() or (
    hasattr(torch, "accelerator") and torch.accelerator.is_available()
)
try:
    x = torch.zeros(1, device=0)
    print(x.device)
    assert has_accelerator and x.device.index == 0
except RuntimeError as err:
    print(type(err).__name__, err)
    assert not has_accelerator

# %% [markdown]
# ## デバイスを毎回書かずに作成する
#
# torch 2.0 以降では、ファクトリ関数が使うデフォルトのデバイスを変更できます。`with` ブロックの中だけで変更する方法と、`torch.set_default_device` でプログラム全体に対して変更する方法があります。既存のテンソルが移動するわけではなく、テンソルが最初からそのデバイス上に作成されるので、CPU から GPU へのコピーも省けます。`device=` を明示した場合は、そちらが優先されます。次の節で説明する `meta` デバイスを使うので、以下のセルはどのマシンでも実行できます。

# %% tags=["claim-F6"]
with torch.device("meta"):
    inside = torch.zeros(2)
    explicit = torch.zeros(2, device="cpu")

outside = torch.zeros(2)
print(inside.device, explicit.device, outside.device)
assert inside.device.type == "meta"
assert explicit.device.type == "cpu"
assert outside.device.type == "cpu"

# %% tags=["claim-F6"]
torch.set_default_device("meta")
try:
    made = torch.ones(3)
    print(made.device)
    assert made.device.type == "meta"
finally:
    torch.set_default_device(None)

assert torch.ones(3).device.type == "cpu"

# %% [markdown]
# GPU のあるマシンなら、`with torch.device("cuda"):` でも同じことができます。

# %%
if torch.cuda.is_available():
    with torch.device("cuda"):
        w = torch.randn(4, 4)
    print(w.device)
    assert w.is_cuda
else:
    print("skipped: no CUDA GPU on this machine")

# %% [markdown]
# ## meta デバイス
#
# `meta` 上のテンソルは形状（shape）と dtype を持ちますが、データは持ちません。そのためメモリを消費せず、どのマシンでも作成できます。モデルからどんな形状の出力が得られるかを事前に調べるといった用途に便利で、このサイトでは GPU が手元にないときに移動の仕組みを示すためにも使います。ただし、できないこともあります。表示できる値はありませんし、エラーメッセージに関しては GPU の忠実な代役になりません。

# %% tags=["claim-F7"]
m = torch.empty(1000, 1000, device="meta")
print(m)
assert m.shape == (1000, 1000) and m.dtype == torch.float32
assert m.is_meta


# %%
try:
    m.tolist()
except (NotImplementedError, RuntimeError) as err:
    print(type(err).__name__)
else:
    raise AssertionError("a meta tensor should have no data to read")

# %% [markdown]
# ## まとめ
#
# - テンソルを作成する場所は、ファクトリ関数の `device=` か `with torch.device(...)` で指定します。
# - テンソルの場所は `.device` で確認します。`.is_cpu` と `.is_cuda` はそのショートカットです。
# - 整数で指定したデバイスは現在のアクセラレータ上のインデックスを表し、CUDA とは限りません。
# - `meta` テンソルは形状を持ちますがデータは持たず、どのマシンでも動きます。
