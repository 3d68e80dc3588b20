"""A desk's jobs: its own FAQ, the cold start, the inbox, the questions of a domain, crowd work, learning
from use and the domains' life cycle."""
