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
# # 読み込み・環境・メモリのエラーを読み解く
#
# このページでは、学習コードそのものではなく、その周辺で起こるエラーを扱います。対象は、チェックポイントの読み込み、マシンにない GPU の指定、整数でのデバイス指定、ワーカープロセスの起動、PyTorch のインストール、GPU のメモリ不足です。異なるデバイス上のテンソルを1つの演算に渡したときのエラーは、「[デバイス不一致のエラーを読み解く](07-device-errors.ipynb)」で解説しています。
#
# `pin_memory` のセクションを除き、各セクションの見出しはエラーメッセージそのものなので、トレースバックに出た文言でページ内を検索できます。各セクションでは、メッセージの意味を説明し、エラーを起こすコードと対処法を実際に動かします。
#
# 6つのエラーのうち3つ（チェックポイントの読み込み、整数でのデバイス指定、CPU 専用ビルドでの CUDA の要求）は、GPU がなくても再現できます。そこで、CPU 専用ビルドの PyTorch と、ストレージのデバイスが `cuda` と記録されたチェックポイントを使って、実際に起こしてみます。
#
# 残りの3つ（マシンにない GPU の指定、fork した子プロセスでの CUDA、メモリ不足）を起こすには GPU が要ります。この3つを扱うセルでは、対処法はどのマシンでも実行し、エラーそのものは GPU があるときだけ検証します（GPU がなければ、満たされなかった条件を表示します）。メッセージは PyTorch のソースにある文言のまま本文に引用し、リリースによって文言が違うものにはバージョンを添えます。

# %% [markdown] tags=["summary"]
# **結論**
#
# - GPU で保存したチェックポイントも、`map_location` を指定すればどのマシンでも読み込めます。
# - DataLoader のワーカーに CUDA は要りません。ワーカーは CPU のバッチを作り、デバイスへの移動はメインプロセスの学習ループで行います。CUDA を使うワーカーが必要なら、`fork` ではなく `spawn` で起動します。
# - `Torch not compiled with CUDA enabled` は、PyTorch が CPU 専用ビルドだという意味です。CUDA ビルドを入れるか、GPU がなければ CPU を使うようにデバイスを選んでください。
# - ページ末尾の表に、メッセージごとのよくある原因と対処法をまとめています。
#
# ```python
# state = torch.load(path, map_location=device)
# for (x,) in DataLoader(data, num_workers=2):
#     x = x.to(device)
# ```

# %% tags=["setup"]
import contextlib
import inspect
import multiprocessing
import os
import subprocess
import sys
import tempfile
import types
import warnings
import zipfile

import torch
from torch.utils.data import DataLoader, TensorDataset

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
# ## Attempting to deserialize object on a CUDA device
#
# メッセージの前半は「CUDA デバイス上にオブジェクトを復元しようとした」と言っています。全文は次のとおりです。
#
# ```
# Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.
# ```
#
# 後半は、`torch.cuda.is_available()` が `False` であることを伝え、CPU だけのマシンなら `torch.load` に `map_location=torch.device('cpu')` を指定して、ストレージを CPU 上に復元するよう勧めています。
#
# チェックポイントにはストレージごとに保存元のデバイスが記録されていて、`torch.load` はストレージをそのデバイス上に復元します。たとえば `cuda:0` 上のテンソルを保存したファイルには `cuda:0` と記録されているので、使える CUDA GPU のないマシンでは、そのまま `cuda:0` 上に復元することはできません。対処法は、メッセージにあるとおり `map_location` を指定することです。
#
# `cuda:0` と記録されたファイルを GPU なしで作るため、CPU のテンソルを保存してから、ファイル中のデバイスの文字列を書き換えます。チェックポイントは zip アーカイブで、中の `data.pkl`（オブジェクトを pickle で直列化したもの）に、各ストレージのデバイスが短い文字列として記録されています。書き換えるのはこの部分です。
#
# `torch.load` はこの文字列だけを見てデバイスを選ぶので、読み込みは GPU で保存したファイルのときと同じ経路をたどります。ただし、こうして作ったファイルが、本物の GPU で保存したファイルと細部まで同じになるとは限りません。
#
# 次のセルは、GPU があればこのファイルを `cuda:0` に読み込みます。GPU がなければ、まずエラーを起こし、続いて対処法を実行します。

