"""DASL's evaluation protocol (Wang et al. 2020): answer-selection problems from community-QA data, learning
curves of each acquisition strategy, the fraction of labels each needs, and their plots."""
