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
# # デバイス不一致のエラーを読み解く
#
# このページは、エラーメッセージごとにセクションを分け、メッセージの文言をそのまま見出しにしています（その下の小見出しは、よくある原因や関連する話題です）。トレースバックに出た文言でページ内を検索すれば、該当するセクションが見つかります。各セクションでは、メッセージの意味と、そのエラーを起こすよくある書き方を示し、すぐ後のセルで対処法を試します。
#
# チェックポイントの読み込み、マシンの構成、ワーカープロセス、GPU メモリに関するエラーは「[読み込み・環境・メモリのエラーを読み解く](09-setup-and-memory-errors.ipynb)」で扱います。
#
# GPU がない場合は、よく似たエラーを次の2つの方法で再現します。GPU で実行したときに出るメッセージは、各セクションに記載しています。
#
# - `meta` デバイス（テンソルが形状と dtype だけを持ち、データを持たないデバイス）を GPU に見立てて、デバイスの不一致を起こします。ただし、エラーを出すのは CUDA で実行した場合とは別の検査なので、メッセージの文言も CUDA の場合とは異なります。
# - デバイスの代わりに、dtype の不一致を起こします。
#
# GPU でしか起こせないエラーは、「GPU での検証を含む」セルで扱います（GPU がなければ、満たされなかった条件を表示するだけです）。そのメッセージは、PyTorch のソースにある形のままバージョンを添えて本文に引用します。

# %% [markdown] tags=["summary"]
# **結論**
#
# - デバイス関連のエラーの多くは、異なるデバイス上のテンソルを1つの演算に渡したときに起こります。モデル、損失関数、入力をすべて同じデバイスに置いてください。テンソルの `.to()` は元のテンソルを変えないので、`x = x.to(device)` のように戻り値を代入し直します。
# - ページ末尾の表に、見出しにしたメッセージごとに、よくある原因と対処法をまとめています。
#
# ```python
# model.to(device)
# loss_fn.to(device)
# x, y = x.to(device), y.to(device)
# ```

# %% tags=["setup"]
import contextlib
import importlib.util
import inspect
import sys
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
print(f"{torch.__version__=}, {device=}, {torch.backends.cuda.is_built()=}")

# %% [markdown]
# ## Expected all tensors to be on the same device
#
# 「すべてのテンソルが同じデバイス上にあるはず」なのに、実際にはそうなっていなかった、と知らせるエラーです。
#
# CUDA GPU と CPU のように、2つのデバイスのテンソルを1つの演算に渡すと起きます。メッセージの後半は PyTorch のバージョンによって変わり、演算によっても異なります。PyTorch 2.8 以降、GPU 上の線形層に CPU のバッチを渡すと次のメッセージになります。このメッセージの後半は「`mat1` は CPU 上にあり、ほかのテンソル（cuda:0 上）とデバイスが異なる」と指摘しています。CPU 上にあるのは入力のバッチだけなので、`mat1` はこのバッチを指しています。
#
# ```
# Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)
# ```
#
# `+` などの要素ごとの演算では、今も次の形のメッセージが出ます。こちらの後半は「`cuda:0` と `cpu` という、少なくとも2つのデバイスが見つかった」という意味です。
#
# ```
# Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# ```
#
# ログを検索するときは、どちらにも共通する冒頭部分を使ってください。
#
# メッセージに名前が出たテンソルを移動すればよい、とは限りません。**モデル**を CPU に置いたままにしていると、メッセージは GPU 上にある入力のほうを名指しします。モデルとすべての入力を、使用する1つのデバイスにまとめて置いてください。冒頭の結論で述べたとおり、テンソルの `.to()` では `x = x.to(device)` のように戻り値を代入し直します。
#
# 以下のセルはどのマシンでも実行できます。移動先の `target` は、GPU があれば GPU、なければ `meta` です。CUDA の実際のメッセージを検証するのは、GPU で実行した場合だけです。
#
# これらのセルで使う演算（線形層、`+`、損失関数）は、`meta` でもデバイスの不一致を検出してエラーを出します。ただし、冒頭で述べたように検査が異なるので、メッセージは `Tensor on device … is not on the expected device …!`（テンソルのデバイスが期待したデバイスと違う）になります。2つのデバイスが並ぶ順は演算によって変わります。
#
# `meta` による代用には、次の2つの限界があります。
#
# - すべての演算が `meta` に対してこの検査をするわけではありません。次のセルで示すように、`meta` の行列と CPU の行列を `torch.mm` に渡してもエラーにならず、結果は `meta` のテンソルになります。つまり、この代用が使えるのは、その演算が実際にデバイスを検査してエラーを出す場合に限られます。
# - 確かめられるのは各テンソルがどのデバイスにあるかだけで、速度やメモリについては何もわかりません。

