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
# # ファクトチェック：よく見る主張を検証する
#
# モデルを GPU に移動する方法を扱うブログ記事や Q&A の回答では、よく似た主張が何度も繰り返されています。最初から誤りだったものもあれば、古いリリース（PyTorch 1.7）では正しかったものの、その後のリリースで正しくなくなったものもあります。このページでは主張を1つずつ取り上げて判定を示し、お使いのマシンで動くコードで確かめます。
#
# 判定はすべて `assert` で裏付けています。将来の PyTorch で挙動が変われば `assert` が失敗するので、このページの内容が知らないうちに古くなることはありません。
#
# どのセルも GPU なしで実行できます。「GPU での検証を含む」セルは、GPU がなければその検証は行わずに、満たされなかった条件（`torch.cuda.is_available()=False` など）を表示するか、GPU がないときの動作を検証します。環境によって結果が異なる項目では、実行中のマシンで期待どおりになっているかを確かめます。
#
# 想定どおりのエラーは、準備のセルで定義する `expect_error` が捕捉して表示するので、ノートブックは止まらずに先へ進みます。

# %% [markdown] tags=["summary"]
# **結論**
#
# - `model.to(device)` だけでモデルは移動します。`Module.to` はモジュール自体を書き換えて同じモジュールを返すので、`model = model.to(device)` と書いても処理は同じで、メモリも節約されません。
# - `nn.DataParallel` はモデルを移動してくれません（デバイス ID が1つのときを除きます）。`device=0` は現在のアクセラレータのインデックスで、`cuda:0` とは限りません。
# - 主張ごとの判定は、ページ末尾の表にまとめています。
#
# ```python
# model.to(device)
# x = x.to(device)
# ```

# %% tags=["setup"]
import contextlib
import copy
import inspect
import sys
import types
import weakref

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
print(torch.__version__, device)

# %% [markdown]
# ## 主張：`model.to(device)` だけではモデルは移動しない
#
# **主張：** `model.to(device)` を単独で呼んでもモデルは何も変わらず、`model = model.to(device)` と代入し直して初めて GPU に載る。
#
# ここでは、モデルを GPU に移動して確かめます。GPU がなければ、代わりに `meta` デバイスに移動します。`meta` テンソルは形状と dtype だけを持ち、データは持ちません。この検証でわかるのはパラメータの移動先と返ってきたオブジェクトだけで、速度やメモリについては何も言えません。

# %% [markdown] tags=["predict"]
# **予想：** `model` に代入し直さずに `returned = model.to(target)` とします。`returned` が `model` そのものかどうかと、モデルの重みが移動先のデバイスにあるかどうか（`moved`）を次のセルで表示すると、結果はどれでしょうか。
#
# - `returned is model=False, moved=False`
# - `returned is model=False, moved=True`
# - `returned is model=True, moved=True`

# %%
target = device if device.type == "cuda" else torch.device("meta")

model = nn.Linear(4, 2)
weight_before = model.weight
returned = model.to(target)

moved = model.weight.device.type == target.type
print(f"{returned is model=}, {moved=}")

# %% tags=["claim-M1", "gpu-only", "answer"]
assert returned is model
assert model.weight.device.type == target.type
assert model.bias.device.type == target.type
# CPU と GPU の間なら Parameter はそのまま。meta への移動では置き換わる
assert (model.weight is weight_before) == (target.type == "cuda")

# %% [markdown] tags=["answer"]
# **答え：** `returned is model=True, moved=True` です。**判定：誤り**。`nn.Module.to` はコピーを作らずにモジュール自体を書き換え、そのモジュールを返します。代入の有無にかかわらず、`model` は移動しています。代入し直しても害はありませんが、移動させているのは `to` の呼び出しのほうです。
#
# - `returned is model=False, moved=False` は、主張をそのまま信じた場合の答えです。新しいデバイス上のコピーが返され、元のテンソルはそのまま残る、というのは `Tensor.to` の振る舞いで、`Module.to` ではそうなりません。
# - `returned is model=False, moved=True` が表示されるのは、移動した `model` とは別に、もう1つモジュールができた場合だけです。`Module.to` は新しいモジュールを作らないので、この組み合わせは起こりません。
#
# 移動先による違いが1つあります。CPU と GPU の間の移動では `Parameter` オブジェクトがそのまま保たれますが、`meta` への移動では置き換わります。上のセルは、このマシンで実際に起きたほうを確かめています。

