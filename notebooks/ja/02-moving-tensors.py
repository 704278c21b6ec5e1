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
# # テンソルの移動
#
# テンソルを移動するには `t.to(...)` か、そのショートカットである `t.cuda()`・`t.cpu()` を使います。3つとも同じルールに従いますが、そのルールには意外な点が1つあります。最初の2つの「予想」で、基本のルールと意外な点を順に確かめます。どの「予想」でも、結果に見当をつけてから実行してみてください。
#
# このページで扱うのはテンソルです。`nn.Module.to` は別のルールに従うので、[モデルの移動](03-moving-models.ipynb)のページで説明します。
#
# どのセルも CPU だけのマシンで実行できます。「GPU での検証を含む」セルは、GPU がなければ GPU を使う部分を飛ばして `torch.cuda.is_available()=False` と表示するか、GPU がないときの動作を検証します。
#
# 最初のセルでは、ヘルパー関数 `expect_error` も定義します。想定どおりのエラーが出たときにそのエラーを表示して、ノートブックを止めずに先へ進めるための関数です。

# %% [markdown] tags=["summary"]
# **結論**
#
# - `t.to(device)` は `device` 上のテンソルを返し、`t` 自体は元の場所に残ります。`t.cuda()` と `t.cpu()` も同じです。GPU があるのに `.to(device)` の後もテンソルが CPU にあるなら、戻り値を代入し忘れている可能性があります。`t = t.to(device)` と書いてください。
# - `t` がすでに移動先のデバイスにあれば、`to` はコピーではなく `t` そのものを返します。独立したコピーが必要なら `clone()` か `copy=True` を使います。
#
# ```python
# x = torch.ones(3)
# x = x.to(device)
# ```

# %% tags=["setup"]
import contextlib
import sys
import time
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


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## 移動すると元のテンソルはどうなるか
#
# GPU がなくても、どの PyTorch ビルドにもある `meta` デバイスを使えば、移動の様子を確かめられます。`meta` テンソルは形状と dtype を持ちますが、データは持ちません。

# %% [markdown] tags=["predict"]
# **予想：** `x` は CPU 上にあります。`m = x.to("meta")` の後、`print(x.device, m.device)` は何を表示するでしょうか。
#
# - `meta meta`
# - `cpu meta`
# - `cpu cpu`

# %%
x = torch.arange(4.0)
m = x.to("meta")
print(x.device, m.device)

# %% tags=["claim-F7", "answer"]
print(m)
assert m is not x
assert x.device.type == "cpu"  # 元のテンソルは CPU に残っている
assert m.device.type == "meta"
assert m.shape == x.shape and m.dtype == x.dtype

# %% [markdown] tags=["answer"]
# **答え：** `cpu meta` です。`to` は `meta` 上の新しいテンソルを返し、`x` は元の場所に残ります。上のセルでは、`m` が `x` と同じ形状と dtype を持つ別のテンソルであることも検証しています。
#
# - `to` が `x` そのものを動かすと思って `meta meta` を選んだ人もいるでしょう。モデルの `to` ならそうなりますが、テンソルの `to` は違います。
# - `cpu cpu` を選んだ場合は、戻り値の `m` まで CPU にあると考えたことになります。しかし `m` は、`to` が `meta` 上に新しく作ったテンソルです。
#
# `to` は元のテンソルを動かさないので、戻り値を必ず受け取ってください。たいていは同じ変数に代入し直します（`t = t.to(device)`）。

# %% [markdown]
# `meta` テンソルにはデータがないため、`meta` で確かめられるのは移動の前後でテンソルがどうなるかだけです。移動にかかるコストはわかりません。`x.to("meta")` では実際には何もコピーされず、`meta` テンソルを CPU へ戻すこともできません。次のセルのエラーメッセージは、「`meta` テンソルからはコピーできない。データがない」という意味です。

# %% tags=["claim-F7"]
with expect_error(NotImplementedError, "no data"):
    m.cpu()
assert m.is_meta