# %% tags=["gpu-only"]
def retag(path, old, new):
    # torch.save が使う pickle プロトコル 2 は、文字列を
    # b"X" + 4バイトの長さ + UTF-8 のバイト列として書く
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
        with expect_error(RuntimeError, "Attempting to deserialize object"):
            torch.load(path, weights_only=True)

    on_cpu = torch.load(path, map_location="cpu", weights_only=True)
    here = torch.load(path, map_location=device, weights_only=True)

print(f"{on_cpu['weight']=}, {here['weight'].device=}")
assert on_cpu["weight"].device.type == "cpu"
assert torch.equal(on_cpu["weight"], torch.arange(3.0))
assert here["weight"].device.type == device.type

# %% [markdown]
# `torch.load` の `weights_only=True` は、PyTorch 2.6 からデフォルトになっています。それでも上のセルで明示しているのは、古いリリースの PyTorch を使うプロジェクトにこの行をコピーしても、安全に読み込めるようにするためです。

# %% [markdown]
# ## CUDA error: invalid device ordinal
#
# 「CUDA エラー：デバイス番号が無効」という意味のエラーで、指定したインデックスの GPU が存在しないときに出ます。
#
# たとえば、GPU が1枚のマシンで `cuda:1` を指定した場合や、`CUDA_VISIBLE_DEVICES` で一部の GPU を隠したあとに、隠す前のインデックスを指定した場合です（見える GPU には 0 からインデックスが振り直されます）。
#
# 例外の型とメッセージはバージョンによって違います。送出される例外は、PyTorch 2.7 までは `RuntimeError`、2.8 以降は `RuntimeError` のサブクラスである `torch.AcceleratorError` です。2.9 以降は、メッセージの2行目に `GPU device may be out of range, do you have enough GPUs?`（GPU のインデックスが範囲外かもしれない。GPU の数は足りているか）というヒントが加わります。

# %% [markdown] tags=["predict"]
# **予想：** このマシンの GPU は1枚かもしれないし、1枚もないかもしれません。PyTorch が CPU 専用ビルドということもあります。次のセルの出力はどれで始まるでしょうか。
#
# - `seven=device(type='cuda', index=7)`
# - `CUDA error: invalid device ordinal`
# - `Torch not compiled with CUDA enabled`

# %%
seven = torch.device("cuda", 7)
print(f"{seven=}, {torch.cuda.device_count()=}")

# %% tags=["answer"]
assert seven.index == 7
if TORCH >= (2, 8):
    assert issubclass(torch.AcceleratorError, RuntimeError)

# %% [markdown] tags=["answer"]
# **答え：** どのマシンでも `seven=device(type='cuda', index=7)` です。`torch.device` はデバイスの種類とインデックスを表すだけのオブジェクトで、作った時点では GPU の有無も数も確かめられません。
#
# - `CUDA error: invalid device ordinal` と予想した人は、`torch.device` を作った時点で GPU の数が確かめられると考えたのかもしれません。エラーになるのは、そのデバイスに初めてテンソルを置いたときです。
# - `Torch not compiled with CUDA enabled` は、CPU 専用ビルドなら `cuda` のデバイスを書いただけで失敗すると考えた答えです。CPU 専用ビルドでも、`torch.device` を作るだけではエラーになりません。
#
# テンソルを実際に置いてエラーを起こすのは、このあとの「GPU での検証を含む」セルです。