# %% [markdown]
# モジュールのほかの変換メソッド（`.cpu()`、`.double()`、`.half()`、`.float()`、それに後で扱う `.cuda()`）も同様に、モジュール自体を書き換えてそのモジュールを返します。

# %% tags=["claim-M1"]
other = nn.Linear(4, 2)
for convert in (other.double, other.half, other.float, other.cpu):
    assert convert() is other

print(other.weight.dtype, other.weight.device)
assert other.weight.dtype == torch.float32

# %% [markdown]
# この主張が広まったのは、テンソルでは実際にそのとおりになるからです。`Tensor.to` は元のテンソルには手を付けず、新しいデバイス上のテンソルを返します。そのため、テンソルの場合は戻り値を受け取る必要があります。

# %% tags=["claim-M1"]
t = torch.ones(3)
moved = t.to(target)

print(t.device, moved.device)
assert moved is not t
assert t.device.type == "cpu"
assert moved.device.type == target.type

# %% [markdown]
# ## 主張：モデルを代入し直すとメモリを節約できる
#
# **主張：** 代入せずに `model.to(device)` とするとモデルのコピーがもう1つ残るので、`model = model.to(device)` と書いたほうがメモリが少なくて済む。
#
# **判定：誤り**。どちらの書き方も同じオブジェクトの同じメソッドを呼び、同じ処理をします。このメソッドは各パラメータを変換し、変換後のテンソルをモジュールに設定し直すだけです。モジュールは古いテンソルへの参照を持ち続けないので、ほかに参照しているものがなくなった時点で古いテンソルは解放されます。
#
# 次のセルでは、それぞれの書き方を別々のモデルで試します。CPU 上で float32 から float64 に変換しますが、この変換も別のデバイスへの移動と同じように新しいメモリを確保します。弱参照（weakref）は参照先のストレージの解放を妨げないので、古いストレージが解放されたかどうかを確かめられます。

# %% tags=["claim-M2"]
def weak_storages(module):
    return [weakref.ref(p.untyped_storage()) for p in module.parameters()]


a = nn.Linear(256, 256)
b = nn.Linear(256, 256)
a_object, b_object = a, b
a_old, b_old = weak_storages(a), weak_storages(b)
assert all(ref() is not None for ref in a_old + b_old)

a.to(torch.float64)
b = b.to(torch.float64)

for module, original, old in ((a, a_object, a_old), (b, b_object, b_old)):
    assert module is original
    dtypes = [p.dtype for p in module.parameters()]
    assert dtypes == [torch.float64, torch.float64]
    assert all(ref() is None for ref in old)

print(a.weight.dtype, b.weight.dtype, [ref() for ref in a_old + b_old])

# %% [markdown]
# GPU では、解放されたメモリは PyTorch のキャッシングアロケータに戻り、次のテンソルのために取っておかれます。
#
# `torch.cuda.memory_allocated()`（テンソルが使っている割り当て済みメモリ）はすぐに減りますが、`torch.cuda.memory_reserved()`（アロケータが確保している予約済みメモリ）は減りません。`nvidia-smi` の表示も予約済みメモリを含むため、やはり減りません。
#
# `torch.cuda.empty_cache()` を呼ぶと、使われていない分がドライバに返されます。PyTorch ドキュメントの [CUDA メモリ管理の解説](https://docs.pytorch.org/docs/stable/notes/cuda.html#memory-management)（英語）にも、同じことが書かれています。
#
# GPU があれば、次のセルで同じサイズのモデル2つをそれぞれの書き方で GPU に移動し、増えた GPU メモリ（移動後の量とピーク）が両者で同じであることを確かめます。続いて各モデルを削除し、`empty_cache()` の前と後で `memory_allocated()` と `memory_reserved()` の値がどう変わるかを調べます。

# %% tags=["claim-M2", "gpu-only"]
if torch.cuda.is_available():
    used = []
    for reassign in (False, True):
        m = nn.Linear(1024, 1024)
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        if reassign:
            m = m.to(device)
        else:
            m.to(device)
        torch.cuda.synchronize()
        after = torch.cuda.memory_allocated()
        peak = torch.cuda.max_memory_allocated()
        used.append((after - before, peak - before))
        reserved = torch.cuda.memory_reserved()
        del m  # 最後の参照：メモリはキャッシュに戻る
        assert torch.cuda.memory_allocated() == before
        assert torch.cuda.memory_reserved() == reserved  # まだ確保されている
    print(f"{used=}")
    assert used[0] == used[1]
    torch.cuda.empty_cache()
    print(f"{reserved=}, {torch.cuda.memory_reserved()=}")
    assert torch.cuda.memory_reserved() < reserved  # ドライバに返された
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 主張：`torch.cuda.copy()` でパラメータを GPU にコピーできる
#
# **主張：** `torch.cuda.copy()` という関数があり、モデルのパラメータを GPU にコピーしてくれる。
#
# 主張どおりにテンソルを渡して呼び出してみます。

