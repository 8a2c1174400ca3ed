"""pascal_client - Python client for pascald, the PASCAL daemon (PASCAL: A
Progress Divergence-Aware Shared-Cache Model), and an adapter that ranks
Triton matmul configurations by PASCAL's predictions (pascal_client.triton).
Standard library only; Python 3.9+."""
from .client import Client
from .errors import PascalError, PascalHTTPError, PascalProtocolError, PascalUnavailable
from .results import (Advice, Bounds, Device, Extrapolation, Interval, Prediction, PredictionError,
                      Validation)

__all__ = ["Client", "PascalError", "PascalHTTPError", "PascalProtocolError", "PascalUnavailable",
           "Advice", "Bounds", "Device", "Extrapolation", "Interval", "Prediction", "PredictionError",
           "Validation"]
__version__ = "0.1.0"
