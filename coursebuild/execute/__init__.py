"""Stage 2: execute each concept's reference notebook once and write the pages MkDocs renders."""