# %% tags=["gpu-only"]
SAME_DEVICE = "Expected all tensors to be on the same device"
target = device if device.type == "cuda" else torch.device("meta")
if target.type == "cuda":
    MISMATCH = SAME_DEVICE
else:
    MISMATCH = "is not on the expected device"
print(f"{target=}")

layer = nn.Linear(3, 2).to(target)
with expect_error(RuntimeError, MISMATCH):
    layer(torch.randn(4, 3))
y = layer(torch.randn(4, 3, device=target))
print(f"{y.device=}")
assert y.device.type == target.type

# torch.mm は meta に対してデバイスを検査しない
unchecked = torch.mm(torch.ones(2, 2, device="meta"), torch.ones(2, 2))
print(f"{unchecked.device=}")
assert unchecked.device.type == "meta"

# %% [markdown]
# ### 順伝播の中で作ったテンソル
#
# いちばん多い原因は、`forward` メソッドや損失関数の中で、デバイスを指定せずに作ったテンソルです。`torch.zeros(n)` や `torch.tensor(values)` のようなファクトリ関数は、モデルや入力がどこにあっても、テンソルを CPU（またはデフォルトのデバイス）に作ります。このテンソルは呼び出しのたびに新しく作られるので、モデルを移動しても解決しません。

# %% tags=["gpu-only"]
class Shifted(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 2)

    def forward(self, x):
        shift = torch.tensor([1.0, -1.0])  # 呼び出しのたびに CPU 上に作られる
        return self.linear(x) + shift


model = Shifted().to(target)
x = torch.randn(4, 3, device=target)
with expect_error(RuntimeError, MISMATCH):
    model(x)

# %% [markdown]
# 対処法は、入力と同じデバイスにテンソルを作ることです。書き方は3つあります。
#
# - ファクトリ関数に `device=x.device` を渡す。
# - `x.new_zeros(...)` を使う（`new_ones`、`new_full`、`new_tensor` もある）。作られるテンソルは `x` のデバイスと dtype を引き継ぐ。
# - 同じ形状のテンソルなら `torch.zeros_like(x)` を使う。
#
# モデルに属する定数は、`register_buffer()` でバッファとして登録するほうが適切です。そうすれば、`model.to()` でモデルと一緒に移動します（「[モデルの移動](03-moving-models.ipynb)」を参照）。

# %%
class ShiftedFixed(Shifted):
    def forward(self, x):
        shift = torch.tensor([1.0, -1.0], device=x.device)
        bias = x.new_zeros(x.shape[0], 2)
        noise = torch.zeros_like(x)
        for t in (shift, bias, noise):
            assert t.device == x.device
        assert bias.dtype == x.dtype
        return self.linear(x + noise) + shift + bias


model = ShiftedFixed().to(target)
y = model(x)
print(f"{y.device=}, {y.shape=}")
assert y.device.type == target.type

# %% [markdown]
# ただし、テンソルを同じデバイスに置くという原則には、要素ごとの演算（`+`、`*`、比較など）に限って例外が1つあります。0次元テンソル（`torch.tensor(2.0)` のような1つの数）は CPU にあってもかまわず、PyTorch はこれを Python の数値と同じように扱います。要素ごとの演算ではない `torch.addmm(torch.tensor(1.0), a, b)` には、この例外が当てはまりません。`a` と `b` が GPU 上にあれば、0次元の CPU テンソルとデバイスが食い違うため、検査で失敗します。
#
# 要素ごとの演算の場合は、GPU がなくても次のセルで確かめられます。`addmm` の場合は GPU が必要です。

# %% tags=["gpu-only"]
scaled = x * torch.tensor(2.0)  # 要素ごと：0次元の CPU テンソルは使える
print(f"{scaled.device=}")
assert scaled.device.type == target.type
if torch.cuda.is_available():
    a = torch.randn(2, 2, device="cuda")
    # addmm は要素ごとの演算ではないので、0次元の例外はない
    with expect_error(RuntimeError, SAME_DEVICE):
        torch.addmm(torch.tensor(1.0), a, a)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ### 通常のリストや辞書に入れたサブモジュール
#
# 層を Python のリストや辞書に入れておくモデルがあります。次のセルでは、そのようなモデル `PlainContainers` と、同じ層を `nn.ModuleList` と `nn.ModuleDict` に入れたモデル `RegisteredContainers` を作り、どちらも `target` に移動します。