# %% [markdown]
# ## ショートカットの `cuda()` と `cpu()`
#
# `t.cuda()` は `t.to("cuda")` と同じく、現在の CUDA デバイス上のテンソルを返します。`t.cuda(i)` なら `cuda:i` 上のテンソルです。`t.cpu()` は `t.to("cpu")` に当たります。どれも `to` のルールに従います。
#
# GPU があれば、以下のコードで `x.cuda()` を使って GPU 上にコピーを作り、そのコピーに対して `cpu()` を呼び出して CPU 上のテンソルを得ます。どちらの呼び出しも新しいテンソルを返すこと、`x` 自体は CPU に残ったままであることを検証します。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    g = x.cuda()
    back = g.cpu()
    print(x.device, g.device, back.device)
    assert g.device == torch.device("cuda", torch.cuda.current_device())
    assert g.device == x.to("cuda").device
    assert x.cuda(0).device == torch.device("cuda", 0)
    assert x.device.type == "cpu"  # 元のテンソルは CPU に残っている
    assert back is not x and torch.equal(back, x)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## すでにそのデバイスにあるテンソルを移動する
#
# 学習コードでは、すでに移動先のデバイスにあるかもしれないテンソルを移動する行がよく出てきます。デバイスも dtype も指定どおりのテンソルに対して、`to` は何をするのでしょうか。

# %% [markdown] tags=["predict"]
# **予想：** `a` はすでに `device` 上にあります。次のセルは `b = a.to(device)` を実行し、`b[0]` に `1.0` を書き込みます。そのうえで、`b` が `a` と同じオブジェクトかどうかと、`a[0]` の値を表示します。出力はどれでしょうか。
#
# - `b is a=False, a[0].item()=0.0`
# - `b is a=True, a[0].item()=1.0`
# - `b is a=False, a[0].item()=1.0`

# %%
a = torch.zeros(3, device=device)
b = a.to(device)
b[0] = 1.0
print(f"{b is a=}, {a[0].item()=}")

# %% tags=["claim-F1", "gpu-only", "answer"]
assert b is a
assert a[0].item() == 1.0  # b への書き込みで a が変わった
assert a.to(a.dtype) is a
assert a.to(device, torch.float32) is a
same = a.cuda() if a.is_cuda else a.cpu()
assert same is a
images = torch.zeros(2, 3, 4, 5, device=device)
# すでに指定どおりのメモリフォーマットなら、テンソル自身が返る
assert images.to(memory_format=torch.contiguous_format) is images
# メモリフォーマットを変える場合はコピーが作られ、要素を並べ替えたテンソルが返る
rearranged = images.to(memory_format=torch.channels_last)
assert rearranged is not images and rearranged.data_ptr() != images.data_ptr()
assert rearranged.is_contiguous(memory_format=torch.channels_last)

# %% [markdown] tags=["answer"]
# **答え：** `b is a=True, a[0].item()=1.0` です。何も変える必要がないため、`to` は `a` そのものを返します。`b` はコピーではないので、`b` に書き込むことは `a` に書き込むことと同じです。
#
# - `b is a=False, a[0].item()=0.0` は、`to` が毎回コピーを作ると考えた答えです。しかし、変えるものが何もなければコピーは作られません。
# - `b is a=False, a[0].item()=1.0` を選んだなら、ビューのように `a` とメモリを共有する別のオブジェクトを思い浮かべたのでしょう。惜しいのですが、返るのは別のオブジェクトではなく `a` そのもので、`b is a` は `True` になります。
#
# ショートカットも同じで、CPU 上のテンソルに対して `t.cpu()` を呼んでも、現在の GPU 上にあるテンソルに対して `t.cuda()` を呼んでも、テンソルそのものが返ります。`t.cuda()` のほうは、上のセルを GPU のあるマシンで実行したときだけ検証されます。
#
# `to` がコピーするのは、デバイス、dtype、指定したメモリフォーマットのいずれかが変わるときと、`copy=True` を渡したときだけです。たとえば、標準のメモリフォーマット（`torch.contiguous_format`）の4次元テンソルに対して `t.to(memory_format=torch.channels_last)` を呼び出すと、要素を並べ替えたコピーが返ります。

# %% [markdown]
# ## コピーを強制する
#
# 独立したテンソルが必要なら、コピーを明示的に作ります。`t.to(device, copy=True)` は常に新しいテンソルを返し、`t.clone()` は同じデバイス上にコピーを作ります。

# %% tags=["claim-F1"]
c = a.to(device, copy=True)
c[1] = 5.0
print(a)
print(c)
assert c is not a
assert a[1].item() == 0.0  # コピーは元のテンソルと独立している
d = a.clone()
assert d is not a and d.device == a.device

# %% [markdown]
# `cuda()` と `cpu()` には `copy` 引数がありません。`to(..., copy=True)` か `clone()` を使ってください。`copy=True` を渡したときのメッセージ `got an unexpected keyword argument 'copy'` は、想定外のキーワード引数 `copy` が渡されたことを知らせています。

