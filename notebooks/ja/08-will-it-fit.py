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
# # メモリに収まるか：実行前にモデルのメモリ使用量を見積もる
#
# `CUDA out of memory`（CUDA のメモリ不足）は、デバイスまわりで最もよく目にするエラーです。ただ、このエラーは実行する前に予測できます。モデルに必要なメモリは形状と dtype で決まり、学習の1ステップで増える分も数えられるからです。
#
# このページでは、モデル自体のメモリと学習で増える分の両方を計算し、それぞれの数値を、実行したマシン上で PyTorch が報告する値と照らし合わせて検証します。
#
# 最後のセクションを除き、検証はすべて CPU で実行します。「GPU での検証を含む」の印が付いたセルは、GPU のないマシンでは `torch.cuda.is_available()=False` と表示します。

# %% [markdown] tags=["summary"]
# **結論**
#
# - モデルが使うメモリは、パラメータとバッファの全テンソルのバイト数（各テンソルの `numel() * element_size()`）の合計です。学習ではさらに、パラメータの勾配、オプティマイザの状態（Adam ならパラメータのテンソル1つにつき、同じ形状の状態テンソルが2つ）、逆伝播のために保存される活性化値（中間出力）が加わります。
# - 大きなモデルは `with torch.device("meta"):` の中で作れば、メモリを確保せずにサイズを測れます。
#
# ```python
# def model_bytes(model):
#     tensors = [*model.parameters(), *model.buffers()]
#     return sum(t.numel() * t.element_size() for t in tensors)
#
# with torch.device("meta"):
#     model = MyModel()
# print(model_bytes(model))
# ```

# %% tags=["setup"]
import contextlib
import os
import sys
import tempfile
import time
import types
import warnings

import torch
from torch import nn
from torch.autograd.graph import saved_tensors_hooks

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
# ## 要素あたりのバイト数
#
# 専用のストレージを持つテンソル（ビューではないテンソル）が使うバイト数は、要素数に1要素のバイト数を掛けたものです。1要素のバイト数は dtype で決まります。式で書くと `t.nbytes == t.numel() * t.element_size()` です。形状と dtype はデータを用意する前からわかるので、サイズも事前に計算できます。

# %% tags=["claim-F12"]
dtypes = [torch.float64, torch.float32, torch.bfloat16, torch.float16,
          torch.int64, torch.int8, torch.bool]
sizes = {str(d): torch.empty(0, dtype=d).element_size() for d in dtypes}
print(sizes)
assert sizes["torch.float32"] == 4 and sizes["torch.bfloat16"] == 2
assert sizes["torch.int64"] == 8 and sizes["torch.bool"] == 1

t = torch.zeros(1024, 1024, dtype=torch.float16)
print(f"{t.nbytes=}")
assert t.nbytes == t.numel() * t.element_size() == 2 * 2**20

# %% [markdown] tags=["predict"]
# **予想：** `col = t[:, :1]` は、この 2 MiB のテンソルの最初の列で、`col.nbytes` は 2048 です。`del t` のあと、`col` はメモリを何バイト保持し続けるでしょうか。次のセルは、`col` が参照しているストレージのサイズを表示します。
#
# - `col.untyped_storage().nbytes()=2048`
# - `col.untyped_storage().nbytes()=4096`
# - `col.untyped_storage().nbytes()=2097152`

# %%
col = t[:, :1]
del t
print(f"{col.nbytes=}, {col.untyped_storage().nbytes()=}")

# %% tags=["claim-F12", "answer"]
assert col.nbytes == col.numel() * col.element_size() == 2048
assert col.untyped_storage().nbytes() == 2 * 2**20
assert col.clone().untyped_storage().nbytes() == 2048

# %% [markdown] tags=["answer"]
# **答え：** `col.untyped_storage().nbytes()=2097152` です。ビューは元のテンソルとストレージを共有するので、`del t` のあとも `col` がストレージ全体を保持し続けます。`nbytes` はビュー自身の要素のバイト数で、実際に確保されているメモリの量ではありません。
#
# 大きなテンソルから切り出した小さなスライスをリストに溜めておくと、元のテンソル全体がメモリに残り続けます。これも、ストレージを共有していることが原因です。`col.clone()` を使えば、列だけが専用のストレージ（2048バイト）にコピーされます。

# %% [markdown]
# ## モデルのパラメータとバッファ
#
# モデル自体が使うメモリは、パラメータ（勾配を使って学習する値）とバッファ（勾配では更新しない状態）の分です。バッファの例はバッチ正規化の移動平均・移動分散（`running_mean`、`running_var`）で、学習中は順伝播のたびに更新されます。
#
# `model.parameters()` と `model.buffers()` は、重みを共有（tie）している場合も、各テンソルを1回だけ列挙します。次のセルの `model_bytes` は、それらのバイト数を合計する関数です。
#
# 同じセルでは、このモデルの `model.state_dict()` に同じテンソルが入っていることも確かめます。ただし、一般にはそうとは限りません。`state_dict()` は共有された重みを名前ごとに重複して列挙する一方、`persistent=False` で登録したバッファは含めないからです。

# %% tags=["claim-F12"]
def model_bytes(model):
    tensors = [*model.parameters(), *model.buffers()]
    return sum(t.numel() * t.element_size() for t in tensors)


def make_mlp(d_in, d_hidden, d_out):
    return nn.Sequential(nn.Linear(d_in, d_hidden), nn.BatchNorm1d(d_hidden),
                         nn.ReLU(), nn.Linear(d_hidden, d_out))