# %% [markdown]
# 次のセルは、GPU があれば、まず最後の GPU のインデックスより1つ大きい値（`torch.cuda.device_count()` と同じ値）を指定して、このエラーを起こします。PyTorch 2.9 以降は、ヒントの行も検証します。そのあと、`torch.cuda.device_count()` より小さい有効なインデックスを使います。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    n = torch.cuda.device_count()
    kind = torch.AcceleratorError if TORCH >= (2, 8) else RuntimeError
    with expect_error(kind, "invalid device ordinal"):
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
# 「使えるアクセラレータがないので、アクセラレータのデバイスにアクセスできない」という意味のエラーです。
#
# PyTorch 2.5 以降、`device=0`、`.to(0)`、`torch.device(0)` のようにデバイスを整数で指定すると、その整数は、PyTorch が使うアクセラレータ（CUDA、Apple の MPS、Intel の XPU など）のインデックスとみなされます。アクセラレータがない環境で整数を使うと、このエラーが起きます。`pin_memory()` もアクセラレータを必要とするため、呼ぶと同じエラーが出ます。
#
# このエラーが出るかどうかは、ビルドによって次のように違います。
#
# - CPU 専用ビルドでは、常に出ます。
# - 使える GPU のないマシン上の CUDA ビルドでも、PyTorch 2.6 までは出ます（NVIDIA ドライバのないマシンで 2.6.0+cu124 を使って確認しました）。
# - PyTorch 2.7 以降の CUDA ビルドでは、GPU が使えなくてもこのエラーは出ません。このビルドでは、GPU がなくても CUDA がアクセラレータとして扱われ、`torch.device(0)` は `cuda:0` を指します。そのため、このエラーは出ず、そこにテンソルを作った時点で別のエラーが出ます。そのメッセージには、`Found no NVIDIA driver on your system`（NVIDIA ドライバが見つからない）のように原因が示されます。この動作は、NVIDIA ドライバのないマシンで 2.11.0+cu130 を使って確認しました。
#
# 対処法は、デバイスを名前で書くこと（`"cuda:0"`、または一度決めた `device`）と、アクセラレータがあるときだけメモリをピン留めすることです。
#
# このマシンがどの場合に当たるかは、次のセルで表示します。GPU があれば、0番のデバイスにテンソルを作ります。

# %% tags=["gpu-only"]
usable = torch.accelerator.is_available()
# 2.7 以降の current_accelerator() はビルドの対象のアクセラレータを
# 返す（なければ None）。2.6 は使えるものがないと例外を送出する
if usable or TORCH >= (2, 7):
    built_for = torch.accelerator.current_accelerator()
else:
    built_for = None
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
    # アクセラレータ向けのビルドを、それがないマシンで使っている。
    # torch.device(0) はそのアクセラレータの0番を指す
    print(f"{torch.device(0)=}")
    assert torch.device(0) == torch.device(built_for.type, 0)
    try:
        torch.zeros(1, device=0)
    except RuntimeError as err:  # ドライバがない、などの原因を示す
        sys.stdout.flush()
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError("expected RuntimeError")

named = torch.zeros(1, device=device)
print(f"{named.device=}")
assert named.device.type == device.type

# %% [markdown]
# ### `pin_memory=True` と `non_blocking=True`
#
# `DataLoader(..., pin_memory=True)` は、バッチをピン留め（ページロック）メモリに置いて返します。`t.to(device, non_blocking=True)` は GPU へのコピーをキューに積むだけで、完了を待たずに戻ります。
#
# アクセラレータがない場合、DataLoader は失敗せず、ピン留めしていないバッチを返します。`non_blocking=True` を付けた `to(...)` の動作も、付けないときと変わりません。そのため、同じループがどの環境でも動きます。
#
# アクセラレータがない環境で `pin_memory=True` を指定したときに DataLoader が警告を出すかどうかは、リリースによって違います（PyTorch 2.13 は出し、2.6 は出しません）。2.13 の警告の文言は次のとおりです。
#
# ```
# 'pin_memory' argument is set as true but no accelerator is found, then device pinned memory won't be used.
# ```
#
# 「`pin_memory` に true が指定されたが、アクセラレータが見つからないのでピン留めメモリは使わない」ことを知らせる警告です。
#
# ピン留めで学習が速くなるかどうかは別の問題で、「[テンソルの移動](02-moving-tensors.ipynb)」のページで測っています。
#
# 次のセルでは、出た警告を記録して、その種類（`UserWarning`）を表示します。GPU があれば、バッチがピン留めされていたことも検証します。

