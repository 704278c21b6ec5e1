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
# # デバイスのエラーを読み解く
#
# このページの各セクションは、説明するエラーメッセージそのものを見出しにしています。トレースバックに出た文言でページ内を検索すれば、該当するセクションが見つかります。各セクションでは、メッセージの意味と、そのエラーを起こすよくある書き方を示し、その直後に修正したコードを実行します。
#
# ほとんどのエラーは GPU がなくても起こせるので、このページでは実際に起こしています。使う手段は、CPU 専用ビルドの PyTorch、2つ目のデバイスの代わりにする `meta` デバイス（形状と dtype だけを持ち、データを持たないデバイス）、ストレージのデバイスが `cuda` と記録されたチェックポイント、fork した子プロセスです。代わりの手段を使う箇所では、それで何がわかり、何がわからないかを書いています。GPU でしか起こせないエラーは、GPU で実行されるセルに入れています。GPU がない環境では、そのセルは必要な条件を式の形で表示し、本文ではそのメッセージを、それを出す PyTorch のバージョンとともに引用しています。

# %% tags=["setup"]
import contextlib
import importlib.util
import inspect
import multiprocessing
import os
import sys
import tempfile
import types
import warnings
import zipfile

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

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
print(f"{torch.__version__=}, {device=}, {torch.backends.cuda.is_built()=}")

# %% [markdown]
# ## Expected all tensors to be on the same device
#
# 1つの演算が、2つのデバイス（たいていは CUDA GPU と CPU）にあるテンソルを受け取ったという意味です。メッセージの続きはリリースによって変わっており、演算によっても異なります。PyTorch 2.8 以降、GPU 上の線形層に CPU の入力を渡すと `Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)` となり、`+` などの要素ごとの演算では今も `Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!` となります。ログを検索するときは、最初の部分で検索してください。
#
# 直し方は「メッセージが名指ししたテンソルを移動する」ではありません。*モデル*を CPU に置いたままにしていると、メッセージは GPU 上にある入力のほうを名指しします。モデルとすべての入力を、使うつもりの1つのデバイスに置いてください。テンソルを移動したら、`x = x.to(device)` のように戻り値を受け取ります。
#
# 以下のセルはどのマシンでも実行できます。GPU があれば本物のメッセージが出ます。GPU がなければ、`meta` デバイスに2つ目のデバイスの役をさせます。以下のセルで使う演算（線形層、`+`、損失）では、`meta` と CPU のテンソルを混ぜた場合もエラーになりますが、別のチェックで検出されるので、メッセージも異なります（`Tensor on device cpu is not on the expected device meta!`）。そのため以下のセルは、CPU だけのマシンではこのメッセージを、GPU では本物のメッセージを期待します。本物のメッセージを検証するのは GPU があるときだけです。また、すべての演算が `meta` に対してこのチェックを行うわけではありません。最初のセルで示すように、`meta` の行列と CPU の行列の `torch.mm` はエラーにならず、`meta` のテンソルを返します。そのため `meta` を GPU の代わりにできるのは、セルで実際にエラーが出ることを示している場合だけです。`meta` が正確に示すのは、*どの*テンソルがどのデバイスに置かれるかです。速度やメモリについては何もわかりません。以下のセルでは `target` を使います。GPU があれば GPU、なければ `meta` です。

# %% tags=["gpu-only"]
target = device if device.type == "cuda" else torch.device("meta")
MISMATCH = "Expected all tensors to be on the same device" if target.type == "cuda" else "is not on the expected device"
print(f"{target=}")

layer = nn.Linear(3, 2).to(target)
with expect_error(RuntimeError, MISMATCH):
    layer(torch.randn(4, 3))
y = layer(torch.randn(4, 3, device=target))
print(f"{y.device=}")
assert y.device.type == target.type

unchecked = torch.mm(torch.ones(2, 2, device="meta"), torch.ones(2, 2))  # ここではデバイスのチェックが行われない
print(f"{unchecked.device=}")
assert unchecked.device.type == "meta"

