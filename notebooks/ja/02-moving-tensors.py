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
# テンソルを別のデバイスへ移すには `t.to(...)` か、その省略形の `t.cuda()`・`t.cpu()` を使います。
# 3つとも従うルールは同じです。`t` 自体は変わらず、移動先のデバイス上のテンソルが返され、
# 元のテンソルは元の場所に残ります。注意が必要なのは、何も変える必要がない場合だけです。
# このときはコピーではなく、`t` そのものが返ってきます。
#
# このページで扱うのはテンソルです。`nn.Module.to` は別のルールに従うため、別のページで
# 説明します。
#
# どのセルも CPU だけのマシンで実行できます。CUDA GPU が必要な部分は、GPU がなければ
# その旨を表示してスキップします。

# %%
import time

import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.__version__, device)

# %% [markdown]
# ## 移動すると新しいテンソルが返る
#
# `t.to(device)` は `device` 上の新しいテンソルを返します。`t` 自体は移動しません。
# 戻り値は必ず受け取りましょう。ふつうは同じ名前に代入し直します（`t = t.to(device)`）。
#
# GPU がなくても、`meta` デバイスを使えばこの動きを確かめられます。`meta` はどの PyTorch
# ビルドにもあるデバイスで、meta テンソルは形状と dtype だけを持ち、データは持ちません。

# %% tags=["claim-F7"]
x = torch.arange(4.0)
m = x.to("meta")
print(x.device, m.device)
print(m)
assert m is not x
assert x.device.type == "cpu"  # 元のテンソルは CPU に残っている
assert m.device.type == "meta"
assert m.shape == x.shape and m.dtype == x.dtype

# %% [markdown]
# meta テンソルにはデータがないので、`meta` で分かるのは移動が変数に何をするかであって、
# 移動にかかるコストではありません。実際には何もコピーされず、CPU へ戻すこともできません。

# %% tags=["claim-F7"]
try:
    m.cpu()
except NotImplementedError as err:
    print(err)
    assert "no data" in str(err)
else:
    raise AssertionError("a meta tensor should not be copyable to the CPU")

# %% [markdown]
# ## cuda と cpu の省略形
#
# `t.cuda()` は `t.to("cuda")` と同じく現在の CUDA デバイスへ、`t.cuda(i)` は `cuda:i` へ
# テンソルを移します。`t.cpu()` は `t.to("cpu")` と同じです。どちらも `to` と同様に新しい
# テンソルを返します。CUDA が使えるマシンでは、次のセルで実際に GPU へ送って戻します。

# %%
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
    print("Skipped the CUDA round trip: this machine has no CUDA GPU.")

# %% [markdown]
# ## 移動が不要なら同じテンソル
#
# 指定したデバイス（と dtype）にテンソルがすでにあるなら、`to` はすることがないので
# テンソルそのものを返します。戻り値はコピーではないため、そこへ書き込むと元のテンソルが
# 書き換わります。CPU 上のテンソルに対する `t.cpu()` や、すでに現在の GPU 上にある
# テンソルに対する `t.cuda()` も同じです。

# %% tags=["claim-F1"]
a = torch.zeros(3, device=device)
b = a.to(device)
print(b is a)
b[0] = 1.0
print(a)
assert b is a
assert a[0].item() == 1.0  # b への書き込みで a が変わった
assert a.to(a.dtype) is a
assert a.to(device, torch.float32) is a
same = a.cuda() if a.is_cuda else a.cpu()
assert same is a

# %% [markdown]
# ## コピーを強制する
#
# 独立したテンソルが欲しいときは、そう明示します。`t.to(device, copy=True)` は常に新しい
# テンソルを返し、`t.clone()` は同じデバイス上にコピーを作ります。

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
# `.cuda()` と `.cpu()` には `copy` 引数がありません。`to(..., copy=True)` か `clone()` を
# 使ってください。