# %% tags=["claim-F1"]
for method in (a.cuda, a.cpu):
    with expect_error(TypeError, "copy"):
        method(copy=True)
assert a.to(device, copy=True) is not a

# %% [markdown]
# ### ビューを移動する
#
# `base[2:4]` のようなスライスはビューで、`base` とストレージを共有しています。このビューに別のデバイスを指定して `to` を呼ぶと、ビューの要素だけを収めた、専用のストレージを持つ新しいテンソルが返ります。戻り値はビューではないため、戻り値と `base` のどちらに書き込んでも、もう一方は変わりません。
#
# いまと同じデバイスを指定した場合は、`to` がビューそのものを返すため、`base` とのストレージの共有も続きます。以下の例では移動先に `meta` デバイスを使うので、どのマシンでも実行できます。

# %%
base = torch.arange(6.0)
view = base[2:4]
stay = view.to("cpu")
moved = view.to("meta")
print(f"{stay is view=}, {moved._base is None=}")
print(f"{moved.untyped_storage().nbytes()=}")
assert view._base is base and stay is view
assert stay.data_ptr() == base.data_ptr() + 2 * base.element_size()
assert moved._base is None and not moved._is_view()
assert moved.storage_offset() == 0
# 6要素ではなく2要素分
assert moved.untyped_storage().nbytes() == view.numel() * view.element_size()

# %% [markdown]
# ## デバイスと dtype を一度に変える
#
# `to` にはデバイスと dtype を一度に指定できます。位置引数で渡すときはデバイスを先に書きます。キーワード引数を使ってもかまいません。

# %%
t = torch.arange(3)
u = t.to(device, torch.float16)
v = t.to(dtype=torch.float16, device=device)
print(t.dtype, u.dtype, v.dtype)
print(u.device, v.device)
assert t.dtype == torch.int64  # t 自体は変わらない
assert u.dtype == v.dtype == torch.float16
assert u.device.type == v.device.type == device.type

# %% [markdown]
# 位置引数で dtype、デバイスの順に渡すと、`to` のどのシグネチャにも当てはまらず、`TypeError` になります。このときのメッセージは、引数の組み合わせが正しくないことを示し、受け付ける引数の並びを列挙しています。

# %%
with expect_error(TypeError, "invalid combination of arguments"):
    t.to(torch.float16, device)

# %% [markdown]
# ## `cuda()` に渡せるのは CUDA デバイスだけ
#
# `t.cuda()` が受け付けるのは、CUDA デバイスか、そのインデックス（整数）だけです。ほかのデバイスを渡すとエラーになります。

# %% [markdown] tags=["predict"]
# **予想：** `t.cuda("cpu")` はエラーになります（GPU の有無は関係ありません）。どんなエラーが出るでしょうか。
#
# - `Torch not compiled with CUDA enabled`
# - `TypeError`
# - `must be cuda device`

# %%
with expect_error(Exception) as caught:
    t.cuda("cpu")

# %% tags=["answer"]
assert type(caught.error) is RuntimeError
assert "must be cuda device" in str(caught.error)

# %% [markdown] tags=["answer"]
# **答え：** `must be cuda device`（`RuntimeError` のメッセージ）です。メッセージの全文 `Invalid device, must be cuda device` は「無効なデバイス。CUDA デバイスでなければならない」という意味で、どのマシンでも同じです。
#
# - CPU 専用ビルドなら、まず `Torch not compiled with CUDA enabled`（Torch が CUDA を有効にしてコンパイルされていない）が出ると思うかもしれません。しかし `cuda()` は CUDA を初期化する前に引数を検査するので、`"cpu"` はその段階で拒否されます。
# - `TypeError` を選んだのは、引数の型が合わないと考えたからでしょう。しかし引数の型は正しく、`"cpu"` も正しいデバイス名です。問題は、CUDA デバイスでないことだけです。

# %% [markdown]
# ## 存在しない GPU インデックス
#
# PyTorch 2.7 までは、存在しない GPU（GPU が1枚のマシンでの `cuda:1` など）を指定すると `RuntimeError` が送出されていました。メッセージは `CUDA error: invalid device ordinal`（CUDA エラー：デバイス番号が無効）です。PyTorch 2.8 以降は、同じメッセージの `torch.AcceleratorError` が送出されます。`AcceleratorError` は `RuntimeError` のサブクラスなので、古いバージョン向けに書いた `except RuntimeError` でもそのまま捕捉できます。
#
# GPU があれば、次のセルでは存在しないインデックスとして `torch.cuda.device_count()`（最後の GPU のインデックスより1大きい値）を指定します。そして、送出されたエラーのメッセージに `invalid device ordinal` が含まれること、PyTorch 2.8 以降ではその型が `torch.AcceleratorError` であることを assert で検証します。

