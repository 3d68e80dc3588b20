"""Language tools every room may use: tokens and stopwords (``tokens``), lemmas and word classes (``lemmas``),
phrases by kind and their tags (``phrases``), spaCy's tagger and parser (``grammar``), label documents
(``label_text``), one BM25 (``bm25``, bm25s), pooled MiniLM and its cache (``embeddings``, ``encoder``).
Nothing here knows of questions or beliefs."""