model = make_mlp(1024, 4096, 1024)
n_params = sum(p.numel() for p in model.parameters())
print(f"{n_params=}, {model_bytes(model)=}")
assert model_bytes(model) == sum(t.nbytes for t in model.state_dict().values())
assert n_params == 1024 * 4096 + 4096 + 2 * 4096 + 4096 * 1024 + 1024

# %% [markdown] tags=["predict"]
# **予想：** `model.half()` はモデルを16ビットの浮動小数点数に変換します。次のセルは、変換後のパラメータとバッファの dtype を重複なしで表示します。何が表示されるでしょうか。
#
# - `['torch.float16']`
# - `['torch.float32']`
# - `['torch.float16', 'torch.int64']`

# %%
before = model_bytes(model)
model.half()
print(sorted({str(t.dtype) for t in [*model.parameters(), *model.buffers()]}))
print(f"{before=}, {model_bytes(model)=}")

# %% tags=["claim-F12", "answer"]
kept = [k for k, t in model.state_dict().items() if t.dtype == torch.int64]
print(kept)
assert kept == ["1.num_batches_tracked"]
assert model_bytes(model) == (before - 8) // 2 + 8

# %% [markdown] tags=["answer"]
# **答え：** `['torch.float16', 'torch.int64']` です。`.half()` は `.to(torch.float16)` と同じく、浮動小数点数のパラメータとバッファだけを変換します。バッチ正規化が処理したバッチ数を数える `num_batches_tracked` は整数なので、`int64` のまま残ります。それ以外のテンソルはすべてサイズが半分になります。
#
# - `['torch.float16']` は、`.half()` が整数のテンソルも変換すると考えた場合の答えです。
# - `['torch.float32']` を選んだなら、戻り値を代入していないので `model` は変わらないと考えたのでしょう。しかし `Module.half()` は `Module.to` と同じく、モデル自体を書き換えます。
#
# 上のセルでは、`float32` のテンソルはすべて半分のサイズになり、8バイトのカウンタだけが元のサイズのまま残ることを確かめました。

# %% [markdown]
# ## `meta` 上に作れば、どんなに大きなモデルでもサイズを測れる
#
# `meta` デバイス上のテンソルは、形状と dtype を持ちますがデータを持たないので、作ってもメモリを使いません。`with torch.device("meta"):` の中では、どれほど大きなモデルでも作れるので、置き場所を決める前にバイト数を数えられます。次のセルでは、1250億パラメータ（`float32` で 500 GB）のモデルを作ります。
#
# セッションで最初に `meta` 上の演算を実行すると、PyTorch が meta 用のカーネルを読み込むため、バージョンによっては少し時間がかかります。そこで、計測を始める前に一度演算を実行しておきます。

# %% tags=["claim-F13"]
torch.empty(1, device="meta") + 1  # meta 用のカーネルを読み込む（計測しない）
start = time.perf_counter()
with torch.device("meta"):
    big = make_mlp(250_000, 250_000, 250_000)
seconds = time.perf_counter() - start
n_big = sum(p.numel() for p in big.parameters())
gigabytes = model_bytes(big) / 1e9
print(f"{n_big=:,}, {gigabytes=:.1f}, {seconds=:.3f}")
assert all(t.is_meta for t in [*big.parameters(), *big.buffers()])
assert model_bytes(big) > 500e9
assert seconds < 10  # 余裕を持たせた値：実際は数ミリ秒

# %% [markdown]
# ただし、注意点があります。`meta` テンソルは値を持たないので、そこからは何も読み出せません。

# %% [markdown] tags=["predict"]
# **予想：** `small = torch.zeros(3, device="meta")` のとき、`small.cpu()` はどうなるでしょうか。
#
# - `tensor([0., 0., 0.])`
# - `RuntimeError`
# - `NotImplementedError`

# %%
small = torch.zeros(3, device="meta")
with expect_error(Exception) as caught:
    print(small.cpu())

# %% tags=["claim-F13", "answer"]
assert type(caught.error) is NotImplementedError
assert "no data" in str(caught.error)

# %% [markdown] tags=["answer"]
# **答え：** `NotImplementedError` です。メッセージは次のとおりです。
#
# ```
# Cannot copy out of meta tensor; no data!
# ```
#
# 「`meta` テンソルからはコピーできない。データがない」という意味です。
#
# - `tensor([0., 0., 0.])` と予想したのは、`torch.zeros` で作ったからでしょう。しかし `meta` 上では、`zeros` も形状と dtype を決めるだけで、0は入りません。
# - `RuntimeError` と予想したなら、デバイスまわりのほかの多くのエラーと同じだと思ったのかもしれません。実際には、PyTorch はこのコピーを実装されていない操作として扱い、`NotImplementedError` を送出します。

