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
# # モデルの移動
#
# テンソルにもモデルにも `.to()` メソッドがありますが、両者の振る舞いは異なります。このページでは、`Module.to` がモデルとそのパラメータ・バッファに何をするのか、何を元のデバイスに残すのかを確かめます。そのうえで、次の内容を説明します。
#
# - モデルがどのデバイスにあるかの調べ方
# - デバイス不一致エラーの読み方
# - モデルの移動がオプティマイザに与える影響
# - GPU で保存したチェックポイントを CPU に読み込む方法
#
# 本文で説明する PyTorch の挙動は、このページの出力を生成したマシン上で、コードセルの `assert` を使って検証しています。「GPU での検証を含む」セルは、まず GPU があるかを確認します。GPU のないマシンでは `torch.cuda.is_available()=False` と表示するだけで、GPU での検証は行いません。該当するセルの数は、タイトルの下の行に表示しています。
#
# GPU でしか出ないエラーメッセージは、バージョンを明記して PyTorch のソースから引用しています。想定どおりのエラーは、最初のセルで定義する `expect_error` が捕捉し、内容を検証してから表示します。そのため、ノートブックは止まらずに先へ進みます。

# %% [markdown] tags=["summary"]
# **結論**
#
# - `model.to(device)` はパラメータとバッファを移動し、モデル自身を返します。代入し直す必要はありません。入力もすべてモデルと同じデバイスに置きます。
# - オプティマイザはモデルを移動してから作ります。GPU で保存したチェックポイントを CPU で読み込むときは `map_location` を指定します。
#
# ```python
# model = nn.Linear(10, 1)
# model.to(device)
# x = torch.randn(8, 10).to(device)
# optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# state = torch.load(path, map_location="cpu", weights_only=True)
# ```

# %% tags=["setup"]
import contextlib
import os
import pickle
import sys
import tempfile
import types

import torch
from torch import nn

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
# ## `model.to(device)` は何を変えるか
#
# `Tensor.to` はテンソルを変更しません。変換後のテンソル（変換が不要ならそのテンソル自身）を返すので、戻り値を受け取る必要があります。一方、`Module.to` と、同種のメソッド `.cpu()`、`.cuda()`、`.double()` は、この点で振る舞いが異なります。
#
# 次の例では移動先に `meta` デバイスを使います。`meta` テンソルは形状と dtype だけを持ち、データは持ちません。`meta` デバイスはどのマシンでも使えるので、GPU がなくても移動の様子を確かめられます。

# %% [markdown] tags=["predict"]
# **予想：** 次のセルは `model.double()`、`model.to("meta")` の順に呼び出し、どちらの戻り値も代入しません。`print(model.weight.device, model.weight.dtype)` は何を表示するでしょうか。
#
# - `cpu torch.float32`
# - `meta torch.float32`
# - `cpu torch.float64`
# - `meta torch.float64`

# %%
model = nn.Linear(3, 2)
model.double()
model.to("meta")
print(model.weight.device, model.weight.dtype)

# %% tags=["claim-M1", "gpu-only", "answer"]
assert model.weight.device.type == "meta"
assert model.weight.dtype == torch.float64

model = nn.Linear(3, 2)
assert model.to(device) is model
assert model.cpu() is model
assert model.double() is model  # dtype の変換も同じ
if torch.cuda.is_available():
    assert model.cuda() is model
else:
    print(f"{torch.cuda.is_available()=}")

t = torch.ones(3)
t_meta = t.to("meta")
print(t.device, t_meta.device)
assert t_meta is not t
assert t.device.type == "cpu"  # 元のテンソルは移動していない
assert t.to(t.device) is t  # 変換不要なら同じテンソルが返る

# %% [markdown] tags=["answer"]
# **答え：** `meta torch.float64` です。`Module.to` はパラメータとバッファを変換して**モジュール自体を書き換え**、そのモジュール自身を返します（インプレースの変換で、新しいモジュールは作りません）。`.cpu()`、`.double()`、GPU がある場合の `.cuda()` も同じです。2つの呼び出しはどちらも同じモジュールを書き換えるので、両方の変換が反映されます。`model = model.to(device)` と書いても害はありませんが、再代入は不要です。
#
# - `cpu torch.float32` を選ぶのは、`Tensor.to` と同じく `Module.to` もコピーを返すと考えた場合です。テンソルならそのとおりで、上の検証でも、`t.to("meta")` を呼んだあとの `t` は CPU 上のままです。モジュールはそうではありません。
# - `meta torch.float32` や `cpu torch.float64` を選んだなら、2つの呼び出しのうち一方は効かないと考えたのでしょう。実際には両方とも効いています。
#
# 前のセルでは、それぞれの呼び出しが `model` 自身を返すことも確かめました（`.cuda()` は GPU があるときだけ）。

