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
# テンソルは必ずどれか1つのデバイス上に置かれます。デバイスには CPU や GPU のほか、`meta` のような特殊なものもあります。このページでは、テンソルを作成するデバイスの指定方法と、テンソルの場所の確認方法を説明します。以下のセルはすべて、GPU のないマシンでも実行できます。
#
# 「GPU での検証を含む」の印が付いたセルを GPU のないマシンで実行すると、GPU を使う部分を飛ばしてその理由（`torch.cuda.is_available()=False` など）を表示するか、GPU がない場合の動作を検証します。
#
# 最初の準備のセルでは、ヘルパー関数 `expect_error` も定義します。想定どおりのエラーを表示し、ノートブックを止めずに先へ進めるための関数です。

# %% [markdown] tags=["summary"]
# **結論**
#
# - テンソルは、使うデバイス上に直接作ります。ファクトリ関数（`torch.zeros`、`torch.randn`、`torch.tensor` など）に `device=` を渡せば、CPU で作ってからコピーする無駄が省けます。
# - テンソルの場所は `t.device` で確認します。判定には、`t.device` を `torch.device` と比較するか、`t.device.type` を `"cuda"` のような文字列と比較します。`t.device` を `"cpu"` などの文字列と直接比較すると、テンソルが CPU 上にあっても `False` になります。
#
# ```python
# device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
# x = torch.zeros(2, 3, device=device)
# assert x.device.type == device.type
# ```

# %% tags=["setup"]
import contextlib
import sys
import threading
import timeit
import types

import torch

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


print(torch.__version__)
print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## デバイスを指定する
#
# `torch.device` は、デバイスの種類（`cpu`、`cuda`、`mps`、`meta` など）と、省略可能なインデックスからなります。文字列から作成できるほか、PyTorch がデバイスを受け取る箇所ならどこでも、文字列をそのまま渡すこともできます。インデックスを省略した `cuda` は、特定の GPU ではなく「現在の CUDA デバイス」を指します。

# %%
cpu = torch.device("cpu")
gpu0 = torch.device("cuda:0")
gpu = torch.device("cuda")

print(repr(cpu), repr(gpu0), repr(gpu))
assert (gpu0.type, gpu0.index) == ("cuda", 0)
assert (gpu.type, gpu.index) == ("cuda", None)
assert torch.device("cuda", 1) == torch.device("cuda:1")

# %% [markdown]
# 文字列から `torch.device` を作成するときに検査されるのは表記だけです。ハードウェアの有無は問われないので、上のセルは GPU のないマシンでも動きます。ハードウェアが必要になるのは、そのデバイス上に実際にテンソルを作成するときです。
#
# ただし、整数だけを渡す場合は事情が異なります。`torch.device(0)` を呼んだ時点で、PyTorch は現在のアクセラレータが何かを調べます（詳しくは後述の[整数によるデバイス指定](#整数によるデバイス指定)を参照してください）。

# %% [markdown]
# ## ファクトリ関数の `device` 引数
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
# GPU 上にテンソルを作成するには、CUDA デバイスを渡します。インデックスなしの `cuda` を渡すと、テンソルは現在の CUDA デバイスに作成されます。次のセルは、GPU のあるマシンでこれを検証します。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    g = torch.ones(2, 3, device="cuda")
    print(g.device)
    assert g.device.type == "cuda"
    assert g.device.index == torch.cuda.current_device()
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## デバイス上に直接作成する
#
# GPU で使うテンソルは、最初から GPU 上に作成してください。`torch.randn(64, 3, device=device)` のように書きます。同じ形状のテンソルを `torch.randn(64, 3).to(device)` で用意すると、まず CPU メモリ上にテンソルを作って値を入れ、その後で GPU へコピーすることになります。`device=` を渡せば、CPU 上の一時的なテンソルも、CPU から GPU へのコピーも不要になります。
#
# 注意点が1つあります。CPU と CUDA では、乱数生成器のアルゴリズムが異なります。`torch.manual_seed(0)` で同じシードを設定しても、`torch.randn(3)` と `torch.randn(3, device="cuda")` は異なる値を返します。そのため、`torch.randn(3).to("cuda")` を `torch.randn(3, device="cuda")` に書き換えると、シードが同じでも得られる値が変わります。なお、どちらも同じデバイスで実行し直せば、毎回同じ値になります。

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
direct = torch.randn(64, 3, device=device)
print(f"{direct.device=}")
assert direct.device.type == device.type