# %% tags=["gpu-only"]
loader = DataLoader(
    TensorDataset(torch.randn(8, 3), torch.arange(8)),
    batch_size=4,
    pin_memory=True,
)
with warnings.catch_warnings(record=True) as warned:
    warnings.simplefilter("always")
    for features, labels in loader:
        pinned = features.is_pinned()
        features = features.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)

print([w.category.__name__ for w in warned])
print(f"{pinned=}, {features.device=}, {labels.device=}")
assert features.device.type == labels.device.type == device.type
if torch.cuda.is_available():
    assert pinned
elif not torch.accelerator.is_available():
    assert not pinned
    if TORCH >= (2, 13):  # アクセラレータが見つからないという警告
        assert any("no accelerator" in str(w.message) for w in warned)

# %% [markdown]
# 逆向き、つまり GPU から CPU へのコピーを `to("cpu", non_blocking=True)` で行うと、コピーが終わる前に呼び出しが戻ることがあります。返ってきたテンソルを読む前に、`torch.cuda.synchronize()` を呼んでください。この動作を GPU で検証するセルは、「[テンソルの移動](02-moving-tensors.ipynb)」のページにあります。

# %% [markdown]
# ## Cannot re-initialize CUDA in forked subprocess
#
# 「fork した子プロセスでは CUDA を初期化し直せない」と伝えるエラーです。全文は次のとおりです。
#
# ```
# Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method
# ```
#
# 後半は「マルチプロセスで CUDA を使うなら、起動方法に `'spawn'` を使わなければならない」と求めています。Linux では、Python 3.13 までは `multiprocessing` も DataLoader も、デフォルトで `fork`、つまり親プロセスを複製する方法でワーカー（子プロセス）を起動します（Python 3.14 から、Linux のデフォルトは `forkserver` です）。親がすでに CUDA を初期化していると、fork した子プロセスは CUDA をまったく使えません。
#
# 次のセルでは、まず親プロセスで `device` 上にテンソルを作ります（GPU があれば、ここで CUDA が初期化されます）。それから子プロセスを fork し、子の中でも `device` 上にテンソルを作ります。
#
# - GPU がある場合：子プロセスでこのエラーが起き、子はそのメッセージを親に送り返します。
# - GPU がない場合：CUDA は一度も初期化されないのでエラーは起こらず、子は CPU のテンソルを作ります。このときは、`torch.cuda.is_initialized()` が `False` であることと、子の結果を表示します。
#
# `fork` を安全に試せるのは Linux だけなので、この実演はほかの OS では省略します。また、デフォルトの起動方法に関係なく、`fork` を明示的に指定します。

# %% tags=["gpu-only"]
def child(queue, device):
    try:
        queue.put(("ok", torch.ones(2, device=device).sum().item()))
    except RuntimeError as err:
        queue.put(("error", str(err)))


if sys.platform.startswith("linux"):
    torch.ones(1, device=device)  # GPU では、ここで CUDA が初期化される
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
        assert outcome == "error"
        assert "Cannot re-initialize CUDA in forked subprocess" in result
    else:
        assert outcome == "ok" and result == 2.0
else:
    print(f"{sys.platform=}")

# %% [markdown] tags=["predict"]
# **予想：** GPU があるマシンでは、このプロセスはすでに CUDA を使っています。このあと DataLoader が2つのワーカープロセスを（Linux で Python 3.13 以前なら `fork` で）起動してバッチを作り、ループが各バッチを `device` に移動します。次のセルは何を表示するでしょうか。
#
# - `devices={'cuda'}`
# - `Cannot re-initialize CUDA in forked subprocess`
# - `devices={'cpu'}`

# %%
dataset = TensorDataset(torch.randn(8, 3))
loader = DataLoader(dataset, batch_size=4, num_workers=2)
devices = set()
for (features,) in loader:
    devices.add(features.device.type)  # ワーカーが作ったテンソルのデバイス
    features = features.to(device)
print(f"{devices=}, {features.device=}")

# %% tags=["answer"]
assert devices == {"cpu"}
assert features.device.type == device.type

