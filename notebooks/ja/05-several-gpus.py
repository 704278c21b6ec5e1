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
# GPU が2枚以上あるとき、インデックスを指定しない CUDA の呼び出しはすべて**現在のデバイス**に向かいます。このページでは、そのデバイスがどう決まるのか、プロセスから GPU を隠す方法、`nn.DataParallel` が実際に何をするのか、そして `DistributedDataParallel` の仕組みを説明します。DDP は2つの CPU プロセスで実際に動かすので、どのセルもどんなマシンでも実行できます。

# %%
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
n_gpus = torch.cuda.device_count()
print(torch.__version__, device, n_gpus)

# %% [markdown]
# ## 現在のデバイス
#
# 現在の CUDA デバイスはスレッドごとに1つあり、最初は GPU 0 です。`torch.cuda.current_device()` で取得し、`torch.cuda.set_device(i)` で変更します。`with torch.cuda.device(i):` はブロックの間だけ変更し、ブロックを抜けると元に戻します。`.cuda()` や `"cuda"` のようにインデックスを指定しないものは、すべてこのデバイスを使います。セルでは最後の GPU を使います。GPU が1枚のマシンでは GPU 0 です。

# %% tags=["claim-F9"]
if torch.cuda.is_available():
    start = torch.cuda.current_device()
    last = n_gpus - 1
    with torch.cuda.device(last):
        inside = torch.cuda.current_device()
        t = torch.zeros(2).cuda()
    print("start:", start, "inside:", inside, "tensor:", t.device, "after:", torch.cuda.current_device())
    assert start == 0  # 新しいプロセスは GPU 0 から始まる
    assert inside == last and t.device == torch.device("cuda", last)
    assert torch.cuda.current_device() == start  # ブロックを抜けると元に戻る

    torch.cuda.set_device(last)
    assert torch.cuda.current_device() == last
    torch.cuda.set_device(start)
else:
    print("skipped: no CUDA GPU, so there is no current CUDA device")

# %% [markdown]
# ## 'cuda' が意味するもの
#
# `torch.device("cuda")` にはインデックスがありません。これは `cuda:0` の別名ではなく「現在の CUDA デバイス」を意味し、どのデバイスになるかはテンソルを作成または移動する時点で決まります。

# %%
d = torch.device("cuda")
print(repr(d), d.index)
assert d.index is None
assert d != torch.device("cuda", 0)

# %% [markdown]
# GPU が1枚なら、決まるデバイスは常に `cuda:0` です。2枚以上あると違いが出ます。`cuda:1` 上にあるテンソル `t` に対して `t.to("cuda")` を呼ぶと、GPU 0 が現在のデバイスなら `cuda:0` にコピーされ、GPU 1 が現在のデバイスなら `t` 自身がそのまま返ります。

# %% tags=["claim-F2"]
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
    print(t.device)
    assert t.device == torch.device("cuda", torch.cuda.current_device())
    assert t.to("cuda") is t  # すでに現在のデバイス上にある
    print("(one GPU: the copy between GPUs needs two)")
else:
    print("skipped: no CUDA GPU, so 'cuda' has no current device to resolve to")

# %% [markdown]
# ## CUDA_VISIBLE_DEVICES で GPU を隠す
#
# 環境変数 `CUDA_VISIBLE_DEVICES` には、プロセスから見えてよい GPU を列挙します。番号は 0 から振り直されるので、`CUDA_VISIBLE_DEVICES=1` なら物理 GPU 1 が `cuda:0` になり、見える GPU はそれだけになります。CUDA がこの変数を読むのは、プロセス内で CUDA が初期化されるときの一度だけです。シェルで設定するか（`CUDA_VISIBLE_DEVICES=1 python train.py`）、新しく起動するプロセスの環境変数として設定してください。ここでは子プロセスの Python に空のリストを渡し、GPU が1枚も見えないことを確かめます。GPU があるマシンでは、2つ目の子プロセスには最後の GPU だけが見えます。

# %% tags=["claim-F9"]
probe = "import torch; print(torch.cuda.device_count())"
settings = [""]
if n_gpus:
    ours = os.environ.get("CUDA_VISIBLE_DEVICES")  # このプロセス自体がすでに制限されている場合がある
    settings.append(ours.split(",")[n_gpus - 1] if ours else str(n_gpus - 1))