# %% [markdown]
# ## パラメータとバッファ
#
# `.to()` のあともモジュールは同じオブジェクトですが、中のテンソルはどうでしょうか。答えは変換の種類によって変わります。以下の小さなモジュールは、パラメータ、バッファ（`register_buffer` で登録したテンソル）、通常のテンソル属性を1つずつ持っています。通常のテンソル属性については次のセクションで説明します。

# %%
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3))  # パラメータ
        self.register_buffer("offset", torch.zeros(3))  # バッファ
        self.mask = torch.ones(3)  # 通常のテンソル属性

    def forward(self, x):
        return x * self.weight * self.mask + self.offset


# %% [markdown]
# まず、どのマシンでも実行できる `meta` への移動です。この場合、パラメータは新しい `Parameter` オブジェクトに、バッファは新しいテンソルに置き換わります。

# %% tags=["claim-F3"]
model = Scaled()
weight, offset = model.weight, model.offset

model.to("meta")
print(f"{model.weight is weight=}, {model.offset is offset=}")
assert isinstance(model.weight, nn.Parameter)
assert model.weight is not weight  # 新しい Parameter オブジェクト
assert model.offset is not offset  # 新しいバッファのテンソル

# %% [markdown]
# `meta` から戻すときは事情が違います。コピーするデータがないので、`.to("cpu")` を呼ぶとエラーになります。メッセージの前半は「`meta` テンソルからはコピーできない。データがない」という意味で、後半は、`meta` から別のデバイスへモジュールを移すときは `Module.to()` ではなく `Module.to_empty()` を使うよう促しています。
#
# `to_empty(device=...)` は移動先のデバイスに未初期化のストレージを確保するだけなので、値は自分で設定します。組み込みの層なら `reset_parameters()` で初期化できます。

# %% tags=["claim-F7"]
with expect_error(NotImplementedError, "to_empty"):
    model.to("cpu")

layer = nn.Linear(3, 2, device="meta")
layer.to_empty(device="cpu")  # ストレージを確保するだけで、値は未初期化
layer.reset_parameters()
print(layer.weight.device, layer.weight.is_meta)
assert layer.weight.device.type == "cpu"
assert torch.isfinite(layer.weight).all()

# %% [markdown]
# dtype の変換も、GPU なしで試せます。

# %% [markdown] tags=["predict"]
# **予想：** 次のセルは、`model.double()` を呼ぶ前にパラメータとバッファへの参照を `weight` と `offset` に取っておき、呼び出しのあとで比べます。何が表示されるでしょうか。
#
# - `model.weight is weight=True, model.offset is offset=True`
# - `model.weight is weight=True, model.offset is offset=False`
# - `model.weight is weight=False, model.offset is offset=False`

# %%
model = Scaled()
weight, offset = model.weight, model.offset

model.double()
print(f"{model.weight is weight=}, {model.offset is offset=}")

# %% tags=["claim-F3", "gpu-only", "answer"]
assert model.weight.dtype == torch.float64
assert model.weight is weight  # 同じ Parameter オブジェクト
assert model.offset is not offset  # バッファは新しいテンソル

if torch.cuda.is_available():
    offset = model.offset
    model.to(device)
    print(f"{model.weight is weight=}, {model.offset is offset=}")
    assert model.weight.device.type == "cuda"
    assert model.weight is weight  # 同じ Parameter のまま GPU 上へ
    assert model.offset is not offset
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown] tags=["answer"]
# **答え：** `model.weight is weight=True, model.offset is offset=False` です。元のオブジェクトがそのまま使われるかどうかは、変換の種類（移動先や dtype）で決まります。
#
# - **dtype の変換、CPU ↔ CUDA の移動：** 各 `Parameter` は同じ Python オブジェクトのままです。PyTorch はその中身のテンソル（`param.data`）を差し替えるので、パラメータへの参照を持っているコード（オプティマイザなど）も、変換後のパラメータをそのまま参照できます。CUDA への移動でも同じになることは、GPU がある場合に上のセルで検証しています。
# - **`meta` への移動：** パラメータは新しい `Parameter` オブジェクトに置き換わります（上で見た `...=False, ...=False`）。
# - **バッファ：** `Parameter` ではなく通常の `Tensor` なので、変換されると必ず新しいテンソルオブジェクトに置き換わります。したがって、`...=True, ...=True` にはなりません。

# %% [markdown]
# ## 通常の属性として持たせたテンソル
#
# `Module.to` が変換するのは、モジュールに登録されているもの、つまりパラメータ、バッファ、サブモジュールです。`Scaled` モジュールは、これらとは別に、`self.mask = torch.ones(3)` という通常のテンソル属性を持っています。次のセルでは、GPU があれば GPU を、なければ `meta` を移動先にします。

