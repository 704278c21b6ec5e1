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
# インデックスを指定しない CUDA の呼び出しは、すべて**現在のデバイス**を使います。GPU が2枚以上あるマシンでは、この仕組みを知っておく必要があります。このページでは、そのデバイスの決まり方、プロセスから GPU を隠す方法、`nn.DataParallel` の実際の動作を見ていきます。後半では、GPU ごとに1つのプロセスを起動して `DistributedDataParallel`（DDP）を使う方法と、各プロセスにデータを割り振る方法を扱います。DDP については、`torchrun` で CPU のプロセスを2つ起動し、実際に動かしてみます。最後に、DataLoader のワーカーが Windows や macOS でつまずく理由を説明します。
#
# 「GPU での検証を含む」セルは、GPU がない環境では、満たされなかった条件（`torch.cuda.is_available()=False` や `n_gpus=0`）を表示するか、GPU がないときの動作を確かめます。それ以外のセルはどのマシンでも実行できます。

# %% [markdown] tags=["summary"]
# **結論**
#
# - インデックスを指定しない `"cuda"` や `.cuda()` は、現在のデバイスを使います。使う GPU は `torch.cuda.set_device(i)` で選びます。`CUDA_VISIBLE_DEVICES` は CUDA が初期化される前に設定します。
# - 複数の GPU で学習するなら、`torchrun` で GPU ごとに1つのプロセスを起動し、モデルを `DistributedDataParallel` でラップします。
#
# ```python
# local_rank = int(os.environ["LOCAL_RANK"])
# torch.cuda.set_device(local_rank)
# device = torch.device("cuda", local_rank)
# model = DDP(model.to(device), device_ids=[local_rank])
# ```

# %% tags=["setup"]
import contextlib
import inspect
import json
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import DistributedSampler

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
n_gpus = torch.cuda.device_count()
print(torch.__version__, device, n_gpus)

# %% [markdown]
# ## 現在のデバイス
#
# 現在の CUDA デバイスはスレッドごとに1つあり、最初は GPU 0 です。次の方法で取得・変更できます。
#
# - `torch.cuda.current_device()` で取得する
# - `torch.cuda.set_device(i)` で変更する
# - `with torch.cuda.device(i):` でブロックの中だけ変更する
#
# `.cuda()` や `"cuda"` のようにインデックスを指定しないものは、すべてこのデバイスを使います。GPU があるマシンでは、最後の GPU（GPU が1枚なら GPU 0）を使って、上の3つの操作と `.cuda()` の行き先を実際に試せます。

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
# ## `cuda` というデバイス名が意味するもの
#
# デバイスは `"cuda:0"` のようにインデックス付きでも、`"cuda"` のようにインデックスなしでも指定できます。`torch.device` を作るだけなら GPU は要らないので、次のセルはどのマシンでも実行できます。

# %% [markdown] tags=["predict"]
# **予想：** `d = torch.device("cuda")` はインデックスなしで書かれています。次のセルは `d.index` として何を表示するでしょうか。
#
# - `d.index=0`
# - `d.index=None`
# - `d.index=-1`

# %%
d = torch.device("cuda")
print(repr(d))
print(f"{d.index=}")

# %% tags=["answer"]
assert d.index is None
assert d != torch.device("cuda", 0)
assert d.type == "cuda"

# %% [markdown] tags=["answer"]
# **答え：** `d.index=None` です。`"cuda"` は特定の GPU を指していません。意味するのは「現在の CUDA デバイス」で、どの GPU がそれに当たるかは、テンソルを作成または移動する時点で決まります。
#
# - `d.index=0` と予想した人は、`"cuda"` を `"cuda:0"` の別名と捉えていたかもしれません。実際には別名ではなく、両者を比較しても等しくなりません。
# - `d.index=-1` もありそうに見えますが、`torch.device` はインデックスがないことを、-1 のような特別な値ではなく `None` で表します。

