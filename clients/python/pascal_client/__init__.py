"""pascal_client - Python client for pascald, the PASCAL daemon (PASCAL: A
Progress Divergence-Aware Shared-Cache Model), and adapters that rank
Triton matmul configurations (pascal_client.triton) and attention
configurations (pascal_client.attention) by PASCAL's predictions.
Standard library only; Python 3.9+."""
from .client import Client
from .errors import PascalError, PascalHTTPError, PascalProtocolError, PascalUnavailable
from .results import (Advice, Bounds, Device, Extrapolation, Interval, Prediction, PredictionError,
                      Validation)

__all__ = ["Client", "PascalError", "PascalHTTPError", "PascalProtocolError", "PascalUnavailable",
           "Advice", "Bounds", "Device", "Extrapolation", "Interval", "Prediction", "PredictionError",
           "Validation"]
__version__ = "0.1.0"
