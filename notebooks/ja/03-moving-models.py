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
# テンソルにもモデルにも `.to()` メソッドがありますが、両者の振る舞いは異なります。このページでは、
# `Module.to` がモデルとそのパラメータ・バッファに何をするのか、何を置き去りにするのかを確認し、
# モデルがどのデバイスにあるかの調べ方、デバイス不一致エラーの読み方、オプティマイザへの影響、
# GPU で保存したチェックポイントを CPU で読み込む方法を扱います。
#
# 本文の記述はすべて、直後のコードセルの `assert` で検証しています。GPU が必要なセルは最初に GPU の
# 有無を確認し、CPU のみの環境では何をスキップしたかを表示します。

# %%
import os
import tempfile

import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## インプレースで同じオブジェクトを返す
#
# `Tensor.to` は元のテンソルを変更しません。変換後のテンソル(変換が不要ならそのテンソル自身)を返す
# ので、戻り値を受け取る必要があります。
#
# 一方 `Module.to` は、モジュールのパラメータとバッファを**インプレース**で変換し、モジュール自身を
# 返します。`.cpu()`、`.double()`、そして GPU 環境での `.cuda()` も同じです。
# `model = model.to(device)` と書いても害はありませんが、`model.to(device)` だけで十分です。
#
# `meta` デバイスは形状と dtype だけを持ち、データを持ちません。どの環境にも存在するので、GPU がなくても
# 移動の様子を確かめられます。

# %% tags=["claim-M1"]
model = nn.Linear(3, 2)

assert model.to(device) is model
assert model.cpu() is model
assert model.double() is model  # dtype の変換も同様
if torch.cuda.is_available():
    assert model.cuda() is model
else:
    print("No GPU: skipped model.cuda().")

model.to("meta")  # 戻り値は代入しない
print(model.weight.device, model.weight.dtype)
assert model.weight.device.type == "meta"
assert model.weight.dtype == torch.float64

t = torch.ones(3)
t_meta = t.to("meta")
print(t.device, t_meta.device)
assert t_meta is not t
assert t.device.type == "cpu"  # 元のテンソルは移動していない
assert t.to(t.device) is t  # 変換不要なら同じテンソルが返る


# %% [markdown]
# ## パラメータとバッファ
#
# `.to()` の後もモジュールは同じオブジェクトですが、中のテンソルはどうでしょうか。これは移動の種類に
# よって変わります。
#
# - **CPU ↔ CUDA の移動や dtype の変換:** 各 `Parameter` は同じ Python オブジェクトのままです。
#   PyTorch は中身のテンソル(`param.data`)だけを差し替えるので、パラメータへの参照を持っている側からも
#   正しいオブジェクトが見えます。
# - **`meta` への移動、`meta` からの移動:** パラメータは新しい `Parameter` オブジェクトに置き換わります。
# - **バッファ**(`register_buffer` で登録したテンソル)は普通のテンソルです。変換されたバッファは
#   新しいテンソルオブジェクトに置き換わります。
#
# そのため、同一性のチェック(`is`)の結果はデバイスによって変わります。以下の小さなモジュールは、
# パラメータ・バッファ・通常のテンソル属性を 1 つずつ持っています(最後のものは次の節で扱います)。

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
# `meta` への移動はどの環境でも実行でき、パラメータもバッファも置き換わります。

# %% tags=["claim-F3"]
model = Scaled()
weight, offset = model.weight, model.offset

model.to("meta")
print(model.weight is weight, model.offset is offset)
assert isinstance(model.weight, nn.Parameter)
assert model.weight is not weight  # 新しい Parameter オブジェクト
assert model.offset is not offset  # 新しいバッファのテンソル

# %% [markdown]
# dtype の変換(どの環境でも可)と GPU への移動では `Parameter` オブジェクトはそのままですが、
# バッファはやはり置き換わります。

# %% tags=["claim-F3"]
model = Scaled()
weight, offset = model.weight, model.offset