# %% [markdown]
# GPU が1枚なら、現在のデバイスは常に `cuda:0` なので、`"cuda"` と `"cuda:0"` は同じ GPU を指します。違いが出るのは GPU が2枚以上あるときです。`cuda:1` 上にあるテンソル `t` に対して `t.to("cuda")` を呼ぶと、GPU 0 が現在のデバイスなら `cuda:0` にコピーされ、GPU 1 が現在のデバイスなら `t` 自身がそのまま返ります。次のセルは、GPU が2枚以上あれば両方の場合（コピーされる場合と `t` 自身が返る場合）を、1枚なら `t` 自身が返る場合を確かめます。GPU がなければ `n_gpus=0` とだけ表示されます。

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
# ## `CUDA_VISIBLE_DEVICES` で GPU を隠す
#
# 環境変数 `CUDA_VISIBLE_DEVICES` には、プロセスに見せる GPU の番号を並べます。`CUDA_VISIBLE_DEVICES=1` なら、見える GPU は GPU 1 だけになり、番号は 0 から振り直されて `cuda:0` になります。どの物理 GPU が「GPU 1」になるかは CUDA の番号付けで決まります。CUDA はデフォルトで最も速い GPU を先頭にするので、`nvidia-smi` が表示する順序（PCI バスの順）とは異なることがあります。`nvidia-smi` と同じ番号にしたい場合は、`CUDA_DEVICE_ORDER=PCI_BUS_ID` も設定します。
#
# CUDA がこれらの変数を読むのは、プロセス内で CUDA が初期化されるときの一度だけです。シェルで設定するか（`CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=1 python train.py`）、新しく起動するプロセスの環境変数として設定します。次のセルでは、子プロセスの Python に `CUDA_VISIBLE_DEVICES` として空文字列を渡し、GPU が1枚も見えないことを確かめます。GPU があるマシンでは、2つ目の子プロセスに最後の GPU だけを渡し、1枚だけ見えることを検証します。

# %% tags=["claim-F9", "gpu-only"]
probe = "import torch; print(torch.cuda.device_count())"
settings = [""]
if n_gpus:
    # このプロセスの CUDA_VISIBLE_DEVICES がすでに絞られていることがあるので、
    # 見えている最後の GPU の番号を渡す
    ours = os.environ.get("CUDA_VISIBLE_DEVICES")
    settings.append(ours.split(",")[n_gpus - 1] if ours else str(n_gpus - 1))