# %% [markdown]
# ## `meta` から実際のデバイスへ
#
# `meta` 上に作ったモデルを実体化する方法は2つあります。
#
# - `model.to_empty(device=...)`：すべてのパラメータとバッファに、そのデバイス上のメモリを割り当てます。初期化はしないので、値はそのメモリに残っていた内容になります。`torch.use_deterministic_algorithms(True)` のときは、浮動小数点数のテンソルは NaN、整数のテンソルはその dtype の最大値で埋められます（次のセルで両方を確かめます）。`to_empty` のあとは、各層の `reset_parameters()` などで初期化します。
# - `model.load_state_dict(state, assign=True)`：読み込んだテンソルを、そのままモデルのパラメータにします。先にパラメータを作ってそこへコピーする必要がありません。
#
# チェックポイントの読み込み方も重要です。`torch.load(path, map_location=device)` は、チェックポイントのストレージを1つずつ `device` 上に置きます。そのため `device` が GPU なら、チェックポイント全体が一度に CPU のメモリに載ることはありません。一方、`device` が CPU なら、チェックポイント全体が CPU のメモリに読み込まれ、それがそのままテンソルになります。
#
# ストレージが1つずつ渡されることは、次のセルで `map_location` に関数を渡して確かめます。
#
# `mmap=True` を指定すると、ファイルを最初に全部読み込まずにメモリマップし、アクセスされたページだけを、必要になった時点で OS のファイルキャッシュ経由で読み込みます。
#
# PyTorch のレシピ「[チェックポイントから `nn.Module` を読み込むときのヒント](https://docs.pytorch.org/tutorials/recipes/recipes/module_load_state_dict_tips.html)」（英語）では、ここまでの方法を併用して、大きなモデルを CPU 上に読み込んでいます。`meta` 上に作ったモデル、`torch.load(..., mmap=True)`、`assign=True` の組み合わせで、パラメータはメモリマップしたファイルのビューになり、コピーは一切発生しません。
#
# `persistent=False` で登録したバッファ（モデルが自分で計算するルックアップテーブルなど）は、チェックポイントに含まれません。`assign=True` で読み込んでも、これらのバッファは `meta` デバイス上に残ったままです。読み込んだあとで、改めて計算してください。

# %% tags=["claim-F13"]
class WithTable(nn.Module):  # チェックポイントに含まれないバッファを持つモデル
    def __init__(self):
        super().__init__()
        self.mlp = make_mlp(8, 16, 4)
        self.register_buffer("table", torch.arange(4.0), persistent=False)


with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "model.pt")
    torch.save(WithTable().state_dict(), path)

    handed = []

    def one_by_one(storage, location):  # map_location には関数も渡せる
        handed.append(storage.nbytes())
        return storage

    state = torch.load(path, map_location=one_by_one, weights_only=True)
    stored = [t.untyped_storage().nbytes() for t in state.values()]
    assert sorted(handed) == sorted(stored)  # ストレージは1つずつ渡される

    state = torch.load(path, mmap=True, map_location=device,
                       weights_only=True)
    with torch.device("meta"):
        fresh = WithTable()
    fresh.load_state_dict(state, assign=True)
    weight = fresh.mlp[0].weight
    print(f"{weight.device=}, {fresh.table.device=}")
    assert weight.device.type == device.type
    assert weight.data_ptr() == state["mlp.0.weight"].data_ptr()  # コピーなし
    assert isinstance(weight, nn.Parameter) and weight.requires_grad
    assert fresh.table.is_meta  # チェックポイントに含まれていない
    del state, fresh, weight

with torch.device("meta"):
    empty = make_mlp(8, 16, 4)
empty.to_empty(device=device)
for layer in empty:
    if hasattr(layer, "reset_parameters"):
        layer.reset_parameters()
assert all(t.device.type == device.type
           for t in [*empty.parameters(), *empty.buffers()])

torch.use_deterministic_algorithms(True)  # 未初期化のメモリを埋める
try:
    with torch.device("meta"):
        filled = make_mlp(8, 16, 4)
    filled.to_empty(device=device)
    counter = filled[1].num_batches_tracked.item()
    assert filled[0].weight.isnan().all()  # 浮動小数点数：NaN
    assert counter == torch.iinfo(torch.int64).max  # 整数：最大値
finally:
    torch.use_deterministic_algorithms(False)

# %% [markdown]
# ## 学習で増えるもの
#
# 学習のステップでは、モデル自体のほかに次のものがメモリに載ります。
#
# - パラメータの勾配（パラメータと同じサイズ）
# - オプティマイザの状態（オプティマイザによって異なる）
# - 逆伝播で勾配を計算するために、autograd が順伝播の間に保存する活性化値

# %% [markdown] tags=["predict"]
# **予想：** 次のセルでは、パラメータのテンソルが6個あるモデルに対して Adam のオプティマイザを作ります。作成直後の `optimizer.state` には、エントリがいくつあるでしょうか。
#
# - `len(optimizer.state)=0`
# - `len(optimizer.state)=6`
# - `len(optimizer.state)=12`

# %%
model = make_mlp(64, 128, 10)
optimizer = torch.optim.Adam(model.parameters())
print(f"{len(optimizer.state)=}")

# %% tags=["claim-F14", "answer"]
model(torch.randn(32, 64)).pow(2).mean().backward()
optimizer.step()
param_bytes = sum(p.nbytes for p in model.parameters())
grad_bytes = sum(p.grad.nbytes for p in model.parameters())
state_bytes = sum(s[k].nbytes for s in optimizer.state.values()
                  for k in ("exp_avg", "exp_avg_sq"))
steps = [s["step"] for s in optimizer.state.values()]
print(f"{len(optimizer.state)=}, {param_bytes=}, {grad_bytes=}, {state_bytes=}")
assert len(optimizer.state) == 6
assert grad_bytes == param_bytes
assert state_bytes == 2 * param_bytes
assert all(s.numel() == 1 for s in steps)

optimizer.zero_grad()
assert all(p.grad is None for p in model.parameters())

