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
# # 載るかどうか：動かす前にモデルのメモリを見積もる
#
# 「CUDA out of memory」は、デバイスまわりで最もよく出会うエラーです。ただ、これは事前に予測できます。モデルに必要なメモリは形状と dtype で決まり、学習のステップがそこに何を足すかも数えられるからです。
#
# このページでは両方を計算し、それぞれの数字を PyTorch が報告する値と照らし合わせて、実行したマシン上で検証します。
#
# - 要素あたりのバイト数と、モデルのパラメータとバッファ
# - このマシンのメモリよりはるかに大きなモデルを `meta` デバイス上に作り、CPU のメモリにいったんコピーせずにデバイス上の実体にする方法
# - 学習で増えるもの：勾配、オプティマイザの状態、autograd が保存する活性化
# - GPU では：PyTorch のアロケータが報告する値と、`nvidia-smi` の表示が大きくなる理由
#
# 最後の節以外は、すべて CPU で実行して検証します。GPU 用のセルには印があり、GPU のないマシンでは `torch.cuda.is_available()=False` と表示します。

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
print(torch.__version__, device)

# %% [markdown]
# ## 要素あたりのバイト数
#
# テンソルのメモリは、要素数に 1 要素のバイト数を掛けたものです。1 要素のバイト数は dtype で決まります。つまり `t.nbytes == t.numel() * t.element_size()` です。形状と dtype はデータが存在する前からわかっているので、サイズも事前にわかります。

# %% tags=["claim-F12"]
dtypes = [torch.float64, torch.float32, torch.bfloat16, torch.float16,
          torch.int64, torch.int8, torch.bool]
sizes = {str(d): torch.empty(0, dtype=d).element_size() for d in dtypes}
print(sizes)
assert sizes["torch.float32"] == 4 and sizes["torch.bfloat16"] == 2
assert sizes["torch.int64"] == 8 and sizes["torch.bool"] == 1

# %% [markdown] tags=["predict"]
# **予想：** `t = torch.zeros(1024, 1024, dtype=torch.float16)` のとき、`print(f"{t.nbytes=}")` は何を表示するでしょうか。
#
# - `t.nbytes=1048576`
# - `t.nbytes=2097152`
# - `t.nbytes=4194304`

# %%
t = torch.zeros(1024, 1024, dtype=torch.float16)
print(f"{t.nbytes=}")

# %% tags=["claim-F12", "answer"]
assert t.nbytes == t.numel() * t.element_size() == 1024 * 1024 * 2

# %% [markdown] tags=["answer"]
# **答え：** `t.nbytes=2097152` です。約 100 万個の要素がそれぞれ 2 バイトで、2 MiB になります。1 要素 1 バイトなら `int8` や `bool`、4 バイトならデフォルトの `float32` です。

# %% [markdown]
# ## モデルのパラメータとバッファ
#
# モデル自体のメモリは、パラメータ（勾配を使って学習する値）とバッファ（勾配を使わずに保持する状態）です。バッファの例はバッチ正規化の移動統計で、学習中は順伝播のたびに更新されます。`model.state_dict()` にはちょうどこの 2 つが入っているので、そのバイト数がモデルのバイト数です。
#
# 次の関数はこれらを合計します。セルでは、`state_dict()` の合計と一致することを検証します。

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
# **予想：** `model.half()` はモデルを 16 ビットの浮動小数点数に変換します。変換後のパラメータとバッファの dtype はどうなるでしょうか。
#
# - `['torch.float16']`
# - `['torch.float32']`
# - `['torch.float16', 'torch.int64']`

# %%
before = model_bytes(model)
model.half()
print(sorted({str(t.dtype) for t in model.state_dict().values()}))
print(f"{before=}, {model_bytes(model)=}")

# %% tags=["claim-F12", "answer"]
kept = [k for k, t in model.state_dict().items() if t.dtype == torch.int64]
print(kept)
assert kept == ["1.num_batches_tracked"]
assert model_bytes(model) == (before - 8) // 2 + 8