# %% [markdown] tags=["predict"]
# **予想：** 次のセルは、`model = Scaled().to(target)` のあとの各テンソルのデバイスを表示します。`mask` の行には何が表示されるでしょうか。
#
# - `mask meta`
# - `mask cuda:0`
# - `mask cpu`

# %%
target = torch.device("cuda" if torch.cuda.is_available() else "meta")
model = Scaled().to(target)

for name in ["weight", "offset", "mask"]:
    print(name, getattr(model, name).device)

# %% tags=["claim-F5", "answer"]
assert model.weight.device.type == target.type
assert model.offset.device.type == target.type
assert model.mask.device.type == "cpu"  # 元のデバイスに残る
assert "mask" not in model.state_dict()
with expect_error(RuntimeError, "device"):
    model(torch.ones(3, device=target))  # 順伝播でデバイスが混在する

# %% [markdown] tags=["answer"]
# **答え：** どのマシンでも `mask cpu` です。通常のテンソル属性は `Module.to` から見えないので、元のデバイスに残ります。`state_dict` にも含まれません。
#
# その結果、順伝播の中でデバイスが混在し、上の検証ではモデルを呼び出した時点でデバイス不一致エラーになります。GPU がない場合のメッセージ `Tensor on device cpu is not on the expected device meta!` は、「テンソルのデバイスが期待したデバイスと違う」ことを知らせています。
#
# - `mask meta`（GPU がない場合）や `mask cuda:0`（GPU がある場合）は、モデルが持つテンソルはすべて一緒に移動すると考えた答えです。移動するのは、`weight` のように登録したパラメータと、`offset` のように登録したバッファだけです。

# %% [markdown]
# 対処法は、このようなテンソルを通常の属性ではなくバッファとして登録することです。モデルと一緒に移動させたいが `state_dict` には含めたくないテンソルなら、`persistent=False` を指定します。

# %% tags=["claim-F5"]
class Masked(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3))
        self.register_buffer("mask", torch.ones(3), persistent=False)

    def forward(self, x):
        return x * self.weight * self.mask


model = Masked().to(target)
print(model.mask.device)
assert model.mask.device.type == target.type
assert "mask" not in model.state_dict()

# %% [markdown]
# ## パラメータに再代入しない
#
# `model.weight = model.weight.to(d)` のように、パラメータを個別に変換して代入し直してはいけません。理由は、パラメータに対して `to` が何を返すかを見るとわかります。次のセルは、戻り値の型名と `requires_grad`（今も勾配の計算対象かどうか）を表示します。

# %% [markdown] tags=["predict"]
# **予想：** `model.weight` は CPU 上の `Parameter` なので、`model.weight.to("meta")` では実際に変換が起きます。その戻り値 `moved` について、次のセルは何を表示するでしょうか。
#
# - `Tensor True`
# - `Parameter True`
# - `Tensor False`

# %%
model = nn.Linear(3, 2)
moved = model.weight.to("meta")
print(type(moved).__name__, moved.requires_grad)

# %% tags=["claim-F5", "answer"]
assert type(moved) is torch.Tensor
assert moved.requires_grad and not moved.is_leaf  # autograd が記録している
w = model.weight
assert w.to(w.device) is w  # 変換不要なら Parameter 自身が返る

# %% [markdown] tags=["answer"]
# **答え：** `Tensor True` です。実際に変換すると、`Parameter` ではなく通常の `Tensor` が返ります。autograd がこの変換を記録するので、`requires_grad` は `True` のままです。ただし、この戻り値はパラメータに演算を施した結果なので、葉（leaf）テンソルではありません。
#
# - `Parameter True` は、変換が何も要らないときにだけ出る結果です。そのときは `Parameter` 自身が返ります（上の検証の `w.to(w.device) is w`）。
# - `Tensor False` は、型が変わると計算グラフからも切り離されると見た答えです。実際には変換も計算グラフの一部なので、戻り値からパラメータへ勾配が伝わります。

# %% [markdown]
# この `Tensor` を `model.weight` に代入し直そうとすると、`TypeError` になります。

# %% tags=["claim-F5"]
with expect_error(TypeError, "cannot assign"):
    model.weight = moved

# %% [markdown]
# 出力の `cannot assign ... as parameter 'weight'` は、「パラメータ `weight` には、この値を代入できない」という意味です。モジュールのパラメータに代入できるのは、`Parameter`（または `None`）だけです。
#
# 厄介なのは、変換が要らない場合にはこの失敗が起きないことです。たとえば `d` が CPU で重みも CPU 上にあるなら、`.to()` はパラメータ自身を返すので、`model.weight = model.weight.to(d)` という代入は成功します。ところが、`d` を GPU にして同じコードを実行すると、そこで初めてこの代入が失敗します。パラメータを個別に変換せず、モジュール全体を `model.to(d)` で移動してください。

