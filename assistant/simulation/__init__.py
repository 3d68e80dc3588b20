"""The simulated user (IC 4.4) and what it needs: the agent/user split computed when a domain is built
(``protocol``), episodes and vague first queries (``episodes``, ``queries``), answer noise (``noise``),
the user itself (``user``, ``sampling``), single rollouts (``rollout``), the batched torch environment the
policy trains in (``environment``) and out-of-scope episodes (``out_of_scope``)."""