# %% [markdown] tags=["answer"]
# **答え：** `len(optimizer.state)=0` です。Adam は最初の `step()` で状態を作ります。そのため、オプティマイザを作った時点ではメモリに収まっていても、最初のステップでメモリ不足になることがあります。
#
# - `len(optimizer.state)=6` は、最初の `step()` のあとのエントリ数です（パラメータのテンソルごとに1つ）。
# - `len(optimizer.state)=12` は、Adam の2つの状態テンソルがそれぞれ別のエントリになると考えた場合の数です。実際にはエントリはパラメータのテンソルごとに1つで、2つのテンソルはその中に入っています。
#
# 最初のステップのあとは、パラメータのテンソルごとに、パラメータと同じサイズの `exp_avg` と `exp_avg_sq`、それに要素1つだけの `step` テンソルが作られています。`step` はデフォルトでは CPU 上に、`fused=True` か `capturable=True` なら GPU 上に置かれます。`amsgrad=True` なら、テンソルがもう1つ増えます。
#
# 重み、勾配、Adam の2つの状態を合わせると、`float32` のモデルを Adam で学習するには、活性化値を除いてもモデル自体の4倍のメモリが必要です。
#
# `zero_grad()` は勾配を `None` にするので、次の順伝播の間は勾配のメモリが要りません。勾配は逆伝播の間に、活性化値が解放されていくのと入れ替わりに作り直されます。
#
# その結果、順伝播の終わりのピークは、勾配を0で埋めて残す場合（`zero_grad(set_to_none=False)`）より、最大で勾配のバイト数だけ低くなります。一方、勾配、状態、一時テンソルが同時に存在する `optimizer.step()` の中のピークは変わりません。

# %% [markdown]
# 次の関数は、順伝播で autograd が保存するテンソルのバイト数を、ストレージごとに重複なく合計します。パラメータとバッファは上で数えたので除きます。
#
# バッチ正規化のない2層のモデルで保存されるのは、最初の層の入力と `ReLU` の出力で、後者は最後の層の入力でもあります。次のセルで数えると、`32 * (64 + 128) * 4` バイトと一致します。

# %% tags=["claim-F14"]
def saved_bytes(model, x):
    own = {t.untyped_storage().data_ptr()
           for t in [*model.parameters(), *model.buffers()]}
    saved = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in own:
            saved[storage.data_ptr()] = storage.nbytes()
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(saved.values())


mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
counted = saved_bytes(mlp, torch.randn(32, 64))
print(f"{counted=}")
assert counted == 32 * (64 + 128) * 4

# %% [markdown] tags=["predict"]
# **予想：** 最後の層だけをファインチューニングするときのように、`mlp[0].requires_grad_(False)` で最初の層を凍結します。次のセルで数える値はいくつになるでしょうか。
#
# - `counted=24576`
# - `counted=16384`
# - `counted=8192`
# - `counted=0`

# %%
mlp[0].requires_grad_(False)
counted = saved_bytes(mlp, torch.randn(32, 64))
print(f"{counted=}")

# %% tags=["claim-F14", "answer"]
assert counted == 32 * 128 * 4
mlp[0].requires_grad_(True)
small_batch = saved_bytes(mlp, torch.randn(32, 64))
large_batch = saved_bytes(mlp, torch.randn(64, 64))
print(f"{small_batch=}, {large_batch=}")
assert large_batch == 2 * small_batch

# %% [markdown] tags=["answer"]
# **答え：** `counted=16384` です。autograd は、勾配の計算に必要なテンソルだけを保存します。
#
# 最初の層を凍結すると、最後の層より前に勾配を求めるパラメータがなくなります。そのため最初の層の入力は保存されず、`ReLU` も何も保存しません。保存されるのは、最後の層の重みの勾配を求めるのに必要な、最後の層の入力、つまり `ReLU` の出力（4バイトの値が 32 × 128個）だけです。
#
# - `counted=24576` は凍結する前の値です。凍結すれば、autograd が保存するものも変わります。
# - `counted=8192` は最初の層の入力（32 × 64個）の分ですが、凍結した層の入力は、勾配の計算に使わないので保存されません。
# - `counted=0` になるのは、勾配の計算対象となるパラメータが1つもないときだけです。
#
# 上のセルでは、保存される活性化値がバッチサイズに比例することも確かめました。どの活性化値もサンプル1件につき1行を持つので、バッチサイズを2倍にすると保存されるバイト数も2倍になります。重み、勾配、オプティマイザの状態は変わりません。
#
# ステップの途中でメモリ不足になったときの定番の対処法は、どれも活性化値の分を減らすものです。
#
# - バッチを小さくします。実質的なバッチサイズは、勾配累積で保ちます。
# - 活性化チェックポイント（`torch.utils.checkpoint`）を使います。順伝播で保存する活性化値を一部に絞り、保存しなかった分は逆伝播のときに計算し直す手法です。名前に「チェックポイント」とありますが、モデルの保存とは関係ありません。

# %% [markdown]
# 保存する量を減らす方法は、ほかに2つあります。
#
# - 学習しないなら逆伝播は行わないので、`torch.no_grad()` や `torch.inference_mode()` の中で実行すれば何も保存されません。ただし推論でも、重みのほかに、順伝播のピーク時に同時に存在する中間結果の分のメモリが必要です。テキストを生成するモデルでは、KV キャッシュも加わります。
# - `torch.autocast` は、行列積など autocast の対象となる演算を、精度の低い dtype で実行します（デフォルトは CUDA で `float16`、CPU で `bfloat16`）。これらの演算が保存する活性化値は、`float32` のときの半分のバイト数になります。
#
# `torch.autocast` では、層の入力へ勾配を流す必要がある場合、その層の重みの低精度のコピーも保存されます。次のセルでは `x` が勾配の計算対象ではないので、コピーが保存されるのは最後の層だけです。`device_type` には演算を実行するデバイスを指定します（`autocast(device_type="cuda")` は CPU 上の演算には効きません）。