# %% tags=["claim-O4", "gpu-only"]
if torch.cuda.is_available():
    n = torch.cuda.device_count()
    try:
        torch.ones(1).cuda(n)
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
        assert "invalid device ordinal" in str(err)
        if TORCH >= (2, 8):
            assert isinstance(err, torch.AcceleratorError)
    else:
        raise AssertionError("expected RuntimeError")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## ピン留めメモリと `non_blocking`
#
# ピン留めしていない（ページング可能な）CPU メモリから GPU へコピーすると、CPU はコピーが終わるまで待たされます。コピー元がピン留め（ページロック）メモリにあれば、`to("cuda", non_blocking=True)` は現在の CUDA ストリームにコピーを積むだけで、すぐに戻ります。そのため、GPU がコピーや計算をしている間に、CPU は別の処理を進められます。
#
# ただし、ピン留めすれば自動的に速くなるわけではありません。`pin_memory()` を呼ぶこと自体にコピーのコストがかかるからです。`pin_memory()` はピン留めメモリ上の新しいテンソルを返し、元のテンソルはそのまま残します。
#
# また、ピン留めにはアクセラレータが必要です。次のセルは、実行したマシンに応じて、以下のいずれかを assert で検証します。
#
# - 使えるアクセラレータ（GPU など）があれば、`pin_memory()` はピン留めしたコピーを返し、元のテンソルはピン留めされないままです。
# - CPU 専用ビルドの PyTorch では、`pin_memory()` を呼ぶと次のエラーになります。PyTorch 2.6 では、GPU などに対応したビルドでも、使えるアクセラレータがなければ同じエラーが出ます。
#
#   ```
#   RuntimeError: Cannot access accelerator device when none is available.
#   ```
#
#   このメッセージは「使えるアクセラレータがないので、アクセラレータのデバイスにアクセスできない」という意味です。
#
# - PyTorch 2.7 以降では、GPU などに対応したビルド（Colab の CPU ランタイムに入っている CUDA ビルドなど）を対応するデバイスのないマシンで動かすと、`pin_memory()` の呼び出しでバックエンドから `RuntimeError` が送出されます。メッセージはドライバによって変わるため、例外の型だけを検証します。

# %% tags=["claim-F10", "gpu-only"]
NO_ACCELERATOR = "Cannot access accelerator device when none is available"
host = torch.randn(1024, 1024)
usable = torch.accelerator.is_available()
# 2.7 以降の current_accelerator() は、ビルドが対象とするアクセラレータを
# 返す（なければ None）。2.6 では、使えるものがないと例外になる
built_for = None
if usable or TORCH >= (2, 7):
    built_for = torch.accelerator.current_accelerator()
print(f"{usable=}, {built_for=}")

if usable:
    pinned = host.pin_memory()
    print(f"{host.is_pinned()=}, {pinned.is_pinned()=}")
    assert pinned.is_pinned() and not host.is_pinned()
    # ピン留めでデータが新しいメモリにコピーされた
    assert pinned.data_ptr() != host.data_ptr()
    assert torch.equal(pinned, host)
elif built_for is None:
    with expect_error(RuntimeError, NO_ACCELERATOR):
        host.pin_memory()
else:
    # メッセージはドライバによって変わるので、型だけを検証する
    try:
        host.pin_memory()
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
    else:
        raise AssertionError("expected RuntimeError")

# %% [markdown]
# 続いて、コピーの間に CPU が待たされるかどうかを調べます。まず行列積を GPU に次々と投入します（キューに積むだけなので、呼び出しはすぐに戻ります）。その間にコピーを行い、ストリームに積まれた処理がすべて終わったかどうかを `stream.query()` で問い合わせます。GPU のあるマシンでは、`stream.query()` が返す値が次のとおりになることを検証します。
#
# - ページング可能なメモリからの同期的なコピーの後は `True`。積まれていた処理とコピーが終わるまで、呼び出しが戻らなかったからです。
# - `pinned.to("cuda", non_blocking=True)` の後は `False`。GPU がまだ処理している間に呼び出しが戻ってきたからです。
# - 逆方向の `to("cpu", non_blocking=True)` の後も `False`。こちらも GPU の処理中に呼び出しが戻るため、`torch.cuda.synchronize()` が終わるまでは、CPU 側のテンソルに正しい値が入っている保証はありません。値を読む前に同期してください。
#
# 次のセルでは、コピーと問い合わせを行う関数 `copy_and_ask` を定義して2回呼び出します。1回目は、GPU ライブラリとメモリキャッシュのウォームアップ用です。