# %% [markdown] tags=["answer"]
# **答え：** `['torch.float16', 'torch.int64']` です。`.half()` は `.to(torch.float16)` と同じく、浮動小数点のパラメータとバッファだけを変換します。
#
# バッチ正規化が処理したバッチ数を数える `num_batches_tracked` は整数なので、`int64` のまま残ります。それ以外はすべて半分になります。すべて `float32` のモデルなら、`float16` にするとメモリは半分になります（整数のカウンタの数バイトを除く）。

# %% [markdown]
# ## このマシンより大きなモデル：`meta` 上に作る
#
# `meta` デバイス上のテンソルは、形状と dtype を持ちますがデータを持ちません。そのため作ってもメモリを使いません。`with torch.device("meta"):` の中では、どれほど大きなモデルでもこの方法で数ミリ秒で作れます。置き場所を決める前に、バイト数を数えられるわけです。
#
# セルでは、200 億パラメータ（`float32` で 80 GB）のモデルを作ります。

# %% tags=["claim-F13"]
start = time.perf_counter()
with torch.device("meta"):
    big = make_mlp(100_000, 100_000, 100_000)
seconds = time.perf_counter() - start
n_big = sum(p.numel() for p in big.parameters())
gigabytes = model_bytes(big) / 1e9
print(f"{n_big=:,}, {gigabytes=:.1f}, {seconds=:.3f}")
assert all(t.is_meta for t in big.state_dict().values())
assert model_bytes(big) > 80e9
assert seconds < 10  # 余裕を持たせた値：実際は数ミリ秒

# %% [markdown]
# ここに落とし穴があります。meta テンソルは値を持たないので、そこから何も読み出せません。

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
# **答え：** `NotImplementedError`（「Cannot copy out of meta tensor; no data!」）です。ゼロは一度も格納されていないので、コピーするものがありません。
#
# なお、`big` の重みのように CPU のメモリに収まらないほど大きな meta テンソルでは、それより前に CPU のアロケータが `RuntimeError` を出します。

# %% [markdown]
# ## `meta` から実際のデバイスへ：CPU へのコピーを挟まずに
#
# `meta` 上に作ったモデルを実体にする方法は 2 つあります。
#
# - `model.to_empty(device=...)`：すべてのパラメータとバッファに、そのデバイス上のメモリを割り当てます。初期化はされないので、値はそのメモリに残っていた内容です。続けて、各層の `reset_parameters()` などで初期化します。
# - `model.load_state_dict(state, assign=True)`：読み込んだテンソルを、そのままモデルのパラメータにします。先にパラメータを作ってそこへコピーする必要がありません。
#
# `torch.load(path, mmap=True, map_location=device)` を使うと、チェックポイントは CPU のメモリに読み込まれるのではなくファイルからマップされ、各テンソルは `device` に送られます。この 2 つを組み合わせると、重みは途中で CPU のメモリに丸ごとコピーされることなく、目的のデバイスに届きます（PyTorch のチュートリアル「チェックポイントから `nn.Module` を読み込むときのヒント」もこの組み合わせを勧めています）。

# %% tags=["claim-F13"]
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "mlp.pt")
    torch.save(make_mlp(8, 16, 4).state_dict(), path)

    with torch.device("meta"):
        fresh = make_mlp(8, 16, 4)
    state = torch.load(path, mmap=True, map_location=device,
                       weights_only=True)
    fresh.load_state_dict(state, assign=True)
    weight = fresh[0].weight
    print(f"{weight.device=}, {type(weight).__name__=}")
    assert weight.device.type == device.type
    assert weight.data_ptr() == state["0.weight"].data_ptr()  # コピーしていない
    assert isinstance(weight, nn.Parameter) and weight.requires_grad

    empty = make_mlp(8, 16, 4).to("meta").to_empty(device=device)
    for layer in empty:
        if hasattr(layer, "reset_parameters"):
            layer.reset_parameters()
    assert all(t.device.type == device.type
               for t in empty.state_dict().values())
    del state, fresh, weight

