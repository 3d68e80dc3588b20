"""Summaries as the CLI and the GUI's Summarize page use them: open documents (files, pasted texts, a
bundled cluster), compare candidate summaries, write a better one, build one sentence by sentence
(RLQA), save and resume; and the researchers' DUC protocols (assistant.evaluation.summaries)."""

from assistant.evaluation.summaries.plots import plot_ndcg
from assistant.evaluation.summaries.rating import evaluate as summaries_rating_job
from assistant.evaluation.summaries.rating import table as summaries_rating_table
from assistant.evaluation.summaries.rl import evaluate_rl as rl_summaries_job
from assistant.evaluation.summaries.rl import evaluate_rlqa as rlqa_evaluation_job
from assistant.summarization.documents import bundled_clusters
from assistant.summarization.jobs import (
    load_topic,
    open_session_job,
    resume_session_job,
    rlqa_session_job,
    save_session,
    sessions_dir,
    write_better_job,
)
from assistant.summarization.session import SummarySettings

__all__ = [
    "SummarySettings",
    "bundled_clusters",
    "load_topic",
    "open_session_job",
    "plot_ndcg",
    "resume_session_job",
    "rl_summaries_job",
    "rlqa_evaluation_job",
    "rlqa_session_job",
    "save_session",
    "sessions_dir",
    "summaries_rating_job",
    "summaries_rating_table",
    "write_better_job",
]
