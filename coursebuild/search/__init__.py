"""Stage 4: search in every language: one index per language, synonyms, the worker that reads them.

The design, in a paragraph. Search stays Material's own lunr, in a web worker, over one index per
language (index.py); docs/assets/javascripts/workers/search-i18n.js decides what is indexed beside
each word and what a query asks. Every text is folded with NFKC (ｎｏｎ＿ｂｌｏｃｋｉｎｇ, ﾃﾞﾊﾞｲｽ).
Each word is stemmed as its language needs (English: lunr's stemmer; Korean: particles and endings
stripped, 텐서를/텐서는 → one stem; Japanese: TinySegmenter, on the query too), and in Japanese and
Korean the page's character bigrams are indexed beside the words, from the text as written: a
word typed without its space (디바이스불일치), glued to an ending the stemmer does not know or
segmented otherwise than the page still shares most bigrams with the page, each bigram weighing a
third of a word. Code is indexed whole beside its parts (torch.cuda.is_available, .to()) and an
identifier in the query (set_device, torch.set_default_device, memory_allocated) is looked up whole,
weighing eight words; the pieces a segmenter cuts it into (set, _, default) are dropped, and a
lowercase name before a dot is the reader's variable (tensor.to looks up .to(), not Tensor.to). A
word's trailing wildcard never reaches into code (device: not device_ids), ? ; ' end a word (a heading
that asks "...available?" is found by available), and Japanese bigrams of kana alone (ない, るか) are
not asked for: every page has them. Synonym groups (synonyms/<lang>.yml) join the spellings that share no
characters (에폭/에포크, DDP/DistributedDataParallel). A title word weighs 30 words of text, not
Material's 1000 (a title that said 쓰는 outranked the page on set_default_device). A query asks for any of its words (never
empty while one is on a page; a last resort finds words as substrings), pages that contain the
query as typed come first, and a section whose heading is the pasted error message is shown first.
On the page a result opens, search-highlight.js marks whole words of that section and offers to
clear them. Weighed: the browser's Intl.Segmenter (it could segment pages and queries alike in
the worker, but splits Korean only at spaces, leaving particles on, and Material already ships
TinySegmenter for Japanese; bigrams cover where segmenters disagree); character bigrams alone
(they cannot find a word no page contains, 인플레이스 or 에폭, and weigh code like prose: kept beside
words); lunr's own pipeline (kept: every step above is a lunr pipeline function or query clause,
so index and query go through the same code); Pagefind 1.5.2 (measured on the project's queries: fewer hits,
no Korean segmentation, no index under `mkdocs serve`). The index files are unchanged in size: the
bigrams and code tokens are built in the browser when search is first opened (about 0.5 to 1 s on
a 4x-throttled CPU, overrides/partials/search-lazy.html), not downloaded."""