# %% [markdown] tags=["predict"]
# **予想：** 次のセルで `torch.cuda.copy(torch.ones(3))` を呼ぶと、GPU があってもなくても同じエラーになります。どのエラーでしょうか。
#
# - `Torch not compiled with CUDA enabled`
# - `has no attribute 'copy'`
# - `missing 1 required positional argument`

# %%
with expect_error(Exception) as caught:
    torch.cuda.copy(torch.ones(3))

# %% tags=["claim-M3", "answer"]
assert type(caught.error) is AttributeError
assert "has no attribute 'copy'" in str(caught.error)
assert not hasattr(torch.cuda, "copy")

# %% [markdown] tags=["answer"]
# **答え：** `has no attribute 'copy'`（`AttributeError`）です。**判定：誤り**。そのような関数は存在しないので、どのマシンでも同じように失敗します。出力の `module 'torch.cuda' has no attribute 'copy'` は、「`torch.cuda` モジュールに `copy` という属性はない」という意味です。
#
# - `Torch not compiled with CUDA enabled`（Torch が CUDA を有効にしてコンパイルされていない）を選んだなら、関数は実在していて、CUDA がないから失敗すると考えたのでしょう。実際には CUDA の有無を調べる前に、属性が見つからない時点で失敗します。
# - `missing 1 required positional argument`（必須の位置引数が1つ足りない）は、関数は実在していて引数が足りない、と考えた答えです。しかし、引数を調べるところまでは進みません。

# %% [markdown]
# 実際に使うべきものは次のとおりです。
#
# - `dst.copy_(src)`：既存のテンソルに値をコピーする（デバイスは問わない）
# - `t.to(device)`：指定したデバイス上のテンソルを返す
# - `t.clone()`：同じデバイス上に新しいメモリを確保してコピーする
#
# モデル全体を移動するなら `model.to(device)` を使います。

# %% tags=["claim-M3"]
src = torch.arange(4.0)
dst = torch.empty(4, device=device)
dst.copy_(src)
moved = src.to(device)
cloned = src.clone()

print(dst, moved, cloned)
assert torch.equal(dst.cpu(), src)
assert torch.equal(moved.cpu(), src)
assert torch.equal(cloned, src) and cloned.data_ptr() != src.data_ptr()

# %% [markdown]
# ## 主張：`model.cuda()` は `model.to('cuda')` よりメモリを多く使う
#
# **主張：** `.cuda()` でモデルを移動するとコストが高く、`.to('cuda')` のほうがメモリが少なくて済む。
#
# **判定：誤り**。どちらも同じ内部メソッド `Module._apply` を呼ぶだけの短いラッパーで、このメソッドがすべてのパラメータとバッファを変換します。ソースコードを読めば、どのマシンでも確認できます。

# %% tags=["claim-M4"]
for name in ("cuda", "to", "cpu", "double"):
    assert "self._apply(" in inspect.getsource(getattr(nn.Module, name)), name

print(inspect.getsource(nn.Module.cuda).strip().splitlines()[-1].strip())
print(inspect.signature(nn.Module.cuda))
assert "dtype" not in inspect.signature(nn.Module.cuda).parameters

# %% [markdown]
# インデックスを指定しなければ、どちらも現在の CUDA デバイスを使います。実際の違いは受け取る引数にあり、上に表示したシグネチャのとおり、`.cuda()` が受け取るのはデバイスだけです。

# %% [markdown] tags=["predict"]
# **予想：** `nn.Linear(2, 2).to(target, torch.float16)` では、1回の呼び出しでデバイスと dtype の両方を渡しています。次のセルで重みのデバイスと dtype を表示すると、dtype はどれになるでしょうか。それとも例外が送出されるでしょうか。
#
# - `torch.float32`
# - `TypeError`
# - `torch.float16`

# %%
both = nn.Linear(2, 2).to(target, torch.float16)
print(both.weight.device, both.weight.dtype)

