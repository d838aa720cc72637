"""The exceptions VexFS raises: one class per kind of failure.

Every failure of a store, search or KV call raises a subclass of ``Error``;
its message names what is wrong ("snapshot 'v2' not found"), and ``code`` is the
library's status code name ("not found"), which tells apart the codes a class
groups (``ConflictError``: "not empty", "not a directory", "is a directory").
"""
from typing import Any, Tuple


class Error(Exception):
    """Base class of every VexFS failure."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.code = code

    def __reduce__(self) -> Tuple[Any, ...]:
        # Pickled whole (multiprocessing sends exceptions back to the parent).
        return (type(self), (self.message, self.code))


class NotFoundError(Error, LookupError):
    """A path, snapshot, branch, store or model does not exist."""


class InvalidArgumentError(Error, ValueError):
    """An argument is malformed or out of range (also: a name too long, a file too
    large, a call on a closed store)."""


class ConflictError(Error):
    """What is at the path does not allow the call: a directory that is not empty,
    a file where a directory is needed, a directory where a file is."""


class AlreadyExistsError(ConflictError):
    """Something by that name already exists."""


class CorruptionError(Error):
    """Stored or received bytes fail their hash or do not decode."""


class StorageError(Error):
    """The operating system refused a read, write or sync."""


class NoSpaceError(StorageError):
    """The store's map or the disk is full."""


class ReadOnlyError(Error):
    """The store or view cannot be written."""


class BusyError(Error):
    """What the call needs is held elsewhere: another process, or (for an open)
    this process's own open of the same store."""


class NotSupportedError(Error):
    """The call does not apply to this object."""


class PermissionDeniedError(Error):
    """A signature or key is not trusted."""


__all__ = [
    "Error",
    "NotFoundError",
    "InvalidArgumentError",
    "ConflictError",
    "AlreadyExistsError",
    "CorruptionError",
    "StorageError",
    "NoSpaceError",
    "ReadOnlyError",
    "BusyError",
    "NotSupportedError",
    "PermissionDeniedError",
]