# %% [markdown] tags=["answer"]
# **答え：** GPU があってもなくても、`devices={'cpu'}` です。ワーカーはデータセットを読み、CPU のテンソルをまとめてバッチにするだけで、CUDA には一切触れません。そのため、CUDA を使ったプロセスから fork されても問題は起きません。
#
# - `devices={'cuda'}` は、ワーカーがバッチを GPU 上に作ってくれると考えた答えです。ワーカーが作るのは CPU のバッチで、`device` への移動はメインプロセスのループが行います。
# - `Cannot re-initialize CUDA in forked subprocess`（fork した子プロセスでは CUDA を初期化し直せない）は、fork したワーカーでは必ずこのエラーが出る、という思い込みから選ばれやすい答えです。実際には、ワーカーが CUDA に触れたときにだけ起きるエラーで、ここでのデータセットは CUDA を使いません。
#
# したがって、このエラーの一般的な対処法は、ワーカーでは CUDA を使わず、各バッチのデバイスへの移動をメインプロセスの学習ループで行うことです。これは DataLoader の本来の使い方でもあり、親が GPU を使ったあとでも `fork` で動きます。

# %% [markdown]
# 子プロセスでどうしても CUDA を使う必要があるなら、`multiprocessing.get_context("spawn")` や `DataLoader(..., multiprocessing_context="spawn")` で `spawn` を指定して起動します。`forkserver` でも構いません。
#
# `forkserver` では、子プロセスは新しく起動したサーバープロセスから fork されます。このサーバーはスクリプトを import しますが、`if __name__ == "__main__":` のブロックの中は実行しません。そのため、CUDA を使うコードがこのブロックの中にあれば、サーバーは CUDA を初期化しないまま子プロセスを fork します。
#
# `spawn` と `forkserver` のどちらでも、CUDA を使うコードはこのブロックの中に置き、データセットのクラスはモジュールのトップレベルで定義してください（詳しくは「[複数の GPU](05-several-gpus.ipynb)」を参照）。

# %% [markdown]
# ## Torch not compiled with CUDA enabled
#
# 直訳すると「Torch が CUDA を有効にしてコンパイルされていない」です。
#
# インストールされている PyTorch が CPU 専用ビルド（wheel のバージョンはたいてい `+cpu` で終わる）なのに、コードが `.cuda()` や `device="cuda"` などで CUDA を要求したときに出ます。例外の型は `AssertionError` です。
#
# ただし、CUDA を使う呼び出しのすべてでこのメッセージが出るわけではありません。たとえば `torch.cuda.set_device(0)` は、原因は同じでも `AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'`（`torch._C` モジュールに `_cuda_setDevice` という属性はない）で失敗します。
#
# CUDA を初期化できないマシンで CUDA ビルドを使った場合は、このエラーではなく `RuntimeError` が出て、メッセージに原因が示されます。NVIDIA ドライバのないマシンで PyTorch 2.6.0+cu124 を使うと、次のようになります。
#
# ```
# Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx
# ```
#
# メッセージは、NVIDIA ドライバが見つからないと述べたうえで、NVIDIA の GPU があることを確かめてドライバをインストールするよう促しています。
#
# 対処法は2つです。
#
# - GPU を使うなら、NVIDIA の GPU とドライバがあるマシンで、CPU 専用ビルドを CUDA ビルドに入れ替えます（手順は後述します）。macOS 向けの CUDA ビルドはないので、Apple シリコンの Mac では代わりに `mps` デバイスを使います。
# - どのマシンでも動くようにするなら、このチュートリアルの各ページと同じように、使うデバイスを最初に一度だけ決めて、以降はそれを使います（「[どこでも動くデバイスの選び方](04-choosing-a-device.ipynb)」を参照）。
#
# PyPI から `pip install torch` で入るのは、Linux（x86-64）なら CUDA ビルド、Windows なら CPU 専用ビルドです。同じバージョンが入っていると pip は入れ替えないので、いったんアンインストールし、PyTorch 公式のパッケージインデックスから入れ直します。コマンドは次のとおりで、Windows でも Linux でも同じです。
#
# ```
# python -m pip uninstall -y torch
# python -m pip install torch --index-url https://download.pytorch.org/whl/cu128
# ```
#
# 上の `cu128` は一例です。実際には、pytorch.org のインストールページで、ドライバと GPU の両方が対応する CUDA のバージョンを選んでください。
#
# Blackwell 世代の GPU（GeForce RTX 50 シリーズ、B200）には `cu128` 以降のビルドが必要です（PyTorch 2.7 から提供）。Blackwell の GPU で `cu126` のビルドを使うと、Blackwell 用のコードが含まれていないため、`… is not compatible with the current PyTorch installation`（インストールされている PyTorch はこの GPU に対応していない）という警告が出ます。なお、PyPI から入る Linux 向けの torch は、PyTorch 2.8 から `cu128` 以降のビルドになっています（2.7 は `cu126`）。
#
# このマシンの PyTorch が CPU 専用ビルドなのか、CUDA ビルドだが CUDA を初期化できないのか、それとも CUDA を使えるのかを、次のセルで確かめます。GPU があれば、CUDA のテンソルを作ります。

