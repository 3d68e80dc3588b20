"""The ground floor's own errors: models/ imports nothing of the project, so it cannot raise the engine's.

The engine turns these into its own (``assistant.errors.from_model_errors``) where it loads models, adding
the command that fixes the problem; the CLI and the GUI also show any that reach them as one-line errors.
"""

from __future__ import annotations


class ModelError(Exception):
    """Base class of the errors models/ raises on purpose; the message says what is wrong."""


class CheckpointError(ModelError):
    """A checkpoint or a pretrained model is absent, unreadable, of another format or trained on other data."""


class ModelConfigError(ModelError, ValueError):
    """A model configuration value is invalid."""


class UnsafeFileError(ModelError):
    """A file Clarify writes for itself (a lock, a stamp) is a link or not a plain file: something planted."""