# %% [markdown]
# ### forward の中で作ったテンソル
#
# いちばん多い原因は、`forward` や損失関数の中で、デバイスを指定せずに作ったテンソルです。`torch.zeros(n)` や `torch.tensor(values)` のようなファクトリ関数は、モデルや入力がどこにあっても、テンソルを CPU（またはデフォルトのデバイス）に作ります。モデルを移動しても解決しません。このテンソルは呼び出しのたびに新しく作られるからです。GPU がなければ、セルは代わりに `meta` のメッセージを示します。

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
# 直し方は、入力と同じ場所にテンソルを作ることです。書き方は3つあります。ファクトリ関数に `device=x.device` を渡す方法、`x` のデバイスと dtype を引き継ぐ `x.new_zeros(...)`（`new_ones`、`new_full`、`new_tensor` もあります）、同じ形状のテンソルを作る `torch.zeros_like(x)` です。モデルに属する定数は、バッファとして登録するほうが適切です。そうすれば `model.to()` で一緒に移動します（「モデルの移動」のページを参照）。

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
# ただし、要素ごとの演算（`+`、`*`、比較など）に限って例外が1つあります。次元を持たないテンソル（`torch.tensor(2.0)` のような1つの数）は CPU にあってもかまいません。PyTorch はこれを Python の数値と同じように扱います。ほかの演算ではこの例外は認められず、`a` と `b` が GPU 上にあっても、`torch.addmm(torch.tensor(1.0), a, b)` はデバイスのチェックで失敗します。セルは要素ごとの演算の場合をどのマシンでも示します（GPU がなければ `meta` が GPU の役をします）。`addmm` の場合は GPU が必要なので、GPU がなければ `torch.cuda.is_available()=False` と表示します。

# %% tags=["gpu-only"]
scaled = x * torch.tensor(2.0)  # 要素ごとの演算: 0次元の CPU テンソルは使える
print(f"{scaled.device=}")
assert scaled.device.type == target.type
if torch.cuda.is_available():
    a = torch.randn(2, 2, device="cuda")
    with expect_error(RuntimeError, "Expected all tensors to be on the same device"):
        torch.addmm(torch.tensor(1.0), a, a)  # 要素ごとの演算ではないので、0次元でも許されない
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ### 普通のリストや辞書に入れたサブモジュール
#
# `nn.Module` は属性をたどってサブモジュールを見つけます。Python の普通のリストや辞書に入れた層は、モジュールからは見えません。`model.to(device)` はそれらを元の場所に残し、`model.parameters()` にも含まれないので、オプティマイザに渡らず学習もされません。そして最初の forward 呼び出しでデバイスが混ざります。代わりに `nn.ModuleList` や `nn.ModuleDict` に入れてください。

# %% [markdown] tags=["predict"]
# **予想：** `PlainContainers` は2つの `Linear(3, 3)` を Python のリストに、`Linear(3, 1)` を辞書に入れています。`plain.parameters()` はいくつのパラメータを返すでしょうか。
#
# - `len(list(plain.parameters()))=6`：これは、層を登録してくれる `nn.ModuleList` と `nn.ModuleDict` を使った場合の数です。
# - `len(list(plain.parameters()))=0`：モジュールは普通のリストや辞書の中までは探さないので、パラメータを1つも見つけられません。

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
print(f"{len(list(plain.parameters()))=}, {len(list(registered.parameters()))=}")
print(f"{plain.blocks[0].weight.device=}, {registered.blocks[0].weight.device=}")
assert list(plain.parameters()) == []
assert len(list(registered.parameters())) == 6
assert plain.blocks[0].weight.device.type == "cpu"
assert plain.heads["score"].weight.device.type == "cpu"
assert registered.blocks[0].weight.device.type == target.type
assert registered.heads["score"].weight.device.type == target.type

# %% [markdown]
# このようなモデルからオプティマイザを作ると、パラメータが1つも渡りません。

# %%
with expect_error(ValueError, "empty parameter list"):
    torch.optim.SGD(plain.parameters(), lr=0.1)
optimizer = torch.optim.SGD(registered.parameters(), lr=0.1)
assert len(optimizer.param_groups[0]["params"]) == 6

# %% [markdown]
# ### テンソルを持つ損失モジュール
#
# `nn.CrossEntropyLoss(weight=...)` や `nn.BCEWithLogitsLoss(pos_weight=...)` のように、テンソルを引数にして作った損失は、そのテンソルをバッファとして持ちます。損失を CPU で作って GPU 上で計算すると、損失の呼び出しでデバイスが混ざります。損失もモジュールなので、モデルと同じように移動してください。GPU がなければ、ここでも `meta` が GPU の役をするので、セルは `meta` のメッセージを示します。

# %% tags=["gpu-only"]
class_weights = torch.tensor([1.0, 3.0])
loss_fn = nn.CrossEntropyLoss(weight=class_weights)
print(f"{list(dict(loss_fn.named_buffers()))=}")
assert "pos_weight" in dict(nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0])).named_buffers())

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
# バッチは、テンソルの辞書やタプルであることがよくあります。コンテナには `.to()` がなく、そもそもコンテナごと移動することはできません。テンソルを1つずつ移動し、結果を受け取る必要があります。短い再帰関数で辞書、リスト、タプルをたどり、それ以外（文字列や数値）はそのまま残せます。

# %%
batch = {"image": torch.randn(2, 3), "label": torch.tensor([0, 1]), "extra": ("id-7", [torch.arange(2)])}
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
print(f"{moved['image'].device=}, {moved['extra'][0]=}, {moved['extra'][1][0].device=}")
assert moved["image"].device.type == moved["label"].device.type == target.type
assert moved["extra"][1][0].device.type == target.type
assert moved["extra"][0] == "id-7" and isinstance(moved["extra"], tuple)
assert batch["image"].device.type == "cpu"  # 元のバッチは変わらない