# %% tags=["claim-M4", "answer"]
assert both.weight.device.type == target.type
assert both.weight.dtype == torch.float16
with expect_error(TypeError):
    nn.Linear(2, 2).cuda(target, torch.float16)  # デバイスしか受け取らない

# %% [markdown] tags=["answer"]
# **答え：** `torch.float16` です。`Module.to` は1回の呼び出しでデバイスと dtype を受け取り、両方を変換します。`.cuda()` はデバイスしか受け取らないので dtype は変えられず、dtype も渡すと `TypeError` を送出します（上のセルの最後で確かめています）。出力の `takes from 1 to 2 positional arguments but 3 were given` は、「位置引数は1〜2個までなのに、3個渡された」と言っています（`self` も1個に数えます）。
#
# - `torch.float32` と予想した人は、`to` が引数を1つしか使わないと思ったのかもしれません。
# - `TypeError` になると考えたなら、`Module.to` も `.cuda()` と同じくデバイスしか受け取らないと思ったのでしょう。

# %% [markdown]
# GPU があれば、まったく同じモデル2つをそれぞれのメソッドで GPU に移動し、使ったメモリと移動先が同じになることを次のセルで確かめます。

# %% tags=["claim-M4", "gpu-only"]
if torch.cuda.is_available():
    by_cuda = nn.Linear(1024, 1024)
    by_to = copy.deepcopy(by_cuda)
    used = []
    for move in (by_cuda.cuda, lambda: by_to.to("cuda")):
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        move()
        torch.cuda.synchronize()
        after = torch.cuda.memory_allocated()
        peak = torch.cuda.max_memory_allocated()
        used.append((after - before, peak - before))
    print(used, by_cuda.weight.device, by_to.weight.device)
    assert used[0] == used[1]
    assert by_cuda.weight.device == by_to.weight.device
    current = torch.device("cuda", torch.cuda.current_device())
    assert by_cuda.weight.device == current
    assert torch.equal(by_cuda.weight, by_to.weight)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 主張：`nn.DataParallel` がモデルを GPU に載せてくれる
#
# **主張：** モデルを `nn.DataParallel` でラップすれば、GPU への移動もやってくれる。
#
# **判定：ほぼ誤り**。どうなるかは、ラッパーが最終的に使うデバイス ID（`device_ids`）の数で決まります。`device_ids` を省略すると、使用可能なすべての GPU が使われます。
#
# - アクセラレータがない場合、または `DataParallel` が対応していない Apple の GPU（MPS）しかない場合：`device_ids` は空になり、ラッパーはモデルを移動せず、今あるデバイスのまま呼び出すだけです。
# - デバイス ID がちょうど1つの場合：コンストラクタがモデルをその GPU に移動します。GPU が1枚のマシンでは、デフォルトでこうなります。GPU が複数枚あるマシンで `device_ids=[1]` を渡したときも同じで、モデルは `cuda:1` に移動します。
# - デバイス ID が2つ以上の場合：ラッパーは何も移動しません。最初の順伝播で、パラメータを `device_ids[0]` に置くよう求めるエラーが発生します。
#
# Intel の XPU など、`DataParallel` が扱えるほかのアクセラレータも、ここでは GPU として数えます（「[複数の GPU](05-several-gpus.ipynb#nndataparallel-が実際にすること)」のページを参照してください）。
#
# このマシンに当てはまる場合を、次のセルで検証します。GPU が複数枚あれば、デバイス ID を1つだけ渡してラップした場合も試します。GPU がなければ、最初の場合だけを検証します。
#
# デバイス ID が2つ以上のときに出るエラーの原因と対処法は、「[デバイス不一致のエラーを読み解く](07-device-errors.ipynb#module-must-have-its-parameters-and-buffers-on-device-cuda0-device_ids0-but-found-one-of-them-on-device-cpu)」で詳しく説明しています。

# %% tags=["claim-M5", "gpu-only"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(3, 4)
print(f"{dp.device_ids=}, {model.weight.device=}")
assert dp.module is model

if len(dp.device_ids) == 0:
    out = dp(x)
    assert model.weight.device.type == "cpu"
    assert out.device.type == "cpu"
elif len(dp.device_ids) == 1:
    out = dp(x)
    on = model.weight.device
    assert on.type != "cpu" and on.index == dp.device_ids[0]
    assert out.device == on
