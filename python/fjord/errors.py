"""The exceptions Fjord raises. Every error of Fjord's engine is a :class:`FjordError` whose
message is Fjord's own (naming the file, column or option at fault); the subclass says which kind
of error it is and also derives from the built-in exception it resembles."""

from __future__ import annotations


class FjordError(Exception):
    """An error reported by Fjord. ``code`` is Fjord's status code name ("Invalid", "NotFound",
    ...); ``message`` is Fjord's message."""

    code: str = "Unknown"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class InvalidError(FjordError, ValueError):
    """A bad argument, option or input value."""

    code = "Invalid"


class NotFoundError(FjordError, LookupError):
    """A table, database, snapshot, tag or file that does not exist."""

    code = "NotFound"


class AlreadyExistsError(FjordError):
    """A database or table that exists already."""

    code = "AlreadyExists"


class FjordIOError(FjordError, OSError):
    """The storage failed."""

    code = "IOError"


class CorruptionError(FjordError):
    """A file whose contents are not what the Paimon format says."""

    code = "Corruption"


class NotSupportedError(FjordError, NotImplementedError):
    """A valid request that Fjord does not support yet (an option, a table feature)."""

    code = "NotImplemented"


class ConflictError(FjordError):
    """A commit that conflicts with a concurrent one; nothing of it was committed."""

    code = "Conflict"


class CancelledError(FjordError):
    """An operation stopped on request."""

    code = "Cancelled"


class InternalError(FjordError):
    """A broken invariant inside Fjord (a bug)."""

    code = "Internal"


__all__ = [
    "FjordError",
    "InvalidError",
    "NotFoundError",
    "AlreadyExistsError",
    "FjordIOError",
    "CorruptionError",
    "NotSupportedError",
    "ConflictError",
    "CancelledError",
    "InternalError",
]