# %% tags=["claim-F14"]
x = torch.randn(32, 64)
with torch.no_grad():
    no_grad = saved_bytes(mlp, x)
with torch.inference_mode():
    inference = saved_bytes(mlp, x)
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    autocast = saved_bytes(mlp, x)
    low = mlp(x).dtype
print(f"{no_grad=}, {inference=}, {autocast=}, {low=}")
assert no_grad == inference == 0
# 半分のサイズの活性化値と、最後の層の重みの bfloat16 のコピー
assert autocast == 32 * (64 + 128) * 2 + 128 * 10 * 2
assert low == torch.bfloat16
assert torch.get_autocast_dtype("cpu") == torch.bfloat16
assert torch.get_autocast_dtype("cuda") == torch.float16

with warnings.catch_warnings(record=True):  # CUDA がなければ無効だと警告する
    warnings.simplefilter("always")
    with torch.autocast(device_type="cuda"):
        elsewhere = mlp(x).dtype
print(f"{elsewhere=}")
assert elsewhere == torch.float32  # CPU 上の演算は float32 で実行された

# %% [markdown]
# `no_grad` と `inference_mode` で節約できるメモリは同じです。`inference_mode` ではさらに、このモードで作られる推論テンソル（`is_inference()` が真のテンソル）がバージョンカウンタを持たず、ビュー関係も記録されないため、演算ごとのコストが少し下がります。その代わり、autograd は推論テンソルを逆伝播のために保存できません。
#
# 評価や推論サーバーでの運用など、出力を学習に使わない場面では `inference_mode` が向いています。出力を学習に回す可能性があるなら、`no_grad` を選ぶか、ブロックの外で推論テンソルを `clone()` してください。

# %% tags=["claim-F14"]
layer = nn.Linear(4, 4)
with torch.no_grad():
    plain = layer(torch.randn(2, 4))
    plain_view = plain.view(-1)
with torch.inference_mode():
    inferred = layer(torch.randn(2, 4))
    inferred_view = inferred.view(-1)
print(f"{plain.is_inference()=}, {inferred.is_inference()=}")
print(f"{plain_view._is_view()=}, {inferred_view._is_view()=}")
assert not plain.is_inference() and inferred.is_inference()
assert plain_view._is_view() and not inferred_view._is_view()
assert plain._version == 0
with expect_error(RuntimeError, "do not track version counter"):
    inferred._version
with expect_error(RuntimeError, "cannot be saved for backward"):
    layer(inferred)
assert layer(inferred.clone()).requires_grad  # clone したものは通常のテンソル

# %% [markdown]
# ## どんなモデルでも使える見積もり
#
# 学習の1ステップに必要なメモリは、重み、勾配、オプティマイザの状態、活性化値の合計です。混合精度では、さらにマスター重みの分が要ります。このうち活性化値以外は、重みの dtype、オプティマイザ、混合精度の有無を決めれば、あとはパラメータ数に比例します。
#
# 推論中にメモリに置き続けるのは重みだけです（順伝播の実行中は、上で見たように中間結果もメモリに載ります）。学習では、これに次のものが加わります。
#
# - パラメータの勾配。dtype は重みと同じです。
# - オプティマイザの状態。モーメンタムなしの SGD にはなく、モーメンタム付きの SGD ではパラメータと同じサイズのテンソルが1つ（`momentum_buffer`）、Adam と AdamW では2つ（`exp_avg` と `exp_avg_sq`）です。
# - 混合精度なら、重みの `float32` のコピー（マスター重み）。モデルは16ビットで計算し、重みと勾配も16ビットで持ちます。オプティマイザは `float32` のコピーを更新し、状態も `float32` で持ちます。
#
# `float32` のマスター重みが必要なのは、重みよりずっと小さい更新を16ビットの重みに足すと、丸めで消えてしまうからです。次のセルで、各 dtype の `1` に `1e-4` を足して確かめます。
#
# 混合精度では、オプティマイザが読む `float32` の勾配は、更新の直前にパラメータのテンソルごとに16ビットの勾配から作られ、更新が済むと解放されます。同時に存在するのはパラメータのテンソル1つの分だけなので、見積もりには含めません。このあとの照合でも同じように扱います。16ビットの勾配の代わりに `float32` の勾配バッファを持つ実装（Megatron-LM など）では、パラメータ1つ（要素1つ）あたり2バイト増えます。
#
# `torch.autocast` も混合精度の一種ですが、重みは `float32` のままで、演算だけを16ビットで実行します。そのため下の `estimate` 関数では、混合精度なしの `float32` として数えてください。autocast で節約できるのは活性化値の分です。
#
# 活性化値はバッチサイズと層の構成によって変わり、パラメータの数だけでは決まりません。上で使った `saved_bytes` で、自分のモデルについて数えてください。
#
# `estimate` 関数は、活性化値以外の部分をバイト数で返します。次のセルでは、3種類の dtype、各オプティマイザ、混合精度の有無のすべての組み合わせについて、このページの小さなモデル（`make_mlp`）で実際に1ステップ実行します。そして `estimate` の値を、PyTorch が持つテンソルのバイト数と照らし合わせます。Adam がパラメータのテンソルごとに持つ要素1つの `step` は、テンソル1つあたり数バイトにすぎないので含めません。

