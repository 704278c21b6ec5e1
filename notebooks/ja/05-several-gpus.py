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
# # 複数の GPU
#
# GPU が2枚以上あるとき、インデックスを指定しない CUDA の呼び出しはすべて**現在のデバイス**に向かいます。このページでは、そのデバイスがどう決まるのか、プロセスから GPU を隠す方法、`nn.DataParallel` が実際に何をするのか、そして `DistributedDataParallel` の仕組みを説明します。DDP は2つの CPU プロセスで実際に動かします。
#
# GPU が必要なセルは、代わりに満たされなかった条件（`torch.cuda.is_available()=False` や `n_gpus=0`）を表示します。それ以外のセルはどのマシンでも実行できます。

# %% tags=["setup"]
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import DistributedSampler

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
n_gpus = torch.cuda.device_count()
print(torch.__version__, device, n_gpus)

# %% [markdown]
# ## 現在のデバイス
#
# 現在の CUDA デバイスはスレッドごとに1つあり、最初は GPU 0 です。`torch.cuda.current_device()` で取得し、`torch.cuda.set_device(i)` で変更します。`with torch.cuda.device(i):` はブロックの間だけ変更し、ブロックを抜けると元に戻します。`.cuda()` や `"cuda"` のようにインデックスを指定しないものは、すべてこのデバイスを使います。セルでは最後の GPU を使います。GPU が1枚のマシンでは GPU 0 です。

# %% tags=["claim-F9", "gpu-only"]
if torch.cuda.is_available():
    start = torch.cuda.current_device()
    last = n_gpus - 1
    with torch.cuda.device(last):
        inside = torch.cuda.current_device()
        t = torch.zeros(2).cuda()
    after = torch.cuda.current_device()
    print(f"{start=}, {inside=}, {t.device=}, {after=}")
    assert start == 0  # 新しいプロセスは GPU 0 から始まる
    assert inside == last and t.device == torch.device("cuda", last)
    assert after == start  # ブロックを抜けると元に戻る

    torch.cuda.set_device(last)
    assert torch.cuda.current_device() == last
    torch.cuda.set_device(start)
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## cuda というデバイス名が意味するもの
#
# `torch.device("cuda")` にはインデックスがありません。これは `cuda:0` の別名ではなく「現在の CUDA デバイス」を意味し、どのデバイスになるかはテンソルを作成または移動する時点で決まります。

# %% [markdown] tags=["predict"]
# **予想：** `torch.device("cuda")` のインデックスは何でしょうか。セルはデバイスと、その `.index` を表示します。
#
# - `0`：これだと `"cuda"` が `cuda:0` の別名ということになりますが、そうではありません。
# - `None`：`"cuda"` は特定の GPU を指していません。どれが現在のデバイスかは、テンソルを作成または移動するときに初めて調べられます。

# %%
d = torch.device("cuda")
print(repr(d), d.index)
assert d.index is None
assert d != torch.device("cuda", 0)

# %% [markdown]
# GPU が1枚なら、決まるデバイスは常に `cuda:0` です。2枚以上あると違いが出ます。`cuda:1` 上にあるテンソル `t` に対して `t.to("cuda")` を呼ぶと、GPU 0 が現在のデバイスなら `cuda:0` にコピーされ、GPU 1 が現在のデバイスなら `t` 自身がそのまま返ります。セルは、GPU が2枚以上あればこの両方を、1枚ならテンソル自身が返る場合だけを示し、GPU がなければ `n_gpus=0` を表示します。

# %% tags=["claim-F2", "gpu-only"]
if n_gpus >= 2:
    t1 = torch.ones(2, device="cuda:1")
    with torch.cuda.device(0):
        moved = t1.to("cuda")
    with torch.cuda.device(1):
        kept = t1.to("cuda")
    print(t1.device, moved.device, kept.device)
    assert moved.device == torch.device("cuda", 0) and moved is not t1
    assert kept is t1
elif n_gpus == 1:
    t = torch.ones(2, device="cuda")
    print(f"{t.device=}, {n_gpus=}")
    assert t.device == torch.device("cuda", torch.cuda.current_device())
    assert t.to("cuda") is t  # すでに現在のデバイス上にある
else:
    print(f"{n_gpus=}")