# %% [markdown]
# ## 学習で増えるもの
#
# 学習のステップでは、モデルよりずっと多くのものがメモリに残ります。
#
# - パラメータごとの勾配（パラメータと同じサイズ）
# - オプティマイザの状態：モーメンタムなしの SGD ならなし、モーメンタム付きの SGD ならパラメータごとに 1 つ、Adam なら 2 つ（勾配の平均と、勾配の 2 乗の平均）
# - 逆伝播で勾配を計算するために、autograd が順伝播の間に保存する活性化
#
# 最初の 2 つはパラメータから決まります。活性化は、モデル、バッチ、そしてどのテンソルに勾配が必要かで変わります。`torch.autograd.graph.saved_tensors_hooks` を使うと autograd が保存するテンソルをすべて確認できるので、数えられます。

# %% [markdown] tags=["predict"]
# **予想：** Adam で 1 ステップ進めた後、パラメータ 1 バイトあたり Adam は何バイトの状態を持っているでしょうか。セルはその比を表示します。
#
# - `adam_ratio=1.0`
# - `adam_ratio=2.0`
# - `adam_ratio=0.5`

# %%
model = make_mlp(64, 128, 10)
optimizer = torch.optim.Adam(model.parameters())
loss = model(torch.randn(32, 64)).pow(2).mean()
loss.backward()
optimizer.step()
param_bytes = model_bytes(model) - sum(b.nbytes for b in model.buffers())
state_bytes = sum(s[k].nbytes for s in optimizer.state.values()
                  for k in ("exp_avg", "exp_avg_sq"))
print(f"adam_ratio={state_bytes / param_bytes}")

# %% tags=["claim-F14", "answer"]
grad_bytes = sum(p.grad.nbytes for p in model.parameters())
steps = [s["step"] for s in optimizer.state.values()]
print(f"{grad_bytes=}, {param_bytes=}, {len(steps)=}")
assert grad_bytes == param_bytes
assert state_bytes == 2 * param_bytes
assert len(steps) == len(list(model.parameters()))

# %% [markdown] tags=["answer"]
# **答え：** `adam_ratio=2.0` です。Adam は各パラメータと同じサイズのテンソルを 2 つ（`exp_avg` と `exp_avg_sq`）と、パラメータごとに 1 つの数値 `step` を持ちます。
#
# 勾配と合わせると、`float32` のモデルを Adam で学習するには、活性化を除いてもモデル自体の 4 倍のメモリが要ります。重み、勾配、そして 2 つの状態テンソルです。

# %% [markdown]
# 次の関数は、順伝播で autograd が保存するものを数えます。保存されたテンソルのストレージを 1 回ずつ数え、パラメータ（すでに数えたもの）は除きます。
#
# このモデルで保存されるのは、最初の層の入力と `ReLU` の出力です。`ReLU` の出力は最後の層の入力でもあります。したがって 4 バイトの数値が `batch × (64 + 128)` 個です。セルでは、数えた値がこの計算と一致することを検証します。

# %% tags=["claim-F14"]
def saved_bytes(model, x):
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    saved = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in params:
            saved[storage.data_ptr()] = storage.nbytes()
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(saved.values())


mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
counted = saved_bytes(mlp, torch.randn(32, 64))
computed = 32 * (64 + 128) * 4
print(f"{counted=}, {computed=}")
assert counted == computed

# %% [markdown] tags=["predict"]
# **予想：** バッチを 32 件から 64 件に増やすと、保存される活性化はどう変わるでしょうか。セルは新しい値を元の値で割った比を表示します。
#
# - `ratio=1.0`
# - `ratio=2.0`
# - `ratio=4.0`

