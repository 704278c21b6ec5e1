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
# テンソルにもモデルにも `.to()` メソッドがありますが、両者の振る舞いは異なります。このページでは、`Module.to` がモデルとそのパラメータ・バッファに何をするのか、何を置き去りにするのかを確認したうえで、モデルがどのデバイスにあるかの調べ方、デバイス不一致エラーの読み方、オプティマイザに何が起きるか、GPU で保存したチェックポイントを CPU に読み込む方法を説明します。
#
# 本文の記述はすべて、直後のコードセルの `assert` で検証しています。GPU が必要なセルは、まず GPU があるかを確認し、CPU だけのマシンでは何をスキップしたかを表示します。

# %%
import os
import tempfile

import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## インプレースで変換し、同じオブジェクトを返す
#
# `Tensor.to` はテンソルを変更しません。変換後のテンソル（変換が不要ならそのテンソル自身）を返すので、戻り値を受け取る必要があります。
#
# 一方、`Module.to` はモジュールそのものを**インプレースで**変更し（パラメータとバッファを変換します）、モジュール自身を返します。`.cpu()`、`.double()`、そして GPU がある場合の `.cuda()` も同じです。`model = model.to(device)` と書いても害はありませんが、`model.to(device)` だけで十分です。
#
# `meta` デバイスは形状と dtype を保持しますが、データは持ちません。どのマシンにも存在するので、GPU がなくても移動の様子を確かめられます。

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
# `.to()` の後もモジュールは同じオブジェクトですが、中のテンソルはどうでしょうか。これは移動の種類によって変わります。
#
# - **CPU ↔ CUDA の移動や dtype の変換:** 各 `Parameter` は同じ Python オブジェクトのままです。PyTorch はその中身のテンソル（`param.data`）を差し替えるので、パラメータへの参照を持っているコードからも、正しいパラメータが見え続けます。
# - **`meta` への移動:** パラメータは新しい `Parameter` オブジェクトに置き換わります。
# - **バッファ**（`register_buffer` で登録したテンソル）は普通のテンソルです。変換されたバッファは、新しいテンソルオブジェクトに置き換わります。
#
# そのため、同一性のチェック（`is`）の結果は移動先のデバイスによって変わります。以下の小さなモジュールは、パラメータ、バッファ、通常のテンソル属性を1つずつ持っています（通常のテンソル属性については次の節で説明します）。

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
# `meta` への移動はどのマシンでも実行でき、パラメータもバッファも置き換わります。

# %% tags=["claim-F3"]
model = Scaled()
weight, offset = model.weight, model.offset

model.to("meta")
print(model.weight is weight, model.offset is offset)
assert isinstance(model.weight, nn.Parameter)
assert model.weight is not weight  # 新しい Parameter オブジェクト
assert model.offset is not offset  # 新しいバッファのテンソル

# %% [markdown]
# `meta` から戻すときは事情が違います。コピーするデータがないので `.to("cpu")` はエラーになり、メッセージは `to_empty()` を使うよう促します。`to_empty(device=...)` は移動先のデバイスに未初期化のストレージを確保するだけなので、値は自分で設定します。組み込みのレイヤーなら `reset_parameters()` で初期化できます。

# %% tags=["claim-F7"]
try:
    model.to("cpu")
except NotImplementedError as err:
    print(str(err).splitlines()[0])
    assert "to_empty" in str(err)
else:
    raise AssertionError("a meta module has no data to copy")

layer = nn.Linear(3, 2, device="meta")
layer.to_empty(device="cpu")  # 領域を確保するだけで、値は未初期化
layer.reset_parameters()
print(layer.weight.device, layer.weight.is_meta)
assert layer.weight.device.type == "cpu"
assert torch.isfinite(layer.weight).all()

# %% [markdown]
# dtype の変換（どのマシンでも可）と GPU への移動では `Parameter` オブジェクトはそのまま残りますが、バッファはやはり置き換わります。

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
    assert model.weight is weight  # 同じ Parameter オブジェクトのまま、GPU 上にある
    assert model.offset is not offset
else:
    print("No GPU: skipped the CPU -> CUDA identity check.")