# %% [markdown]
# ## モデルはどのデバイスにあるか
#
# モジュールには `.device` 属性がありません。モジュール内のテンソルが1つのデバイスにそろっているとは限らず（大きなモデルは複数のデバイスに分割できます）、`nn.ReLU` のようにパラメータを1つも持たないモジュールもあるからです。
#
# よく使われる `next(model.parameters()).device` という書き方は、最初のパラメータのデバイスを返します。モデル全体をまとめて移動したのであれば、これで問題ありません。確実に調べるには、すべてのパラメータとバッファのデバイスを集めます。

# %%
def devices(module):
    return {t.device for t in [*module.parameters(), *module.buffers()]}


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
print(next(model.parameters()).device, sorted(map(str, devices(model))))
assert next(model.parameters()).device.type == device.type
assert not hasattr(model, "device")
assert next(nn.ReLU().parameters(), None) is None  # 調べる対象がない

model[2].to("meta")  # ここでは meta を2つ目のデバイスの代わりに使う
print(sorted(map(str, devices(model))))
assert len(devices(model)) == 2

# %% [markdown]
# ## デバイス不一致エラーの読み方
#
# モデルと入力が別々のデバイスにあると、両方を使う演算が `RuntimeError` で失敗します。対処法はいつも同じで、モデルとすべての入力を、使うつもりの1つのデバイスにそろえます（`model.to(device)` と `x = x.to(device)`）。`Tensor.to` は新しいテンソルを返し、`x` 自体は元の場所に残るので、代入の形で書きます。
#
# ただし、メッセージで名前が挙がったテンソルを移動すればよいとは限りません。PyTorch 2.8 以降では、GPU 上の線形層に CPU の入力を渡すと、CUDA 側のデバイス検査が次のエラーを出します（PyTorch のソースからの引用です）。
#
# ```
# Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)
# ```
#
# 「すべてのテンソルが同じデバイス上にあるはずだが、`mat1` は CPU 上にあり、ほかのテンソル（cuda:0 上）とデバイスが異なる」という意味です。
#
# - 2次元の入力に対して `nn.Linear` は `addmm(bias, input, weight.T)` を実行するので、`mat1` は入力そのものです。メッセージ末尾の `wrapper_CUDA_addmm` は、不一致を検出した `addmm` の CUDA 用ラッパーです。
# - この検査は、各引数を最初の引数（バイアス）と比べます。そのため、**モデル**を CPU に残したまま GPU 上の入力を渡した場合も、名前が挙がるのはやはり `mat1` で、今度は `mat1 is on cuda:0, different from other tensors on cpu` と表示されます。これに従って `mat1` を移動すると、入力を CPU に戻すことになります。本来 GPU に移すべきなのは、CPU に残ったモデルのほうです。
#
# PyTorch 2.8 より前は、同じ検査のメッセージが `but found at least two devices, cuda:0 and cpu!`（`cuda:0` と `cpu` という、少なくとも2つのデバイスが見つかった）となっていて、引数の名前はメッセージの最後に示されていました。`+` や `*` などの要素ごとの演算では、PyTorch 内部の TensorIterator という仕組みが検査を行うので、今もこの古い文言のメッセージが出て、引数の名前は含まれません。
#
# 実際のコードでデバイスの不一致が起きる原因として多いのは、`forward` メソッドや損失関数の中でデバイスを指定せずに作ったテンソルです。その例と対処法は、別のページ「[デバイス不一致のエラーを読み解く](07-device-errors.ipynb#expected-all-tensors-to-be-on-the-same-device)」で紹介しています。

# %% [markdown]
# 「すべてのテンソルを同じデバイスに置く」という原則には、要素ごとの演算に限った例外が1つあります。`torch.tensor(2.0)` のような0次元の CPU テンソルは、CUDA テンソルとの `+` や `*` などの演算で、Python の数値と同じように使えます。それ以外の演算ではこの組み合わせは許されず、`a` と `b` が GPU 上にあっても、`torch.addmm(torch.tensor(1.0), a, b)` はデバイスの検査で失敗します。これらの結果は、GPU がある場合に次のセルで検証します。

# %% tags=["claim-O3", "gpu-only"]
model = nn.Linear(4, 2).to(device)
x = torch.randn(8, 4)  # CPU 上に作成