# %% tags=["claim-F10", "gpu-only"]
if torch.cuda.is_available():
    host = torch.randn(1024, 1024)
    pinned = host.pin_memory()
    stream = torch.cuda.current_stream()
    w = torch.randn(4096, 4096, device="cuda")
    out = torch.empty_like(w)

    def keep_gpu_busy():
        for _ in range(10):
            torch.mm(w, w, out=out)

    def copy_and_ask():
        keep_gpu_busy()
        x1 = host.to("cuda")
        idle_after_blocking = stream.query()
        keep_gpu_busy()
        x2 = pinned.to("cuda", non_blocking=True)
        idle_after_non_blocking = stream.query()
        keep_gpu_busy()
        host_again = x2.to("cpu", non_blocking=True)
        idle_after_to_cpu = stream.query()
        # ここから先で初めて host_again の値が保証される
        torch.cuda.synchronize()
        same = torch.equal(x1, x2) and torch.equal(host_again, host)
        return (idle_after_blocking, idle_after_non_blocking,
                idle_after_to_cpu, same)

    copy_and_ask()  # ウォームアップ
    blocking_idle, non_blocking_idle, to_cpu_idle, same = copy_and_ask()
    print(blocking_idle, non_blocking_idle, to_cpu_idle, same)
    assert blocking_idle
    assert not non_blocking_idle
    assert not to_cpu_idle
    assert same
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ピン留めで速くなるかどうかは、マシン、テンソルのサイズ、待っている間に CPU にやるべき処理があるかどうかで決まります。PyTorch の [`pin_memory()` と `non_blocking` に関するチュートリアル](https://pytorch.org/tutorials/intermediate/pinmem_nonblock.html)（英語）でも、ピン留めしたほうが遅くなる例が示されています。ピン留めを導入するときは、実際のパイプラインで導入前後の速度を測って確かめてください。
#
# GPU のあるマシンでは、ページング可能なメモリからそのままコピーするやり方と、`pin_memory()` でピン留めしてから `non_blocking=True` でコピーするやり方を比べます。まず両方を1回ずつ実行してウォームアップします。GPU への最初のコピーと、ピン留めメモリの最初の確保には、余分な時間がかかるためです。
#
# そのうえで、それぞれ1回のコピーにかかる時間を計測し、ミリ秒で表示します。ピン留めするほうの時間には、`pin_memory()` によるコピーも含まれます。計測結果は assert では検証しません。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    big = torch.randn(4096, 4096)
    big.to("cuda")  # ウォームアップ：両方のやり方を計測せずに1回ずつ
    big.pin_memory().to("cuda", non_blocking=True)
    torch.cuda.synchronize()

    t0 = time.perf_counter()
    big.to("cuda")
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    big.pin_memory().to("cuda", non_blocking=True)
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    pageable_ms, pinned_ms = (t1 - t0) * 1e3, (t2 - t1) * 1e3
    print(f"{pageable_ms=:.1f}, {pinned_ms=:.1f}")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## まとめ
#
# - `t.to(device)`、`t.cuda()`、`t.cpu()` は移動先のデバイス上のテンソルを返し、`t` は元の場所に残ります。戻り値を受け取ってください（`t = t.to(device)`）。
# - 何も変える必要がなければ `t` そのものが返るので、戻り値への書き込みは `t` にも反映されます。独立したテンソルが必要なら `copy=True` か `clone()` を使います。`.cuda()` と `.cpu()` には `copy` 引数がありません。
# - デバイスと dtype を位置引数で同時に渡すときは、デバイスを先に書きます（またはキーワード引数を使います）。
# - `t.cuda()` が受け付けるのは CUDA デバイスだけです。存在しない GPU インデックスを指定すると、PyTorch 2.8 以降は `torch.AcceleratorError`（`RuntimeError` の一種）が送出されます。
# - `pin_memory()` と `non_blocking=True` を組み合わせると、コピーの実行中も CPU は別の処理を進められます。ただし自動的に速くなるわけではなく、アクセラレータも必要です。`non_blocking` で CPU へコピーした値は、同期してから読んでください。
