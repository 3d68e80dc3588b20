"""Where a domain's data comes from: a desk's own FAQ read from its file (``own_faq``), the bundled data sets'
adapters (``adapters``) over their raw files (``bundled``), the templates that word crowd tags as questions,
and the careful file reading they and the crowd importers share (``files``)."""