# %% [markdown] tags=["predict"]
# **予想：** `PlainContainers` は、2つの `Linear(3, 3)`（それぞれ重みとバイアスを持つ）をリストに、`Linear(3, 1)` を辞書に入れています。`plain.parameters()` はパラメータをいくつ返すでしょうか。
#
# - `len(list(plain.parameters()))=6`
# - `len(list(plain.parameters()))=4`
# - `len(list(plain.parameters()))=0`
# - `len(list(plain.parameters()))=2`

# %%
class PlainContainers(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = [nn.Linear(3, 3), nn.Linear(3, 3)]
        self.heads = {"score": nn.Linear(3, 1)}


class RegisteredContainers(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 3)])
        self.heads = nn.ModuleDict({"score": nn.Linear(3, 1)})


plain = PlainContainers().to(target)
registered = RegisteredContainers().to(target)
print(f"{len(list(plain.parameters()))=}")
print(f"{len(list(registered.parameters()))=}")

# %% tags=["answer"]
print(f"{plain.blocks[0].weight.device=}")
print(f"{registered.blocks[0].weight.device=}")
assert list(plain.parameters()) == []
assert len(list(registered.parameters())) == 6
assert dict(plain.named_children()) == {}  # 何も登録されていない
assert set(dict(registered.named_children())) == {"blocks", "heads"}
assert plain.blocks[0].weight.device.type == "cpu"
assert plain.heads["score"].weight.device.type == "cpu"
assert registered.blocks[0].weight.device.type == target.type
assert registered.heads["score"].weight.device.type == target.type

# %% [markdown] tags=["answer"]
# **答え：** `len(list(plain.parameters()))=0` です。属性に代入された値がモジュールであれば、`nn.Module.__setattr__` がそれをサブモジュールとして登録します。リストや辞書はモジュールではないので、3つの層はどれも登録されていません。`parameters()` も `to()` も、通常のコンテナの中までは調べません。
#
# - `4` を選んだなら、リストの中の2層（重みとバイアスが2つずつ）は登録されると考えたのでしょう。リストに入れた層は、モジュールであっても登録されません。
# - `2` は、辞書の中の1層（重みとバイアス）だけを数えた答えです。辞書もリストと同じく、中の層は登録されません。
# - `6` は `RegisteredContainers` のパラメータの数です。`nn.ModuleList` と `nn.ModuleDict` はそれ自体がモジュールで、中身を登録します。
#
# 上のセルの検証では、`to(target)` が通常のコンテナの層を CPU に残したことも確かめています。GPU がある環境では、これらの層を通る最初の順伝播で、デバイスの不一致によるエラーが起きます。

# %% [markdown]
# このようなモデルからオプティマイザを作ろうとすると、パラメータが1つも渡されないため、エラーになります。次のセルに出る `optimizer got an empty parameter list` は、オプティマイザに渡されたパラメータのリストが空だと伝えています。

# %%
with expect_error(ValueError, "empty parameter list"):
    torch.optim.SGD(plain.parameters(), lr=0.1)
optimizer = torch.optim.SGD(registered.parameters(), lr=0.1)
assert len(optimizer.param_groups[0]["params"]) == 6

# %% [markdown]
# ### テンソルを持つ損失関数
#
# `nn.CrossEntropyLoss(weight=...)` や `nn.BCEWithLogitsLoss(pos_weight=...)` のように、テンソルを引数に渡して作った損失関数は、そのテンソルをバッファとして持ちます。このような損失関数を CPU で作ったまま GPU 上で損失を計算すると、呼び出しの中でデバイスが混在します。損失関数もモジュールなので、モデルと同じように移動してください。

# %% tags=["gpu-only"]
class_weights = torch.tensor([1.0, 3.0])
loss_fn = nn.CrossEntropyLoss(weight=class_weights)
print(f"{list(dict(loss_fn.named_buffers()))=}")
bce = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))
assert "pos_weight" in dict(bce.named_buffers())

logits = torch.randn(4, 2, device=target)
labels = torch.tensor([0, 1, 1, 0], device=target)
with expect_error(RuntimeError, MISMATCH):
    loss_fn(logits, labels)

loss_fn.to(target)
loss = loss_fn(logits, labels)
print(f"{loss_fn.weight.device=}, {class_weights.device=}, {loss.device=}")
assert loss_fn.weight.device.type == target.type
assert class_weights.device.type == "cpu"  # 渡したテンソルは元の場所に残る
assert loss.device.type == target.type