# %%
doubled = saved_bytes(mlp, torch.randn(64, 64))
print(f"ratio={doubled / counted}")

# %% tags=["claim-F14", "answer"]
assert doubled == 64 * (64 + 128) * 4

# %% [markdown] tags=["answer"]
# **答え：** `ratio=2.0` です。保存される活性化はどれも 1 件につき 1 行を持つので、バッチに比例して増えます。一方、重み、勾配、オプティマイザの状態は変わりません。学習のステップでメモリが足りなくなったら、まずバッチを小さくしてみましょう。

# %% [markdown]
# 保存する量を減らす方法は 2 つあります。
#
# - 学習しないなら、`torch.no_grad()` や `torch.inference_mode()` の中では何も保存されません。逆伝播がないからです。
# - `torch.autocast` は、行列積などの対象となる演算を精度の低い dtype で実行します。それらが保存する活性化のバイト数は半分になりますが、勾配が必要な重みについては、精度の低いコピーも保存します。`device_type` には演算を実行するデバイスを指定します。`autocast(device_type="cuda")` は CPU 上の演算には何もしません。

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
# 半分のサイズの活性化と、最後の層の重みの bfloat16 のコピー
assert autocast == 32 * (64 + 128) * 2 + 128 * 10 * 2
assert low == torch.bfloat16

with warnings.catch_warnings(record=True):  # CUDA がないと無効だと警告が出る
    warnings.simplefilter("always")
    with torch.autocast(device_type="cuda"):
        elsewhere = mlp(x).dtype
print(f"{elsewhere=}")
assert elsewhere == torch.float32  # CPU 上の演算は float32 で実行された

# %% [markdown]
# 学習のステップのメモリの見積もりは、この 4 つの合計です。どれもモデルとバッチから計算できます。セルでは Adam の場合の見積もりを組み立て、1 ステップ後に PyTorch が実際に持っているものと、部分ごとに照らし合わせて検証します。

# %% tags=["claim-F14"]
def estimate(model, batch_example, optimizer="adam"):
    weights = model_bytes(model)
    params = weights - sum(b.nbytes for b in model.buffers())
    states = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
    return {"weights": weights, "gradients": params,
            "optimizer": states * params,
            "activations": saved_bytes(model, batch_example)}


parts = estimate(mlp, torch.randn(32, 64))
print(parts, f"total={sum(parts.values())}")

optimizer = torch.optim.Adam(mlp.parameters())
mlp(torch.randn(32, 64)).sum().backward()
optimizer.step()
held = sum(s[k].nbytes for s in optimizer.state.values()
           for k in ("exp_avg", "exp_avg_sq"))
assert parts["gradients"] == sum(p.grad.nbytes for p in mlp.parameters())
assert parts["optimizer"] == held
assert parts["weights"] == sum(t.nbytes for t in mlp.state_dict().values())

