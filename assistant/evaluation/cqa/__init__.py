"""Community-QA answer ranking, BO's protocol: data loaders (``data``), ranking problems with ROUGE-L
utilities and MiniLM features (``problems``) and the simulated-user evaluation of every strategy
(``protocol``)."""
