"""Questions induced from a domain's texts: the phrases and facets a person recognises, how a person
with an entry in mind answers them, and the wording gate that keeps only questions that read as English."""
