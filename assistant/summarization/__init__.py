"""Summaries (BO 5.3-5.4, RLQA): documents split into sentences (``documents``, ``text``), candidate
summaries and their features (``candidates``, ``features``), the heuristic and MiniLM priors (``priors``),
the ranker over them (``ranker``), ROUGE and rewards (``rouge``, ``rewards``), the RL summarizer (``rl``),
RLQA's Q(lambda) learner (``rlqa``), and the summary session and its jobs (``session``, ``jobs``,
``prepare``)."""