# %% [markdown]
# ## CUDA_VISIBLE_DEVICES で GPU を隠す
#
# 環境変数 `CUDA_VISIBLE_DEVICES` には、プロセスから見えてよい GPU を列挙します。番号は 0 から振り直されるので、`CUDA_VISIBLE_DEVICES=1` なら GPU 1 が `cuda:0` になり、見える GPU はそれだけになります。どの物理 GPU が「GPU 1」になるかは CUDA の番号付けで決まります。CUDA はデフォルトで最も速い GPU を先頭にするので、`nvidia-smi` が表示する順序（PCI バスの順）とは異なることがあります。`nvidia-smi` と同じ番号にしたい場合は、`CUDA_DEVICE_ORDER=PCI_BUS_ID` も設定します。
#
# CUDA がこれらの変数を読むのは、プロセス内で CUDA が初期化されるときの一度だけです。シェルで設定するか（`CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=1 python train.py`）、新しく起動するプロセスの環境変数として設定します。ここでは子プロセスの Python に空文字列を渡し、GPU が1枚も見えないことを確かめます。GPU があるマシンでは、2つ目の子プロセスには最後の GPU だけが見えます。

# %% tags=["claim-F9", "gpu-only"]
probe = "import torch; print(torch.cuda.device_count())"
settings = [""]
if n_gpus:
    ours = os.environ.get("CUDA_VISIBLE_DEVICES")  # このプロセス自体がすでに制限されている場合がある
    settings.append(ours.split(",")[n_gpus - 1] if ours else str(n_gpus - 1))