# %% tags=["claim-F14"]
STATE_TENSORS = {"sgd": 0, "sgd-momentum": 1, "adam": 2}  # パラメータ1つあたり


def estimate(n_params, dtype=torch.float32, training=True, optimizer="adam",
             mixed=False):
    size = torch.empty(0, dtype=dtype).element_size()
    if not training:
        return {"weights": n_params * size, "gradients": 0, "optimizer": 0,
                "master": 0}
    state = 4 if mixed else size  # 混合精度：オプティマイザは float32 で計算
    master = 4 if mixed and size < 4 else 0  # 16ビットの重みの float32 コピー
    return {"weights": n_params * size, "gradients": n_params * size,
            "optimizer": STATE_TENSORS[optimizer] * n_params * state,
            "master": n_params * master}


def nbytes(tensors):
    return sum(t.nbytes for t in tensors)


def counted(model, dtype, make_optimizer, mixed):
    # 同じ部分を、1ステップ後に PyTorch が持つテンソルで数える
    weights = list(model.to(dtype).parameters())
    master = weights
    if mixed and dtype != torch.float32:
        master = [w.detach().float().requires_grad_() for w in weights]
    optimizers = [make_optimizer([m]) for m in master]  # 更新は1つずつ
    model(torch.randn(32, 64, dtype=dtype)).sum().backward()
    widest = 0  # 同時に存在する float32 の勾配の最大バイト数
    for m, w, optimizer in zip(master, weights, optimizers):
        if m is not w:
            m.grad = w.grad.float()  # 更新の直前に作り…
            widest = max(widest, sum(4 * p.numel() for p in master
                                     if p.grad is not None))
        optimizer.step()
        if m is not w:
            m.grad = None  # …更新のあとで解放する
            with torch.no_grad():
                w.copy_(m)  # 16ビットの重みをコピーに合わせる
    held = [t for o in optimizers for s in o.state.values()
            for k, t in s.items() if k != "step"]
    copies = [] if master is weights else master
    assert widest == max((4 * m.numel() for m in copies), default=0)
    assert all(m.grad is None for m in copies)
    return {"weights": nbytes(weights),
            "gradients": nbytes(w.grad for w in weights),
            "optimizer": nbytes(held),
            "master": nbytes(copies)}