torch.manual_seed(0)
on_cpu = torch.randn(1000)
torch.manual_seed(0)
# 同じシード、同じデバイスなら、同じ値がもう一度得られる
assert torch.equal(torch.randn(1000), on_cpu)

# %% [markdown]
# この注意点は、GPU のあるマシンなら次のセルで確かめられます。検証するのは、同じシードなら GPU 上でも毎回同じ値になることと、その値が CPU の値とは異なることの2点です。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    torch.manual_seed(0)  # CPU とすべての GPU のシードを設定する
    on_cpu = torch.randn(1000)
    torch.manual_seed(0)
    on_gpu = torch.randn(1000, device="cuda")
    torch.manual_seed(0)
    assert torch.equal(torch.randn(1000, device="cuda"), on_gpu)
    print(f"{torch.equal(on_gpu.cpu(), on_cpu)=}")
    # シードは同じでも乱数生成器が違うので、値も違う
    assert not torch.equal(on_gpu.cpu(), on_cpu)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## テンソルの場所を確認する
#
# テンソルがどのデバイスにあるかは `t.device` でわかります。`t.is_cuda` と `t.is_cpu` は、よく使う判定を簡潔に書くためのショートカットです。`is_cpu` は PyTorch 1.13 で追加されました（古いチュートリアルには「存在しない」と書かれていることがあります）。

# %% tags=["claim-O2"]
t = torch.randn(3)
print(t.device, t.is_cpu, t.is_cuda)
assert t.is_cpu and not t.is_cuda
assert t.device.type == "cpu"

# %% [markdown]
# テンソルの場所によって処理を分けるには、デバイスを比較します。CPU 上にあるかどうかを調べるつもりで、次の3通りの比較を書いてみます。

# %% [markdown] tags=["predict"]
# **予想：** `t` は CPU 上のテンソルです。`t.device == torch.device("cpu")`、`t.device == "cpu"`、`t.device.type == "cpu"` の3つの比較について、次のセルは順に何を表示するでしょうか。
#
# - `True True True`
# - `True False False`
# - `False False True`
# - `True False True`

# %%
print(t.device == torch.device("cpu"), t.device == "cpu",
      t.device.type == "cpu")

# %% tags=["answer"]
assert t.device == torch.device("cpu")
assert (t.device == "cpu") is False
assert t.device.type == "cpu"
assert torch.device("cuda:0") != torch.device("cuda")
assert torch.device("cuda:0").type == torch.device("cuda").type

# %% [markdown] tags=["answer"]
# **答え：** `True False True` です。`torch.device` どうしを比べれば正しく判定でき、`.type` は文字列なので文字列と比べられます。しかし、`torch.device` を文字列と比べても、等しくなることはありません。CPU 上のテンソルでも、`t.device == "cpu"` は `False` です。
#
# - `t.device` を表示すると `cpu` と出るので、`True True True` だと思った人は多いかもしれません。ところが `torch.device` と文字列は型が違うので、`==` は `False` を返します。
# - `True False False` は、`.type` の比較まで `False` になると考えた答えです。`.type` の値は文字列 `"cpu"` なので、文字列と比べれば素直に `True` になります。
# - `False False True` を選んだなら、`torch.device` どうしの比較も当てにならないと考えたのでしょう。実際には、CPU 上のテンソルの `t.device` は必ず `torch.device("cpu")` と等しくなります。
#
# デバイスを判定するときは `torch.device` と比較し、どの GPU でもよい場合は `.type` を文字列と比較してください。`torch.device("cuda:0")` と `torch.device("cuda")` は等しくありませんが、`.type` は同じです。