else:
    assert model.weight.device.type == "cpu"
    expected = "module must have its parameters and buffers on device"
    with expect_error(RuntimeError, expected):
        dp(x)
    last = dp.device_ids[-1]
    one = nn.DataParallel(nn.Linear(4, 2), device_ids=[last])
    print(f"{one.module.weight.device=}")
    assert one.module.weight.device == torch.device("cuda", last)

# %% [markdown]
# したがって、ラップする前に自分でモデルを移動しましょう。そうすれば GPU が何枚あっても動きます。ほかに知っておきたい点が2つあります。
#
# - ラッパーは自身の `state_dict` のすべてのキーに `module.` という接頭辞を付けます。接頭辞のないキーが必要なら、`dp.module.state_dict()` を保存してください。
# - `DataParallel` のドキュメントでは、マシンが1台だけの場合も含めて、`DistributedDataParallel` の使用が推奨されています。

# %% tags=["claim-M5"]
wrapped = nn.DataParallel(nn.Linear(4, 2).to(device))
out = wrapped(torch.randn(3, 4))
print(out.device, list(wrapped.state_dict()), list(wrapped.module.state_dict()))

assert out.device.type == device.type
assert list(wrapped.state_dict()) == ["module.weight", "module.bias"]
assert list(wrapped.module.state_dict()) == ["weight", "bias"]
assert "recommended to use" in nn.DataParallel.__doc__
assert "DistributedDataParallel" in nn.DataParallel.__doc__

# %% [markdown]
# ## 主張：GPU 上の `Linear(10, 1)` に `torch.randn(10, 1)` を入力できる
#
# **主張：** よく出回っている「`nn.Linear(10, 1)` をデバイスに移動し、CPU 上で作った `torch.randn(10, 1)` を入力する」コード例は、そのまま動く。
#
# **判定：誤り（バグが2つある）**。層は GPU 上にあるのに入力は CPU 上に残っており、しかも形状が間違っています。`Linear(10, 1)` が受け取るのは、最後の次元が10個の特徴量からなる、形状 `(N, 10)` の入力です。書かれたままでは、このコード例はどのマシンでも失敗します。
#
# どちらのバグが先に表面化するかはマシン次第です。GPU のあるマシンでは、形状より先にデバイスが検査されます。CPU だけのマシンではすべてが CPU 上にあるので、形状のエラー（「`mat1` と `mat2` の形状では行列積を計算できない」）だけが残ります。次のセルを実行すると、このマシンで先に出るほうのエラーを確かめられます。

# %% tags=["gpu-only"]
net = nn.Linear(10, 1).to(device)
x = torch.randn(10, 1)
first = "shapes cannot be multiplied"  # CPU だけのマシン
if device.type == "cuda":
    first = "same device"  # デバイスの検査が先に行われる
with expect_error(RuntimeError, first):
    net(x)

# %% [markdown]
# `x = x.to(device)` で入力をデバイス上のテンソルに置き換えるだけでは足りません。形状のエラーはそのまま残ります。

# %%
x = x.to(device)
with expect_error(RuntimeError, "shapes cannot be multiplied"):
    net(x)

# %% [markdown]
# **対処法：** 10個の特徴量を持つサンプル `N` 個からなるバッチを、層と同じデバイス上に作ります。

# %% tags=["claim-M6"]
N = 4
x = torch.randn(N, 10, device=device)
y = net(x)

print(y.shape, y.device)
assert y.shape == (N, 1)
assert y.device == net.weight.device

# %% [markdown]
# ## 古い情報：整数で指定したデバイスは CUDA の GPU を指す
#
# **以前（PyTorch 1.7）：** `torch.device(0)` や `device=0` は `cuda:0` の省略形でした。
#
# **現在：** PyTorch 2.5 以降、整数は**現在のアクセラレータ**（current accelerator）のインデックスを意味します。アクセラレータは CUDA とは限らず、Apple の MPS や Intel の XPU の場合もあります。CPU 専用ビルドで整数を指定すると、`Cannot access accelerator device when none is available.`（使えるアクセラレータがないので、アクセラレータのデバイスにアクセスできない）というエラーになります。CPU 専用でないビルドでも、使える GPU がなければやはり失敗します。
#
# 整数が CPU を指すことはありません。CUDA の GPU を指定したいときは `"cuda:0"` と書きましょう。
#
# 次のセルでは、`torch.device(0)` を指定してテンソルを作ります。その結果（作られたテンソルのデバイス、または送出された例外）を、CPU 専用ビルドかどうか（`cpu_only_build`）と一緒に表示し、このマシンで期待どおりかを検証します。
#
# `Cannot access accelerator device` のエラーの原因と対処法は、「[読み込み・環境・メモリのエラーを読み解く](09-setup-and-memory-errors.ipynb#cannot-access-accelerator-device-when-none-is-available)」で説明しています。

