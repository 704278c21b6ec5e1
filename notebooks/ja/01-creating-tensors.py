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
# テンソルは必ずどれか1つのデバイス上に置かれます。CPU、GPU、あるいは `meta` のような特殊なデバイスです。このページでは、テンソルをどこに作成するかを指定する方法と、テンソルがどこにあるかを確認する方法を説明します。以下のセルはすべて GPU のないマシンでも実行できます。GPU が必要なセルは、検証を実行する代わりに、満たされなかった条件を `torch.cuda.is_available()=False` のような形で表示します。
#
# 最初のセルでは `expect_error` も定義します。このページでは、エラーを表示したうえでノートブックを先に進めるためにこれを使います。

# %% tags=["setup"]
import contextlib
import sys
import threading
import timeit
import types

import torch

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


print(torch.__version__)
print(f"{torch.cuda.is_available()=}")

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
# 文字列から `torch.device` を作成するときにチェックされるのは表記だけで、ハードウェアの有無は確認されません。そのため、上のセルは GPU のないマシンでも動きます。ハードウェアが必要になるのは、そのデバイス上に実際にテンソルを作成するときです。ただし、整数だけを渡す場合は事情が異なります。`torch.device(0)` は、マシンにどのアクセラレータがあるかを問い合わせます（後述の「整数によるデバイス指定」を参照）。

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
# GPU 上にテンソルを作成するには、CUDA デバイスを渡します。このセルには NVIDIA の GPU が必要です。GPU のないマシンでは `torch.cuda.is_available()=False` と表示するだけです。

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
# GPU で使うテンソルは、最初から GPU 上に作成してください。`torch.randn(64, 3, device=device)` のように書きます。代わりに `torch.randn(64, 3).to(device)` と書くと、まず CPU メモリ上のテンソルに値を入れ、それを GPU へコピーすることになります。`device=` を渡せば、CPU 上のテンソルもホストからデバイスへのコピーも不要になります。
#
# 注意点が1つあります。CPU と CUDA の乱数生成器は別のアルゴリズムです。同じ `torch.manual_seed(0)` の後でも、`torch.randn(3)` と `torch.randn(3, device="cuda")` は異なる値を返します。どちらもそれぞれのデバイス上では再現性があり、再実行すれば同じ値になりますが、GPU 上で直接作成したテンソルは、CPU で作成してから移動する書き方で得た値とは一致しません。

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
direct = torch.randn(64, 3, device=device)
print(f"{direct.device=}")
assert direct.device.type == device.type

torch.manual_seed(0)
on_cpu = torch.randn(1000)
torch.manual_seed(0)
assert torch.equal(torch.randn(1000), on_cpu)  # 同じシード、同じデバイスなら同じ値

# %% [markdown]
# 次のセルでは2つの乱数生成器を比較します。CUDA GPU が必要で、GPU のないマシンでは `torch.cuda.is_available()=False` と表示するだけです。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    torch.manual_seed(0)  # CPU とすべての GPU のシードを設定する
    on_cpu = torch.randn(1000)
    torch.manual_seed(0)
    on_gpu = torch.randn(1000, device="cuda")
    torch.manual_seed(0)
    assert torch.equal(torch.randn(1000, device="cuda"), on_gpu)
    print(f"{torch.equal(on_gpu.cpu(), on_cpu)=}")
    assert not torch.equal(on_gpu.cpu(), on_cpu)  # シードは同じでも乱数生成器が違う
else:
    print(f"{torch.cuda.is_available()=}")

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

# %% [markdown] tags=["predict"]
# **予想：** `t` は CPU 上のテンソルです。`t.device == torch.device("cpu")`、`t.device == "cpu"`、`t.device.type == "cpu"` の3つの比較について、次のセルは何を表示するでしょうか。
#
# - `True True True`：これだとデバイスが文字列 `"cpu"` と等しいことになりますが、そうはなりません。
# - `True False True`：デバイスは `torch.device` どうしで比べれば等しくなり、`.type` は文字列です。デバイスそのものが文字列 `"cpu"` と等しくなることはありません。
# - `True False False`：`.type` は文字列 `"cpu"` なので、最後の比較は `True` になります。

# %%
print(t.device == torch.device("cpu"), t.device == "cpu", t.device.type == "cpu")
assert t.device == torch.device("cpu")
assert (t.device == "cpu") is False
assert torch.device("cuda:0") != torch.device("cuda")
assert torch.device("cuda:0").type == torch.device("cuda").type