if torch.cuda.is_available():
    named = "but got mat1" if TORCH >= (2, 8) else "found at least two devices"
    with expect_error(RuntimeError, named):
        model(x)  # 入力を CPU に残した場合
    with expect_error(RuntimeError, named):
        nn.Linear(4, 2)(x.to(device))  # モデルを CPU に残した場合
    with expect_error(RuntimeError, "found at least two devices"):
        x.to(device) + x  # 要素ごとの演算：TensorIterator が検査する
    x = x.to(device)  # 対処法：戻り値を受け取る
    y = model(x)
    print(f"{y.device=}")
    assert y.device == model.weight.device
    two = torch.tensor(2.0)  # 0次元の CPU テンソル
    assert (y * two).device == y.device  # 要素ごとの演算なら使える
    with expect_error(RuntimeError, "Expected all tensors to be on the same"):
        torch.addmm(two, x.T, x)  # 要素ごとの演算ではないので許されない
else:
    print(f"{torch.cuda.is_available()=}")
    assert model(x).device.type == "cpu"

# %% [markdown]
# GPU がなければ CUDA のメッセージは見られませんが、`meta` デバイスにも独自のデバイス検査があり、`Tensor on device … is not on the expected device …!` という文言のエラーを出します。`meta` を使えば、モデルと入力のどちらを CPU に残しても線形層が失敗すること、そして要素ごとの演算なら0次元の CPU テンソルを使えることを、どのマシンでも確かめられます。

# %% tags=["claim-F7"]
meta_model = nn.Linear(4, 2).to("meta")
with expect_error(RuntimeError, "is not on the expected device"):
    meta_model(torch.randn(8, 4))  # 入力を CPU に残した場合
cpu_model = nn.Linear(4, 2)  # モデルを CPU に残した場合
with expect_error(RuntimeError, "is not on the expected device"):
    cpu_model(torch.randn(8, 4, device="meta"))

y = meta_model(torch.randn(8, 4, device="meta"))  # どちらも meta 上
scaled = y * torch.tensor(2.0)  # 要素ごとの演算：0次元の CPU テンソルは使える
print(f"{y.device=}, {scaled.device=}")
assert scaled.device.type == "meta"

# %% [markdown]
# ## オプティマイザは移動の後に作る
#
# オプティマイザは、モデルの `Parameter` オブジェクトへの参照に加えて、最初の `step()` で作るパラメータごとの**状態**を保持しています（Adam なら `exp_avg` と `exp_avg_sq` という2つの移動平均）。
#
# CPU → CUDA の移動では `Parameter` オブジェクトが変わらないので、移動前に作ったオプティマイザも正しいパラメータを参照しています。ただし、それで足りるのはオプティマイザにまだ状態がない間だけです。状態はモジュールの一部ではないので、`model.to()` を呼んでも元のデバイスに残ります。
#
# 状態を移すには、`optimizer.load_state_dict(optimizer.state_dict())` を呼んで読み込み直します。これで、状態が各パラメータと同じデバイスに置かれます。次のセルでは、状態が元のデバイスに残ることと、読み込み直すと移ることを、GPU がある場合に検証します。

# %% tags=["claim-F4", "gpu-only"]
model = nn.Linear(4, 2)  # CPU 上
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()  # Adam の状態が CPU 上に作られる

model.to(device)
params = optimizer.param_groups[0]["params"]
assert params[0] is model.weight  # 同じ Parameter のまま

