"""Stage 3: the notebook pages as HTML, through MkDocs, Material, mkdocs-jupyter and mkdocs-static-i18n."""