for visible in settings:
    env = dict(os.environ, CUDA_DEVICE_ORDER="PCI_BUS_ID", CUDA_VISIBLE_DEVICES=visible)
    child = subprocess.run([sys.executable, "-c", probe], env=env,
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    count = int(child.stdout.split()[-1])
    print(f"{visible=}, {count=}")
    assert count == (0 if visible == "" else 1)

print(f"{torch.cuda.device_count()=}")
assert torch.cuda.device_count() == n_gpus

# %% [markdown]
# CUDA がいったん初期化された後は、同じプロセスで `os.environ` を書き換えても効果はなく、GPU は見えたままです。そのため、この変数は最初の CUDA 呼び出しより前に設定する必要があり、Python を起動する前に設定するのが最も安全です。セルはこれを新しい子プロセスで実行するので、このノートブックでそれまでに実行した処理の影響を受けません。CUDA が初期化され、変数が空になっても、新しいテンソルはやはり GPU 上に作られます。GPU がなければ `torch.cuda.is_available()=False` だけを表示します。

# %% tags=["claim-F9", "gpu-only"]
LATE = """
import os
import torch
torch.zeros(1, device="cuda")
os.environ["CUDA_VISIBLE_DEVICES"] = ""
print(torch.ones(1, device="cuda").device)
"""
if torch.cuda.is_available():
    child = subprocess.run([sys.executable, "-c", LATE], capture_output=True, text=True, timeout=120)
    print(f"{child.returncode=}, {child.stdout.strip()=}")
    assert child.returncode == 0, child.stderr
    assert child.stdout.split()[-1].startswith("cuda:")  # 遅すぎた変更を CUDA は無視した
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## nn.DataParallel が実際にすること
#
# `nn.DataParallel(model)` は「モデルを GPU に載せてくれるもの」と受け取られがちですが、実際の動作は、見つけたアクセラレータ（CUDA の GPU、Apple の MPS、Intel の XPU、MTIA、PrivateUse1 のバックエンドの順に探します）と、受け取るデバイス ID（`device_ids`、省略すると、見えているその種類のデバイスすべて）によって異なります。
#
# - アクセラレータがまったくない、または Apple の GPU（`DataParallel` が対応していない MPS）しかない: `device_ids` は空になり、モデルを今ある場所に置いたまま呼び出すだけで、何も移動しません。
# - デバイス ID がちょうど1つ: コンストラクタがモデルをそのデバイスに移動します。GPU が1枚のマシンでのデフォルトの動作がこれで（XPU など、上に挙げたほかのアクセラレータでも同じです）、GPU が複数枚あるマシンで `device_ids=[1]` を渡した場合も同じです（モデルは `cuda:1` に移動します）。
# - デバイス ID が2つ以上: 何も移動しません。`forward` はパラメータが `device_ids[0]` 上にあるかを確認し、なければ `RuntimeError` を送出します。そのため、モデルは自分でそこへ移動する必要があります。
#
# セルでは、このマシンに当てはまる分岐を検証します。GPU が複数枚あれば、デバイス ID を1つだけ渡したラップも試します。GPU がなければ、最初の場合だけを検証します。

# %% tags=["claim-M5", "gpu-only"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(8, 4)
where = next(model.parameters()).device
print(f"{dp.device_ids=}, {where=}")
if not torch.accelerator.is_available() or torch.backends.mps.is_available():
    assert dp.device_ids == []  # アクセラレータがない、または MPS: 処理を分散させる先がない

if len(dp.device_ids) == 0:
    y = dp(x)  # モジュールを呼ぶだけ
    assert where.type == "cpu" and y.device.type == "cpu"
elif len(dp.device_ids) == 1:
    assert where.type != "cpu" and where.index == dp.device_ids[0]  # コンストラクタが移動した
    y = dp(x)
    assert y.device == where
else:
    assert where.type == "cpu"  # 移動していない
    with expect_error(RuntimeError, "must have its parameters and buffers on device"):
        dp(x)
    model.to(f"cuda:{dp.device_ids[0]}")  # 対処: 自分で移動する
    y = dp(x)
    assert y.device == torch.device("cuda", dp.device_ids[0])

    last = dp.device_ids[-1]
    one = nn.DataParallel(nn.Linear(4, 2), device_ids=[last])
    print(f"{one.module.weight.device=}")
    assert one.module.weight.device == torch.device("cuda", last)  # デバイス ID が1つ: そこへ移動した
print(f"{y.device=}")

# %% [markdown]
# ほかにも知っておきたいことが2つあります。ラッパーはモデルを `dp.module` として保持するので、ラッパーの `state_dict` のキーにはすべて `module.` という接頭辞が付きます。ラップしていないモデルにチェックポイントを読み込むのであれば、`dp.module.state_dict()` を保存しましょう。また、`DataParallel` 自身のドキュメントは、マシンが1台だけの場合でも、代わりに `DistributedDataParallel` を使うよう推奨しています。

# %% [markdown] tags=["predict"]
# **予想：** `dp` は `Linear` を `nn.DataParallel` でラップしたものです。`dp.state_dict()` のキーは何でしょうか。
#
# - `['weight', 'bias']`：これはラップする前のモデル、つまり `dp.module.state_dict()` のキーです。
# - `['module.weight', 'module.bias']`：ラッパーはモデルを `dp.module` として持つので、すべてのキーに `module.` が付きます。

# %% tags=["claim-M5"]
keys = list(dp.state_dict())
print(keys)
assert keys == ["module.weight", "module.bias"]
assert dp.module is model
assert list(dp.module.state_dict()) == ["weight", "bias"]

doc = " ".join(nn.DataParallel.__doc__.split())
doc = re.sub(r"\.\. \w+:: ", "", doc)  # ".. warning::" などの reST ディレクティブを除く
doc = re.sub(r":\w+:`~?([\w.]+)`", r"\1", doc)  # :class:`~a.B` -> a.B
advice = [s for s in doc.split(". ") if "DistributedDataParallel" in s]
print(advice[0])
assert advice

# %% [markdown]
# ## 推奨される方法: DistributedDataParallel
#
# `DistributedDataParallel`（DDP）はデバイスごとに1つのプロセスを動かします。プロセスの起動には、通常 `torchrun --nproc-per-node=N train.py` を使います。各プロセスはモデルの完全なコピーを持ちます。DDP はモデルをラップするときにランク 0 のパラメータと**バッファ**を全プロセスにコピーし（デフォルトでは、forward のたびにランク 0 のバッファを再びコピーします）、`backward()` の実行中にプロセス間で勾配を平均します。そのため、すべてのコピーで同じ更新が行われ、コピー同士は同一に保たれます。
#
# DDP はデータを分割しません。各プロセスは自分の担当分を自分で読み込む必要があり、通常は `DistributedSampler` を指定した `DataLoader` を使います（実行例の後で示します）。下のデモでは分割を模擬しています。各プロセスは、ランクによって異なるシードから自分用のランダムなデータを作ります。
#
# `gloo` バックエンドを使えば DDP は CPU でも動くので、ここで実際に動かしてみます。2つのプロセスは、異なるランダムな重みと異なるバッファの値から始まります。安全な方法（`spawn`）で起動したワーカープロセスはノートブックで定義した関数を import できないため、学習スクリプトを一時ファイルに書き出し、`python -m torch.distributed.run` で起動します。`torchrun` コマンドが実行しているのもこのモジュールです。スクリプトの最後は `os._exit(0)` です。Python の終了処理の間に gloo のワーカースレッドが autograd の状態をまだ解放していることがあり、そのせいでプロセスがときどき異常終了するためです（torch 2.13 で確認）。その時点で結果は保存済みです。GPU で動かす場合、スクリプトは `nccl` バックエンドを使い、プロセスごとに専用の GPU を割り当てることになります。

# %%
TRAIN = '''
import json, os, sys
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def train(rank):
    torch.manual_seed(rank)
    net = nn.Linear(4, 1)
    net.register_buffer("seen", torch.full((1,), float(rank)))
    start = net.weight.flatten().tolist()
    model = DDP(net)
    synced = net.weight.flatten().tolist()
    buffer = net.seen.item()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(100 + rank)
    for step in range(5):
        x, y = torch.randn(16, 4), torch.randn(16, 1)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    params = [p.flatten().tolist() for p in model.parameters()]
    return {"rank": rank, "start": start, "synced": synced, "buffer": buffer,
            "loss": loss.item(), "params": params}


dist.init_process_group("gloo")
result = train(dist.get_rank())
with open(f"{sys.argv[1]}/rank{result['rank']}.json", "w") as f:
    json.dump(result, f)
dist.destroy_process_group()
os._exit(0)
'''

# %% tags=["claim-F11"]
with socket.socket() as s:  # 空いているポートを OS に選ばせる
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]