# %% [markdown]
# ### 入れ子になったバッチの移動
#
# バッチは、テンソルの辞書やタプルであることがよくあります。Python の辞書やタプルには `.to()` がないので、コンテナごと移動することはできません。
#
# 次のセルに出る `'dict' object has no attribute 'to'` は、`dict` オブジェクトに `to` という属性はない、というエラーです。
#
# 対処法は、中のテンソルに1つずつ `.to()` を呼び、その戻り値で新しいバッチを作ることです。短い再帰関数を書けば、辞書、リスト、タプルをたどってテンソルだけを移動し、それ以外（文字列や数値）はそのまま残せます。

# %%
batch = {
    "image": torch.randn(2, 3),
    "label": torch.tensor([0, 1]),
    "extra": ("id-7", [torch.arange(2)]),
}
with expect_error(AttributeError, "has no attribute 'to'"):
    batch.to(target)


def to_device(obj, device):
    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, dict):
        return {key: to_device(value, device) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(value, device) for value in obj)
    return obj


moved = to_device(batch, target)
print(f"{moved['image'].device=}, {moved['extra'][0]=}")
print(f"{moved['extra'][1][0].device=}")
assert moved["image"].device.type == moved["label"].device.type == target.type
assert moved["extra"][1][0].device.type == target.type
assert moved["extra"][0] == "id-7" and isinstance(moved["extra"], tuple)
assert batch["image"].device.type == "cpu"  # 元のバッチは変わらない

# %% [markdown]
# ## can't convert cuda:0 device type tensor to numpy
#
# 「`cuda:0` デバイスのテンソルは NumPy に変換できない」というエラーです。
#
# NumPy 配列は CPU のメモリに置かれます。そのため `t.numpy()` は CPU 上のテンソルにしか使えません。CUDA テンソルに対しては、自動で CPU にコピーすることはせず、この `TypeError` を送出します。メッセージの全文では、このあとに `Use Tensor.cpu() to copy the tensor to host memory first.`（先に `Tensor.cpu()` でホスト、つまり CPU のメモリにコピーすること）が続きます。
#
# `numpy()` にはもう1つ条件があり、テンソルの `requires_grad` が `False` でなければなりません。
#
# よく使う書き方は `t.detach().cpu().numpy()` です。`detach()` が計算グラフから切り離したテンソルを返し、`cpu()` がデータを CPU にコピーします（すでに CPU にあるテンソルには何もしません）。
#
# `t.numpy(force=True)` は同じことを1回の呼び出しで行います。さらに、共役ビットが立った複素数テンソル（共役の計算を遅延評価しているテンソル）も変換できます。こうしたテンソルに `force` なしで `numpy()` を呼ぶと、エラーになります。
#
# ただし、`bfloat16` のテンソルにはどちらの方法も使えません。NumPy にこの dtype がないため、`TypeError: Got unsupported ScalarType BFloat16` が送出されます。`t.detach().cpu().float().numpy()` のように、NumPy 配列にする前に float32 に変換してください。
#
# 次のセルは GPU がなくても動きます。`requires_grad` の検査は CPU 上のテンソルで確かめられます。デバイスの検査はどのデバイスに対しても同じコードで行われるので、`meta` テンソルでは `cuda:0` が `meta` に変わっただけのメッセージが出ます。GPU があれば、このセルは `cuda:0` のメッセージそのものも検証します。
#
# 出力される英語のメッセージは、それぞれ次の意味です。
#
# - `Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.`：勾配の計算対象（`requires_grad=True`）のテンソルには `numpy()` を呼べない。代わりに `tensor.detach().numpy()` を使うこと。
# - `can't convert meta device type tensor to numpy`：`meta` デバイスのテンソルは NumPy に変換できない。
# - `Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() instead.`：共役ビットが立ったテンソルには `numpy()` を呼べない。代わりに `tensor.resolve_conj().numpy()` を使うこと。
# - `Got unsupported ScalarType BFloat16`：BFloat16 という型には対応していない。
#
# 次のセルには NumPy が必要です（PyTorch と一緒にはインストールされません）。ない場合は `HAS_NUMPY=False` と表示します。

