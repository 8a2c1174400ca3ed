"""results.py - typed results of pascald answers.

Prediction mirrors the daemon's prediction document (docs/http-api.md,
"Predictions"): the fill traffic K and fill_bytes, the transfer rule, the
expected error in percent, the coordinates that were extrapolated, the
prediction interval (Interval: where the measured K, fills and time lie at
its level), the family's fold errors where it loses to aligned K = 1
(Validation) and, for a full answer, the explanation and the coherence
advice. PredictionError is a
batch item the daemon refused (its HTTP status, error code, message, field);
a batch returns both kinds in query order, so `result.ok` tells them apart.
"""
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

_QUERY_INDEX = re.compile(r"^queries\[(\d+)\]")


@dataclass(frozen=True)
class Extrapolation:
    """One query coordinate outside the calibrated range, and what the model did."""
    coordinate: str
    value: float
    min: float
    max: float
    action: str

    @classmethod
    def from_json(cls, doc):
        return cls(doc["coordinate"], doc["value"], doc["min"], doc["max"], doc["action"])


@dataclass(frozen=True)
class Advice:
    """Theorem-coherence advice of a diverging scan (K > 1.05)."""
    sigma_max: int
    min_capacity: int
    checkpoint_blocks: int
    K_coherent: float
    fill_bytes_coherent: float
    fill_bytes_at_k1: float
    fill_bytes_at_stake: float

    @classmethod
    def from_json(cls, doc):
        if doc is None:
            return None
        return cls(**{k: doc[k] for k in cls.__dataclass_fields__})


@dataclass(frozen=True)
class Interval:
    """Where the measured value lies at `level` (0.8; docs/expected-error.md);
    time_s_low/high only where the answer has time_s."""
    level: float
    K_low: float
    K_high: float
    fill_bytes_low: float
    fill_bytes_high: float
    time_s_low: Optional[float] = None
    time_s_high: Optional[float] = None

    @classmethod
    def from_json(cls, doc):
        if doc is None:
            return None
        return cls(**{k: doc.get(k) for k in cls.__dataclass_fields__})

    def holds(self, K):
        """Whether a measured K lies inside the interval."""
        return self.K_low <= K <= self.K_high


@dataclass(frozen=True)
class Validation:
    """Present where the answer's family loses to aligned K = 1 in its
    leave-one-key-out folds: both balanced errors, percent."""
    pascal_pct: float
    aligned_pct: float

    @classmethod
    def from_json(cls, doc):
        return None if doc is None else cls(doc["pascal_pct"], doc["aligned_pct"])


@dataclass(frozen=True)
class Prediction:
    """A prediction the daemon answered; time_s and bound only when the
    device has measured peaks and the daemon runs the latency pipeline."""
    workload: str
    K: float
    rho: float
    fill_bytes: float
    M: int
    rule: str
    expected_error_pct: Optional[float]
    extrapolated: List[Extrapolation]
    device: str
    calibration: int
    explanation: Optional[Dict[str, Any]] = None
    advice: Optional[Advice] = None
    time_s: Optional[float] = None
    bound: Optional[str] = None
    interval: Optional[Interval] = None
    validation: Optional[Validation] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    ok = True

    @property
    def is_extrapolated(self):
        return bool(self.extrapolated)

    @classmethod
    def from_json(cls, doc):
        explanation = doc.get("explanation")
        advice = Advice.from_json(explanation.get("advice")) if explanation else None
        return cls(workload=doc["workload"], K=doc["K"], rho=doc["rho"],
                   fill_bytes=doc["fill_bytes"], M=doc["M"], rule=doc["rule"],
                   expected_error_pct=doc.get("expected_error_pct"),
                   extrapolated=[Extrapolation.from_json(e) for e in doc.get("extrapolated", [])],
                   device=doc["device"], calibration=doc["calibration"],
                   explanation=explanation, advice=advice, time_s=doc.get("time_s"),
                   bound=doc.get("bound"), interval=Interval.from_json(doc.get("interval")),
                   validation=Validation.from_json(doc.get("validation")), raw=doc)


@dataclass(frozen=True)
class PredictionError:
    """A query the daemon refused inside a batch (status 4xx, e.g. 422 refused)."""
    status: int
    code: str
    message: str
    field: Optional[str]
    ok = False

    @classmethod
    def from_json(cls, doc, offset=0):
        """offset: the batch's first index in the caller's list, so that a
        field "queries[i].x" names the query's place in that list."""
        err = doc["error"]
        field = err.get("field")
        if field and offset:
            field = _QUERY_INDEX.sub(lambda m: "queries[%d]" % (int(m.group(1)) + offset), field, 1)
        return cls(doc["status"], err["code"], err["message"], field)


@dataclass(frozen=True)
class Bounds:
    """The static bounds of /v1/bounds (paper section 3); raw holds every field."""
    N: int
    C: int
    M: int
    theta: float
    T_star: int
    K_ttl: int
    rho_ttl: float
    lru_lower: int
    lru_upper: int
    lru_exact: Optional[int]
    policy_lower_bound: float
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, doc):
        return cls(doc["N"], doc["C"], doc["M"], doc["theta"]["decimal"], doc["T_star"],
                   doc["K_ttl"], doc["rho_ttl"], doc["lru"]["lower"], doc["lru"]["upper"],
                   doc["lru"]["exact"], doc["policy_lower_bound"]["value"], raw=doc)


@dataclass(frozen=True)
class Device:
    """A registered device (GET /v1/devices)."""
    name: str
    arch: str
    sm_count: int
    capacity_blocks: int
    block_bytes: int
    cuda_name: Optional[str] = None
    compute_capability: Optional[str] = None
    l2_bytes: Optional[int] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, doc):
        return cls(doc["name"], doc["arch"], doc["sm_count"], doc["capacity_blocks"],
                   doc["block_bytes"], doc.get("cuda_name"), doc.get("compute_capability"),
                   doc.get("l2_bytes"), raw=doc)