# %% [markdown]
# ## can't convert cuda:0 device type tensor to numpy
#
# NumPy 配列は CPU のメモリに置かれるので、`t.numpy()` が使えるのは CPU 上のテンソルだけで、しかも勾配を必要としないテンソルに限られます。メッセージの全文では、このあとに `Use Tensor.cpu() to copy the tensor to host memory first.` が続きます。よく使う書き方は `t.detach().cpu().numpy()` です。`detach()` が autograd の履歴を切り離し、`cpu()` がデータを CPU にコピーします（すでに CPU にあるテンソルには何もしません）。`t.numpy(force=True)` は同じことを1回の呼び出しで行い、さらに、普通の `numpy()` が受け付けない共役ビューや符号反転ビューも解決します。ただし、`bfloat16` のテンソルにはどちらも使えません。NumPy にはこの dtype がないので、どちらも `TypeError: Got unsupported ScalarType BFloat16` を送出します。先に float32 などに変換してください（`t.detach().cpu().float().numpy()`）。
#
# これらのチェックはどのマシンでも実行できます。勾配のチェックは CPU で起きます。デバイスのチェックはどのデバイスでも同じコードなので、`meta` テンソルを使うと、トレースバックの `cuda:0` の部分が `meta` になった同じ文が出ます。GPU があれば、セルは `cuda:0` のメッセージそのものも表示します。GPU がなければ、この `cuda:0` のチェックは実行されません。このセルには NumPy が必要ですが、PyTorch は NumPy をインストールしません。NumPy がない場合、セルはそれがないことを表示します。

# %% tags=["gpu-only"]
HAS_NUMPY = importlib.util.find_spec("numpy") is not None
if HAS_NUMPY:
    w = torch.ones(3, requires_grad=True)
    with expect_error(RuntimeError, "requires grad"):
        w.numpy()
    with expect_error(TypeError, "can't convert meta device type tensor to numpy"):
        torch.ones(3, device="meta").numpy()
    if torch.cuda.is_available():
        with expect_error(TypeError, "can't convert cuda:0 device type tensor to numpy"):
            w.detach().to("cuda:0").numpy()
    array = w.to(device).detach().cpu().numpy()
    print(f"{type(array).__name__=}, {array.tolist()=}")
    assert array.tolist() == [1.0, 1.0, 1.0]
    assert w.to(device).numpy(force=True).tolist() == [1.0, 1.0, 1.0]
    assert torch.tensor([1 + 2j]).conj().numpy(force=True).tolist() == [1 - 2j]

    bf16 = torch.ones(3, dtype=torch.bfloat16, device=device)
    with expect_error(TypeError, "Got unsupported ScalarType BFloat16"):
        bf16.detach().cpu().numpy()
    with expect_error(TypeError, "Got unsupported ScalarType BFloat16"):
        bf16.numpy(force=True)
    assert bf16.detach().cpu().float().numpy().tolist() == [1.0, 1.0, 1.0]
else:
    print(f"{HAS_NUMPY=}")

# %% [markdown]
# ### item() と tolist() は GPU を待つ
#
# CUDA テンソルに対する `.item()`、`.tolist()`、`.numpy()`、`print(t)` はデータを CPU にコピーするので、CPU は、それより前にキューに積まれた GPU の処理がすべて終わるまで待ちます。1ステップに1回の `.item()` なら負担は小さいですが、ループの中で要素ごとに呼ぶと遅くなります。
#
# 学習ループでよくある逆の間違いは、`loss.item()` ではなく `loss` そのものを足し合わせることです。合計は GPU に残るテンソルになり、すべてのステップの autograd グラフを抱えたままになるので、ステップごとにメモリが増えていきます。`loss.item()` なら普通の Python の数値が得られます。

# %% [markdown] tags=["predict"]
# **予想：** `total_tensor = 0.0` から始めて、`total_tensor += loss` を3ステップ繰り返したとします。最後の `total_tensor` の型は何でしょうか。
#
# - `type(total_tensor).__name__='Tensor'`：`0.0 + loss` はテンソルになり、損失と同じデバイスに置かれ、その autograd のグラフも抱えたままです。
# - `type(total_tensor).__name__='float'`：float のままにするには `loss.item()` を足す必要があります。float にテンソルを足すとテンソルになります。

# %%
model = nn.Linear(3, 1).to(device)
total_tensor = 0.0
total_float = 0.0
for _ in range(3):
    loss = model(torch.randn(8, 3, device=device)).pow(2).mean()
    total_tensor += loss
    total_float += loss.item()