if torch.cuda.is_available():
    state = optimizer.state[model.weight]
    print(model.weight.device, state["exp_avg"].device)
    assert model.weight.device.type == "cuda"
    assert state["exp_avg"].device.type == "cpu"  # 元のデバイスに残る
    optimizer.load_state_dict(optimizer.state_dict())
    state = optimizer.state[model.weight]
    print(state["exp_avg"].device, state["exp_avg_sq"].device)
    assert state["exp_avg"].device.type == "cuda"
    assert state["exp_avg_sq"].device.type == "cuda"
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ### オプティマイザのチェックポイントを読み込む
#
# 学習を再開するときも順番は同じです。モデルを移動し、そのパラメータからオプティマイザを作り、最後に `optimizer.load_state_dict(checkpoint["optimizer"])` を呼びます。`load_state_dict` は、読み込んだ状態テンソルを次のように扱います。ここでの `step` は状態テンソルの1つで、`step()` メソッドとは別物です。
#
# - `step` 以外の状態テンソル：対応するパラメータと同じデバイスへ移します。パラメータが浮動小数点型なら、dtype もパラメータに合わせます。そのため、`float32` の状態を `bfloat16` のモデルに読み込むと、状態も `bfloat16` になり、精度が落ちます。
# - `step`：`load_state_dict` に渡したときのデバイスと dtype のまま残ります。ただし、チェックポイントを保存したオプティマイザが `fused` か `capturable` だった場合は、`step` も `float32` としてパラメータのデバイスへ移ります。
#
# `fused` や `capturable` かどうかの判定に使われるのは、新しく作ったオプティマイザの設定ではなく、チェックポイントに保存された設定です。`load_state_dict` が、各パラメータグループの設定を保存時の値に置き換えるからです。
#
# Adam と AdamW は、`step` が CPU 上にあることを前提に、`step()` を呼ぶたびに各パラメータの `step` の値を `.item()` で読み出します。`step` が GPU 上にあると、読むたびに CPU が GPU を待つことになります（[pytorch#128208](https://github.com/pytorch/pytorch/issues/128208)）。`map_location="cuda"` で読み込むと、この `step` まで GPU に載ってしまいます。そのため、オプティマイザのチェックポイントは `torch.load(path, map_location="cpu")` で読み込み、残りの移動は `load_state_dict` に任せます。
#
# 順番を逆にして、読み込んでから移動すると、状態は読み込んだ時点のパラメータに合わせて変換されます。そのあとの `model.to()` は状態を動かさないので、元のデバイスに残ったままです。GPU に移した場合は、最初の `step()` で CUDA 上のパラメータと CPU 上の状態が混在してしまいます。
#
# なお、上では `bfloat16` で状態の精度が落ちる例を見ましたが、混合精度の学習で重みの `float32` のコピー（マスター重み）を別に持つ理由はそれではありません。重みに比べてずっと小さい更新を16ビットの重みに足すと、丸めで消えてしまうからです（「[メモリに収まるか](08-will-it-fit.ipynb)」を参照）。PyTorch 標準の AMP（`autocast` と `GradScaler`）は、パラメータ自体を `float32` で持つので、このようなコピーは作りません。
#
# 次のセルでは、以下の4点を検証します。GPU がなくても違いが出るように、モデルを `device` へ移すときは `float64` にも変換します。
#
# - 移動、作成、読み込みの順で再開したときの、状態のデバイスと dtype
# - `bfloat16` のモデルに読み込んだときの精度の低下
# - `fused` のオプティマイザで保存したチェックポイントを、`fused` でないオプティマイザに読み込んだときの `step` のデバイスと dtype（違いが見えるよう、保存した `step` はあえて `float64` にしておきます）
# - 読み込んでから移動したときの、状態のデバイスと dtype

# %% tags=["claim-F4"]
source = nn.Linear(4, 2)
source_optimizer = torch.optim.Adam(source.parameters())
source(torch.randn(8, 4)).sum().backward()
source_optimizer.step()
# torch.load(path, map_location="cpu") が返すものと同じ：すべて CPU 上の float32
checkpoint = {"model": source.state_dict(),
              "optimizer": source_optimizer.state_dict()}

# 移動、作成、読み込みの順
resumed = nn.Linear(4, 2).to(device, torch.float64)
resumed.load_state_dict(checkpoint["model"])
resumed_optimizer = torch.optim.Adam(resumed.parameters())
resumed_optimizer.load_state_dict(checkpoint["optimizer"])
state = resumed_optimizer.state[resumed.weight]
print(f"{state['exp_avg'].dtype=}, {state['exp_avg'].device=}")
print(f"{state['step'].device=}, {state['step'].dtype=}")
assert state["exp_avg"].dtype == torch.float64
assert state["exp_avg"].device == resumed.weight.device
assert state["step"].device.type == "cpu"
assert state["step"].dtype == torch.float32  # step は float32 のまま

# bfloat16 では表せない float32 の値を、bfloat16 のモデルに読み込む
checkpoint["optimizer"]["state"][0]["exp_avg"].fill_(1 + 2**-10)
low = nn.Linear(4, 2).to(device, torch.bfloat16)
low_optimizer = torch.optim.Adam(low.parameters())
low_optimizer.load_state_dict(checkpoint["optimizer"])
low_state = low_optimizer.state[low.weight]
print(f"{low_state['exp_avg'].dtype=}, {low_state['exp_avg'][0, 0].item()=}")
assert low_state["exp_avg"].dtype == torch.bfloat16
assert low_state["exp_avg"][0, 0].item() == 1.0  # 2**-10 の分が失われる

# fused のオプティマイザが保存したチェックポイント：step はパラメータ側へ
fused_optimizer = torch.optim.Adam(source.parameters(), fused=True)
source(torch.randn(8, 4)).sum().backward()
fused_optimizer.step()
saved = fused_optimizer.state_dict()
saved["state"][0] = {**saved["state"][0],
                     "step": saved["state"][0]["step"].double()}
quick = nn.Linear(4, 2).to(device)
quick_optimizer = torch.optim.Adam(quick.parameters())  # 自身は fused ではない
quick_optimizer.load_state_dict(saved)
quick_step = quick_optimizer.state[quick.weight]["step"]
print(f"{quick_step.device=}, {quick_step.dtype=}")
assert quick_optimizer.param_groups[0]["fused"]  # チェックポイントの設定
assert quick_step.device == quick.weight.device
assert quick_step.dtype == torch.float32