# %% tags=["claim-F1"]
for method in (a.cuda, a.cpu):
    try:
        method(copy=True)
    except TypeError as err:
        print(err)
        assert "copy" in str(err)
    else:
        raise AssertionError("copy= should be rejected")

# %% [markdown]
# ## デバイスと dtype を一度に変える
#
# `to` はデバイスと dtype を同時に変更できます。デバイスを先に書くか、キーワード引数を
# 使います。

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
# dtype を先に書くと、`to` のどのシグネチャにも当てはまらず `TypeError` になります。

# %% tags=["raises-exception"]
t.to(torch.float16, device)

# %% [markdown]
# ## cuda に渡せるのは CUDA デバイスだけ
#
# `t.cuda("cpu")` はエラーです。PyTorch は CUDA に触れる前に引数を検査するので、CPU 版の
# ビルドでも GPU マシンでも同じエラーになります。

# %%
try:
    t.cuda("cpu")
except RuntimeError as err:
    print(err)
    assert "must be cuda device" in str(err)
else:
    raise AssertionError("cuda('cpu') should fail")

# %% [markdown]
# ## 存在しない GPU 番号
#
# 存在しない GPU を指定すると（GPU が1枚のマシンでの `cuda:1` など）、以前は
# "CUDA error: invalid device ordinal" というメッセージの、ただの `RuntimeError` が
# 送出されていました。PyTorch 2.8 以降は、同じメッセージの `torch.AcceleratorError` に
# なります。`AcceleratorError` は `RuntimeError` のサブクラスなので、古いバージョン向けに
# 書いた `except RuntimeError` でもそのまま捕捉できます。このセルでは最後の GPU の次の番号、
# つまり `torch.cuda.device_count()` を指定しています。

# %% tags=["claim-O4"]
if torch.cuda.is_available():
    n = torch.cuda.device_count()
    try:
        torch.ones(1).cuda(n)
    except RuntimeError as err:
        print(type(err).__name__, str(err).splitlines()[0])
        assert "invalid device ordinal" in str(err)
        if hasattr(torch, "AcceleratorError"):  # PyTorch 2.8 以降
            assert isinstance(err, torch.AcceleratorError)
    else:
        raise AssertionError(f"cuda:{n} should not exist")
else:
    print("Skipped: with no CUDA GPU there is no GPU index to get wrong.")

# %% [markdown]
# ## ピン留めメモリと non_blocking
#
# 通常の（ページング可能な）CPU メモリから GPU へコピーすると、CPU はコピーが終わるまで
# 待たされます。コピー元がページロックされた（ピン留めされた）メモリにあれば、
# `to("cuda", non_blocking=True)` は現在の CUDA ストリームにコピーを積むだけで、すぐに
# 戻ってきます。そのため、GPU がコピーや計算をしている間に、CPU は別の仕事を進められます。
#
# ただし、これで自動的に速くなるわけではありません。`pin_memory()` 自体がコピーです。
# ピン留めメモリ上の新しいテンソルを返し、元のテンソルはそのまま残ります。また、ピン留めは
# アクセラレータがなければ使えず、その場合 `pin_memory()` は例外を送出します。CPU 版の
# ビルドでのメッセージは "Cannot access accelerator device when none is available." です。

# %% tags=["claim-F10"]
host = torch.randn(1024, 1024)
if torch.cuda.is_available():
    pinned = host.pin_memory()
    print(host.is_pinned(), pinned.is_pinned())
    assert pinned.is_pinned() and not host.is_pinned()
    assert pinned.data_ptr() != host.data_ptr()  # ピン留めでデータがコピーされた
    assert torch.equal(pinned, host)
else:
    try:
        host.pin_memory()
    except RuntimeError as err:
        print(type(err).__name__, err)
        if torch.accelerator.current_accelerator() is None:  # アクセラレータ非対応のビルド
            assert "none is available" in str(err)
    else:
        # 別のアクセラレータ（Apple の MPS など）がピン留めメモリを用意した
        assert torch.accelerator.is_available()
        print("pinned for", torch.accelerator.current_accelerator())

