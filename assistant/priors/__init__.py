"""p(y | x0), the belief before any answer: the trained SRU encoder prior (``sru``), pooled MiniLM
(``minilm``), BM25 (``bm25``), tag mentions (``mentions``), their combination and blend (``combined``,
``blend``), the Prior protocol (``base``) and calibration on held-out vague queries (``calibration``)."""