# 読み込んでから移動：状態は読み込んだときのまま
late = nn.Linear(4, 2)
late_optimizer = torch.optim.Adam(late.parameters())
late_optimizer.load_state_dict(checkpoint["optimizer"])
late.to(device, torch.float64)
late_state = late_optimizer.state[late.weight]
print(f"{late.weight.dtype=}, {late_state['exp_avg'].dtype=}")
print(f"{late_state['exp_avg'].device=}")
assert late_optimizer.param_groups[0]["params"][0] is late.weight
assert late_state["exp_avg"].dtype == torch.float32
assert late_state["exp_avg"].device.type == "cpu"

# %% [markdown]
# 移動前に作ったオプティマイザの状態が取り残される問題は、dtype の変換でも起きます。こちらは GPU がなくても確かめられます。状態は元の dtype のままなので、次の `step()` では、float64 の新しい勾配と float32 のままの状態を組み合わせて計算しようとして失敗します。`state_dict` を読み込み直すと、状態の dtype（とデバイス）が各パラメータに合わせて変わり、`step()` は再び動くようになります。

# %% tags=["claim-F4"]
model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()  # Adam の状態は float32 で作られる

model.double()
state = optimizer.state[model.weight]
print(f"{model.weight.dtype=}, {state['exp_avg'].dtype=}")
assert optimizer.param_groups[0]["params"][0] is model.weight
assert state["exp_avg"].dtype == torch.float32  # 変換されない

optimizer.zero_grad()
model(torch.randn(8, 4, dtype=torch.float64)).sum().backward()
with expect_error(RuntimeError, "expected dtype"):
    optimizer.step()  # float64 の勾配と float32 の状態が混在する

# 状態を各パラメータの dtype に変換する
optimizer.load_state_dict(optimizer.state_dict())
optimizer.step()
state = optimizer.state[model.weight]
print(f"{state['exp_avg'].dtype=}")
assert state["exp_avg"].dtype == torch.float64

# %% [markdown]
# このエラーは Adam の更新処理の中で起きています。`expected dtype float … but got dtype double` は「float32 を期待したところに float64 が来た」というエラーで、float32 の状態と float64 の勾配が混在したことを示しています。
#
# こうした問題は、「先にモデルを移動し、それからオプティマイザを作る」という簡単なルールですべて避けられます。この順番なら、状態は最初からパラメータと同じデバイス上に作られます。

# %% tags=["claim-F4"]
model = nn.Linear(4, 2).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4, device=device)).sum().backward()
optimizer.step()

state = optimizer.state[model.weight]
print(state["exp_avg"].device)
assert state["exp_avg"].device == model.weight.device

# %% [markdown]
# ## GPU のチェックポイントを CPU に読み込む
#
# `torch.save` は各テンソルのデバイスを記録し、`torch.load` は特に指定しなければ各テンソルをそのデバイスに戻します。GPU で保存したチェックポイントを GPU のないマシンで読み込むには、`map_location` を指定します。
#
# - 文字列または `torch.device`：すべてのテンソルをそのデバイスに置きます。
# - 辞書：保存時の場所を新しい場所に対応づけます（例：`{"cuda:0": "cpu"}`）。
# - 呼び出し可能オブジェクト `(storage, location) -> storage`：テンソルのストレージごとに置き場所を決めます。`lambda storage, location: storage` なら、すべて CPU 上に置かれます。
#
# このページのコードでは、`weights_only=True` も指定しています。これは pickle から復元するものをテンソルと基本的なコンテナ（辞書やリストなど）に限るオプションで、`state_dict` を安全に読み込むために使います。詳しくはあとで説明します。
#
# GPU で保存したチェックポイントを、`map_location` を指定せずに GPU のないマシンで読み込むと、`Attempting to deserialize object on a CUDA device`（CUDA デバイス上にオブジェクトを復元しようとした）というエラーで失敗します。このエラーを実際に起こす例は「[読み込み・環境・メモリのエラーを読み解く](09-setup-and-memory-errors.ipynb#attempting-to-deserialize-object-on-a-cuda-device)」にあります。GPU のないマシンでは、次のセルで保存するチェックポイントは CPU 上のモデルのものになります。

# %%
tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "checkpoint.pt")

model = nn.Linear(4, 2).to(device)
torch.save(model.state_dict(), path)
print(f"{model.weight.device=}")

# %% tags=["claim-F8", "gpu-only"]
if torch.cuda.is_available():
    as_saved = torch.load(path, weights_only=True)
    on_cpu = torch.load(path, map_location="cpu", weights_only=True)
    print(as_saved["weight"].device, on_cpu["weight"].device)
    assert as_saved["weight"].device.type == "cuda"  # 保存したデバイスに戻る
    assert on_cpu["weight"].device.type == "cpu"
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# チェックポイントを GPU で保存したか CPU で保存したかにかかわらず、上で挙げた `map_location` の指定方法（文字列、`torch.device`、辞書、呼び出し可能オブジェクト）のどれを使っても、ここでは CPU 上のテンソルが得られます。

