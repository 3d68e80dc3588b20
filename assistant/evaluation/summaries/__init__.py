"""Summaries, measured as in the papers: BO's summary-rating protocol on DUC (``rating``: NDCG@1% and
Pearson r against interactions, BO Table 5), the RL summaries and the RLQA learner (``rl``: ROUGE against
the model summaries, BO Table 6 and Chali et al. 2015), and their plots."""