# %% tags=["gpu-only"]
HAS_NUMPY = importlib.util.find_spec("numpy") is not None
if HAS_NUMPY:
    w = torch.ones(3, requires_grad=True)
    with expect_error(RuntimeError, "requires grad"):
        w.numpy()
    with expect_error(TypeError, "can't convert meta device type"):
        torch.ones(3, device="meta").numpy()
    if torch.cuda.is_available():
        with expect_error(TypeError, "can't convert cuda:0 device type"):
            w.detach().to("cuda:0").numpy()
    array = w.to(device).detach().cpu().numpy()
    print(f"{type(array).__name__=}, {array.tolist()=}")
    assert array.tolist() == [1.0, 1.0, 1.0]
    assert w.to(device).numpy(force=True).tolist() == [1.0, 1.0, 1.0]
    conjugated = torch.tensor([1 + 2j]).conj()
    with expect_error(RuntimeError, "conjugate bit"):
        conjugated.numpy()
    assert conjugated.numpy(force=True).tolist() == [1 - 2j]

    bf16 = torch.ones(3, dtype=torch.bfloat16, device=device)
    with expect_error(TypeError, "Got unsupported ScalarType BFloat16"):
        bf16.detach().cpu().numpy()
    with expect_error(TypeError, "Got unsupported ScalarType BFloat16"):
        bf16.numpy(force=True)
    assert bf16.detach().cpu().float().numpy().tolist() == [1.0, 1.0, 1.0]
else:
    print(f"{HAS_NUMPY=}")

# %% [markdown]
# ### 値を読み出すと CPU が GPU を待つ
#
# CUDA テンソルに対する `.item()`、`.tolist()`、`print(t)` は、データを CPU にコピーします。このとき CPU は、コピーを実行するストリーム（現在のストリーム）に先に積まれた GPU の処理がすべて終わるまで待ちます。待つのはこのストリームの処理だけです。デバイス全体の処理を待つには `torch.cuda.synchronize()` を使います。なお、`.numpy()` はコピーをせず、上で見た `TypeError` を送出します。
#
# CPU が待っている間は次の処理を積めないので、GPU が何もしない時間（アイドル時間）ができます。1ステップに1回の `.item()` でも毎ステップこのアイドル時間が生じ、要素ごとに呼べば要素の数だけ生じます。
#
# 学習ループでは、平均をログに出すために損失を足し合わせることがよくあります。次のセルでは3ステップの間、`total_tensor += loss` と `total_float += loss.item()` の2通りで足し合わせます。

# %% [markdown] tags=["predict"]
# **予想：** `total_tensor` は Python の float `0.0` から始まります。`total_tensor += loss` を3ステップ繰り返した後、`total_tensor` の型（`kind`）は何でしょうか。また、計算グラフを保持しているでしょうか（`tracked`、つまり `grad_fn` があるかどうか）。
#
# - `kind='float', tracked=False`
# - `kind='Tensor', tracked=True`
# - `kind='Tensor', tracked=False`

# %%
model = nn.Linear(3, 1).to(device)
total_tensor = 0.0
total_float = 0.0
for _ in range(3):
    loss = model(torch.randn(8, 3, device=device)).pow(2).mean()
    total_tensor += loss
    total_float += loss.item()

kind = type(total_tensor).__name__
tracked = getattr(total_tensor, "grad_fn", None) is not None
print(f"{kind=}, {tracked=}")

# %% tags=["answer"]
print(f"{type(total_float).__name__=}, {total_tensor.device=}")
assert isinstance(total_tensor, torch.Tensor)
assert total_tensor.grad_fn is not None
assert total_tensor.device.type == device.type
assert isinstance(total_float, float)
assert abs(total_tensor.item() - total_float) < 1e-4
running = torch.zeros((), device=device) + loss.detach()
assert running.grad_fn is None and running.device.type == device.type


def graph_nodes(node):
    # `node` から next_functions をたどり、到達できるノードの種類を集める
    kinds, todo = [], [node]
    while todo:
        node = todo.pop()
        kinds.append(type(node).__name__)
        todo += [n for n, _ in node.next_functions if n is not None]
    return kinds


steps = graph_nodes(total_tensor.grad_fn).count("MeanBackward0")
print(f"{steps=}")
assert steps == 3  # ステップごとのグラフが合計にぶら下がる