model.double()
print("double:", model.weight is weight, model.offset is offset)
assert model.weight.dtype == torch.float64
assert model.weight is weight  # 同じ Parameter オブジェクト
assert model.offset is not offset  # バッファは新しいテンソル

if torch.cuda.is_available():
    offset = model.offset
    model.to(device)
    print("cuda:", model.weight is weight, model.offset is offset)
    assert model.weight.device.type == "cuda"
    assert model.weight is weight  # 同じ Parameter オブジェクトが GPU 上に
    assert model.offset is not offset
else:
    print("No GPU: skipped the CPU -> CUDA identity check.")

# %% [markdown]
# ## 通常のテンソル属性
#
# `Module.to` が変換するのは、モジュールが把握しているもの(パラメータ、バッファ、サブモジュール)
# だけです。通常の属性として持たせたテンソル(`self.mask = torch.ones(3)`)は元の場所に残り、
# forward の中でデバイスが混在することになります。`state_dict` にも含まれません。
#
# 以下では、GPU があれば GPU を、なければ `meta` を移動先にしています。

# %% tags=["claim-F5"]
target = torch.device("cuda") if torch.cuda.is_available() else torch.device("meta")
model = Scaled().to(target)

for name in ["weight", "offset", "mask"]:
    print(name, getattr(model, name).device)
assert model.weight.device.type == target.type
assert model.offset.device.type == target.type
assert model.mask.device.type == "cpu"  # 置き去りになる
assert "mask" not in model.state_dict()


# %% [markdown]
# 対処法は、そのテンソルをバッファとして登録することです。モデルと一緒に移動させたいが `state_dict`
# には含めたくない場合は、`persistent=False` を指定します。

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
# `model.weight = model.weight.to(d)` のようにパラメータを 1 つだけ手で移動させることはできません。
# 実際に変換が起きると戻り値は `Parameter` ではなく普通の `Tensor` になり、モジュールはパラメータの
# 名前に普通のテンソルを代入することを拒否して `TypeError` を送出します。
#
# 落とし穴は、変換が不要な場合(たとえば `d` も重みも CPU のとき)です。このとき `.to()` はパラメータ
# 自身を返すので代入は成功し、同じ行が GPU で初めて実行されたときに失敗します。モジュール全体を
# `model.to(d)` で移動させましょう。

# %% tags=["claim-F5"]
model = nn.Linear(3, 2)
assert model.weight.to(model.weight.device) is model.weight  # 変換不要: Parameter 自身が返る

moved = model.weight.to("meta")  # 実際に変換が起きる
print(type(moved))
assert type(moved) is torch.Tensor

try:
    model.weight = moved
except TypeError as err:
    print(err)
    assert "cannot assign" in str(err)
else:
    raise AssertionError("expected a TypeError")


# %% [markdown]
# ## モデルはどのデバイスにあるか
#
# モジュールには `.device` 属性がありません。モジュール内のテンソルが 1 つのデバイスにそろっている
# 保証はないからです。大きなモデルは複数のデバイスに分割できますし、`nn.ReLU` のようにパラメータを
# 1 つも持たないモジュールもあります。
#
# よく使われる `next(model.parameters()).device` は、最初のパラメータのデバイスを返します。モデル全体を
# まとめて移動させたのであればこれで十分です。確実に知りたい場合は、すべてのパラメータとバッファの
# デバイスを集めます。

# %%
def devices(module):
    return {t.device for t in [*module.parameters(), *module.buffers()]}


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
print(next(model.parameters()).device, sorted(map(str, devices(model))))
assert next(model.parameters()).device.type == device.type
assert not hasattr(model, "device")
assert next(nn.ReLU().parameters(), None) is None  # 調べる対象がない

model[2].to("meta")  # ここでは meta を 2 つ目のデバイスの代わりに使う
print(sorted(map(str, devices(model))))
assert len(devices(model)) == 2