# %% tags=["claim-O1", "gpu-only"]
cpu_only_build = (
    torch.version.cuda is None
    and torch.version.hip is None
    and getattr(torch.version, "xpu", None) is None
    and not torch.backends.mps.is_built()
)
try:
    result = torch.zeros(1, device=torch.device(0)).device
except (RuntimeError, AssertionError) as err:
    result = err

print(cpu_only_build, repr(result))
assert isinstance(result, Exception) or result.type != "cpu"
if torch.cuda.is_available():
    assert result == torch.device("cuda", 0)
elif cpu_only_build and TORCH >= (2, 5):
    assert "none is available" in str(result)

# %% [markdown]
# ## 古い情報：テンソルに `is_cpu` 属性はない
#
# **以前（PyTorch 1.7）：** `t.is_cuda` はあっても `t.is_cpu` はなかったので、代わりに `t.device.type` を比較していました。
#
# **現在：** `Tensor.is_cpu` があります（PyTorch 1.13 で追加）。

# %% tags=["claim-O2"]
t = torch.ones(2, device=device)
print(t.is_cpu, t.is_cuda, t.device)
assert hasattr(torch.Tensor, "is_cpu")
assert t.is_cpu == (t.device.type == "cpu")
assert t.is_cuda == (t.device.type == "cuda")
assert torch.ones(1).is_cpu

# %% [markdown]
# ## 古い情報：デバイスが一致しないときのエラーメッセージ
#
# **以前（PyTorch 1.7）：** CUDA の行列積は、すべてのテンソルが GPU 上にあるかを検査し（ATen の `checkAllSameGPU`）、CPU 上にあるものを列挙しました。検査されていたのは、`addmm(bias, input, weight.T)` の `self`、`mat1`、`mat2` と、バイアスと同じデバイスに作られる出力 `out` でした。そのため、層と入力のどちらが CPU に残っていたかでメッセージが変わりました。
#
# - CPU の入力を GPU 上の層に渡した場合（`mat1` が GPU 上にない）：
#
#   ```
#   Tensor for argument #2 'mat1' is on CPU, but expected it to be on GPU (while checking arguments for addmm)
#   ```
#
#   「引数 #2 の `mat1` のテンソルが CPU 上にあるが、GPU 上にあるべき」という意味です。
#
# - GPU の入力を CPU に残った層に渡した場合（`out` と `self` が GPU 上にない）：
#
#   ```
#   Tensor for 'out' is on CPU, Tensor for argument #1 'self' is on CPU, but expected them to be on GPU (while checking arguments for addmm)
#   ```
#
#   「`out` と引数 #1 の `self` のテンソルが CPU 上にあるが、どちらも GPU 上にあるべき」と言っています。
#
# **現在：** メッセージはどちらの場合も `Expected all tensors to be on the same device`（すべてのテンソルが同じデバイス上にあるはず）で始まります。メッセージの後半には、実行された演算の引数の名前が1つ入ります。この検査は CUDA カーネルの中ではなく、カーネルを呼ぶ前に行われます。PyTorch が自動生成するラッパー（`wrapper_CUDA_addmm`）が各テンソル引数を最初の引数と順に比べ、一致しない引数が見つかると、その名前をメッセージに入れます。
#
# 後半の文言はリリースごとに変わってきました（PyTorch 2.8 でも変更されています）。ログを検索するときは、後半ではなく先頭の `Expected all tensors to be on the same device` を使ってください。`+` や `*` のような要素ごとの演算は TensorIterator（PyTorch 内部の仕組み）を通るので、そのメッセージには今も引数の名前が入らず、`but found at least two devices, cuda:0 and cpu!`（`cuda:0` と `cpu` という、少なくとも2つのデバイスが見つかった）で終わります。
#
# どの引数の名前が出るかは、層が実行する演算で決まります。バイアスのある `Linear` に2次元の入力を渡すと `addmm(bias, input, weight.T)` が実行され、その引数の名前は `self`、`mat1`、`mat2` です。autograd は実行された演算を結果の `grad_fn` に記録するので、バイアスのない層が何を実行するかは CPU でもわかります。