for visible in settings:
    env = dict(os.environ, CUDA_DEVICE_ORDER="PCI_BUS_ID",
               CUDA_VISIBLE_DEVICES=visible)
    child = subprocess.run([sys.executable, "-c", probe], env=env,
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    count = int(child.stdout.split()[-1])
    print(f"{visible=}, {count=}")
    assert count == (0 if visible == "" else 1)

print(f"{torch.cuda.device_count()=}")
assert torch.cuda.device_count() == n_gpus

# %% [markdown]
# CUDA がいったん初期化された後は、同じプロセスで `os.environ` を書き換えても効果はなく、GPU は見えたままです。そのため、この変数は最初の CUDA 呼び出しより前に設定する必要があり、Python を起動する前に設定するのが最も安全です。
#
# GPU があれば、CUDA の初期化後に変数を空にしても新しいテンソルが GPU 上に作られることを、次のセルで実際に見てみます。このセルは新しい子プロセスでコードを実行するので、ノートブックでそれまでに実行した処理の影響は受けません。

# %% tags=["claim-F9", "gpu-only"]
LATE = """
import os
import torch
torch.zeros(1, device="cuda")
os.environ["CUDA_VISIBLE_DEVICES"] = ""
print(torch.ones(1, device="cuda").device)
"""
if torch.cuda.is_available():
    child = subprocess.run([sys.executable, "-c", LATE],
                           capture_output=True, text=True, timeout=120)
    print(f"{child.returncode=}, {child.stdout.strip()=}")
    assert child.returncode == 0, child.stderr
    # 初期化後の変更は CUDA に無視される
    assert child.stdout.split()[-1].startswith("cuda:")
else:
    print(f"{torch.cuda.is_available()=}")

# %% [markdown]
# ## `nn.DataParallel` が実際にすること
#
# `nn.DataParallel(model)` は「モデルを GPU に載せてくれるもの」と受け取られがちです。実際の動作は、`DataParallel` が見つけたアクセラレータと、最終的に使うデバイス ID（`device_ids`）で決まります。`DataParallel` はアクセラレータを、CUDA の GPU、Apple の MPS、Intel の XPU、MTIA、PrivateUse1 のバックエンドの順に探します。ただし、MPS は見つかっても使いません。MTIA は Meta の独自アクセラレータ、PrivateUse1 は PyTorch の外で追加するデバイスのための枠です。`device_ids` を省略すると、見つけた種類のデバイスのうち、見えているものをすべて使います。
#
# 動作は、`device_ids` の個数によって次の3つの場合に分かれます。
#
# - アクセラレータがない場合や、Apple の MPS しかない場合は、`device_ids` が空になります。モデルは元の場所に置かれたまま呼び出され、どこにも移動しません。
# - デバイス ID がちょうど1つの場合は、コンストラクタがモデルをそのデバイスに移動します。GPU が1枚のマシンで `device_ids` を省略したときがこれに当たります（XPU など、上に挙げたほかのアクセラレータでも同じです）。GPU が複数枚あるマシンで `device_ids=[1]` を渡したときも同様で、モデルは `cuda:1` に移動します。
# - デバイス ID が2つ以上の場合、コンストラクタはモデルを移動しません。`forward` メソッドはパラメータが `device_ids[0]` 上にあるかを検査し、そこになければ `RuntimeError` を送出します。そのため、モデルは自分で `device_ids[0]` に移動しておく必要があります。
#
# 次のセルでは、この3つの場合のうち、このノートブックを実行しているマシンに当てはまるものを試します。GPU が複数枚あれば、デバイス ID を1つだけ渡してラップした場合も試します。GPU がなければ、最初の場合（`device_ids` が空）だけを確かめます。

# %% tags=["claim-M5", "gpu-only"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(8, 4)
where = next(model.parameters()).device
print(f"{dp.device_ids=}, {where=}")
if not torch.accelerator.is_available() or torch.backends.mps.is_available():
    assert dp.device_ids == []  # 処理を分散させる先がない

if len(dp.device_ids) == 0:
    y = dp(x)  # モジュールを呼ぶだけ
    assert where.type == "cpu" and y.device.type == "cpu"
elif len(dp.device_ids) == 1:
    # コンストラクタがモデルを移動した
    assert where.type != "cpu" and where.index == dp.device_ids[0]
    y = dp(x)
    assert y.device == where
else:
    assert where.type == "cpu"  # 移動していない
    expected = "must have its parameters and buffers on device"
    with expect_error(RuntimeError, expected):
        dp(x)
    model.to(f"cuda:{dp.device_ids[0]}")  # 対処法：自分で移動する
    y = dp(x)
    assert y.device == torch.device("cuda", dp.device_ids[0])

    last = dp.device_ids[-1]
    one = nn.DataParallel(nn.Linear(4, 2), device_ids=[last])
    print(f"{one.module.weight.device=}")
    # デバイス ID が1つなので、そこへ移動した
    assert one.module.weight.device == torch.device("cuda", last)
print(f"{y.device=}")

# %% [markdown]
# ラッパーは元のモデルを `dp.module` として保持します。このことは、チェックポイントに保存される `state_dict` のキーにも表れます。

# %% [markdown] tags=["predict"]
# **予想：** `dp` は `Linear` を `nn.DataParallel` でラップしたものです。次のセルは `dp.state_dict()` のキーを表示します。何が表示されるでしょうか。
#
# - `['weight', 'bias']`
# - `[]`
# - `['module.weight', 'module.bias']`

# %%
keys = list(dp.state_dict())
print(keys)

# %% tags=["claim-M5", "answer"]
assert keys == ["module.weight", "module.bias"]
assert dp.module is model
assert list(dp.module.state_dict()) == ["weight", "bias"]

# %% [markdown] tags=["answer"]
# **答え：** `['module.weight', 'module.bias']` です。ラッパーは元のモデルを `module` という名前のサブモジュールとして登録するので、`state_dict` のキーにはすべて `module.` という接頭辞が付きます。
#
# - `['weight', 'bias']` は、ラップする前のモデル、つまり `dp.module.state_dict()` のキーです。ラップしていないモデルに読み込むチェックポイントなら、こちらを保存します。
# - `[]` は、ラッパーには自分の状態がないので空になる、と予想した場合の答えです。ラッパー自身に状態がないのはそのとおりですが、`state_dict` には、登録されたサブモジュールの状態も、その名前を接頭辞にして含まれます。

# %% [markdown]
# `DataParallel` のドキュメントでは、複数の GPU で学習するなら、マシンが1台だけでも `DistributedDataParallel` を使うことが推奨されています。docstring（ドキュメント文字列）からその一文を取り出し、`DistributedDataParallel` と `single node`（マシン1台）が含まれているか確かめてみましょう。

# %% tags=["claim-M5"]
doc = " ".join(nn.DataParallel.__doc__.split())
advice = next(s for s in doc.split(". ") if "recommended" in s)
print(f"{'DistributedDataParallel' in advice=}")
print(f"{'single node' in advice=}")
assert "DistributedDataParallel" in advice and "single node" in advice

# %% [markdown]
# ## 推奨される方法：`DistributedDataParallel`
#
# `DistributedDataParallel`（DDP）では GPU ごとに1つのプロセスが動き、各プロセスがモデルの完全なコピーを持ちます。各プロセスには 0 から始まる通し番号（ランク）が付きます。DDP はモデルをラップするときに、ランク 0 のパラメータと**バッファ**（BatchNorm の統計量など、学習しない状態）を全プロセスに配ります（ブロードキャスト）。バッファについては、デフォルトでは順伝播のたびに DDP がランク 0 の値を配り直します。
#
# `backward()` の実行中には、DDP がプロセス間で勾配を平均します。そのため、どのプロセスのモデルにも同じ更新が適用され、すべてのモデルが同じ状態に保たれます。
#
# プロセスを自分で起動する必要はありません。`torchrun --nproc-per-node=N train.py` は、スクリプトを `N` 個のプロセス（GPU ごとに1つ）で起動し、各プロセスの番号を環境変数で渡します。
#
# - `WORLD_SIZE`：プロセスの総数（ランク数）
# - `RANK`：全プロセスの中での番号（0 から）
# - `LOCAL_RANK`：このマシンの中での番号（そのプロセスが使う GPU のインデックスにもなる）
#
# GPU で動かす場合、各プロセスはまず `torch.cuda.set_device(local_rank)` で自分の GPU を現在のデバイスにします（以後、そのプロセスでは `"cuda"` が自分の GPU を指します）。そのうえで `nccl` バックエンドを使い、モデルをその GPU に置いてから `DDP(model, device_ids=[local_rank])` でラップします。CPU で動かす場合は `gloo` バックエンドを使い、`device_ids` は指定しません。次のセルのスクリプトはその両方に対応していて、プロセスの数だけ GPU があるマシンでは GPU を使います。

# %%
TRAIN = '''
import json, os, sys
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

rank = int(os.environ["RANK"])
local_rank = int(os.environ["LOCAL_RANK"])
world_size = int(os.environ["WORLD_SIZE"])

if torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"]):
    torch.cuda.set_device(local_rank)
    device, backend = torch.device("cuda", local_rank), "nccl"
else:
    device, backend = torch.device("cpu"), "gloo"
dist.init_process_group(backend)

torch.manual_seed(rank)
net = nn.Linear(4, 1).to(device)
net.register_buffer("seen", torch.full((1,), float(rank), device=device))
start = net.weight.flatten().tolist()
model = DDP(net, device_ids=[local_rank] if device.type == "cuda" else None)
synced = net.weight.flatten().tolist()
buffer = net.seen.item()

opt = torch.optim.SGD(model.parameters(), lr=0.1)
torch.manual_seed(100 + rank)
for step in range(5):
    x = torch.randn(16, 4, device=device)
    y = torch.randn(16, 1, device=device)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

params = [v for p in model.parameters() for v in p.flatten().tolist()]
mine = dict(rank=rank, local_rank=local_rank, world_size=world_size,
            device=str(device), backend=backend, start=start, synced=synced,
            buffer=buffer, loss=loss.item(), params=params)
with open(os.path.join(sys.argv[1], f"rank{rank}.json"), "w") as f:
    json.dump(mine, f)
dist.destroy_process_group()
os._exit(0)
'''

# %% [markdown]
# ここでは各プロセスが、ランクによって異なるシードから自分用のランダムなデータを作ります（実際のスクリプトでは、後述の `DistributedSampler` を使います）。重みとバッファの初期値もプロセスごとに変えておきます。こうしておくと、DDP が何をそろえるのかが実行結果に表れます。各プロセスは、重み・バッファの値・損失などを、引数で渡されたディレクトリに別々のファイルとして書き出します。
#
# 次のセルでは、このスクリプトを一時ディレクトリに保存し、`python -m torch.distributed.run` で2つのプロセスをこのマシン上に起動します。`torchrun` コマンドの実体もこのモジュールです。
#
# `--standalone` を付けているので、空いているポートが自動で選ばれます。また、`TMPDIR` にこの一時ディレクトリを指定しているため、`torchrun` 自身の一時ファイルもここに作られ、終了後には何も残りません。実行には120秒の制限時間を設けています。
#
# スクリプトは最後に `os._exit(0)` で終了します。通常の終了処理に任せると、gloo のワーカースレッドがまだ autograd の状態を解放している途中のことがあり、プロセスがときどき異常終了するためです（PyTorch 2.13 で確認）。結果はその前に書き出してあるので、こうして終了しても失われません。
#
# GPU が2枚未満なら、プロセスは `gloo` を使って CPU で動きます。GPU が2枚以上あるマシンでは、各プロセスが自分の GPU（`cuda:0` と `cuda:1`）で `nccl` を使って動いたかどうかを、次のセルで確かめます。

# %% tags=["claim-F11", "gpu-only"]
with tempfile.TemporaryDirectory() as tmp:
    script = Path(tmp) / "train_ddp.py"
    script.write_text(TRAIN)
    launch = [sys.executable, "-m", "torch.distributed.run", "--standalone",
              "--nproc-per-node=2", str(script), tmp]
    env = dict(os.environ, TMPDIR=tmp, OMP_NUM_THREADS="1")
    run = subprocess.Popen(launch, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:  # 時間切れ
            run.terminate()  # SIGTERM を受けた torchrun はワーカーを止める
            run.communicate(timeout=60)
    print(f"{run.returncode=}")
    if (out + err).strip():
        print((out + err).strip(), file=sys.stderr)
    assert run.returncode == 0
    results = [json.loads((Path(tmp) / f"rank{r}.json").read_text())
               for r in range(2)]
assert not Path(tmp).exists()  # スクリプトも torchrun のファイルも消えた


def short(values):
    return [round(v, 4) for v in values]


for r in results:
    print(f"rank={r['rank']}, local_rank={r['local_rank']}, "
          f"device={r['device']}, backend={r['backend']}")
    print(f"  start={short(r['start'])}, synced={short(r['synced'])}, "
          f"buffer={r['buffer']}")
    print(f"  loss={r['loss']:.4f}, params={short(r['params'])}")

r0, r1 = results
assert [r["local_rank"] for r in results] == [0, 1]  # マシンは1台
assert r0["world_size"] == r1["world_size"] == 2
on_gpus = n_gpus >= 2  # スクリプトと同じ判定：プロセスごとに GPU が1枚
devices = ["cuda:0", "cuda:1"] if on_gpus else ["cpu", "cpu"]
assert [r["device"] for r in results] == devices
assert r0["start"] != r1["start"]  # 初期の重みが異なる
assert r0["synced"] == r1["synced"] == r0["start"]  # 同期後はランク 0 の重み
assert r0["buffer"] == r1["buffer"] == 0.0  # バッファもランク 0 の値
assert r0["loss"] != r1["loss"]  # データも異なる
assert r0["params"] == r1["params"]  # それでも学習後のパラメータは同じ

# %% [markdown]
# ## 各プロセスの GPU：`set_device` と `dist.barrier` の落とし穴
#
# GPU で DDP を動かすときは、各プロセスの冒頭で `torch.cuda.set_device(local_rank)` を呼びます。さらに、`init_process_group` に `device_id` を渡すか、`dist.barrier()` に `device_ids` を指定します。以下では、これらを省いたときに何が起きるかを順に見ます。
#
# `set_device` を省くと、`LOCAL_RANK` が何であっても、各プロセスの現在のデバイスは GPU 0 のままです。`"cuda"`、`.cuda()`、`torch.cuda.memory_allocated()` など、インデックスを指定しないものは、すべて GPU 0 を対象にします。モデルとバッチを `"cuda"` に置くスクリプトでは全ランクが GPU 0 に集まるので、メモリはその1枚に集中し、ほかの GPU は空いたままです。
#
# NCCL はランクごとに別の GPU を使うことを前提にしているので、全ランクが同じ GPU を使うと、集団通信（all-reduce など、全ランクが参加する通信）がエラーになるか、止まってしまいます。たとえば `Duplicate GPU detected`（同じ GPU が重複して検出された）というエラーが出ます。
#
# 上のスクリプトのように `torch.device("cuda", local_rank)` とデバイスを明示していれば、テンソル自体は正しい GPU に載ります。それでも注意が要るのは `dist.barrier()` です。NCCL のバリアは、内部で1要素のテンソルを all-reduce します。NCCL バックエンドは、この通信に使う GPU を、次の候補を上から順に調べて決めます（最初に当てはまったものを使います）。現在のデバイスは候補に入っていません。
#
# 1. バリアに渡した `device_ids=[...]`
# 2. `init_process_group` に渡した `device_id`
# 3. このプロセスグループがすでに使った GPU
# 4. `rank % (このマシンの GPU 数)`
#
# 最後の候補で決まった場合は、`using GPU X as device used by this process is currently unknown` という警告（このプロセスが使うデバイスが今のところ不明なので、GPU X を使う）が出ます。
#
# なお、バリアの処理は2段階です。Python 側はまず、`device_ids`、`device_id`、現在のデバイスの順に見て、1要素のテンソルを作るデバイスを決めます。通信に使う GPU は、これとは別に、NCCL バックエンド（C++ 側）が上の順序で決めます。現在のデバイスが影響するのは前者だけです。
#
# 上のスクリプトから `set_device` を取り除いたとしても、DDP はラップ時のブロードキャストで `cuda:local_rank` を使います。これにより、先ほどの3つ目の候補（このプロセスグループがすでに使った GPU）に当てはまるようになるので、その後に呼んだバリアは正しい GPU で実行されます。このようにデバイスを明示したスクリプトなら、`set_device` を省いても、全ランクが GPU 0 に余分な CUDA コンテキストを作り、そのぶんメモリを消費するだけで済みます。
#
# `device_ids` も `device_id` も渡さずに、最初の集団通信より前にバリアを呼ぶと（ランク 0 がデータをダウンロードするあいだ、ほかのランクを待たせる場合など）、GPU は最後の候補 `rank % (このマシンの GPU 数)` で決まります。この GPU がそのプロセスの GPU と一致しないと、処理が止まります。
#
# たとえば、GPU を8枚積んだマシンを複数台使い、1台あたり2プロセスだけ起動したとします。`RANK` が 2 のプロセスは2台目のマシンのローカルランク 0 なのに、バリアは GPU 2 を選んでしまいます。
#
# `DistributedDataParallel` のドキュメントも、各プロセスで `set_device` を呼ぶ（または `CUDA_VISIBLE_DEVICES` を設定する）よう求めています。`device_id` は現在のデバイスを変えないので、`device_id` を渡しても `set_device` は省けません。
#
# NCCL バックエンドでは、`device_id` を渡すと、ランク間の通信路（NCCL のコミュニケータ）が `init_process_group` の中で作られます。そのため、NCCL のエラーは最初の集団通信ではなく `init_process_group` の時点で出ます。あとで作る新しいグループも、コミュニケータを一から作らずに、このコミュニケータを分割して使います。
#
# GPU があれば、環境変数 `LOCAL_RANK=1` だけを設定した子プロセスを（`set_device` は呼ばずに）起動し、現在のデバイスが 0 のままであることを確認します。また、GPU の有無にかかわらず、PyTorch のソースコードとドキュメントを調べて次の点を確かめます。
#
# - `init_process_group` が `device_id` を受け取り、その中で `set_device` を呼ばないこと
# - `barrier` の Python 側が、テンソルを作るデバイスを `device_ids`、`device_id`、現在のデバイスの順で選ぶこと（PyTorch 2.13 以降）
# - `device_id` の効果が `init_process_group` のドキュメントに書かれていること（PyTorch 2.13 以降）

# %% tags=["gpu-only"]
if torch.cuda.is_available():
    probe = ("import torch; print(torch.cuda.current_device(),"
             " torch.zeros(1, device='cuda').device)")
    child = subprocess.run([sys.executable, "-c", probe],
                           env=dict(os.environ, LOCAL_RANK="1"),
                           capture_output=True, text=True, timeout=120)
    print(child.stdout.strip())
    assert child.returncode == 0, child.stderr
    # LOCAL_RANK だけでは GPU は選ばれない
    assert child.stdout.split()[0] == "0"
else:
    print(f"{torch.cuda.is_available()=}")
if torch.distributed.is_available():
    init = torch.distributed.init_process_group
    bind = inspect.signature(init).parameters
    guess = inspect.getsource(torch.distributed.barrier)
    print(f"{'device_id' in bind=}")
    assert "device_id" in bind
    assert "set_device" not in inspect.getsource(init)
    if TORCH >= (2, 13):  # device_ids、次に device_id、最後に現在のデバイス
        order = [guess.index(s) for s in ("device_ids[0]", "bound_device_id",
                                          "device under current context")]
        assert order == sorted(order)
        assert "creating context on device 0" in guess
        assert "immediately formed" in init.__doc__
        # 新しいグループはこのコミュニケータを分割して作る
        assert "ncclCommSplit" in init.__doc__

# %% [markdown]
# ## `DistributedSampler` によるデータの分割
#
# データの分割は DDP の仕事ではありません。`DistributedSampler` は、データセットのインデックスをランクごとの担当分に分けます。学習スクリプトでは、サンプラーを `DataLoader` に渡します（`DataLoader(dataset, sampler=sampler)`）。ランクとランク数（`WORLD_SIZE`）は、サンプラーがプロセスグループから読み取ります。ここではプロセスを起動しないので、どちらもコードで直接指定します。データセットのサンプルは5個で、2つのランクでは均等に分けられません。

# %% [markdown] tags=["predict"]
# **予想：** `DistributedSampler` で5個のサンプルを、シャッフルせずに2つのランクに分けます。それぞれのランクはどのインデックスを受け取るでしょうか。
#
# - `[[0, 1, 2], [3, 4]]`
# - `[[0, 2, 4], [1, 3]]`
# - `[[0, 2], [1, 3]]`
# - `[[0, 2, 4], [1, 3, 0]]`

# %%
data = range(5)
shares = [list(DistributedSampler(data, num_replicas=2, rank=r, shuffle=False))
          for r in range(2)]
print(shares)

# %% tags=["claim-F11", "answer"]
assert shares == [[0, 2, 4], [1, 3, 0]]  # サンプル 0 が2回
dropped = [list(DistributedSampler(data, num_replicas=2, rank=r,
                                   shuffle=False, drop_last=True))
           for r in range(2)]
print(f"{dropped=}")
assert dropped == [[0, 2], [1, 3]]  # サンプル 4 は使われない
even = [list(DistributedSampler(range(8), num_replicas=2, rank=r,
                                shuffle=False))
        for r in range(2)]
print(f"{even=}")
assert sorted(even[0] + even[1]) == list(range(8))  # どのサンプルも1回ずつ

# %% [markdown] tags=["answer"]
# **答え：** `[[0, 2, 4], [1, 3, 0]]` です。ランク `r` は、インデックス `r` から始めて、ランク数の間隔で（ここでは1つおきに）インデックスを受け取ります。全ランクのサンプル数をそろえる必要があるので、サンプラーはまずインデックスの列を先頭から繰り返し、ランク数の倍数の長さになるまで埋めます。そのため、サンプル 0 はエポックごとに2回使われます。
#
# `drop_last=True` を指定すると、代わりに末尾が切り捨てられ、サンプル 4 は一度も使われません。どのサンプルもちょうど1回ずつ使われるのは、サンプル数がランク数の倍数のとき（2つのランクに8個など）だけです。
#
# - `[[0, 1, 2], [3, 4]]` は、前半と後半のかたまりに分けた場合の結果です。実際のサンプラーは、カードを配るようにインデックスを1つずつ順番に配ります。
# - `[[0, 2, 4], [1, 3]]` を選んだなら、配り方は合っています。見落としているのは埋め合わせです。サンプラーはランク 1 に足りない1個を先頭のサンプル 0 で補い、どのランクも同じ個数にします。
# - `[[0, 2], [1, 3]]` は割り切れない分を捨てた結果です。こうなるのは、上で述べたとおり `drop_last=True` を指定したときだけです。
#
# デフォルト（`drop_last=False`）では埋め合わせが入ります。そのため、評価データのスコアなどを全ランク分合わせて1エポック単位で集計すると、埋め合わせたサンプルが二重に数えられます。

# %% [markdown]
# デフォルトの `shuffle=True` では、サンプラーはインデックスをシャッフルしてから配ります。次のセルでは、2つのランクで割り切れる8個のサンプルでサンプラーを作り、3回インデックスを取り出します。1回目と2回目は続けて、3回目は `sampler.set_epoch(1)` を呼んでからです。そのうえで、2回目と3回目を1回目と比べます。

# %% [markdown] tags=["predict"]
# **予想：** 次のセルは `(second == first, third == first)` を表示します。結果はどれでしょうか。
#
# - `(False, False)`
# - `(True, False)`
# - `(True, True)`

# %%
sampler = DistributedSampler(range(8), num_replicas=2, rank=0, shuffle=True)
first = list(sampler)
second = list(sampler)
sampler.set_epoch(1)
third = list(sampler)
print((second == first, third == first))

# %% tags=["claim-F11", "answer"]
assert second == first  # set_epoch を呼ばないと同じ順序になる
assert third != first
other = DistributedSampler(range(8), num_replicas=2, rank=1, shuffle=True)
other.set_epoch(1)
assert sorted(third + list(other)) == list(range(8))  # 分割は保たれる

# %% [markdown] tags=["answer"]
# **答え：** `(True, False)` です。サンプラーは `seed + epoch` をシードにした乱数生成器でシャッフルし、エポックの値は `set_epoch` を呼んだときにしか変わりません。呼ばなければ、どのエポックも最初のエポックと同じ順序を繰り返し、各ランクは毎回同じサンプルを受け取ります。
#
# そこで、各エポックの最初（`DataLoader` でループを回す前）に、すべてのランクで `sampler.set_epoch(epoch)` を呼びます。どのランクも同じシードとエポックを使うので、新しい順序でも、全ランクの担当分を合わせると8個のサンプルがちょうど1回ずつ含まれます（最後の検証で、ランク 1 の担当分と合わせて確かめています）。
#
# - `(False, False)` だと思った人もいるでしょうが、インデックスを取り出すたびに順序が自動で変わるわけではありません。上で述べたとおり、順序が変わるのは `set_epoch` を呼んだときだけです。
# - `(True, True)` だと、`set_epoch` に効果がないことになります。実際にはエポックの値がシャッフルのシードに加わるので、`set_epoch(1)` の後は順序が変わります。

# %% [markdown]
# ## DataLoader のワーカーとプロセスの起動方法
#
# `num_workers > 0` の `DataLoader` は、ワーカープロセスでバッチを読み込みます。ワーカープロセスの起動方法はプラットフォームによって異なります。Windows と macOS では `spawn`、Linux では Python 3.13 までは `fork`、3.14 からは `forkserver` です。`spawn` と `forkserver` のワーカーは、元のプロセスのコピーではありません。新しい Python プロセスとして起動し、スクリプトのメインモジュールをインポートしてから、データセットを pickle で受け取ります。
#
# そのためスクリプトでは、DataLoader を作ってループを回すコードを `if __name__ == "__main__":` の下に置きます。そうしないと、各ワーカーがスクリプトをインポートするときにそのコードをもう一度実行してしまいます。データセットのクラスも、ワーカーがインポートできるようにモジュールのトップレベルで定義します。
#
# Linux の `fork` では動いていたコードも、`spawn` や `forkserver` では動かなくなることがあります。Python 3.14 以降は、Linux でもこの問題に当たります。お使いのマシンのデフォルトは、次のセルで分かります。

# %%
import multiprocessing

method = multiprocessing.get_start_method()
print(f"{sys.platform=}, {method=}")
if sys.platform in ("win32", "darwin"):
    assert method == "spawn"
else:
    assert method == ("fork" if sys.version_info < (3, 14) else "forkserver")
    assert "forkserver" in multiprocessing.get_all_start_methods()
assert "spawn" in multiprocessing.get_all_start_methods()

# %% [markdown]
# ## まとめ
#
# - インデックスを指定しないもの（`"cuda"`、`.cuda()`）は現在のデバイスを使います。現在のデバイスは `torch.cuda.set_device(i)` か `with torch.cuda.device(i):` で選びます。
# - `CUDA_VISIBLE_DEVICES`（`nvidia-smi` と同じ番号にするなら `CUDA_DEVICE_ORDER=PCI_BUS_ID` も）は CUDA の初期化前、できれば Python の起動前に設定します。
# - `nn.DataParallel` がモデルを移動するのはデバイス ID がちょうど1つ（`len(device_ids) == 1`）のときだけです。`state_dict` のキーには `module.` という接頭辞が付きます。
# - 複数の GPU で学習するなら `DistributedDataParallel` を使います。`torchrun` で GPU ごとに1つのプロセスを起動し、各プロセスで `torch.cuda.set_device(local_rank)` を呼んでから、モデルを `DDP(model, device_ids=[local_rank])` でラップします。パラメータとバッファは DDP がそろえます。`gloo` を使えば CPU でも動作し、テストもできます。
# - データの分割は `DistributedSampler` が行います。すべてのランクのサンプル数をそろえるため、足りない分をサンプルの繰り返しで埋めます（`drop_last=True` なら末尾を切り捨てます）。エポックごとに `sampler.set_epoch(epoch)` を呼ばないと、同じシャッフルが繰り返されます。