# %% [markdown]
# ## デバイス不一致エラーの読み方
#
# モデルと入力が別々のデバイスにあると、両者を混ぜる最初の演算が `RuntimeError` で失敗します。
# torch 2.8 以降、メッセージは
# `Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)`
# のようになります。
#
# - `mat1` は、デバイスが合っていない引数です。2 次元の入力に対して `nn.Linear` は
#   `addmm(bias, input, weight.T)` を実行するので、`mat1` は入力そのものです。
# - `cpu` はその引数があるデバイス、`cuda:0` はほかのテンソル(重みとバイアス)があるデバイスです。
# - `wrapper_CUDA_addmm` は不一致を検出した演算です。
#
# それより前のリリースでは、書き出しは同じでも続きが `but found at least two devices, cuda:0 and cpu!`
# でした。対処法は入力を移動させること、つまり `x.to(device)` です。

# %% tags=["claim-O3"]
model = nn.Linear(4, 2).to(device)
x = torch.randn(8, 4)  # CPU 上に作成

if torch.cuda.is_available():
    try:
        model(x)
    except RuntimeError as err:
        message = str(err)
    else:
        raise AssertionError("expected a device-mismatch error")
    print(message)
    assert "Expected all tensors to be on the same device" in message
    if torch.__version__ >= "2.8":
        assert "but got" in message
    else:
        assert "found at least two devices" in message
    y = model(x.to(device))  # 対処法
    print(y.device)
    assert y.device == model.weight.device
else:
    print("No GPU: skipped the device-mismatch error; a CPU model accepts a CPU input.")
    assert model(x).device.type == "cpu"

# %% [markdown]
# GPU がなければこのエラーは確認できず、`meta` もその代わりにはなりません。`meta` のカーネルは CUDA の
# カーネルが行うデバイスチェックを行わないため、`meta` のモデルに CPU の入力を渡すと、別のメッセージで
# 失敗するか、そもそも失敗しません。

# %% tags=["claim-F7"]
meta_model = nn.Linear(4, 2).to("meta")
try:
    meta_model(torch.randn(8, 4))
    message = "no error"
except RuntimeError as err:
    message = str(err)
print(message)
assert "Expected all tensors to be on the same device" not in message

# %% [markdown]
# ## オプティマイザは移動の後に作る
#
# オプティマイザはモデルの `Parameter` オブジェクトへの参照に加えて、最初の `step()` で作られる
# パラメータごとの**状態**を持っています(Adam なら `exp_avg` と `exp_avg_sq` の 2 つの移動平均)。
#
# CPU → CUDA の移動では `Parameter` オブジェクトが変わらないので、移動前に作ったオプティマイザも
# 正しいパラメータを更新します。しかし既存の状態はモジュールの一部ではないため、`model.to()` では
# 移動せず、元のデバイスに残ります。`optimizer.load_state_dict(optimizer.state_dict())` を呼ぶと、
# 状態が各パラメータのデバイスに変換されます。

# %% tags=["claim-F4"]
model = nn.Linear(4, 2)  # CPU 上
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()  # Adam の状態が CPU 上に作られる

model.to(device)
assert optimizer.param_groups[0]["params"][0] is model.weight  # 同じ Parameter のまま

if torch.cuda.is_available():
    state = optimizer.state[model.weight]
    print(model.weight.device, state["exp_avg"].device)
    assert model.weight.device.type == "cuda"
    assert state["exp_avg"].device.type == "cpu"  # 置き去りになる
    optimizer.load_state_dict(optimizer.state_dict())
    state = optimizer.state[model.weight]
    print(state["exp_avg"].device, state["exp_avg_sq"].device)
    assert state["exp_avg"].device.type == "cuda"
    assert state["exp_avg_sq"].device.type == "cuda"
else:
    print("No GPU: skipped the check that Adam's state stays on the CPU after a move to CUDA.")

# %% [markdown]
# dtype の変換でも同じことが起き、こちらはどの環境でも確認できます。状態は読み込み直すまで元の dtype
# のままです。

# %% tags=["claim-F4"]
model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4)).sum().backward()
optimizer.step()

