"""Learning from use: DASL's active + self-paced learning (Wang et al. 2020) for answer selection and for
the text prior, with no Qt and no crowdsourcing import.

- ``problems``: an answer-selection problem (graded relevance, MiniLM embeddings), ``mrr`` and DASL's
  80/10/10 split of questions.
- ``models``: the two models DASL compares, ``DeepSelector`` (BDL's Siamese MC-dropout head over MiniLM)
  and ``EncoderSelector`` (a CNN over frozen word vectors), with their training and MC-dropout samples.
- ``uncertainty``: the expected DCG ranking loss (DASL eq. 8-11) and BALD from MC samples.
- ``acquisition``: DASL, DAL, BALD, Core-Set (greedy k-centre) and random, one class each.
- ``pace``: the self-paced threshold schedule for pseudo-labels.
- ``loop``: the round loop (a job).

DASL's protocol (cQA loaders, Table 1, Figure 3) is in ``assistant.evaluation.learning``; the product loop
(suggest queries to label, update the text prior from sessions) in ``assistant.app.desk.learning``.
"""
