"""The passes of coursebuild/assets/trim_css.py after PurgeCSS, on small stylesheets: Material's features
the site never renders, and custom properties nothing reads. (tests/test_site.py checks the built
site: no page uses a trimmed feature; tests/test_answer_first.py, its weight.)"""
from coursebuild.assets.trim_css import unused_feature, without_features, without_unused_properties


def test_the_rules_of_unused_features_go_and_shared_rules_keep_their_other_selectors():
    css = (".md-typeset .tabbed-set>input{display:none}"
           "@media screen{.md-tooltip2,.md-header{color:red}}"
           ".md-typeset .admonition.abstract,.md-typeset .admonition.note{border:1px}"
           ".md-typeset .nb-note{margin:0}")
    assert without_features(css) == ("@media screen{.md-header{color:red}}"
                                     ".md-typeset .admonition.abstract{border:1px}"
                                     ".md-typeset .nb-note{margin:0}")
    assert unused_feature("tabbed-labels") and unused_feature("md-tooltip2__inner") and unused_feature("k")
    assert not unused_feature("md-header") and not unused_feature("abstract") and not unused_feature("nb-note")


def test_custom_properties_nothing_reads_go_until_none_is_left():
    material = (':root{--icon:url("data:image/svg+xml;charset=utf-8,<svg/>");--used:var(--base);--base:1px;'
                '--only-by-dropped:2px;--dropped:var(--only-by-dropped);--by-script:3px;--by-page:4px}'
                '.a{margin:var(--used)}')
    own = ".b{padding:var(--by-own,0)}"
    [trimmed] = without_unused_properties([material + "[x]{--by-own:5px}"],
                                          ['<div style="width:var(--by-page)">', 'getPropertyValue("--by-script")', own])
    assert trimmed == (":root{--used:var(--base);--base:1px;--by-script:3px;--by-page:4px}"
                       ".a{margin:var(--used)}[x]{--by-own:5px}")