# %% [markdown] tags=["answer"]
# **答え：** `kind='Tensor', tracked=True` です。Python の数値とテンソルの和はテンソルになり、そのテンソルと同じデバイスに置かれます。したがって、最初の `0.0 + loss` の時点でもうテンソルです。`loss` は勾配の計算対象なので、最初の `+=` も含めて、どれも autograd が記録する演算になります。
#
# その結果、合計は全ステップの計算グラフを参照し（上の検証で3つとも見つかります）、合計がある限りどのグラフも解放されません。このセルのグラフや、`no_grad` を使わずに回した評価ループのグラフは、まだ `backward()` を実行していません。こうしたグラフは逆伝播のために保存したテンソルも抱えたままなので、メモリはステップごとに増えていきます。
#
# - `kind='float', tracked=False` は、Python の数値 `0.0` から始めたので合計も数値のままだと考えた答えです。数値とテンソルを足した時点で、結果はテンソルになります。合計が `float` のままなのは、`total_float` のように `loss.item()` を足すときだけです。
# - `kind='Tensor', tracked=False` を選んだなら、テンソルではあっても `+=` は記録されないと見たのでしょう。計算グラフを持たない合計になるのは、`loss.detach()` を足したときです。
#
# 定番は、デバイス上の合計に `loss.detach()` を足し、N ステップに1回だけ `.item()` で読む書き方です。GPU がなくても検証できるのは、この合計が計算グラフのない `device` 上のテンソルだという点です。CPU が待つのは GPU の処理なので、CPU だけのマシンでは待ち時間の差は見えません。

# %% [markdown]
# GPU があれば、次のセルで CPU が待つことを確かめます。行列積をキューに積んでから `.item()` で値を1つ読み出し、その直後に、積んだ処理がすべて終わったかを現在の CUDA ストリームに問い合わせます。`.item()` が完了を待っていれば、`stream.query()` は `True` を返すはずです。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    stream = torch.cuda.current_stream()
    big = torch.randn(4096, 4096, device="cuda")
    out = torch.empty_like(big)
    for _ in range(2):  # 1回目はウォームアップだけ
        for _ in range(10):
            torch.mm(big, big, out=out)
        value = out[0, 0].item()
        idle = stream.query()
    print(f"{idle=}")
    assert idle
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same
#
# 直訳すると「入力の型と重みの型は同じでなければならない」です。
#
# 畳み込みは、入力の**型**が重みやバイアスの型と同じかを検査することがあります。ここでいう型はデバイスと dtype の組で、`torch.FloatTensor` は CPU 上の float32、`torch.cuda.FloatTensor` は CUDA GPU 上の float32 です。つまりこのメッセージは、CPU の入力が GPU 上の畳み込みに渡されたことを示しています。対処法はほかのデバイスの不一致と同じで、入力をモデルと同じデバイスに移動します。
#
# 同じ不一致でも、出るメッセージは1つではありません。どのメッセージになるかは、PyTorch が畳み込みに選ぶ実装（バックエンド）で決まります。バックエンドは入力テンソルをもとに選ばれます（選んでいるのは PyTorch の `Convolution.cpp` にある `_select_conv_backend` です）。
#
# - まず、CPU のバッチを渡した場合です。CPU 上の float32 の入力（複数枚の画像のバッチなど）は、oneDNN を含むビルドではたいてい oneDNN に送られます。oneDNN は Intel が開発した CPU 向けの深層学習ライブラリで、旧称は MKLDNN です。ビルドに含まれているかは `torch.backends.mkldnn.is_available()` で確認できます。oneDNN は型を検査し、見出しのメッセージに次の文が続くエラーを出します。
#
#   ```
#   ... should be the same or input should be a MKLDNN tensor and weight is a dense tensor
#   ```
#
#   「（入力と重みの型は）同じであるか、入力が MKLDNN テンソルで重みが密なテンソルでなければならない」と訳せます。
# - 次に、小さな画像1枚（要素数が 20,480 以下、カーネルの少なくとも一辺が 3 以下、`groups=1`）を渡した場合です。この入力は PyTorch に組み込まれた汎用のバックエンド `slow_conv2d` に送られますが、このバックエンドは型を検査しません。代わりに、PyTorch が自動生成する CUDA 用のラッパー関数（`wrapper_CUDA___slow_conv2d_forward`）が、計算を始める前にデバイスを検査します。そのため、メッセージはこのページの最初のセクションと同じ形になります。後半を読むと、`weight` が cuda:0 上にあり、ほかのテンソル（CPU 上）とデバイスが異なることがわかります。
#
#   ```
#   Expected all tensors to be on the same device, but got weight is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA___slow_conv2d_forward)
#   ```
#
#   PyTorch 2.8 より前は、同じ検査が次のメッセージを出していました。
#
#   ```
#   ... found at least two devices, cpu and cuda:0! (when checking argument for argument weight in method wrapper_CUDA___slow_conv2d_forward)
#   ```
#
#   このメッセージの意味は「`cpu` と `cuda:0` という、少なくとも2つのデバイスが見つかった（`wrapper_CUDA___slow_conv2d_forward` の引数 `weight` を検査中）」です。
# - 逆に、CPU に残した畳み込みに GPU の入力を渡すと、入力は cuDNN に送られ、`Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same` というエラーになります。
#
# 以上のメッセージは PyTorch のソースからの引用です（これらの入力に対しては、PyTorch 2.6 でも PyTorch 2.13 でも同じバックエンドが選ばれます）。GPU があれば、後のセルでそれぞれ検証します。
#
# dtype の不一致なら、CPU だけでも起こせます。バックエンドの選び方は同じですが、バイアスを持つ畳み込みでは、バックエンドを選ぶ前に入力とバイアスの dtype が同じかが検査され、そこでエラーになります。float64 に変換した畳み込みに float32 の画像を渡すと、`Input type (float) and bias type (double) should be the same`（入力の型 float とバイアスの型 double は同じでなければならない）になります。ここではテンソルの型（`torch.FloatTensor` など）ではなく、dtype の名前（`float`、`double`）が使われています。
#
# バイアスがなければ、小さな画像1枚は汎用のバックエンドに進み、そのカーネルが `expected scalar type Float but found Double`（Float を期待したが Double だった）というエラーを出します。

