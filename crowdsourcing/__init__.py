"""Crowdsourcing tools: importers, validation, tag clean-up, question templates, agreement, task export,
and adapters that turn the bundled real data sets into knowledge bases."""