# %% [markdown] tags=["predict"]
# **予想：** `nn.Linear(10, 1, bias=False)` は、2次元の入力に対してどの演算を実行するでしょうか。次のセルでは、その演算を記録した計算グラフのノード（`grad_fn`）の名前を表示します。
#
# - `AddmmBackward0`
# - `LinearBackward0`
# - `MmBackward0`

# %%
x = torch.randn(4, 10)
no_bias = nn.Linear(10, 1, bias=False)
print(f"{no_bias(x).grad_fn.name()=}")

# %% tags=["answer"]
assert no_bias(x).grad_fn.name() == "MmBackward0"
assert nn.Linear(10, 1)(x).grad_fn.name() == "AddmmBackward0"

# %% [markdown] tags=["answer"]
# **答え：** `MmBackward0` です。バイアスがなければ足すものがないので、層は `mm(input, weight.T)` を実行します。その引数の名前は `self` と `mat2` です。
#
# - バイアスがなくても層は `addmm` で計算する、と思うと `AddmmBackward0` を選びます。このノードを記録するのはバイアスのある層で、上のセルの2つ目の `assert` で確かめています。
# - `LinearBackward0` は、関数名の `linear` がそのままノードの名前になると考えた答えです。記録されるのは `linear` 自身ではなく、`linear` が実行する演算です。
#
# この演算の違いによって、メッセージに出る引数の名前が変わります。バイアスがあれば最初の引数はバイアスで、層と同じデバイスにあります。そのため、層と入力のどちらが GPU 上にあっても、メッセージには入力の `mat1` が出ます。バイアスがなければ最初の引数は入力なので、やはりどちらが GPU 上にあっても、重みの `mat2` が出ます。
#
# いずれにしても、引数の名前から、どちらを移動すべきかは判断できません。モデルも入力も、すべて同じデバイスに置きましょう。
#
# GPU があれば、次のセルで実際にエラーを起こしてみます。バイアスのある層とない層のそれぞれで、層だけを GPU に置いた場合と入力だけを GPU に置いた場合を試し、メッセージに出る引数の名前を検証します。加算で出るメッセージもあわせて確かめます。CPU だけではデバイスの不一致そのものが起こらないので、GPU がなければ何も検証しません。
#
# メッセージの読み方と対処法は、「[デバイス不一致のエラーを読み解く](07-device-errors.ipynb#expected-all-tensors-to-be-on-the-same-device)」を参照してください。

# %% tags=["claim-O3", "gpu-only"]
if torch.cuda.is_available():
    MISMATCH = "Expected all tensors to be on the same device"
    for bias, named, other in ((True, "mat1", "mat2"), (False, "mat2", "mat1")):
        gpu_layer = nn.Linear(10, 1, bias=bias).to(device)
        cpu_layer = nn.Linear(10, 1, bias=bias)
        for layer, on in ((gpu_layer, "cpu"), (cpu_layer, device)):
            with expect_error(RuntimeError, MISMATCH) as caught:
                layer(torch.randn(4, 10, device=on))
            assert named in str(caught.error)
            assert other not in str(caught.error)
    with expect_error(RuntimeError, "found at least two devices"):
        torch.ones(2, device=device) + torch.ones(2)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 古い情報：存在しない GPU インデックスを指定すると `RuntimeError` そのものが送出される
#
# **以前（PyTorch 1.7）：** 存在しない GPU を指定すると（たとえば GPU が1枚のマシンで `t.cuda(1)`）、`RuntimeError: CUDA error: invalid device ordinal`（CUDA エラー：デバイス番号が無効）が送出されました。
#
# **現在：** PyTorch 2.8 以降、同じエラーが `torch.AcceleratorError` として送出されます。このクラスは `RuntimeError` のサブクラスなので、既存の `except RuntimeError:` のコードでもそのまま捕捉できます。GPU がなければ、次のセルではクラスだけを確かめます。
#
# `invalid device ordinal` の原因と対処法は、「[読み込み・環境・メモリのエラーを読み解く](09-setup-and-memory-errors.ipynb#cuda-error-invalid-device-ordinal)」にまとめています。

# %% tags=["claim-O4", "gpu-only"]
if hasattr(torch, "AcceleratorError"):
    print(torch.AcceleratorError.__mro__)
    assert issubclass(torch.AcceleratorError, RuntimeError)