# %%
conv = nn.Conv2d(1, 2, 3).double()
image = torch.randn(1, 1, 5, 5)
with expect_error(RuntimeError, "Input type (float) and bias type (double)"):
    conv(image)
no_bias = nn.Conv2d(1, 2, 3, bias=False).double()
with expect_error(RuntimeError, "expected scalar type Float but found Double"):
    no_bias(image)

# %% [markdown] tags=["predict"]
# **予想：** 先ほどと同じ、バイアスのない float64 の畳み込み（`no_bias`）に、今度は float32 の画像8枚のバッチを渡します。次のセルを実行するマシンでは、どのメッセージが出るでしょうか。
#
# - `expected scalar type Float but found Double`
# - `bias type (double)`
# - `weight type (torch.DoubleTensor)`

# %%
images = torch.randn(8, 1, 5, 5)
with expect_error(Exception) as caught:
    no_bias(images)

# %% tags=["answer"]
mkldnn = torch.backends.mkldnn
onednn = mkldnn.is_available() and mkldnn.enabled
print(f"{onednn=}")
assert type(caught.error) is RuntimeError
if onednn:
    assert "weight type (torch.DoubleTensor)" in str(caught.error)
else:
    assert "expected scalar type Float" in str(caught.error)

# %% [markdown] tags=["answer"]
# **答え：** oneDNN を含むビルド（上の出力で `onednn=True`）では `weight type (torch.DoubleTensor)` です。8枚のバッチは oneDNN に送られ、oneDNN はテンソルの型どうし、つまり CPU 上の float32 と CPU 上の float64 を比べます。
#
# - `expected scalar type Float but found Double` は、oneDNN を含まないビルド（`onednn=False`）で出ます。そのビルドではバッチも汎用のバックエンドに進むからです。
# - この畳み込みにはバイアスがないので、`bias type (double)` は出ません。
#
# `x.to(conv.weight)` なら、dtype とデバイスの不一致を一度に直せます。`to` にテンソルを渡すと、そのテンソルと同じデバイスと dtype のテンソルが返ります。

# %%
image = image.to(conv.weight)
out = conv(image)
print(f"{image.dtype=}, {out.dtype=}")
assert image.dtype == out.dtype == torch.float64