# %% [markdown]
# 次のセルでは、この「待つ・待たない」を目に見える形にします。行列積で GPU を忙しくさせて
# おき（キューに積むだけなので呼び出しはすぐ戻ります）、コピーをしてから、積まれた処理が
# すべて終わったかをストリームに問い合わせます。
#
# - ページング可能なメモリからの通常のコピーの後は「終わった」が返ります。CPU は積まれた
#   処理とコピーが終わるまで待っていたからです。
# - `pinned.to("cuda", non_blocking=True)` の後は「まだ」が返ります。GPU が処理している
#   うちに、呼び出しが戻ってきたということです。
# - 逆方向の `to("cpu", non_blocking=True)` もすぐに戻るので、CPU 側のテンソルにはまだ値が
#   入っていません。読み出す前に `torch.cuda.synchronize()` を呼んでください。
#
# 関数は2回実行します。1回目は GPU ライブラリとメモリキャッシュのウォームアップです。

# %% tags=["claim-F10"]
if torch.cuda.is_available():
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
        torch.cuda.synchronize()  # ここで初めて host_again に値が入る
        same = torch.equal(x1, x2) and torch.equal(host_again, host)
        return idle_after_blocking, idle_after_non_blocking, idle_after_to_cpu, same

    copy_and_ask()  # ウォームアップ
    blocking_idle, non_blocking_idle, to_cpu_idle, same = copy_and_ask()
    print(blocking_idle, non_blocking_idle, to_cpu_idle, same)
    assert blocking_idle
    assert not non_blocking_idle
    assert not to_cpu_idle
    assert same
else:
    print("Skipped the non_blocking demo: it needs a CUDA GPU.")

# %% [markdown]
# ピン留めが得になるかどうかは、マシンやテンソルのサイズ、そして待っている間に CPU に
# 有用な仕事があるかどうかで変わります。下のセルは、お使いのマシンで1回のコピーを両方の
# やり方で計測しますが、結果については何も assert しません。ピン留めする側の時間には
# `pin_memory()` のコピーも含まれます。PyTorch の
# [`pin_memory()` と `non_blocking` に関するチュートリアル](https://pytorch.org/tutorials/intermediate/pinmem_nonblock.html)
# でも、ピン留めしたほうが遅くなるケースが計測されています。変更の前後で、ご自身の
# パイプラインを計測してください。

# %%
if torch.cuda.is_available():
    big = torch.randn(4096, 4096)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    big.to("cuda")
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    big.pin_memory().to("cuda", non_blocking=True)
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    print(f"pageable: {(t1 - t0) * 1e3:.1f} ms, pin + non_blocking: {(t2 - t1) * 1e3:.1f} ms")
else:
    print("Skipped the timing: it needs a CUDA GPU.")

# %% [markdown]
# ## まとめ
#
# - `t.to(device)`、`t.cuda()`、`t.cpu()` は移動先のデバイス上のテンソルを返し、`t` は元の
#   場所に残ります。戻り値を受け取りましょう（`t = t.to(device)`）。
# - 何も変える必要がなければ `t` そのものが返り、書き込みは `t` に反映されます。独立した
#   テンソルが必要なら `copy=True` か `clone()` を使います。`.cuda()` と `.cpu()` には
#   `copy` 引数がありません。
# - デバイスは dtype より先に書くか、キーワード引数で指定します。
# - `t.cuda()` が受け付けるのは CUDA デバイスだけです。存在しない GPU 番号を指定すると、
#   PyTorch 2.8 以降は `torch.AcceleratorError`（`RuntimeError` の一種）が送出されます。
# - `pin_memory()` と `non_blocking=True` を組み合わせると、コピーの間も CPU は先へ進めます。
#   ただし自動的に速くなるわけではなく、アクセラレータも必要です。