model.double()
state = optimizer.state[model.weight]
print(model.weight.dtype, state["exp_avg"].dtype)
assert optimizer.param_groups[0]["params"][0] is model.weight
assert state["exp_avg"].dtype == torch.float32  # 変換されていない

optimizer.load_state_dict(optimizer.state_dict())
print(optimizer.state[model.weight]["exp_avg"].dtype)
assert optimizer.state[model.weight]["exp_avg"].dtype == torch.float64

# %% [markdown]
# いちばん簡単なのは、先にモデルを移動させてからオプティマイザを作ることです。そうすれば状態は
# 最初からパラメータと同じデバイスに作られます。

# %% tags=["claim-F4"]
model = nn.Linear(4, 2).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(8, 4, device=device)).sum().backward()
optimizer.step()

state = optimizer.state[model.weight]
print(state["exp_avg"].device)
assert state["exp_avg"].device == model.weight.device

# %% [markdown]
# ## GPU のチェックポイントを CPU で読み込む
#
# `torch.save` は各テンソルのデバイスを記録し、`torch.load` は特に指定しなければ各テンソルをその
# デバイスに戻します。GPU で保存したチェックポイントを GPU のない環境で読み込むには、`map_location`
# を指定します。
#
# - 文字列または `torch.device`: すべてのテンソルをそのデバイスに置きます。
# - 辞書: 保存時の場所を新しい場所に対応づけます(例: `{"cuda:0": "cpu"}`)。
# - 呼び出し可能オブジェクト `(storage, location) -> storage`: ストレージごとに決めます。
#   `lambda storage, location: storage` ならすべて CPU に置かれます。
#
# あわせて `weights_only=True` も指定しています。テンソルと基本的なコンテナだけを unpickle する
# オプションで、`state_dict` を安全に読み込む方法です。

# %%
tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "checkpoint.pt")

model = nn.Linear(4, 2).to(device)
torch.save(model.state_dict(), path)
print("saved from", model.weight.device)

# %% tags=["claim-F8"]
if torch.cuda.is_available():
    as_saved = torch.load(path, weights_only=True)
    on_cpu = torch.load(path, map_location="cpu", weights_only=True)
    print(as_saved["weight"].device, on_cpu["weight"].device)
    assert as_saved["weight"].device.type == "cuda"  # 保存したデバイスに戻る
    assert on_cpu["weight"].device.type == "cpu"
else:
    print("No GPU: this checkpoint was saved from the CPU; a real GPU checkpoint needs a GPU to create.")

# %% [markdown]
# チェックポイントが GPU 由来でも CPU 由来でも、`map_location` の 4 つの形式はいずれも CPU 上のテンソル
# を返します。

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
# 整数は `map_location` として使えません。`torch.load` は整数を呼び出し可能オブジェクトとして扱おうと
# して `TypeError` になります。代わりに `"cuda:0"` や `torch.device("cuda", 0)` と書きます。

# %% tags=["claim-F8"]
try:
    torch.load(path, map_location=0, weights_only=True)
except TypeError as err:
    print(err)
else:
    raise AssertionError("expected a TypeError")
finally:
    tmp.cleanup()

# %% [markdown]
# ## まとめ
#
# - `model.to(device)` はモデルをインプレースで移動させて自身を返します。再代入は不要です。
# - CPU と CUDA の間では `Parameter` オブジェクトは同じまま、`meta` との間では置き換わります。
#   変換されたバッファは常に新しいテンソルです。
# - 移動するのはパラメータ、バッファ、サブモジュールだけです。それ以外のテンソルは `register_buffer`
#   で登録します。
# - 変換したテンソルをパラメータの名前に代入してはいけません。モジュール全体を移動させます。
# - モデルには単一のデバイスがありません。`next(model.parameters()).device` は慣習的な方法です。
# - デバイス不一致エラーでは `but got` の後に書かれた引数を探し、それを移動させます。
# - モデルを移動させてからオプティマイザを作ります。
# - GPU のチェックポイントは `torch.load(path, map_location="cpu", weights_only=True)` で CPU に
#   読み込めます。