# %% [markdown]
# ## GPU では：アロケータが報告する値
#
# CUDA GPU では、PyTorch はドライバから大きなブロック単位でメモリを確保し、キャッシュ付きのアロケータを通して自分でテンソルに配ります。
#
# - `torch.cuda.memory_allocated()`：いまテンソルが使っているバイト数
# - `torch.cuda.memory_reserved()`：アロケータがドライバから確保しているバイト数（使用中かどうかを問わない）。`nvidia-smi` がプロセスについて表示するのはこちらです（CUDA コンテキストの分が加わります）。
# - `torch.cuda.max_memory_allocated()`：開始時、または最後に `torch.cuda.reset_peak_memory_stats()` を呼んでからの、`memory_allocated` の最大値
# - `torch.cuda.mem_get_info()`：ドライバから見た、デバイスの空きメモリと総メモリのバイト数
#
# テンソルを解放すると、そのメモリはドライバではなくアロケータに戻ります。`memory_allocated` は減りますが、`memory_reserved` は減りません。`torch.cuda.empty_cache()` は、使われていないブロックをドライバに返します。テンソルを解放するわけではなく、キャッシュしたブロックは PyTorch がもともと再利用するので、メモリ不足で止まるプログラムの助けになることはほとんどありません。
#
# GPU のないマシンでは、次のセルは `torch.cuda.is_available()=False` と表示します。GPU で実行されたかどうかはページ上部の行に表示されます。セルが検証する内容の根拠は、PyTorch のドキュメントとアロケータのソースです（notebooks/gpu-evidence.yml）。

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
    print(f"{alloc=}, {reserved=}, {after_del=}, {kept=}, {released=}")
    assert alloc == 4 * 2**20  # 512 バイトの倍数なので切り上げはない
    assert reserved >= base_alloc + alloc
    assert after_del == 0
    assert kept == reserved  # 解放したメモリはアロケータに残る
    assert released <= kept
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# 最後のセルでは、実際のステップで見積もりとアロケータの値を比べます。GPU に移したモデルは重みを保持し、各テンソルは 512 バイトの倍数に切り上げられます。
#
# Adam での 1 ステップには、確実にわかる時点が 2 つあります。順伝播の終わりには重みと保存された活性化が、`optimizer.step()` の間には重み、勾配、Adam の状態がメモリにあります。ピークは少なくともこの 2 つの大きいほうです。実際にはそれより大きく、順伝播と逆伝播、そして Adam の更新で使う一時的なテンソルの分が加わります（見積もりには含めていません）。
#
# セルでは確実な部分を検証し、ピークと見積もりの合計の比は表示するだけにします。計画は合計で立て、余裕を持たせましょう。

# %% tags=["claim-F14", "gpu-only"]
if torch.cuda.is_available():
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    gpu_model = make_mlp(1024, 4096, 1024).to("cuda")
    moved = torch.cuda.memory_allocated() - start
    rounded = sum((t.nbytes + 511) // 512 * 512
                  for t in gpu_model.state_dict().values())
    assert moved == rounded

    x = torch.randn(256, 1024, device="cuda")
    p = estimate(gpu_model, x)
    optimizer = torch.optim.Adam(gpu_model.parameters())
    torch.cuda.reset_peak_memory_stats()
    gpu_model(x).sum().backward()
    optimizer.step()
    peak = torch.cuda.max_memory_allocated() - start
    total = sum(p.values())
    free, device_total = torch.cuda.mem_get_info()
    print(f"{moved=}, {rounded=}, {total=}, {peak=}")
    print(f"peak/total={peak / total:.2f}, {free=}, {device_total=}")
    assert peak >= p["weights"] + p["activations"]
    assert peak >= p["weights"] + p["gradients"] + p["optimizer"]
    assert 0 < free <= device_total
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## まとめ
#
# - テンソルは `numel() * element_size()` バイトを使います。モデルが使うのはパラメータとバッファのバイト数、つまり `state_dict()` のテンソルの分です。`.half()` で半分になるのは浮動小数点のものだけです。
# - 大きなモデルは `torch.device("meta")` の中で作れば、メモリを使わずに数えられます。meta テンソルは値を持ちません。実体にするには `to_empty` を使って初期化するか、`torch.load(..., mmap=True, map_location=...)` で読み込んで `load_state_dict(..., assign=True)` を使います。
# - 学習では、パラメータごとの勾配、オプティマイザの状態（Adam ならパラメータごとに 2 つ）、保存される活性化が加わります。活性化はバッチに比例して増えます。`no_grad` と `inference_mode` では何も保存されず、正しい `device_type` を指定した `autocast` では精度の低い形で保存されます。
# - GPU では、`memory_allocated` はテンソルの分を、`memory_reserved` はアロケータが確保している分を数えます。解放したメモリは `empty_cache()` まで確保されたままで、`nvidia-smi` が表示するのは確保されている量です。

