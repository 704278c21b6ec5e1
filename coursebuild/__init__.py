"""The build of the course site, as the data travels (each stage hands its result to the next):

course   the notebooks as written (notebooks/<lang>/NN-name.py): read, checked across languages,
         their cell tags and questions; hands parsed notebooks to execute.
execute  runs each concept once, in a kernel and a scratch folder of its own, with a cache; writes
         the signed pages docs/<lang>/NN-name.ipynb (and shows GPU records); hands them to MkDocs.
render   what MkDocs calls (hooks.py): notebook pages as HTML, with questions, marks, the setup
         cell, Colab and download links; hands the built pages to search and assets.
search   one search index per language, with its synonyms; the worker that reads it.
assets   the built site made light: stylesheets trimmed and inlined, pages minified.

build.py (./scripts/build) and serve.py (./scripts/serve) run the stages in order; patches.py
lists every change this build makes to a library's behaviour."""