# %% tags=["gpu-only"]
print(f"{torch.version.cuda=}, {torch.backends.cuda.is_built()=}")
print(f"{torch.cuda.is_available()=}")
if sys.platform == "darwin":
    assert not torch.backends.cuda.is_built()  # macOS 向けの CUDA ビルドはない
# ビルドが対応していない GPU に出る警告
assert "not compatible with the current" in inspect.getsource(torch.cuda)
if not torch.backends.cuda.is_built():
    with expect_error(AssertionError, "Torch not compiled with CUDA enabled"):
        torch.zeros(1, device="cuda")
    with expect_error(AssertionError, "Torch not compiled with CUDA enabled"):
        torch.ones(1).cuda()
    with expect_error(AttributeError, "_cuda_setDevice"):
        torch.cuda.set_device(0)
elif not torch.cuda.is_available():
    # 理由はさまざま：ドライバがない、古い、GPU がない
    try:
        torch.zeros(1, device="cuda")
    except RuntimeError as err:
        sys.stdout.flush()
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
    else:
        raise AssertionError("expected RuntimeError")
else:
    assert torch.zeros(1, device="cuda").is_cuda

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
assert torch.zeros(1, device=device).device.type == device.type

# %% [markdown]
# ## CUDA out of memory
#
# CUDA のメモリ不足を知らせるエラーです。PyTorch 2.6〜2.13 では、メッセージは次のように始まります（… の部分にサイズが入ります）。
#
# ```
# CUDA out of memory. Tried to allocate …. GPU 0 has a total capacity of … of which … is free.
# ```
#
# 続いて、このプロセスが使っているメモリ（ドライバが一覧を返す場合はほかのプロセスの分も）が示され、次の文で終わります。
#
# ```
# Of the allocated memory … is allocated by PyTorch, and … is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.
# ```
#
# まとめると、メッセージには、確保しようとしたサイズ、GPU の総容量と空き、このプロセスが使っているメモリ（そのうち PyTorch の割り当て済みメモリと、予約済みで未割り当てのメモリ）が順に並びます。末尾の文は、予約済みで未割り当ての部分が大きければ、断片化を避けるために `expandable_segments` を試すよう勧めています。
#
# 上に引用したのは PyTorch 2.6 の文言です。メッセージに出る環境変数名は、2.9 と 2.10 では `PYTORCH_ALLOC_CONF` に変わり、2.12 で従来の `PYTORCH_CUDA_ALLOC_CONF` に戻りました（2.11 の文言は、このページでは確かめていません）。あわせて 2.12 では、この従来の名前が `PYTORCH_ALLOC_CONF` の別名という扱いになりました（[pytorch#167659](https://github.com/pytorch/pytorch/pull/167659)）。どちらを設定すればよいかは、このセクションの最後で説明します。
#
# 数値の意味は次のとおりです。
#
# - 割り当て済みメモリ（メッセージの `allocated by PyTorch`、`torch.cuda.memory_allocated()`）：アロケータから割り当てられ、使用中のメモリです。まだ解放されていないテンソル（それぞれ512バイトの倍数に切り上げ）のほか、cuBLAS などのライブラリの作業領域も含みます。
# - 予約済みで未割り当てのメモリ（`reserved by PyTorch but unallocated`）：PyTorch のキャッシングアロケータが GPU から確保してあるものの、どのテンソルにも使われていないメモリです。値はおよそ `torch.cuda.memory_reserved() - torch.cuda.memory_allocated()` です。解放したテンソルのメモリはドライバには返されず、アロケータのキャッシュに残ります。そのため、`torch.cuda.empty_cache()` を呼ぶまでは、`nvidia-smi` で使用中と表示されたままです。
# - `nvidia-smi` はさらに、各プロセスの CUDA コンテキストと、同じ GPU を使うほかのプロセスの分も数えます。
#
# まず試したいのは次の対策です。
#
# - バッチを小さくする。
# - 損失を集計するときは、`loss` ではなく `loss.detach()` を足し合わせる（「[値を読み出すと CPU が GPU を待つ](07-device-errors.ipynb#値を読み出すと-cpu-が-gpu-を待つ)」を参照）。
# - 評価には `torch.no_grad()` を使う。
# - 不要になった大きなテンソルを `del` する。
# - 予約済みで未割り当ての部分が大きいときは、メッセージにある `expandable_segments` の設定を使う（Linux のみ）。
#
# モデルに要るメモリを実行前に見積もる方法は、「[メモリに収まるか](08-will-it-fit.ipynb)」で扱います。