print(f"{type(total_tensor).__name__=}, {total_tensor.grad_fn is not None=}, {type(total_float).__name__=}")
assert isinstance(total_tensor, torch.Tensor) and total_tensor.grad_fn is not None
assert total_tensor.device.type == device.type
assert isinstance(total_float, float)
assert abs(total_tensor.item() - total_float) < 1e-4

# %% [markdown]
# GPU がある場合、次のセルで待つ様子を確かめます。行列積をキューに積み、`.item()` で値を1つ読み出してから、積まれた処理がすべて終わったかを CUDA ストリームに問い合わせます。`.item()` が処理の終わりを待ったので、処理は終わっています。GPU がない場合は、必要な条件を表示します。

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
# ## Attempting to deserialize object on a CUDA device
#
# メッセージの全文は `Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.` です。チェックポイントにはストレージごとに保存元のデバイスが記録されていて、`torch.load` はストレージをそのデバイスに戻します。GPU から保存したファイルには `cuda:0` と記録されているので、使える CUDA GPU のないマシンではそのデバイスに戻せません。直し方はメッセージにあるとおり、`map_location` です。
#
# GPU なしでこのようなファイルを作るため、セルは CPU のテンソルを保存し、ファイル中のデバイスの文字列を書き換えます。チェックポイントは zip アーカイブで、中の `data.pkl` に pickle された構造が入っており、各ストレージのデバイスは短い文字列として記録されています。書き換えるのはその文字列だけです。`torch.load` がデバイスを選ぶときに見るのはこの文字列だけなので、読み込みは GPU で保存したファイルと同じ経路をたどります。GPU がファイルをどう書くかは、これではわかりません。GPU があれば、ファイルは `cuda:0` に読み込まれます。GPU がなければ、セルはまずエラーを示し、次に直し方を示します。