# %% [markdown]
# ## 整数によるデバイス指定
#
# 以前は `device=0` や `torch.device(0)` が `cuda:0` を意味していました。PyTorch 2.5 以降は、整数は「現在のアクセラレータの、その番号（インデックス）のデバイス」を表します。アクセラレータは CUDA とは限らず、Apple の MPS や Intel の XPU の場合もあります。
#
# そのため、文字列の場合とは違い、PyTorch は整数をデバイスに変換する時点で、現在のアクセラレータが何かを調べます。テンソルを作成するより前に、この変換の段階でエラーが発生することもあります。結果は、次の3つの場合に分かれます。
#
# - 使えるアクセラレータがあれば、`torch.device(0)` はそのアクセラレータの0番のデバイス（`cuda:0` など）になります。
# - CPU 専用ビルドの PyTorch では、`torch.device(0)`、`device=0`、`model.to(0)` のいずれも、使った時点で次のエラーになります。PyTorch 2.6 では、GPU などに対応したビルドでも、使えるアクセラレータがなければ同じです。
#
#   ```
#   RuntimeError: Cannot access accelerator device when none is available.
#   ```
#
#   このメッセージは「使えるアクセラレータがないので、アクセラレータのデバイスにアクセスできない」という意味です。
#
# - PyTorch 2.7 以降のアクセラレータ向けビルド（Colab の CPU ランタイムに入っている CUDA ビルドなど）では、アクセラレータがなくても、`torch.device(0)` を呼んだだけではエラーになりません。そのビルドが対象とするアクセラレータの0番のデバイス（CUDA ビルドなら `cuda:0`）が返され、エラーは、そのデバイス上にテンソルを作成した時点で初めて発生します。
#
# 次のセルは、このマシンがこの3つの場合のどれに当たるかを調べ、その場合に期待される結果を assert で検証します。

# %% tags=["claim-O1", "gpu-only"]
NO_ACCELERATOR = "Cannot access accelerator device when none is available"
usable = torch.accelerator.is_available()
# 2.7 以降の current_accelerator() は、ビルドが対象とするアクセラレータを
# 返す（なければ None）。2.6 では、使えるものがないと例外になる
built_for = None
if usable or TORCH >= (2, 7):
    built_for = torch.accelerator.current_accelerator()
print(f"{usable=}, {built_for=}")

if usable:
    x = torch.zeros(1, device=0)
    print(f"{torch.device(0)=}, {x.device=}")
    assert torch.device(0) == x.device == torch.device(built_for.type, 0)
elif built_for is None:
    with expect_error(RuntimeError, NO_ACCELERATOR):
        torch.device(0)
    with expect_error(RuntimeError, NO_ACCELERATOR):
        torch.zeros(1, device=0)
    with expect_error(RuntimeError, NO_ACCELERATOR):
        torch.nn.Linear(2, 2).to(0)
else:
    print(f"{torch.device(0)=}")
    assert torch.device(0) == torch.device(built_for.type, 0)
    # メッセージはドライバによって変わるので、型だけを検証する
    try:
        torch.zeros(1, device=0)
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
    else:
        raise AssertionError("expected RuntimeError")

# %% [markdown]
# ## デバイスを毎回指定せずにテンソルを作成する
#
# PyTorch 2.0 以降では、`device=` を省略したときにファクトリ関数が使うデフォルトのデバイスを変更できます。方法は2つあり、`with torch.device(...)` ブロックを使うか、`torch.set_default_device(...)` を呼びます。どちらの方法でも既存のテンソルが移動するわけではなく、`device=` を渡したときと同じく、新しいテンソルが最初からそのデバイス上に作成されます。
#
# 以下のセルでは、最後のセクションで説明する [`meta` デバイス](#meta-デバイス)を使います。そのため、どのマシンでも実行できます。

# %% [markdown] tags=["predict"]
# **予想：** `with torch.device("meta"):` の中で、`device=` なしのテンソルと `device="cpu"` 付きのテンソルを作り、ブロックを抜けてから `device=` なしでもう1つ作ります。次のセルは、この順にどのデバイスを表示するでしょうか。
#
# - `meta meta cpu`
# - `cpu cpu cpu`
# - `meta cpu cpu`
# - `meta cpu meta`

# %%
with torch.device("meta"):
    inside = torch.zeros(2)
    explicit = torch.zeros(2, device="cpu")

outside = torch.zeros(2)
print(inside.device, explicit.device, outside.device)

# %% tags=["claim-F6", "answer"]
assert inside.device.type == "meta"
assert explicit.device.type == "cpu"
assert outside.device.type == "cpu"

# %% [markdown] tags=["answer"]
# **答え：** `meta cpu cpu` です。ブロックが変えるのはデフォルトだけです。デバイスを指定せずに呼んだファクトリ関数は `meta` を使いますが、明示した `device="cpu"` はブロックの中でも優先されます。デフォルトはブロックを抜けると元に戻ります。
#
# - `meta meta cpu` と予想した場合は、呼び出しに書いた `device="cpu"` がブロックの指定より優先されることを見落としています。
# - ブロックはデフォルトを変えないと思って `cpu cpu cpu` を選んだ人もいるかもしれません。ブロックの中でデバイスを指定せずに作ったテンソルは、実際には `meta` に置かれます。
# - `meta cpu meta` の誤りは、ブロックを抜けた後もデフォルトが `meta` のままだと考えた点です。`with` の効果が続くのは、ブロックを実行している間だけです。