for visible in settings:
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=visible)
    child = subprocess.run([sys.executable, "-c", probe], env=env,
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    count = int(child.stdout.split()[-1])
    print(f"CUDA_VISIBLE_DEVICES={visible!r}: {count} GPU(s)")
    assert count == (0 if visible == "" else 1)

print("this process still sees", torch.cuda.device_count())
assert torch.cuda.device_count() == n_gpus

# %% [markdown]
# CUDA がいったん初期化された後は、同じプロセスで `os.environ` を書き換えても効果はなく、GPU は見えたままです。そのため、この変数は最初の CUDA 呼び出しより前に設定する必要があり、Python を起動する前に設定するのが最も安全です。

# %% tags=["claim-F9"]
if torch.cuda.is_available():
    torch.cuda.init()  # このプロセスで CUDA を確実に初期化しておく
    old = os.environ.get("CUDA_VISIBLE_DEVICES")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    try:
        after = torch.cuda.device_count()
        t = torch.ones(1, device="cuda")
    finally:
        if old is None:
            del os.environ["CUDA_VISIBLE_DEVICES"]
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = old
    print("GPUs after setting it too late:", after, t.device)
    assert after == n_gpus
else:
    print("skipped: no CUDA GPU in this process, so there is nothing to hide")

# %% [markdown]
# ## nn.DataParallel が実際にすること
#
# `nn.DataParallel(model)` は「モデルを GPU に載せてくれるもの」と受け取られがちですが、実際の動作はマシンによって異なります。
#
# - CUDA GPU がない（または Apple の GPU）: モデルを保持して呼び出すだけで、何も移動しません。
# - GPU がちょうど1枚: コンストラクタがモデルを `cuda:0` に移動します。
# - GPU が2枚以上: 何も移動しません。`forward` はパラメータが `device_ids[0]` 上にあるかを確認し、なければ `RuntimeError` を送出します。そのため、`model.to("cuda:0")` を自分で呼び出す必要があります。
#
# セルでは、このマシンに当てはまる分岐を検証します。

# %% tags=["claim-M5"]
model = nn.Linear(4, 2)
dp = nn.DataParallel(model)
x = torch.randn(8, 4)
where = next(model.parameters()).device
print("GPUs:", n_gpus, "| model after wrapping:", where)

if n_gpus == 0:
    y = dp(x)  # モジュールを呼ぶだけ
    assert where.type == "cpu" and y.device.type == "cpu"
elif n_gpus == 1:
    assert where == torch.device("cuda", 0)  # コンストラクタが移動した
    y = dp(x)
    assert y.device == torch.device("cuda", 0)
else:
    assert where.type == "cpu"  # 移動していない
    try:
        dp(x)
    except RuntimeError as err:
        print("RuntimeError:", err)
        assert "must have its parameters and buffers on device" in str(err)
    else:
        raise AssertionError("forward should have raised")
    model.to("cuda:0")  # 対処: 自分で移動する
    y = dp(x)
    assert y.device == torch.device("cuda", 0)
print("output on:", y.device)

# %% [markdown]
# ほかにも知っておきたいことが2つあります。ラッパーはモデルを `dp.module` として保持するので、ラッパーの `state_dict` のキーにはすべて `module.` という接頭辞が付きます。ラップしていないモデルにチェックポイントを読み込むのであれば、`dp.module.state_dict()` を保存しましょう。また、`DataParallel` 自身のドキュメントは、マシンが1台だけの場合でも、代わりに `DistributedDataParallel` を使うよう推奨しています。

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
# `DistributedDataParallel`（DDP）はデバイスごとに1つのプロセスを動かします。プロセスの起動には、通常 `torchrun --nproc-per-node=N train.py` を使います。各プロセスはモデルの完全なコピーを持ち、データのうち自分の担当分で学習します。DDP はモデルをラップするときにランク 0 のパラメータを全プロセスにコピーし、`backward()` の実行中にプロセス間で勾配を平均します。そのため、すべてのコピーで同じ更新が行われ、コピー同士は同一に保たれます。
#
# `gloo` バックエンドを使えば DDP は CPU でも動くので、ここで実際に動かしてみます。2つのプロセスは、それぞれ異なるランダムな重みから始まり、それぞれ異なるデータを見ます。安全な方法（`spawn`）で起動したワーカープロセスはノートブックで定義した関数を import できないため、学習スクリプトを一時ファイルに書き出し、`python -m torch.distributed.run`（`torchrun` の実体となるモジュール）で起動します。GPU で動かす場合、スクリプトは `nccl` バックエンドを使い、プロセスごとに専用の GPU を割り当てることになります。

# %%
TRAIN = '''
import json, os, sys
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def train(rank):
    torch.manual_seed(rank)  # a different start on each rank
    net = nn.Linear(4, 1)
    start = net.weight.flatten().tolist()
    model = DDP(net)  # copies rank 0's parameters to every rank
    synced = net.weight.flatten().tolist()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(100 + rank)  # different data on each rank
    for step in range(5):
        x, y = torch.randn(16, 4), torch.randn(16, 1)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()  # gradients are averaged across ranks here
        opt.step()
    params = [p.flatten().tolist() for p in model.parameters()]
    return {"rank": rank, "start": start, "synced": synced, "loss": loss.item(), "params": params}


dist.init_process_group("gloo")
result = train(dist.get_rank())
with open(f"{sys.argv[1]}/rank{result['rank']}.json", "w") as f:
    json.dump(result, f)
dist.destroy_process_group()
# gloo's worker threads can still be releasing autograd state while Python shuts down, which
# aborts the process now and then (torch 2.13). The work is saved: leave without the shutdown.
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
    print("return code:", run.returncode)
    print((run.stdout + run.stderr).strip() or "(no output)")
    assert run.returncode == 0
    results = [json.loads((Path(tmp) / f"rank{r}.json").read_text()) for r in range(2)]

def show(values):
    return [round(v, 4) for v in values]


for r in results:
    print(f"rank {r['rank']}: start {show(r['start'])}, after DDP() {show(r['synced'])}")
    print(f"        last loss {r['loss']:.4f}, final {show(r['params'][0])} {show(r['params'][1])}")

r0, r1 = results
assert r0["start"] != r1["start"]  # 初期の重みが異なる
assert r0["synced"] == r1["synced"] == r0["start"]  # どのランクの重みもランク 0 と同じ
assert r0["loss"] != r1["loss"]  # データも異なる
assert r0["params"] == r1["params"]  # それでも学習後のパラメータは同一

# %% [markdown]
# ## まとめ
#
# - インデックスを明示しないもの（`"cuda"`、`.cuda()`）は現在のデバイスを使います。現在のデバイスは `torch.cuda.set_device(i)` か `with torch.cuda.device(i):` で選びます。
# - `CUDA_VISIBLE_DEVICES` は CUDA の初期化前、できれば Python の起動前に設定します。
# - `nn.DataParallel` がモデルを移動するのは GPU がちょうど1枚のときだけで、`state_dict` のキーは `module.*` という名前に変わります。
# - 複数の GPU には `DistributedDataParallel` を使いましょう。`gloo` を使えば CPU でも動作し、テストもできます。