# %% tags=["gpu-only"]
def retag(path, old, new):
    # torch.save が使う pickle プロトコル 2 は、文字列を b"X" + 4バイトの長さ + UTF-8 のバイト列として書く
    old_bytes = b"X" + len(old).to_bytes(4, "little") + old.encode()
    new_bytes = b"X" + len(new).to_bytes(4, "little") + new.encode()
    with zipfile.ZipFile(path) as archive:
        records = [(info, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w") as archive:
        for info, data in records:
            if info.filename.endswith("/data.pkl"):
                assert old_bytes in data
                data = data.replace(old_bytes, new_bytes)
            archive.writestr(info, data)


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    torch.save({"weight": torch.arange(3.0)}, path)
    retag(path, "cpu", "cuda:0")

    if torch.cuda.is_available():
        loaded = torch.load(path, weights_only=True)
        assert loaded["weight"].device == torch.device("cuda", 0)
    else:
        with expect_error(RuntimeError, "Attempting to deserialize object on a CUDA device"):
            torch.load(path, weights_only=True)

    on_cpu = torch.load(path, map_location="cpu", weights_only=True)
    here = torch.load(path, map_location=device, weights_only=True)

print(f"{on_cpu['weight']=}, {here['weight'].device=}")
assert on_cpu["weight"].device.type == "cpu"
assert torch.equal(on_cpu["weight"], torch.arange(3.0))
assert here["weight"].device.type == device.type

# %% [markdown]
# `torch.load` の `weights_only=True` は PyTorch 2.6 からデフォルトになっています。古いリリースでも同じ動作になるよう、ここでは明示しています。

# %% [markdown]
# ## Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same
#
# 畳み込み層は、入力の*型*が重みやバイアスの型と同じかどうかを確認します。ここでいう型はデバイスと dtype の組で、`torch.FloatTensor` は CPU 上の float32、`torch.cuda.FloatTensor` は CUDA GPU 上の float32 です。つまりこのメッセージは、CPU の入力が GPU 上の畳み込みに渡された（またはその逆）ことを示しています。直し方はデバイスの不一致と同じで、入力をモデルのある場所に移動します。CPU の入力に対して PyTorch が oneDNN（MKLDNN）のコードを選んだ場合は、メッセージに続きが付き、`Input type (...) and weight type (...) should be the same or input should be a MKLDNN tensor and weight is a dense tensor` となります。どちらの文言も最近のものではなく、PyTorch 2.13 にも 2.6 にもあります。これらは GPU でしか出ないので、ここでは引用にとどめ、共通の部分を下の GPU のセルで検証します。
#
# dtype の不一致はどのマシンでも起こせますが、メッセージの文言は異なります。float64 に変換した畳み込みに float32 の入力を渡すと、テンソルの型ではなく dtype の名前を使った `Input type (float) and bias type (double) should be the same` になり、バイアスがなければ `expected scalar type Float but found Double` になります。`x.to(conv.weight)` なら dtype とデバイスの不一致を一度に直せます。テンソルを渡すと、`to` はそのテンソルのデバイスと dtype に合わせます。

# %%
conv = nn.Conv2d(1, 2, 3).double()
image = torch.randn(1, 1, 5, 5)
with expect_error(RuntimeError, "Input type (float) and bias type (double) should be the same"):
    conv(image)
with expect_error(RuntimeError, "expected scalar type Float but found Double"):
    nn.Conv2d(1, 2, 3, bias=False).double()(image)

image = image.to(conv.weight)
out = conv(image)
print(f"{image.dtype=}, {out.dtype=}")
assert image.dtype == out.dtype == torch.float64

# %% [markdown]
# GPU がある場合、次のセルは GPU 上の畳み込みに CPU の画像を渡します。GPU がない場合は、必要な条件を表示します。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    conv = nn.Conv2d(1, 2, 3).to(device)
    image = torch.randn(1, 1, 5, 5)
    with expect_error(RuntimeError, "weight type (torch.cuda.FloatTensor)"):
        conv(image)
    out = conv(image.to(device))
    assert out.device == conv.weight.device
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## CUDA error: invalid device ordinal
#
# 指定した GPU インデックスが存在しないという意味です。たとえば GPU が1枚のマシンでの `cuda:1` や、`CUDA_VISIBLE_DEVICES` で一部の GPU を隠す前には有効だったインデックスです（見える GPU には 0 から番号が振り直されます）。PyTorch 2.7 までは `RuntimeError`、2.8 以降は `RuntimeError` のサブクラスである `torch.AcceleratorError` です。2.9 以降は、メッセージの2行目にヒント `GPU device may be out of range, do you have enough GPUs?` が加わります（2.8 にはまだありません）。
#
# デバイスを書いただけでは何も確認されません。`torch.device("cuda", 7)` は、CUDA のないマシンも含め、どのマシンでも作れます。エラーになるのは、そこに初めてテンソルを置いたときです。

# %%
seven = torch.device("cuda", 7)
print(f"{seven=}, {torch.cuda.device_count()=}")
assert seven.index == 7
if TORCH >= (2, 8):
    assert issubclass(torch.AcceleratorError, RuntimeError)

# %% [markdown]
# GPU がある場合、次のセルは最後の GPU の1つ先のインデックスを指定し（2.9 以降ではヒントの行も検証します）、そのあと有効なインデックス、つまり `torch.cuda.device_count()` より小さいインデックスを使います。GPU がない場合は、必要な条件を表示します。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    n = torch.cuda.device_count()
    with expect_error(torch.AcceleratorError if TORCH >= (2, 8) else RuntimeError, "invalid device ordinal"):
        torch.zeros(1, device=f"cuda:{n}")
    if TORCH >= (2, 9):
        with expect_error(RuntimeError, "do you have enough GPUs?"):
            torch.zeros(1, device=f"cuda:{n}")
    last = torch.zeros(1, device=f"cuda:{n - 1}")
    assert last.device.index == n - 1
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## Cannot access accelerator device when none is available.
#
# PyTorch 2.5 以降、整数のデバイス（`device=0`、`.to(0)`、`torch.device(0)`）は、現在のアクセラレータ（CUDA、Apple の MPS、Intel の XPU など）のインデックスを意味します。アクセラレータがないと、PyTorch はこのエラーを出します。アクセラレータを必要とする `pin_memory()` からも出ます。CPU 専用ビルドでは必ず出ます。使える GPU のないマシン上の CUDA ビルドでも、PyTorch 2.6 までは出ます（NVIDIA ドライバのないマシンで 2.6.0+cu124 を使って確認しました）。2.7 以降のこうしたビルドは、ビルドが対応するアクセラレータを返します。`torch.device(0)` は `cuda:0` になり、そこにテンソルを作ったときに、`Found no NVIDIA driver on your system` のような理由を述べるエラーが出ます（Colab の CPU ランタイムと同じ 2.11.0+cu130 で確認しました）。直し方は、デバイスを名前で書くこと（`"cuda:0"`、または一度決めた `device`）と、アクセラレータがあるときだけメモリをピン留めすることです。セルは、このマシンがどの場合に当たるかを示します。GPU があれば、インデックス 0 にテンソルを作ります。

# %% tags=["gpu-only"]
usable = torch.accelerator.is_available()
# 2.7 以降の current_accelerator() は、ビルドが対応するアクセラレータを返す（なければ None）。
# 2.6 では使えるアクセラレータがないと例外になるので、2.7 以降でだけ呼ぶ
built_for = torch.accelerator.current_accelerator() if usable or TORCH >= (2, 7) else None
print(f"{usable=}, {built_for=}")
if usable:
    index_device = torch.zeros(1, device=0).device
    print(f"{index_device=}")
    assert index_device.type != "cpu"
elif built_for is None:
    with expect_error(RuntimeError, "none is available"):
        torch.zeros(1, device=0)
    with expect_error(RuntimeError, "none is available"):
        torch.ones(3).pin_memory()
else:
    # アクセラレータ向けのビルドを、アクセラレータのないマシンで使っている場合は、そのアクセラレータのインデックス 0 になる
    print(f"{torch.device(0)=}")
    assert torch.device(0) == torch.device(built_for.type, 0)
    try:
        torch.zeros(1, device=0)
    except RuntimeError as err:  # 理由（ドライバがない、など）を述べるエラー
        sys.stdout.flush()
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError("expected RuntimeError")

named = torch.zeros(1, device=device)
print(f"{named.device=}")
assert named.device.type == device.type

# %% [markdown]
# ### pin_memory=True と non_blocking=True
#
# `DataLoader(..., pin_memory=True)` はページロックされた（ピン留めされた）CPU メモリでバッチを返し、`t.to(device, non_blocking=True)` は GPU へのコピーをキューに積むだけで、すぐに戻ることができます。アクセラレータがない場合、DataLoader は失敗せずに普通のバッチを返し（リリースによっては警告を出すので、セルはそれを集めて表示します）、`to(..., non_blocking=True)` も普通の移動になります。つまり同じループがどこでも動きます。ピン留めで学習が速くなるかどうかは別の問題で、「テンソルの移動」のページで測っています。GPU があれば、セルはバッチがピン留めされていたことも検証します。

# %% tags=["gpu-only"]
loader = DataLoader(TensorDataset(torch.randn(8, 3), torch.arange(8)), batch_size=4, pin_memory=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for features, labels in loader:
        pinned = features.is_pinned()
        features = features.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)

print([str(w.message) for w in caught])
print(f"{pinned=}, {features.device=}, {labels.device=}")
assert features.device.type == labels.device.type == device.type
if torch.cuda.is_available():
    assert pinned
elif not torch.accelerator.is_available():
    assert not pinned

# %% [markdown]
# 逆方向のコピー `to("cpu", non_blocking=True)` は、データが届く前に戻ることがあります。そのようなテンソルを読む前に `torch.cuda.synchronize()` を呼んでください。「テンソルの移動」のページで、GPU を使ってこれを確かめています。

# %% [markdown]
# ## Cannot re-initialize CUDA in forked subprocess
#
# メッセージの全文は `Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method` です。Linux では（Python 3.13 まで）、`multiprocessing` や DataLoader のワーカーは、デフォルトで `fork`、つまり親プロセスの複製として子プロセスを起動します。親がすでに CUDA を初期化していると、fork した子プロセスは CUDA をまったく使えません。
#
# このセルは子プロセスを fork し、子の中で `device` 上にテンソルを作ります。GPU がある場合、親は（そこにテンソルを作ったので）CUDA を初期化済みです。そのため子はこのメッセージで失敗し、メッセージを親に送り返します。GPU がない場合は CUDA が一度も初期化されないのでこのエラーは起こりえず、子は問題なく CPU のテンソルを作ります。そのときセルは、`torch.cuda.is_initialized()` が `False` であることと、子の結果を表示します。このセルは Linux でだけ実行します。Linux では `fork` がデフォルトで、安全に実演できるからです。

# %% tags=["gpu-only"]
def child(queue, device):
    try:
        queue.put(("ok", torch.ones(2, device=device).sum().item()))
    except RuntimeError as err:
        queue.put(("error", str(err)))


if sys.platform.startswith("linux"):
    torch.ones(1, device=device)  # GPU があれば、ここでこのプロセスの CUDA が初期化される
    fork = multiprocessing.get_context("fork")
    queue = fork.SimpleQueue()
    process = fork.Process(target=child, args=(queue, device))
    process.start()
    outcome, result = queue.get()
    process.join()
    print(f"{torch.cuda.is_initialized()=}, {outcome=}, {result=}")
    if sys.version_info < (3, 14):
        assert multiprocessing.get_context().get_start_method() == "fork"
    if torch.cuda.is_initialized():
        assert outcome == "error" and "Cannot re-initialize CUDA in forked subprocess" in result
    else:
        assert outcome == "ok" and result == 2.0
else:
    print(f"{sys.platform=}")

# %% [markdown]
# 一般的な直し方は、ワーカーで CUDA を使わないことです。DataLoader のワーカーは CPU のテンソルを読み込んで準備し、学習ループがメインプロセスで各バッチをデバイスに移動します。これは DataLoader の本来の使い方でもあり、親が GPU を使ったあとでも `fork` で動きます。子プロセスでどうしても CUDA を使う必要があるなら、`spawn` で起動します。`multiprocessing.get_context("spawn")` や `DataLoader(..., multiprocessing_context="spawn")` を使います。

# %% [markdown] tags=["predict"]
# **予想：** 2つの DataLoader ワーカーがバッチを作り、学習ループが各バッチを `device` に移動するとします。ワーカーが作るバッチはどのデバイスにあるでしょうか。
#
# - `devices={'cuda'}`：これだとワーカーが CUDA を使ったことになりますが、fork で起動したワーカーで CUDA を使ってはいけません。
# - `devices={'cpu'}`：ワーカーは CPU のテンソルを用意し、デバイスへの移動はメインプロセスが行います。

# %%
loader = DataLoader(TensorDataset(torch.randn(8, 3)), batch_size=4, num_workers=2)
devices = set()
for (features,) in loader:
    devices.add(features.device.type)  # ワーカーが作ったテンソルのデバイス
    features = features.to(device)
print(f"{devices=}, {features.device=}")
assert devices == {"cpu"}
assert features.device.type == device.type

# %% [markdown]
# ## Torch not compiled with CUDA enabled
#
# インストールされている PyTorch が CPU 専用ビルドで（wheel のバージョンは `+cpu` で終わることが多いです）、コードが `.cuda()` や `device="cuda"` などで CUDA を要求した場合のエラー（`AssertionError`）です。ただし、このようなビルドでも、すべての CUDA の呼び出しがこのメッセージを出すわけではありません。`torch.cuda.set_device(0)` は `AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'` で失敗しますが、原因は同じです。CUDA を起動できないマシン上の CUDA ビルドでは別のメッセージになり、理由を述べる `RuntimeError` が出ます。NVIDIA ドライバのないマシンで PyTorch 2.6.0+cu124 を使うと、`Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx` となります。セルは、お使いのマシンがどちらに当たるかを示します。GPU があれば、CUDA のテンソルを作ります。
#
# 直し方: GPU を使うなら、NVIDIA の GPU とドライバがあるマシンに CUDA ビルドの PyTorch をインストールします（コマンドは pytorch.org のセレクタで確認できます）。どこでも動かすなら、このコースのどのページでもしているように、デバイスを一度決めて、それをどこでも使います。

# %% tags=["gpu-only"]
print(f"{torch.version.cuda=}, {torch.backends.cuda.is_built()=}, {torch.cuda.is_available()=}")
if not torch.backends.cuda.is_built():
    with expect_error(AssertionError, "Torch not compiled with CUDA enabled"):
        torch.zeros(1, device="cuda")
    with expect_error(AssertionError, "Torch not compiled with CUDA enabled"):
        torch.ones(1).cuda()
    with expect_error(AttributeError, "_cuda_setDevice"):
        torch.cuda.set_device(0)
elif not torch.cuda.is_available():
    try:
        torch.zeros(1, device="cuda")
    except RuntimeError as err:  # 理由はさまざま: ドライバがない、ドライバが古い、GPU がない
        sys.stdout.flush()
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError("expected RuntimeError")
else:
    assert torch.zeros(1, device="cuda").is_cuda

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
assert torch.zeros(1, device=device).device.type == device.type

# %% [markdown]
# ## module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on device: cpu
#
# `nn.DataParallel` は、GPU が2枚以上のマシンで、ラップしたモデルが `device_ids` の最初の GPU にないときにこのエラーを出します。GPU が複数枚あると、DataParallel は自分では何も移動せず、`forward` の中で、すべてのパラメータとバッファがすでにその GPU にあるかを確認します（デバイス ID がちょうど1つなら、モデルを移動してくれます。同じコードが GPU 1枚のマシンで動くのはそのためです。それぞれの場合は「ファクトチェック」のページで確かめています）。直し方は、ラップする前に `model.to("cuda:0")` とすることです。さらに良いのは、`DataParallel` 自身のドキュメントが勧める `DistributedDataParallel` を使うことです。普通のリストに入れた層（前述）は、`model.to()` からだけでなく、このチェックからもパラメータを隠してしまいます。
#
# このチェックは `DataParallel.forward` の Python ソースにあり、どのマシンでも読めます。

# %%
source = inspect.getsource(nn.DataParallel.forward)
print(f"{'module must have its parameters and buffers' in source=}")
assert "module must have its parameters and buffers" in source
assert "DistributedDataParallel" in nn.DataParallel.__doc__

# %% [markdown]
# GPU が2枚以上ある場合、次のセルは CPU のモデルをラップしてエラーを示し、そのあとモデルを先に `cuda:0` に移動します。それより少ない場合は GPU の枚数を表示します。

# %% tags=["gpu-only"]
if torch.cuda.device_count() >= 2:
    dp = nn.DataParallel(nn.Linear(4, 2))
    with expect_error(RuntimeError, "module must have its parameters and buffers on device cuda:0"):
        dp(torch.randn(8, 4))
    dp = nn.DataParallel(nn.Linear(4, 2).to("cuda:0"))
    out = dp(torch.randn(8, 4))
    assert out.device == torch.device("cuda", 0)
else:
    print(f"{torch.cuda.device_count()=}")

# %% [markdown]
# ## CUDA out of memory
#
# PyTorch 2.6 では、メッセージは次の形をしています（… の部分にサイズが入ります）: `CUDA out of memory. Tried to allocate …. GPU 0 has a total capacity of … of which … is free. Including non-PyTorch memory, this process has … memory in use. Of the allocated memory … is allocated by PyTorch, and … is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.` 含まれる数値の意味は次のとおりです。
#
# - *allocated by PyTorch*（`torch.cuda.memory_allocated()`）: 生きているテンソルが使っているメモリです。
# - *reserved by PyTorch*（`torch.cuda.memory_reserved()`）: PyTorch のキャッシングアロケータが GPU から確保したメモリで、テンソルに割り当て済みかどうかを問いません。解放したテンソルのメモリは GPU ではなくこのキャッシュに戻るので、`nvidia-smi` では使用中として数えられたままです。
# - `nvidia-smi` はさらに、各プロセスの CUDA コンテキストと、同じ GPU を使うほかのプロセスの分も数えます。
#
# まず試したいのは、バッチを小さくする、`loss` のテンソルを溜めずに `loss.item()` を使う（前述）、評価には `torch.no_grad()` を使う、不要になった大きなテンソルを `del` する、予約済みで未割り当ての部分が大きいときはメッセージにある `expandable_segments` の設定を使う、といった対策です。
#
# このエラーは `torch.cuda.OutOfMemoryError` で、どのマシンでも `RuntimeError` のサブクラスです。

# %%
print(f"{torch.cuda.OutOfMemoryError.__mro__[:2]=}")
assert issubclass(torch.cuda.OutOfMemoryError, RuntimeError)

# %% [markdown]
# GPU がある場合、次のセルは GPU のメモリの2倍を要求します。そのあと、解放したテンソルのメモリが *allocated* からは外れても、`torch.cuda.empty_cache()` を呼ぶまでは *reserved* に残ることを示します。GPU がない場合は、必要な条件を表示します。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    total = torch.cuda.get_device_properties(0).total_memory
    with expect_error(torch.cuda.OutOfMemoryError, "CUDA out of memory"):
        torch.empty(2 * total, dtype=torch.uint8, device="cuda:0")

    torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated(0)
    block = torch.empty(256 * 2**20, dtype=torch.uint8, device="cuda:0")
    del block
    reserved = torch.cuda.memory_reserved(0)
    torch.cuda.empty_cache()
    print(f"{torch.cuda.memory_allocated(0) - before=}, {reserved=}, {torch.cuda.memory_reserved(0)=}")
    assert torch.cuda.memory_allocated(0) == before
    assert reserved >= 256 * 2**20
    assert torch.cuda.memory_reserved(0) < reserved
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## まとめ
#
# | メッセージ（一部） | よくある原因 | 直し方 |
# |---|---|---|
# | `Expected all tensors to be on the same device` | 入力、`forward` の中で作ったテンソル、普通のリストに入れた層、損失が CPU に残っている | モデル、損失、すべての入力を1つのデバイスに置く。`device=x.device`、`x.new_zeros`、`zeros_like`。`ModuleList`、`ModuleDict`。`loss_fn.to(device)` |
# | `can't convert cuda:0 device type tensor to numpy` | GPU 上のテンソルに `.numpy()` | `t.detach().cpu().numpy()` または `t.numpy(force=True)`（`bfloat16` なら先に `.float()`）。合計するのは `loss` ではなく `loss.item()` |
# | `Attempting to deserialize object on a CUDA device` | 使える GPU がない環境で GPU のチェックポイントを読み込んだ | `torch.load(path, map_location=device)` |
# | `Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)` | GPU 上の畳み込みに CPU の入力 | `x = x.to(device)`、デバイスと dtype の両方なら `x.to(conv.weight)` |
# | `CUDA error: invalid device ordinal` | 存在しない GPU インデックス | `torch.cuda.device_count()` より小さいインデックス |
# | `Cannot access accelerator device when none is available.` | アクセラレータがない環境での整数のデバイスや `pin_memory()` | デバイスを名前で書く。ピン留めはアクセラレータがあるときだけ |
# | `Cannot re-initialize CUDA in forked subprocess` | 親が CUDA を使ったあと、fork した子で CUDA を使った | ワーカーは CPU の処理だけにして、メインプロセスで移動する。または `spawn` |
# | `Torch not compiled with CUDA enabled` | CPU 専用ビルドで CUDA を要求した（`set_device` では `no attribute '_cuda_setDevice'`） | CUDA ビルドを入れる。またはデバイスを一度決めて使う |
# | `module must have its parameters and buffers on device cuda:0` | GPU が2枚以上で、モデルが CPU にある `DataParallel` | 先に `model.to("cuda:0")`。または `DistributedDataParallel` |
# | `CUDA out of memory` | GPU の空きより多くのメモリを要求した | バッチを小さく、`loss.item()`、`no_grad()`、`del`。allocated と reserved を読み分ける |