# %% [markdown]
# `torch.set_default_device` なら、ブロックを書かずに同じ設定ができます。効果はもう一度呼ぶまで続き、`None` を渡すと CPU に戻ります。このページのセルは `finally` で元に戻しているので、途中でエラーが起きても、以降のセルに設定が持ち越されることはありません。

# %% tags=["claim-F6"]
torch.set_default_device("meta")
try:
    made = torch.ones(3)
    print(made.device)
    assert made.device.type == "meta"
finally:
    torch.set_default_device(None)

assert torch.ones(3).device.type == "cpu"

# %% [markdown] tags=["predict"]
# **予想：** `torch.set_default_device("meta")` が効いている間に、現在のスレッドと新しいスレッドのそれぞれで `torch.zeros(2)` を呼び、さらに `torch.frombuffer` で既存のメモリ上にテンソルを作ります。次のセルは、この3つのテンソルのデバイスを順に表示します。どう表示されるでしょうか。
#
# - `meta meta meta`
# - `meta cpu cpu`
# - `meta meta cpu`
# - `meta cpu meta`

# %%
# このスレッドで作ったテンソル、新しいスレッドで作ったテンソル、
# 既存のメモリの上に作ったテンソルのデバイスを返す
def three_devices():
    in_thread = []
    worker = threading.Thread(
        target=lambda: in_thread.append(torch.zeros(2).device.type))
    worker.start()
    worker.join()
    wrapped = torch.frombuffer(bytearray(8), dtype=torch.float32)
    return torch.zeros(2).device.type, *in_thread, wrapped.device.type


torch.set_default_device("meta")
try:
    with_default = three_devices()
finally:
    torch.set_default_device(None)
print(*with_default)

# %% tags=["claim-F6", "answer"]
here, in_thread, wrapped = with_default
assert here == "meta"
assert in_thread == "cpu"  # 新しいスレッドにはデフォルトが効いていない
assert wrapped == "cpu"

# %% [markdown] tags=["answer"]
# **答え：** `meta cpu cpu` です。デフォルトのデバイスは、設定したスレッドにしか効きません。新しいスレッド（データ読み込み用のスレッドや Web サーバーのワーカーなど）では、テンソルは CPU 上に作成されます。また、`torch.frombuffer` は CPU 上にすでにあるバッファのメモリをそのまま使います。新たにメモリを確保しないので、デフォルトのデバイスも適用されません。`torch.from_numpy` も同じです（後のセルで検証します）。
#
# - `meta meta meta` は、デフォルトがどこにでも効くと考えた答えです。実際には、ほかのスレッドにも、既存のメモリをそのまま使う `frombuffer` にも効きません。
# - `meta meta cpu` を選んだなら、`frombuffer` だけはデフォルトに従わないことには気づいたものの、デフォルトをプロセス全体に効く設定だと考えたのでしょう。
# - `meta cpu meta` は逆に、`frombuffer` までデフォルトに従うと考えた場合の答えです。

# %% [markdown]
# `with torch.device(...)` ブロックにも同じ制限があります。どちらも内部では、`DeviceContext`（`torch.utils._device`）というオブジェクトをスレッドごとに登録する仕組みで動いているからです。
#
# 2つの書き方の主な違いは、有効範囲です。
#
# - ブロックで設定したデフォルトは、ブロックの終わりで元に戻ります。どこまで有効かはコードを見ればわかります。
# - `set_default_device` は、もう一度呼ぶまで、そのスレッドがその後に実行するすべてのコード（ライブラリのコードも含む）に効きます。
#
# どちらの書き方にも、もう1つ共通の注意点があります。設定している間は、ファクトリ関数に限らず、Python から torch の関数を呼ぶたびにオーバーヘッドがかかります（`torch.set_default_device` のドキュメントにも注意書きがあります）。`with torch.device(...)` ブロックの中の呼び出しも、同じ `DeviceContext` を経由します。
#
# 次のセルで確かめるのは、以下の3つです。
#
# - `with` ブロックの中で作った、同じ3つのテンソルのデバイス
# - （NumPy があれば）両方の書き方での `torch.from_numpy` の結果
# - 要素数4のテンソルに対する `add` の実行時間（設定なし、`with` ブロックの中、`set_default_device` の後）。時間は設定なしに対する倍率で表示します。ばらつきが大きいので、倍率は assert では検証しません。