# %% [markdown] tags=["predict"]
# **予想：** メモリ不足になったらバッチを小さくしてやり直せるように、学習ループの1ステップを `try` で囲みます。このエラーを捕捉するのはどちらの `except` でしょうか。
#
# - `handler='RuntimeError'`
# - `handler='Exception'`

# %%
try:
    raise torch.OutOfMemoryError("CUDA out of memory.")
except RuntimeError:
    handler = "RuntimeError"
except Exception:
    handler = "Exception"
print(f"{handler=}")

# %% tags=["answer"]
assert handler == "RuntimeError"
assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
assert issubclass(torch.OutOfMemoryError, RuntimeError)

# %% [markdown] tags=["answer"]
# **答え：** `handler='RuntimeError'` です。このエラーの型である `torch.OutOfMemoryError` は `RuntimeError` のサブクラスです。この継承関係は、GPU の有無にかかわらず同じです。`torch.cuda.OutOfMemoryError` は同じクラスの別名です。このエラーだけを捕捉したいなら `except torch.OutOfMemoryError` と書きます。
#
# - `handler='Exception'` を選んだなら、メモリ不足のエラーは `RuntimeError` とは別の種類だと考えたのでしょう。実際はサブクラスなので最初の `except` が捕捉し、2つ目の `except` には届きません。