# %% tags=["claim-F8"]
forms = {
    "str": "cpu",
    "torch.device": torch.device("cpu"),
    "dict": {"cuda:0": "cpu"},
    "callable": lambda storage, location: storage,
}
for name, form in forms.items():
    state = torch.load(path, map_location=form, weights_only=True)
    print(name, state["weight"].device)
    assert all(t.device.type == "cpu" for t in state.values())

cpu_model = nn.Linear(4, 2)
cpu_model.load_state_dict(state)
print(cpu_model.weight.device)

# %% [markdown]
# 整数は `map_location` として使えません。`torch.load` は整数を呼び出し可能オブジェクトとして扱い、`'int' object is not callable`（`int` オブジェクトは呼び出せない）という `TypeError` で失敗します。代わりに `"cuda:0"` や `torch.device("cuda", 0)` と書きます。

# %%
with expect_error(TypeError, "not callable"):
    torch.load(path, map_location=0, weights_only=True)

# %% [markdown]
# PyTorch 2.6 で `torch.load` のデフォルトが `weights_only=True` に変わり、任意のクラスは pickle から復元されなくなりました。このバージョンへの更新後に、`torch.save(model, path)` で pickle として保存したモデル全体を読み込めなくなった人が多かったのは、この変更のためです。このページのセルでは、デフォルトと同じ値でもあえて書いて、どちらを選んでいるかがコードから読み取れるようにしています。
#
# 次のセルは、長いメッセージの最初の文 `Weights only load failed`（weights_only での読み込みに失敗した）だけを表示します。対処法は、`state_dict()` を保存して読み込むか、信頼できるファイルに限って `weights_only=False` を渡すことです。

# %%
whole = os.path.join(tmp.name, "whole-model.pt")
torch.save(nn.Linear(4, 2), whole)  # モジュール全体を pickle で保存
try:
    torch.load(whole, map_location="cpu")
except pickle.UnpicklingError as err:
    first = str(err).split(".")[0]  # メッセージが長いので最初の文だけ
    print(f"{type(err).__name__}: {first}", file=sys.stderr)
else:
    raise AssertionError("expected an UnpicklingError")

# 信頼できるファイルに限る
loaded = torch.load(whole, map_location="cpu", weights_only=False)
print(f"{type(loaded).__name__=}")
assert isinstance(loaded, nn.Linear)
tmp.cleanup()

# %% [markdown]
# ## まとめ
#
# - `model.to(device)` はモデル自体を書き換えて（コピーを作らずに）移動し、モデル自身を返します。再代入は不要です。
# - CPU と CUDA の間の移動や dtype の変換では `Parameter` オブジェクトは同じままですが、`meta` への移動では新しいオブジェクトに置き換わります。変換されたバッファは常に新しいテンソルです。`meta` から戻すには `to_empty()` を使い、そのあと初期化します。
# - `Module.to` が移動するのはパラメータ、バッファ、サブモジュールだけです。一緒に移動させたいテンソルは `register_buffer` で登録します。
# - パラメータを個別に変換して代入し直してはいけません。代わりにモジュール全体を移動します。
# - モジュールには `.device` 属性がなく、「モデルのデバイス」という決まった値もありません。`next(model.parameters()).device` は慣例的な書き方にすぎません。
# - デバイス不一致エラーが出たら、モデルとすべての入力を1つのデバイスに置きます（`model.to(device)`、`x = x.to(device)`）。メッセージに名前が出た引数を移動すればよいとは限りません。
# - 先にモデルを移動し、それからオプティマイザを作ります。すでに状態を持っているオプティマイザは、モデルを移動しても状態が元のデバイスと dtype のまま残るからです。
# - GPU のチェックポイントは `torch.load(path, map_location="cpu", weights_only=True)` で CPU に読み込みます。PyTorch 2.6 以降、`weights_only=True` はデフォルトです。
# - 学習を再開するときは、モデルを移動してオプティマイザを作ったあと、オプティマイザのチェックポイントも `map_location="cpu"` で読み込みます。Adam は学習の1ステップごとに状態の `step` を `.item()` で読むため、`step` は CPU に置いておきます。
# - `load_state_dict` は状態を各パラメータのデバイスと dtype に合わせますが、`step` は読み込んだときのまま（`map_location="cpu"` で読み込めば CPU 上）にします。ただし、チェックポイントを保存したオプティマイザが `fused` か `capturable` なら、`step` も `float32` としてパラメータのデバイスに移ります。