# %% tags=["claim-F6"]
with torch.device("meta"):
    in_block = three_devices()
print(*in_block)
assert in_block == ("meta", "cpu", "cpu")

try:
    import numpy
except ImportError:
    numpy = None
if numpy is not None:
    with torch.device("meta"):
        from_block = torch.from_numpy(numpy.zeros(2))
    torch.set_default_device("meta")
    try:
        from_default = torch.from_numpy(numpy.zeros(2))
    finally:
        torch.set_default_device(None)
    print(f"{from_block.device=}, {from_default.device=}")
    assert from_block.device.type == from_default.device.type == "cpu"
else:
    print(f"{numpy=}")

x = torch.ones(4, device="cpu")


def time_add():
    return min(timeit.repeat(lambda: x.add(1), number=2000, repeat=5))


plain_s = time_add()
with torch.device("meta"):
    block_s = time_add()
torch.set_default_device("meta")
try:
    set_s = time_add()
finally:
    torch.set_default_device(None)
print(f"{block_s / plain_s=:.2f}, {set_s / plain_s=:.2f}")

# %% [markdown]
# 使い分けは、デフォルトを効かせたい範囲で決めます。1回の呼び出しだけなら `device=`、コード上で有効範囲がはっきりしたまとまりには `with torch.device(...)` が向いています。`torch.set_default_device` は、1つのスレッドで動くスクリプトやノートブックだけにとどめてください。
#
# このセクションの最後に、`with torch.device("cuda"):` の中で呼んだ `torch.randn` が CUDA テンソルを作成することを、GPU のあるマシンで確かめます。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    with torch.device("cuda"):
        w = torch.randn(4, 4)
    print(w.device)
    assert w.is_cuda
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## `meta` デバイス
#
# `meta` テンソルは形状とデータ型（dtype）を持ちますが、データは持ちません。そのためメモリを消費せず、どのマシンでも作成できます。モデルの出力の形状を事前に調べるといった用途に便利です。このチュートリアルの後のページでも、GPU が手元にないときに、デバイス間の移動でテンソルがどうなるかを示すために使います。
#
# ただし、気をつけることが2つあります。まず、データがないので要素の値は表示できません。また、GPU の代わりに `meta` で動作を確かめた場合、エラーメッセージが GPU で実行したときと同じになるとは限りません。

# %% tags=["claim-F7"]
m = torch.empty(1000, 1000, device="meta")
print(m)
assert m.shape == (1000, 1000) and m.dtype == torch.float32
assert m.is_meta

# %% [markdown]
# `meta` テンソルに対して `tolist()` のように値を読み出す操作をすると、エラーになります。次のセルのメッセージは「`meta` テンソルからはコピーできない。データがない」という意味です。

# %%
with expect_error(NotImplementedError, "no data"):
    m.tolist()

# %% [markdown]
# ## まとめ
#
# - テンソルは使うデバイス上に作成します。ファクトリ関数に `device=` を渡すか、コードを `with torch.device(...)` ブロックの中に書けば、CPU からのコピーは不要です。なお、同じシードでも、CPU と CUDA では得られる乱数が異なります。
# - `with torch.device(...)` と `torch.set_default_device` で変えたデフォルトは、設定したスレッドにしか効かず、`with` ならブロックの終わりまで、`torch.set_default_device` ならもう一度呼ぶまで続きます。`torch.frombuffer` と `torch.from_numpy` は、このデフォルトを無視します。
# - デフォルトを設定している間は、Python から torch の関数を呼ぶたびにオーバーヘッドが加わります。
# - テンソルの場所は `.device` で確認します。`.is_cpu` と `.is_cuda` はそのショートカットです。デバイスの判定では、`t.device` を `torch.device` と比較するか、`.type` を文字列と比較します。`t.device` を文字列と直接比較しても、正しく判定できません。
# - デバイスを整数で指定すると、現在のアクセラレータのその番号のデバイスになります。CUDA のデバイスとは限りません。PyTorch がどのアクセラレータ向けにもビルドされていない場合は、`torch.device(0)` を呼んだ時点でエラーが発生します。PyTorch 2.6 では、アクセラレータ向けのビルドでも、使えるアクセラレータがなければ同じエラーになります。
# - `meta` テンソルは形状を持ちますがデータは持たず、どのマシンでも作成できます。
