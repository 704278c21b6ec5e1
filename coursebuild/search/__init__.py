"""Stage 4: search in every language: one index per language, synonyms, the worker that reads them."""