with tempfile.TemporaryDirectory() as tmp:
    script = Path(tmp) / "train_ddp.py"
    script.write_text(TRAIN)
    run = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
         "--master-addr", "127.0.0.1", "--master-port", str(port), str(script), tmp],
        env=dict(os.environ, OMP_NUM_THREADS="1"),
        capture_output=True, text=True, timeout=120,
    )
    print(f"{run.returncode=}")
    if (run.stdout + run.stderr).strip():
        print((run.stdout + run.stderr).strip())
    assert run.returncode == 0
    results = [json.loads((Path(tmp) / f"rank{r}.json").read_text()) for r in range(2)]


def show(values):
    return [round(v, 4) for v in values]


for r in results:
    rank, start, synced, buffer = r["rank"], show(r["start"]), show(r["synced"]), r["buffer"]
    loss, final = round(r["loss"], 4), show(r["params"][0]) + show(r["params"][1])
    print(f"{rank=}, {start=}, {synced=}, {buffer=}")
    print(f"{rank=}, {loss=}, {final=}")

r0, r1 = results
assert r0["start"] != r1["start"]  # 初期の重みが異なる
assert r0["synced"] == r1["synced"] == r0["start"]  # どのランクの重みもランク 0 と同じ
assert r0["buffer"] == r1["buffer"] == 0.0  # どのランクのバッファもランク 0 と同じ
assert r0["loss"] != r1["loss"]  # データも異なる
assert r0["params"] == r1["params"]  # それでも学習後のパラメータは同一

# %% [markdown]
# DDP が利用者に任せている分割は、`DistributedSampler` が担当します。データセットのインデックスを、ランクごとに異なる担当分に分けます。ここではランクとランクの総数を指定して、プロセスを起動せずに実行します。

# %% [markdown] tags=["predict"]
# **予想：** `DistributedSampler` で8個のサンプルを、シャッフルせずに2つのランクに分けるとします。それぞれのランクはどのインデックスを受け取るでしょうか。
#
# - `[[0, 1, 2, 3], [4, 5, 6, 7]]`：これだと前半と後半に分けることになりますが、サンプラーはインデックスを各ランクに1つずつ順番に配ります。
# - `[[0, 2, 4, 6], [1, 3, 5, 7]]`：ランク `r` は `r` から1つおきにインデックスを受け取ります。どのサンプルもちょうど1回ずつ配られ、重なりはありません。
# - `[[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3, 4, 5, 6, 7]]`：これだとどのランクも全データを見ることになりますが、データを分けるのがサンプラーの役目です。

# %% tags=["claim-F11"]
data = range(8)
shares = [list(DistributedSampler(data, num_replicas=2, rank=r, shuffle=False)) for r in range(2)]
print(shares)
assert sorted(shares[0] + shares[1]) == list(data)  # どのサンプルも1回ずつ、重複なし
assert not set(shares[0]) & set(shares[1])

# %% [markdown]
# ## まとめ
#
# - インデックスを明示しないもの（`"cuda"`、`.cuda()`）は現在のデバイスを使います。現在のデバイスは `torch.cuda.set_device(i)` か `with torch.cuda.device(i):` で選びます。
# - `CUDA_VISIBLE_DEVICES`（`nvidia-smi` と同じ番号にするなら `CUDA_DEVICE_ORDER=PCI_BUS_ID` も）は CUDA の初期化前、できれば Python の起動前に設定します。
# - `nn.DataParallel` がモデルを移動するのはデバイス ID がちょうど1つ（`len(device_ids) == 1`）のときだけで、`state_dict` のキーは `module.*` という名前に変わります。
# - 複数の GPU には `DistributedDataParallel` を使いましょう。パラメータとバッファは DDP がそろえ、データの分割は `DistributedSampler` が行います。`gloo` を使えば CPU でも動作し、テストもできます。