# %% [markdown]
# ## 整数によるデバイス指定
#
# 以前は `device=0` や `torch.device(0)` が `cuda:0` を意味していました。torch 2.5 以降、整数は「現在のアクセラレータ上の、そのインデックスのデバイス」を意味します。アクセラレータは CUDA とは限らず、Apple の MPS や Intel の XPU の場合もあります。つまり文字列とは違い、整数をデバイスに変換するときには PyTorch にどのアクセラレータがあるかを問い合わせるので、テンソルを作成する前の段階で失敗することがあります。
#
# - 使えるアクセラレータがあれば、`torch.device(0)` はそのインデックス 0（`cuda:0` など）になります。
# - アクセラレータのないマシンでは、`torch.device(0)` そのものが `RuntimeError: Cannot access accelerator device when none is available.` を送出します（`device=0` や `model.to(0)` も同様です）。
# - 例外が1つあります。torch 2.7 以降では、アクセラレータ向けにビルドされた PyTorch をアクセラレータのないマシンで使うと（たとえば Colab の CPU ランタイム上の CUDA ビルド）、ビルドが対応しているアクセラレータが返ります。このとき `torch.device(0)` は `cuda:0` になり、エラーはそこにテンソルを作成した時点で初めて発生します。
#
# セルでは、このマシンがどの場合に当たるかを調べ、その場合の結果を assert で検証します。

# %% tags=["claim-O1", "gpu-only"]
usable = torch.accelerator.is_available()
# 2.7 以降の current_accelerator() は、ビルドが対応しているアクセラレータを返す（なければ None）。
# 2.6 では使えるアクセラレータがないと例外になるので、問い合わせるのは 2.7 以降だけにする
built_for = torch.accelerator.current_accelerator() if usable or TORCH >= (2, 7) else None
print(f"{usable=}, {built_for=}")

if usable:
    x = torch.zeros(1, device=0)
    print(f"{torch.device(0)=}, {x.device=}")
    assert torch.device(0) == x.device == torch.device(built_for.type, 0)
elif built_for is None:
    with expect_error(RuntimeError, "Cannot access accelerator device when none is available"):
        torch.device(0)
    with expect_error(RuntimeError, "Cannot access accelerator device when none is available"):
        torch.zeros(1, device=0)
    with expect_error(RuntimeError, "Cannot access accelerator device when none is available"):
        torch.nn.Linear(2, 2).to(0)
else:
    print(f"{torch.device(0)=}")
    assert torch.device(0) == torch.device(built_for.type, 0)
    try:
        torch.zeros(1, device=0)
    except RuntimeError as err:  # メッセージはドライバによって変わるので、型だけを確認する
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
    else:
        raise AssertionError("expected RuntimeError")

# %% [markdown]
# ## デバイスを毎回書かずに作成する
#
# torch 2.0 以降では、ファクトリ関数が使うデフォルトのデバイスを変更できます。`with` ブロックの中だけで変更する方法と、`torch.set_default_device` で変更する方法があります。既存のテンソルが移動するわけではなく、`device=` を渡したときと同じく、テンソルが最初からそのデバイス上に作成されます。`device=` を明示した場合は、そちらが優先されます。最後の節で説明する `meta` デバイスを使うので、以下のセルはどのマシンでも実行できます。

# %% [markdown] tags=["predict"]
# **予想：** `with torch.device("meta"):` の中で、`device=` なしのテンソルと `device="cpu"` 付きのテンソルを作り、ブロックを抜けてからもう1つ作ります。セルはこの順にどのデバイスを表示するでしょうか。
#
# - `meta meta cpu`：これだとブロックが明示的な `device=` まで上書きすることになりますが、そうはなりません。
# - `meta cpu meta`：これだとデフォルトがブロックの後まで残ることになりますが、`with` はブロックを抜けるときに元のデフォルトに戻します。
# - `meta cpu cpu`：ブロックが変えるのはデフォルトだけです。ブロック内でも明示した `device="cpu"` が優先され、デフォルトはブロックを抜けると元に戻ります。

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
# `torch.set_default_device` は、見た目ほど広くは効かず、コストもかかります。
#
# - 効果があるのは、呼び出したスレッドだけです。新しいスレッド（データ読み込み用のスレッドや Web サーバーのワーカーなど）では、テンソルは CPU 上に作成されます。
# - 既存のメモリをそのまま使う関数は新たにメモリを確保しないので、デフォルトのデバイスは適用されません。`torch.frombuffer` と `torch.from_numpy` は CPU 上のテンソルを返します。
# - ドキュメントには、ファクトリ関数に限らず、torch API へのすべての Python 呼び出しにわずかなコストが加わるという警告があります。セルでは、このマシンで小さな `add` の実行時間を設定ありとなしで計測し、その比を表示します。実行時間はばらつくので、この比については何も assert しません。
#
# プログラム全体では、`device=` を渡す（あるいはブロックを `with torch.device(...)` で囲む）ほうが明示的で、こうした思わぬ挙動もありません。

