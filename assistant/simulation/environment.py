"""The batched torch environment of policy training: many simulated conversations at once, as tensors.

The maths is the numpy ``Conversation`` + ``SimulatedUser``'s (the tests check that they agree): the
answers come from the same CDFs through ``sample_answers``, corrupted by the user's noise through the same
``corrupt_answers``, and the questions from ``assistant.clarification.questions.information_gain``.
"""

from __future__ import annotations

import numpy as np
import torch

from assistant.clarification.questions import batch_information_gain
from assistant.simulation.noise import corrupt_answers
from assistant.simulation.sampling import sample_answers
from assistant.simulation.user import SimulatedUser


class BatchEnvironment:
    """Simulated users for a batch of targets, answering from ``user.answers`` [Q, R, Y] (with ``user.noise``)
    with fresh randomness (``generator``); build it from a ``SimulatedUser`` that ``check_simulator`` accepted."""

    def __init__(self, user: SimulatedUser) -> None:
        masked = np.where(user.option_mask[:, :, None], user.answers, 0.0)
        self.cdf = torch.from_numpy(np.cumsum(masked, axis=1).astype(np.float32))  # [Q, R, Y]
        self.n_options = torch.from_numpy(user.option_mask.sum(axis=1).astype(np.int64))
        self.noise = user.noise
        self.other_cdf = torch.from_numpy(np.cumsum(user.other_answers, axis=1).astype(np.float32))
        # the answer model of the rollout in progress: (a [Q, R, Y], its option slots, its rows there [V, Y])
        self._rows: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None

    def answer(self, questions: torch.Tensor, targets: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        """The option [B] each user with target ``targets`` [B] picks for ``questions`` [B] (``NOT_SURE``: -1)."""
        uniforms = torch.rand(len(questions), generator=generator)
        n_options = self.n_options[questions]
        picked = sample_answers(self.cdf[questions, :, targets], n_options, uniforms, xp=torch)
        if self.noise.rate == 0:  # no extra draws: noise-free training stays as it was
            return picked
        noise = torch.rand(len(questions), 2, generator=generator)
        return corrupt_answers(picked, n_options, noise, self.other_cdf[questions, :, targets], self.noise, torch)

    @staticmethod
    def evidence(log_a: torch.Tensor, questions: torch.Tensor, options: torch.Tensor) -> torch.Tensor:
        """[B, Y] log-likelihood of each answer: the rows of ``log_a`` [Q, R, Y], 0 for "not sure"."""
        rows = log_a[questions, options.clamp_min(0), :]
        return rows * (options >= 0).to(rows.dtype)[:, None]

    def gains(
        self, a: torch.Tensor, cond_entropy: torch.Tensor, probs: torch.Tensor, asked: torch.Tensor
    ) -> torch.Tensor:
        """Information gain [B, Q] of every question under each row of ``probs`` [B, Y]; -inf for questions
        already asked. Never carries gradients."""
        with torch.no_grad():
            q, r, _ = a.shape
            slots, rows = self._option_rows(a)
            if len(slots) == q * r:  # no padded option slot
                ig = batch_information_gain(a, cond_entropy, probs.detach(), xp=torch)
            else:
                # P(r|q) on the options that exist only (issue 33): a FAQ's yes/no questions are padded to its
                # longest facet's 13 slots, so the full product cost about six times as much; the padded slots
                # are 0 either way, and each product is the same sum over the labels (the same numbers; the
                # entropies are summed over the padded layout as before, in the same order)
                answer_probs = probs.detach() @ rows.T  # [B, V]
                plogp = torch.zeros(len(probs), q * r, dtype=answer_probs.dtype)
                plogp[:, slots] = answer_probs * torch.log(answer_probs.clamp_min(1e-12))
                answer_entropy = -plogp.reshape(-1, q, r).sum(dim=-1)
                ig = answer_entropy - probs.detach() @ cond_entropy.T
            return ig.masked_fill(asked, float("-inf"))

    def _option_rows(self, a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The (question, option) slots where ``a`` [Q, R, Y] is not padding (floored above 0 there, 0 on the
        padding), as indices into Q * R, and ``a``'s rows there [V, Y]; kept while the same ``a`` comes (one
        rollout's turns)."""
        kept = self._rows
        if kept is None or not _same_values(kept[0], a):
            flat = a.reshape(-1, a.shape[-1])
            slots = torch.nonzero((flat != 0).any(dim=1)).squeeze(1)
            self._rows = kept = (a, slots, flat.index_select(0, slots).contiguous())
        return kept[1], kept[2]


def _same_values(kept: torch.Tensor, a: torch.Tensor) -> bool:
    """Whether ``a`` is ``kept`` or a view of the same memory, unchanged since (``detach`` makes a new tensor of
    the same memory each rollout; ``kept`` holds that memory, so it cannot be another tensor's meanwhile)."""
    if kept is a:
        return True
    return (
        kept.data_ptr() == a.data_ptr()
        and kept.shape == a.shape
        and kept.stride() == a.stride()
        and kept.dtype == a.dtype
        and kept._version == a._version
    )

    def ask(
        self,
        a: torch.Tensor,
        cond_entropy: torch.Tensor,
        probs: torch.Tensor,
        asked: torch.Tensor,
        targets: torch.Tensor,
        generator: torch.Generator,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The most informative unasked question [B] for each row of ``probs`` [B, Y] and the simulated answer
        [B]. Question choice never carries gradients."""
        questions = self.gains(a, cond_entropy, probs, asked).argmax(dim=1)
        return questions, self.answer(questions, targets, generator)


def best_gain(gains: torch.Tensor) -> torch.Tensor:
    """[B] the best remaining question's information gain from ``gains`` [B, Q] (0 when none is left)."""
    best = gains.max(dim=1).values
    return torch.where(torch.isfinite(best), best.clamp_min(0.0), torch.zeros_like(best))
