"""A pin removed from requirements.txt is removed from .venv (scripts/prune_venv.py, run by
scripts/_env.sh): before, pip left the package installed and the tests kept passing with it."""
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pip
import pytest
from conftest import ROOT

# scripts/prune_venv.py runs before .venv is ready (scripts/_env.sh): a file beside the shell scripts, not
# part of the build's package
sys.path.insert(0, str(ROOT / "scripts"))
import prune_venv  # noqa: E402
sys.path.remove(str(ROOT / "scripts"))


def test_what_is_not_pinned_is_removed_and_the_installers_stay():
    requirements = "# a comment\ntorch==2.13.0\nMarkupSafe==3.0.4  # why\nzope.interface>=6\n-r other.txt\n"
    installed = {"torch", "markupsafe", "zope-interface", "pip", "setuptools", "wheel", "numpy", "old-thing"}
    assert prune_venv.extras(installed, requirements) == ["numpy", "old-thing"]


def _fake_package(site_packages, name):
    """A package as pip installs it: its module, and a .dist-info with the RECORD pip uninstalls from."""
    info = site_packages / f"{name}-1.0.dist-info"
    info.mkdir()
    (site_packages / f"{name}.py").write_text("", encoding="utf-8")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: 1.0\n",
                                   encoding="utf-8")
    (info / "INSTALLER").write_text("pip\n", encoding="utf-8")
    record = "".join(f"{path},,\n" for path in (f"{name}.py", *(f"{info.name}/{f}" for f in ("METADATA", "INSTALLER",
                                                                                               "RECORD"))))
    (info / "RECORD").write_text(record, encoding="utf-8")


@pytest.mark.slow
def test_env_sh_removes_a_package_whose_pin_was_removed(tmp_path):
    """./scripts/* on a checkout whose requirements.txt lost a pin since .venv was made (a tiny .venv
    here, not the project's)."""
    (tmp_path / "scripts").mkdir()
    for name in ("_env.sh", "prune_venv.py"):
        shutil.copy(ROOT / "scripts" / name, tmp_path / "scripts" / name)
    (tmp_path / "requirements.txt").write_text("kept_pkg==1.0\n", encoding="utf-8")  # removed_pkg's pin is gone
    venv = tmp_path / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site_packages = Path(sysconfig.get_path("purelib", vars={"base": str(venv)}))
    (site_packages / "outer.pth").write_text(str(Path(pip.__file__).parent.parent) + "\n", encoding="utf-8")  # pip
    for name in ("kept_pkg", "removed_pkg"):
        _fake_package(site_packages, name)
    (venv / ".requirements").write_text("the hash of an older requirements.txt\n", encoding="utf-8")
    done = subprocess.run(["bash", "-c", "source scripts/_env.sh && python -c 'import kept_pkg, removed_pkg'"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "No module named 'removed_pkg'" in done.stderr, done.stderr
    assert "Removing packages that requirements.txt no longer pins: removed-pkg" in done.stderr
    assert not (site_packages / "removed_pkg.py").exists() and (site_packages / "kept_pkg.py").exists()
    assert (venv / ".requirements").read_text() != "the hash of an older requirements.txt\n", "done once"