# %% [markdown]
# GPU がある場合は、まず搭載メモリの2倍を要求して、このエラーを起こします。そのあと、解放したテンソルのメモリが割り当て済みメモリからは外れても、`torch.cuda.empty_cache()` を呼ぶまでは予約済みメモリに残ることを検証します。

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    total = torch.cuda.get_device_properties(0).total_memory
    with expect_error(torch.OutOfMemoryError, "CUDA out of memory"):
        torch.empty(2 * total, dtype=torch.uint8, device="cuda:0")

    torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated(0)
    block = torch.empty(256 * 2**20, dtype=torch.uint8, device="cuda:0")
    del block
    reserved = torch.cuda.memory_reserved(0)
    torch.cuda.empty_cache()
    allocated_change = torch.cuda.memory_allocated(0) - before
    print(f"{allocated_change=}, {reserved=}")
    print(f"{torch.cuda.memory_reserved(0)=}")
    assert allocated_change == 0
    assert reserved >= 256 * 2**20
    assert torch.cuda.memory_reserved(0) < reserved
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# 予約済みで未割り当てのメモリがあっても、それを使えないことがあります。アロケータがドライバから確保したまとまり（セグメント）の中の空きブロックが、どれも次の要求には小さすぎる場合です（断片化）。
#
# アロケータの設定 `expandable_segments:True` を使うと、新しいセグメントを確保する代わりに、既存のセグメントを拡張できるようになります。この設定は、ステップごとにバッチの形状が変わるときに特に効果があります。使えるのは Linux だけで、Windows のビルドは `expandable_segments not supported on this platform`（このプラットフォームでは未対応）と警告して無視します。
#
# 指定には環境変数を使います。この環境変数はアロケータの初期化時に一度だけ読まれます。確実に反映させるため、`import torch` より前に設定してください。
#
# 結論から言うと、PyTorch 2.6〜2.13 のどれでも動くスクリプトにするなら、従来の名前 `PYTORCH_CUDA_ALLOC_CONF` だけを設定してください。一部のリリースでは警告が出ますが、それ以上の問題は起きません。
#
# 環境変数の名前の扱いは、リリースによって異なります。`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` は 2.6〜2.13 のすべてで読まれます。2.9 からは、デバイス共通の名前 `PYTORCH_ALLOC_CONF` も受け付けます。2.9〜2.11 では、従来の名前を使うと `PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead`（非推奨なので `PYTORCH_ALLOC_CONF` を使うように）という警告が出ます（出典：PyTorch のソース `c10/core/AllocatorConfig.cpp`）。
#
# また 2.9.1 には、新しい名前で設定すると `expandable_segments` が有効にならない不具合がありました（[pytorch#183387](https://github.com/pytorch/pytorch/issues/183387)）。
#
# PyTorch 2.13 は、従来の名前を警告なしで読み、両方が設定されていれば従来の名前のほうを使います。次のセルでは新しいプロセスを起動し、アロケータが解析した設定を取り出して、PyTorch 2.13 でのこの2つの動作を検証します。なお、GPU があれば `torch.cuda.memory._snapshot()` で実際のセグメントも確認できますが、ここでは扱いません。

# %%
if TORCH >= (2, 13):  # 従来の名前を警告なしで読む
    probe = ("import torch; "
             "print(torch._C._accelerator_getAllocatorSettings())")
    env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True")
    env.pop("PYTORCH_ALLOC_CONF", None)
    child = subprocess.run([sys.executable, "-c", probe], env=env,
                           capture_output=True, text=True, timeout=120)
    print(f"{child.stdout.strip()=}")
    assert child.stdout.strip() == "expandable_segments:True"
    assert "deprecated" not in child.stderr
    both = dict(env, PYTORCH_ALLOC_CONF="expandable_segments:False")
    child = subprocess.run([sys.executable, "-c", probe], env=both,
                           capture_output=True, text=True, timeout=120)
    print(f"{child.stdout.strip()=}")  # 両方あるとき、2.13 は従来の名前を使う
    assert child.stdout.strip() == "expandable_segments:True"
else:
    print(f"{torch.__version__=}")

# %% [markdown]
# ## まとめ
#
# | メッセージ（一部） | よくある原因 | 対処法 |
# |---|---|---|
# | `Attempting to deserialize object on a CUDA device` | 使える GPU がない環境で、GPU で保存したチェックポイントを読み込んだ | `torch.load(path, map_location=device)` |
# | `CUDA error: invalid device ordinal` | 存在しない GPU のインデックスを指定した | `torch.cuda.device_count()` より小さいインデックスを使う |
# | `Cannot access accelerator device when none is available.` | アクセラレータがない環境で、デバイスを整数で指定した、または `pin_memory()` を呼んだ | デバイスを名前で書く。ピン留めはアクセラレータがあるときだけ |
# | `Cannot re-initialize CUDA in forked subprocess` | 親が CUDA を使ったあと、fork した子で CUDA を使った | ワーカーは CPU の処理だけにして、メインプロセスでデバイスに移動する。または `spawn` で起動する |
# | `Torch not compiled with CUDA enabled` | CPU 専用ビルドで CUDA を要求した（`set_device` では `no attribute '_cuda_setDevice'`） | CUDA ビルドを入れる（Blackwell の GPU には `cu128` 以降、macOS では代わりに `mps`）。または使うデバイスを最初に一度だけ決める |
# | `CUDA out of memory` | GPU の空きより多くのメモリを要求した | バッチを小さくする、`loss.detach()` を集計する、`no_grad()` や `del` を使う。割り当て済みメモリと予約済みメモリを区別して読む |