else:
    print(f"{hasattr(torch, 'AcceleratorError')=}")

if torch.cuda.is_available():
    missing = torch.cuda.device_count()
    try:
        torch.zeros(1).to(f"cuda:{missing}")
    except RuntimeError as err:
        print(type(err).__name__, str(err).splitlines()[0])
        assert "invalid device ordinal" in str(err)
        if hasattr(torch, "AcceleratorError"):
            assert isinstance(err, torch.AcceleratorError)
    else:
        raise AssertionError("expected a RuntimeError")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## 古い情報：デバイスの選択には `torch.cuda.is_available()` を使う
#
# **以前（PyTorch 1.7）：** `"cuda" if torch.cuda.is_available() else "cpu"` が定番の書き方でした。
#
# **現在：** この書き方は NVIDIA の GPU では引き続き使えますし、このページでも使っています。より移植性が高いのは、`torch.accelerator` モジュール（PyTorch 2.6 以降）を使う方法で、CUDA、MPS、XPU などを扱えます。
#
# `torch.accelerator.current_accelerator()` は、使っている torch のビルドが対応するアクセラレータを返します。どれにも対応していなければ `None` です（`None` になるのは PyTorch 2.7 以降）。この戻り値はビルドについての情報なので、デバイスを実際に使えるかどうかを調べる `torch.accelerator.is_available()` と組み合わせて使います。
#
# 次のセルで表示するのは、ビルドが対応するアクセラレータ（`current_accelerator()`）、それを実際に使えるかどうか（`is_available()`）、選んだデバイスの3つです。GPU がなければ、CUDA のデバイスが選ばれないことを確かめます。PyTorch 2.6 では、バージョン（`TORCH=(2, 6)`）を表示するだけです。

# %% tags=["claim-O5", "gpu-only"]
if TORCH >= (2, 7):
    accelerator = torch.accelerator.current_accelerator()
    usable = torch.accelerator.is_available()
    picked = torch.device("cpu")
    if accelerator is not None and usable:
        picked = accelerator
    print(accelerator, usable, picked)

    assert (picked.type == "cuda") == torch.cuda.is_available()
    if torch.cuda.is_available():
        assert accelerator.type == "cuda" and usable
    if cpu_only_build:
        assert accelerator is None and not usable
else:
    print(f"{TORCH=}")

# %% [markdown]
# ## まとめ
#
# | 主張 | 判定 | 実際は |
# |---|---|---|
# | `model.to(device)` だけではモデルは移動しない | 誤り | `Module.to` はモジュール自体を書き換え、同じモジュールを返す |
# | `model = model.to(device)` でメモリを節約できる | 誤り | どちらの書き方も処理は同じで、コピーは残らない |
# | `torch.cuda.copy()` でパラメータを GPU にコピーできる | 誤り | 存在しない。`copy_`、`to`、`clone` を使う |
# | `.cuda()` は `.to('cuda')` よりメモリを多く使う | 誤り | どちらも `Module._apply` を通る。`.cuda()` は dtype を変えられない |
# | `nn.DataParallel` がモデルを GPU に載せてくれる | ほぼ誤り | 移動するのはデバイス ID がちょうど1つ（`len(device_ids) == 1`）のときだけ。モデルは自分で移動する |
# | GPU 上の `Linear(10, 1)` に `torch.randn(10, 1)` を入力できる | 誤り | デバイスも形状も誤り。`torch.randn(N, 10, device=device)` を使う |
# | `device=0` は `cuda:0` を意味する | 古い情報 | 現在のアクセラレータのインデックス（PyTorch 2.5 以降） |
# | テンソルに `is_cpu` はない | 古い情報 | `Tensor.is_cpu` がある（PyTorch 1.13 以降） |
# | デバイス不一致のメッセージは `... is on CPU, but expected it to be on GPU` | 古い情報 | `Expected all tensors to be on the same device` で検索する。後半の引数名は実行された演算で決まる |
# | 存在しない GPU インデックスでは `RuntimeError` そのものが送出される | 古い情報 | `RuntimeError` のサブクラスである `torch.AcceleratorError`（PyTorch 2.8 以降） |
# | デバイスは `torch.cuda.is_available()` で選ぶ | 古い情報 | CUDA なら引き続き使える。移植性が必要なら `torch.accelerator`（PyTorch 2.6 以降。ビルドがアクセラレータに対応していないとき `current_accelerator()` が `None` を返すのは PyTorch 2.7 以降） |