OPTIMIZERS = [("sgd", lambda ps: torch.optim.SGD(ps, lr=0.1)),
              ("sgd-momentum",
               lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
              ("adam", torch.optim.Adam), ("adam", torch.optim.AdamW)]
DTYPES = [torch.float32, torch.bfloat16, torch.float16]
n = sum(p.numel() for p in make_mlp(64, 128, 10).parameters())
checked = 0
for dtype in DTYPES:
    for name, make_optimizer in OPTIMIZERS:
        for mixed in (False, True):
            model = make_mlp(64, 128, 10)
            parts = counted(model, dtype, make_optimizer, mixed)
            assert parts == estimate(n, dtype, True, name, mixed), parts
            checked += 1
    inference = {**parts, "gradients": 0, "optimizer": 0, "master": 0}
    assert estimate(n, dtype, training=False) == inference

lost = {str(d): bool(torch.ones((), dtype=d) + 1e-4 == 1) for d in DTYPES}
print(f"{checked=}, {lost=}")
assert lost == {"torch.float32": False, "torch.bfloat16": True,
                "torch.float16": True}

# %% [markdown]
# 計算例として、10億パラメータのモデルを Adam で学習する場合を、`float32` と、重みを `bfloat16` にした混合精度で比べます。次のセルは、活性化値を除いた各部分を GB（10⁹バイト）で、続けて合計をバイト、GB、GiB（2³⁰バイト）で表示します。

# %% tags=["claim-F14"]
fp32 = estimate(10**9, torch.float32, optimizer="adam")
mixed = estimate(10**9, torch.bfloat16, optimizer="adam", mixed=True)
for name, parts in [("fp32", fp32), ("mixed", mixed)]:
    gb = {part: n / 1e9 for part, n in parts.items()}
    total = sum(parts.values())
    print(f"{name}: {gb=}")
    print(f"{name}: {total=:,}, {total / 1e9=:.1f}, {total / 2**30=:.2f}")
assert sum(mixed.values()) == sum(fp32.values()) == 16 * 10**9
assert mixed["weights"] + mixed["gradients"] == mixed["master"]

# %% [markdown]
# 合計はどちらも 16 GB です。混合精度では、パラメータ1つあたりの重みと勾配がそれぞれ4バイトから2バイトに半減し、減った分を `float32` のマスター重み（4バイト）がちょうど埋め合わせます。Adam の状態はどちらも `float32`（8バイト）です。`float32` の勾配バッファを持つ実装なら、パラメータ1つあたり18バイト、合計 18 GB です。
#
# 重み、勾配、オプティマイザの状態だけで見れば、混合精度でも `float32` と同じだけの（実装によってはやや多くの）メモリが必要です。混合精度で減るのは、この合計に含まれていない活性化値のほうです。活性化値を足したうえで、下の GPU のセクションで見るように、アロケータとドライバが使う分の余裕も見込んでください。
#
# `estimate` をパラメータ数1で呼べば、設定ごとにパラメータ1つあたりのバイト数がわかります。`(dtype, training, optimizer, mixed)` ごとの、重み、勾配、オプティマイザの状態、マスター重みのバイト数を、次のセルで表示します。下のメモリ計算ツールは、この値に選んだパラメータ数を掛けます。ノートブックで実行している場合は、自分のモデルのパラメータ数で `estimate` を呼び出してください。

# %% tags=["calculator"]
settings = [(d, False, None, False) for d in DTYPES]
settings += [(d, True, o, m) for d in DTYPES for o in STATE_TENSORS
             for m in (False, True)]
for dtype, training, optimizer, mixed in settings:
    per_parameter = estimate(1, dtype, training, optimizer, mixed)
    key = (str(dtype).removeprefix("torch."), training, optimizer, mixed)
    print(f"{key}: {tuple(per_parameter.values())}")

# %% [markdown]
# ## GPU の場合：アロケータが報告する値
#
# CUDA GPU では、PyTorch はドライバから大きなセグメント単位でメモリを予約し、自前のキャッシングアロケータを通して割り当てます。
#
# - `torch.cuda.memory_allocated()`：アロケータがいま割り当てているバイト数。テンソルのほか、cuBLAS などのライブラリの作業領域も含みます。
# - `torch.cuda.memory_reserved()`：アロケータがドライバから予約しているバイト数（予約済みメモリ）。割り当て済みかどうかは問いません。
# - `torch.cuda.max_memory_allocated()`：プログラムの開始時から（`torch.cuda.reset_peak_memory_stats()` を呼んだ場合は、最後に呼んだ時点から）の `memory_allocated` の最大値。
# - `torch.cuda.mem_get_info()`：ドライバから見た、デバイスの空きメモリと総メモリのバイト数。総メモリから空きを引いたものが、`nvidia-smi` が使用中と表示する量のおおよその値です。この使用量は、すべてのプロセスの予約済みメモリに、各プロセスの CUDA コンテキストと、ほかのライブラリがドライバから直接確保した分を加えたものです。
#
# テンソルを解放すると、そのメモリはドライバではなくアロケータに戻ります。`memory_allocated` は減りますが、`memory_reserved` は減りません。
#
# `torch.cuda.empty_cache()` は、テンソルが1つも載っていないセグメントをドライバに返すだけで、テンソルを解放するわけではありません。アロケータはメモリ不足を報告する前に同じ処理を自動で行って再試行するので、手動で呼んでもメモリ不足を避けられることはほとんどありません。効果があるのは、ほかのプロセスのためにメモリを空けるときです。
#
# 予約済みメモリが、次の要求には小さすぎる空きブロックに分かれてしまい、使えないこともあります。これを断片化と呼びます。断片化を緩和するアロケータの設定と、リリースによって異なる環境変数の名前は、「[読み込み・環境・メモリのエラーを読み解く](09-setup-and-memory-errors.ipynb#cuda-out-of-memory)」の「CUDA out of memory」のセクションで説明します。
#
# このページが GPU で実行されたかどうかは、タイトルの下の行に表示されます。次のセルが検証する内容は、PyTorch のドキュメントとアロケータのソースに基づいています。出典の一覧は、このサイトのリポジトリにある `notebooks/gpu-evidence.yml` にまとめています。

# %% tags=["claim-F15", "gpu-only"]
if torch.cuda.is_available():
    torch.cuda.synchronize()
    base_alloc = torch.cuda.memory_allocated()
    block = torch.empty(4 * 2**20, dtype=torch.uint8, device="cuda")  # 4 MiB
    alloc = torch.cuda.memory_allocated() - base_alloc
    reserved = torch.cuda.memory_reserved()
    del block
    after_del = torch.cuda.memory_allocated() - base_alloc
    kept = torch.cuda.memory_reserved()
    torch.cuda.empty_cache()
    released = torch.cuda.memory_reserved()
    free, total = torch.cuda.mem_get_info()
    outside = (total - free) - released  # コンテキスト、ほかのプロセス
    print(f"{alloc=}, {reserved=}, {after_del=}, {kept=}, {released=}")
    print(f"{total - free=}, {outside=}")
    assert alloc == 4 * 2**20  # 512バイトの倍数なので切り上げはない
    assert reserved >= base_alloc + alloc
    assert after_del == 0
    assert kept == reserved  # 解放したメモリはアロケータに残る
    assert released <= kept
    assert total - free >= released
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# PyTorch 2.9 からは、同じ関数（`memory_allocated`、`memory_reserved`、`max_memory_allocated`、`reset_peak_memory_stats`、`empty_cache` など）が `torch.accelerator` にもあり、CUDA と XPU で使えます。PyTorch 2.6〜2.8 の `torch.accelerator` にはまだないので、バックエンドごとのモジュール（`torch.cuda` と `torch.xpu`）の同じ名前の関数を使います。
#
# 例外は Apple の `mps` です。`mps` のメモリ量を返す関数は、どのリリースでも独自の名前で、`current_allocated_memory()`（テンソルの分）と `driver_allocated_memory()`（キャッシュを含む、プロセスの Metal のメモリ全体）です。ほかのバックエンドと名前が共通なのは `torch.mps.empty_cache()` だけです。
#
# また、`torch.accelerator` のメモリ関数は、不具合（[pytorch#167447](https://github.com/pytorch/pytorch/issues/167447)）のため、`mps` では失敗するリリースがあります。この不具合は pytorch#186748 と #193838 で直されましたが、両方を含む最初のリリースは確認できていません。そのため次のセルは、まずバックエンド（`mps` かどうか）、次に PyTorch のリリースに応じて関数を選び、CUDA GPU があれば `torch.cuda` と同じバイト数を返すことを検証します。

# %% tags=["gpu-only"]
if torch.backends.mps.is_available():
    allocated = torch.mps.current_allocated_memory  # どのリリースでも
elif hasattr(torch.accelerator, "memory_allocated"):  # 2.9+
    allocated = torch.accelerator.memory_allocated
else:
    allocated = torch.cuda.memory_allocated
print(f"{allocated.__module__=}")
assert callable(torch.mps.current_allocated_memory)
assert callable(torch.mps.driver_allocated_memory)
assert callable(torch.mps.empty_cache)  # 共通の名前
assert hasattr(torch.accelerator, "memory_allocated") == (TORCH >= (2, 9))
if torch.cuda.is_available():
    block = torch.empty(2**20, dtype=torch.uint8, device="cuda")
    print(f"{allocated()=}, {torch.cuda.memory_allocated()=}")
    assert allocated() == torch.cuda.memory_allocated()
    if TORCH >= (2, 9):
        reserved = torch.accelerator.memory_reserved()
        assert reserved == torch.cuda.memory_reserved()
    del block
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# 最後のセルでは、実際の学習ステップで見積もりとアロケータの値を比べます。GPU 上に置いたモデルの重みは、テンソルごとに512バイトの倍数に切り上げて割り当てられます。
#
# 最初のステップでは、Adam の状態と cuBLAS の作業領域が作られます。2回目からは重みと Adam の状態が常にメモリにあるので、測るのは2回目のステップです。ステップの途中には、メモリの中身が確実にわかる時点が2つあります。順伝播の終わりには保存された活性化値が、逆伝播の終わりにはすべての勾配がメモリにあります。
#
# そこで、ステップ中のピークが活性化値と勾配のどちらの見積もりも下回らないこと、つまり各部分の見積もりが実測を超えないことを検証します。
#
# 2回目のステップのピークを見積もりの合計で割った比は、表示するだけで検証はしません。ピークには、順伝播・逆伝播・Adam の更新の途中で一時的に使うテンソルや作業領域も含まれますが、見積もりはこれらを含みません。メモリの計画は、見積もりの合計に余裕を持たせて立ててください。

# %% tags=["claim-F14", "gpu-only"]
if torch.cuda.is_available():
    gpu_model = gpu_optimizer = None  # もう一度実行しても最初から測る
    torch.cuda.empty_cache()
    start = torch.cuda.memory_allocated()
    gpu_model = make_mlp(1024, 4096, 1024).to("cuda")
    moved = torch.cuda.memory_allocated() - start
    rounded = sum((t.nbytes + 511) // 512 * 512
                  for t in [*gpu_model.parameters(), *gpu_model.buffers()])
    assert moved == rounded

    x = torch.randn(256, 1024, device="cuda")
    p = estimate(sum(t.numel() for t in gpu_model.parameters()))  # Adam
    activations = saved_bytes(gpu_model, x)
    gpu_optimizer = torch.optim.Adam(gpu_model.parameters())
    for step in range(2):  # 最初のステップで Adam の状態ができる
        gpu_optimizer.zero_grad()
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        gpu_model(x).sum().backward()
        gpu_optimizer.step()
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
    steady = base - start + peak
    total = sum(p.values()) + activations
    print(f"{moved=}, {rounded=}, {total=}, {steady=}")
    print(f"steady/total={steady / total:.2f}")
    assert base - start >= p["weights"] + p["optimizer"]
    assert peak >= activations and peak >= p["gradients"]
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## まとめ
#
# - 専用のストレージを持つテンソルは `numel() * element_size()` バイトを使います。ビューは元のテンソルのストレージ全体をメモリに残します。モデル自体が使うメモリは、パラメータとバッファのバイト数の合計です（`parameters()` と `buffers()` で数える）。`.half()` で半分になるのは浮動小数点数のテンソルだけです。
# - 大きなモデルは `torch.device("meta")` の中で作れば、メモリを使わずにバイト数を数えられます。実体化するには、`to_empty` のあとで初期化するか、`load_state_dict(..., assign=True)` でチェックポイントを読み込みます。後者では、`persistent=False` のバッファは `meta` に残ります。
# - 学習では、パラメータの勾配、オプティマイザの状態（Adam ならパラメータのテンソルごとに2つで、最初のステップで作られる）、保存される活性化値が加わります。活性化値は勾配の計算に必要なものだけが保存され、その量はバッチサイズに比例します。`no_grad` と `inference_mode` では何も保存されず、正しい `device_type` を指定した `autocast` では、行列積や畳み込みの分が精度の低い dtype で保存されます。
# - 活性化値以外のメモリは、dtype、オプティマイザ、混合精度の有無を決めれば、パラメータ数に比例します（`estimate` 関数で計算できます）。Adam では、`float32` のマスター重みを持つ混合精度も `float32` と同じくパラメータ1つあたり16バイトです（`float32` の勾配バッファを持つなら18バイト）。混合精度で減るのは活性化値です。
# - GPU では、`memory_allocated` はアロケータが割り当てている分を、`memory_reserved` はアロケータが予約している分を数えます。解放したメモリも、`empty_cache()` を呼ぶまでは予約済みのままです。