# %% [markdown]
# ## 通常のテンソル属性
#
# `Module.to` が変換するのは、モジュールが把握しているもの、つまりパラメータ、バッファ、サブモジュールだけです。通常の属性として持たせたテンソル（`self.mask = torch.ones(3)`）は元の場所に残り、forward の中でデバイスが混在することになります。また、このテンソルは `state_dict` にも含まれません。
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
# 対処法は、そのテンソルをバッファとして登録することです。モデルと一緒に移動させたいが `state_dict` には含めたくない場合は、`persistent=False` を指定します。

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
# `model.weight = model.weight.to(d)` のようにパラメータを1つだけ手作業で移動させることはできません。実際に変換が行われると、戻り値は `Parameter` ではなく普通の `Tensor` になります。モジュールはパラメータの名前に普通のテンソルを代入することを拒否し、`TypeError` を送出します。
#
# 落とし穴は、変換が不要な場合（たとえば `d` が CPU で、重みも CPU 上にある場合）です。このとき `.to()` はパラメータ自身を返すので、代入は成功します。ところが、同じ行が GPU で初めて実行されたときに失敗します。代わりに、モジュール全体を `model.to(d)` で移動させましょう。

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
# モジュールには `.device` 属性がありません。モジュール内のテンソルが1つのデバイスにそろっている保証はないからです。大きなモデルは複数のデバイスに分割できますし、`nn.ReLU` のようにパラメータを1つも持たないモジュールもあります。
#
# よく使われるイディオムの `next(model.parameters()).device` は、最初のパラメータのデバイスを返します。モデル全体をまとめて移動させたのであれば、これで問題ありません。確実に知りたい場合は、すべてのパラメータとバッファのデバイスを集めます。

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
# モデルと入力が別々のデバイスにあると、両者を混ぜる最初の演算が `RuntimeError` で失敗します。torch 2.8 以降、メッセージは `Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)` のようになります。
#
# - `mat1` は、デバイスが合っていない引数です。2次元の入力に対して `nn.Linear` は `addmm(bias, input, weight.T)` を実行するので、`mat1` は入力そのものです。
# - `cpu` はその引数があるデバイス、`cuda:0` はほかのテンソル（重みとバイアス）があるデバイスです。
# - `wrapper_CUDA_addmm` は不一致を検出した演算です。
#
# それより前のリリースでは、書き出しは同じでも、その後が `but found at least two devices, cuda:0 and cpu!` と続いていました。対処法は入力を移動させること、つまり `x.to(device)` です。

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
# GPU がなければこのエラーは確認できず、`meta` もその忠実な代役にはなりません。`meta` のカーネルは CUDA のカーネルが行うデバイスチェックを行わないので、`meta` 上のモデルに CPU の入力を渡すと、別のメッセージで失敗するか、そもそも失敗しません。

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
# オプティマイザは、モデルの `Parameter` オブジェクトへの参照に加えて、最初の `step()` で作成するパラメータごとの**状態**を保持しています（Adam なら `exp_avg` と `exp_avg_sq` という2つの移動平均）。
#
# CPU → CUDA の移動では `Parameter` オブジェクトが変わらないので、移動前に作ったオプティマイザでも正しいパラメータを更新します。しかし、既存の状態はモジュールの一部ではないので、`model.to()` を呼んでも元のデバイスに残ります。`optimizer.load_state_dict(optimizer.state_dict())` を呼ぶと、状態が各パラメータのデバイスに変換されます。

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
# dtype の変換でも同じことが起き、こちらはどのマシンでも確認できます。状態は読み込み直すまで元の dtype のままです。

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
# いちばん簡単なルールを守れば、こうした問題はすべて避けられます。先にモデルを移動させ、それからオプティマイザを作ることです。そうすれば、状態はパラメータと同じデバイス上に作られます。

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
# - 文字列または `torch.device`: すべてのテンソルをそのデバイスに置きます。
# - 辞書: 保存時の場所を新しい場所に対応づけます（例: `{"cuda:0": "cpu"}`）。
# - 呼び出し可能オブジェクト `(storage, location) -> storage`: テンソルのストレージごとに置き場所を決めます。`lambda storage, location: storage` なら、すべて CPU 上に置かれます。
#
# ここでは `weights_only=True` も指定しています。テンソルと基本的なコンテナだけを unpickle するオプションで、`state_dict` を安全に読み込む方法です。

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
# チェックポイントを GPU で保存したか CPU で保存したかにかかわらず、ここでは `map_location` の4つの形式のどれでも CPU 上のテンソルが得られます。

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
# 整数は `map_location` として使えません。`torch.load` は整数を呼び出し可能オブジェクトとして扱い、`TypeError` で失敗します。代わりに `"cuda:0"` や `torch.device("cuda", 0)` と書きます。

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
# - `model.to(device)` はモデルをインプレースで移動させ、モデル自身を返します。再代入は不要です。
# - CPU と CUDA の間の移動では `Parameter` オブジェクトは同じまま、`meta` への移動では置き換わります。変換されたバッファは常に新しいテンソルです。`meta` から戻すには `to_empty()` を使い、そのあと初期化します。
# - 移動するのはパラメータ、バッファ、サブモジュールだけです。それ以外のテンソルは `register_buffer` で登録します。
# - 変換したテンソルをパラメータの名前に代入してはいけません。モジュール全体を移動させます。
# - モデルには単一のデバイスというものがありません。`next(model.parameters()).device` は慣例的な書き方です。
# - デバイス不一致エラーでは、`but got` の後に書かれた引数を探し、それを移動させます。
# - 先にモデルを移動させ、それからオプティマイザを作ります。
# - GPU のチェックポイントは `torch.load(path, map_location="cpu", weights_only=True)` で CPU に読み込みます。
