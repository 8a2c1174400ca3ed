"""errors.py - the exceptions the client raises.

PascalError is the root. A request the daemon refused as a client mistake
(4xx) raises PascalHTTPError carrying the daemon's error object (code,
message, field); a daemon that could not be reached or kept answering 503
after every retry raises PascalUnavailable. Inside predict_many() a refused
item is never raised: it comes back as a PredictionError result.
"""


class PascalError(Exception):
    """Root of every error this package raises."""


class PascalHTTPError(PascalError):
    """A 4xx (or a non-retryable 5xx) answer: status, code, message, field."""

    def __init__(self, status, code, message, field=None, candidates=None):
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.candidates = candidates or []
        where = " (field %s)" % field if field else ""
        super().__init__("HTTP %d %s: %s%s" % (status, code, message, where))


class PascalUnavailable(PascalError):
    """No answer after every retry: connection errors or 503."""


class PascalProtocolError(PascalError):
    """The daemon answered something this client cannot read."""