# %% [markdown]
# GPU がある場合、次のセルでは GPU 上の畳み込みに CPU のバッチを、続いて小さな CPU の画像1枚を渡し、それぞれのバックエンドが出すメッセージを検証します。さらに、CPU 上の畳み込みに GPU のバッチを渡します。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    conv = nn.Conv2d(3, 8, 3).to(device)
    mkldnn = torch.backends.mkldnn
    onednn = mkldnn.is_available() and mkldnn.enabled
    # CPU のバッチ：oneDNN が型を検査する
    # （oneDNN がなければ、カーネルの前にラッパーがデバイスを検査する）
    cpu_input = "weight type (torch.cuda.FloatTensor)"
    with expect_error(RuntimeError, cpu_input if onednn else SAME_DEVICE):
        conv(torch.randn(8, 3, 32, 32))
    # 小さな CPU 画像1枚は汎用のバックエンドへ。
    # カーネルの前にラッパーがデバイスを検査する
    with expect_error(RuntimeError, SAME_DEVICE) as caught:
        conv(torch.randn(1, 3, 5, 5))
    assert "slow_conv2d_forward" in str(caught.error)
    # GPU のバッチと CPU 上の畳み込み：cuDNN が型を検査する
    cudnn = torch.backends.cudnn
    gpu_input = "Input type (torch.cuda.FloatTensor)"
    uses_cudnn = cudnn.is_available() and cudnn.enabled
    with expect_error(RuntimeError, gpu_input if uses_cudnn else SAME_DEVICE):
        nn.Conv2d(3, 8, 3)(torch.randn(8, 3, 32, 32, device=device))

    out = conv(torch.randn(8, 3, 32, 32).to(device))
    assert out.device == conv.weight.device
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on device: cpu
#
# 「モジュールのパラメータとバッファは `cuda:0`（`device_ids[0]`）になければならないが、そのうちの1つが `cpu` にあった」という意味のエラーです。
#
# `nn.DataParallel` は、GPU が2枚以上のマシンで、ラップしたモデルが `device_ids` の最初の GPU にないときにこのエラーを出します。この場合、`DataParallel` は自分では何も移動せず、`forward` メソッドの中で、すべてのパラメータとバッファがすでにその GPU にあるかを検査します。
#
# 一方、`device_ids` を省略すると使用可能な GPU がすべて使われるので、GPU が1枚のマシンでは `device_ids` の要素は1つだけになります。この場合は `DataParallel` がモデルを移動するため、同じコードでも動きます（どちらの場合も、「[ファクトチェック](06-fact-check.ipynb)」のページの「[主張：`nn.DataParallel` がモデルを GPU に載せてくれる](06-fact-check.ipynb#主張nndataparallel-がモデルを-gpu-に載せてくれる)」で確かめています）。
#
# 対処法は、ラップする前に `model.to("cuda:0")` とすることです。できれば、`DataParallel` のドキュメント自体も勧めているとおり、`DistributedDataParallel` を使ってください。なお、通常のリストに入れた層（前述）のパラメータは、`model.to()` で移動されないだけでなく、この検査の対象にもなりません。
#
# この検査は `DataParallel.forward` の Python ソースにあり、どのマシンでも読めます。

# %%
source = inspect.getsource(nn.DataParallel.forward)
print(f"{'module must have its parameters and buffers' in source=}")
assert "module must have its parameters and buffers" in source
assert "DistributedDataParallel" in nn.DataParallel.__doc__

# %% [markdown]
# GPU が2枚以上ある場合、次のセルでは CPU のモデルをラップしてエラーを起こします。そのあと、先に `cuda:0` へ移動したモデルをラップすれば動くことを確かめます。GPU が1枚以下なら、GPU の枚数を表示するだけです。

# %% tags=["gpu-only"]
if torch.cuda.device_count() >= 2:
    dp = nn.DataParallel(nn.Linear(4, 2))
    with expect_error(RuntimeError, "parameters and buffers on device cuda:0"):
        dp(torch.randn(8, 4))
    dp = nn.DataParallel(nn.Linear(4, 2).to("cuda:0"))
    out = dp(torch.randn(8, 4))
    assert out.device == torch.device("cuda", 0)
else:
    print(f"{torch.cuda.device_count()=}")

# %% [markdown]
# ## まとめ
#
# | メッセージ（一部） | よくある原因 | 対処法 |
# |---|---|---|
# | `Expected all tensors to be on the same device` | 入力、`forward` の中で作ったテンソル、通常のリストに入れた層、損失関数のどれかが CPU にある。GPU 上の畳み込みに小さな CPU の画像1枚を渡した。 | モデル、損失関数、すべての入力を1つのデバイスに置く。テンソルは `device=x.device`、`x.new_zeros`、`zeros_like` で作る。層は `ModuleList`／`ModuleDict` に入れる。損失関数も `loss_fn.to(device)` で移動する。 |
# | `can't convert cuda:0 device type tensor to numpy` | GPU 上のテンソルで `.numpy()` を呼んだ。 | `t.detach().cpu().numpy()` か `t.numpy(force=True)` を使う（`bfloat16` なら先に `.float()`）。 |
# | `Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)` | GPU 上の畳み込みに CPU のバッチを渡した。 | `x = x.to(device)` で入力を移動する。デバイスと dtype の両方を合わせるなら `x.to(conv.weight)`。 |
# | `module must have its parameters and buffers on device cuda:0` | GPU が2枚以上のマシンで、CPU にあるモデルを `DataParallel` でラップした。 | ラップする前に `model.to("cuda:0")` とする。または `DistributedDataParallel` を使う。 |
