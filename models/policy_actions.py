"""The STOP/ASK policy network's layout, without torch: serving reads the network's decisions in numpy
(``assistant.clarification.stopping.LearnedPolicy``) and must not import ``models.policy_net`` for two numbers."""

# The output logits [..., 2]: index 0 = ASK, 1 = STOP.
ASK, STOP = 0, 1
# Inputs besides the top-k probabilities: entropy, best information gain, shortlist mass, turn.
EXTRA_INPUTS = 4
