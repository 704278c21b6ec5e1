"""The live preview keeps serving the last good site when a rebuild fails (2026-11-28 probe, case 11:
deleting a concept that another page links to made every URL hang), and says what to fix."""
import logging

import pytest

from coursebuild import preview


class Config(dict):
    @property
    def site_dir(self):
        return self["site_dir"]


def _fake_build(fail):
    def build(config, **kwargs):
        if fail:
            (__import__("pathlib").Path(config.site_dir) / "half.html").parent.mkdir(parents=True, exist_ok=True)
            raise ValueError("notebooks/en/07-device-errors.py links to 08-will-it-fit.ipynb, which is not a notebook "
                             "of this language")
        from pathlib import Path
        Path(config.site_dir).mkdir(parents=True, exist_ok=True)
        (Path(config.site_dir) / "index.html").write_text("new", encoding="utf-8")
    return build


def test_a_failed_rebuild_keeps_the_last_good_site_and_says_why(tmp_path, caplog):
    served = tmp_path / "mkdocs_x"
    served.mkdir()
    (served / "index.html").write_text("last good", encoding="utf-8")
    config = Config(site_dir=str(served))
    with caplog.at_level(logging.ERROR):
        assert preview.kept_when_failing(_fake_build(fail=True))(config, serve_url="x") is None  # no raise: no hang
    assert (served / "index.html").read_text(encoding="utf-8") == "last good"
    assert config.site_dir == str(served) and sorted(p.name for p in tmp_path.iterdir()) == ["mkdocs_x"]
    assert "links to 08-will-it-fit.ipynb" in caplog.text and "keeps serving the last good site" in caplog.text
    preview.kept_when_failing(_fake_build(fail=False))(config)
    assert (served / "index.html").read_text(encoding="utf-8") == "new"


def test_the_first_build_still_fails_the_preview(tmp_path):
    config = Config(site_dir=str(tmp_path / "mkdocs_x"))
    with pytest.raises(ValueError):
        preview.kept_when_failing(_fake_build(fail=True))(config)


def test_mkdocs_serve_calls_the_wrapped_build():
    from coursebuild import hooks  # noqa: F401  (loading the hooks applies the patches)
    import mkdocs.commands.serve

    assert mkdocs.commands.serve.build.__wrapped__.__module__ == "mkdocs.commands.build"