# %% [markdown] tags=["predict"]
# **予想：** `torch.set_default_device("meta")` が効いている間に、新しいスレッドで `torch.zeros(2)` を作ったとします。セルが表示する `seen_by_thread`（そのスレッドで作ったテンソルのデバイス）はどれでしょうか。
#
# - `[device(type='cpu')]`：デフォルトのデバイスはスレッドごとの設定なので、新しいスレッドは CPU 上にテンソルを作ります。
# - `[device(type='meta')]`：これだとデフォルトがプロセス全体に効くことになりますが、効くのは設定したスレッドだけです。

# %% tags=["claim-F6"]
torch.set_default_device("meta")
try:
    here = torch.zeros(2)
    seen_by_thread = []
    worker = threading.Thread(target=lambda: seen_by_thread.append(torch.zeros(2).device))
    worker.start()
    worker.join()
    shared = torch.frombuffer(bytearray(8), dtype=torch.float32)
    print(f"{here.device=}, {seen_by_thread=}, {shared.device=}")
    assert here.device.type == "meta"
    assert seen_by_thread == [torch.device("cpu")]  # 新しいスレッドにはデフォルトが効いていない
    assert shared.device.type == "cpu"

    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        from_numpy = torch.from_numpy(numpy.zeros(2))
        print(f"{from_numpy.device=}")
        assert from_numpy.device.type == "cpu"
    else:
        print(f"{numpy=}")

    x = torch.ones(4, device="cpu")
    with_default = min(timeit.repeat(lambda: x.add(1), number=2000, repeat=5))
finally:
    torch.set_default_device(None)

without_default = min(timeit.repeat(lambda: x.add(1), number=2000, repeat=5))
print(f"{with_default / without_default=:.2f}")

# %% [markdown]
# `with` を使う書き方は GPU でも同じように使えます。`with torch.device("cuda"):` の中では、ファクトリ関数は CUDA テンソルを作成します。GPU のないマシンでは、このセルは `torch.cuda.is_available()=False` と表示します。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    with torch.device("cuda"):
        w = torch.randn(4, 4)
    print(w.device)
    assert w.is_cuda
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## meta デバイス
#
# `meta` 上のテンソルは形状と dtype を持ちますが、データは持ちません。そのためメモリを消費せず、どのマシンでも作成できます。モデルからどんな形状の出力が得られるかを事前に調べるといった用途に便利で、このサイトでは GPU が手元にないときに移動の仕組みを示すためにも使います。ただし、できないこともあります。表示できる値はありませんし、エラーメッセージは GPU の場合と同じになるとは限りません。

# %% tags=["claim-F7"]
m = torch.empty(1000, 1000, device="meta")
print(m)
assert m.shape == (1000, 1000) and m.dtype == torch.float32
assert m.is_meta


# %%
with expect_error(NotImplementedError, "no data"):
    m.tolist()

# %% [markdown]
# ## まとめ
#
# - テンソルは使う場所に作成します。ファクトリ関数に `device=` を渡す（CPU からのコピーが不要）か、ブロックを `with torch.device(...)` で囲みます。同じシードでも、CPU と CUDA では異なる乱数が得られます。
# - `torch.set_default_device` が効くのは1つのスレッドだけで、`torch.from_numpy` には無視され、torch のすべての呼び出しにわずかなコストが加わります。
# - テンソルの場所は `.device` で確認します。`.is_cpu` と `.is_cuda` はそのショートカットです。
# - 整数で指定したデバイスは現在のアクセラレータ上のインデックスを表し、CUDA とは限りません。アクセラレータがなければ、`torch.device(0)` そのものがエラーになります。
# - `meta` テンソルは形状を持ちますがデータは持たず、どのマシンでも動きます。
