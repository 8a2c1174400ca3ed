"""client.py - a standard-library client for pascald's HTTP API (docs/http-api.md).

One Client holds one keep-alive HTTP connection to the daemon. Requests that
fail to connect, lose the connection or get 503 are retried with exponential
backoff (every call here is a read or an idempotent predict, so a retry
cannot do twice what was meant once). A 4xx raises PascalHTTPError naming the
daemon's code and field, except inside predict_many(), where each refused
query comes back in its place as a PredictionError.

predict_many() splits a list of any length into batches that fit the
daemon's limits: at most batch_max queries and body_max bytes per request
(the daemon's defaults, 10,000 and 1 MiB). A daemon configured lower answers
413; the client then halves the batch, keeps the smaller limit for later
calls, and goes on.
"""
import http.client
import json
import time
import urllib.parse

from .errors import PascalHTTPError, PascalProtocolError, PascalUnavailable
from .results import Bounds, Device, Prediction, PredictionError

DEFAULT_BATCH_MAX = 10000
DEFAULT_BODY_MAX = 1 << 20
_BODY_SLACK = 64  # bytes of {"queries":[...],"explain":false} around the items

# refused or reset connections, timeouts, a daemon closing a kept-alive connection
_RETRYABLE = (OSError, http.client.HTTPException)


class Client:
    """pascald client: Client("http://127.0.0.1:8080", token=None, timeout=30)."""

    def __init__(self, url, token=None, timeout=30.0, retries=4, backoff=0.1,
                 batch_max=DEFAULT_BATCH_MAX, body_max=DEFAULT_BODY_MAX):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("url must be http(s)://host[:port], got %r" % url)
        if retries < 0 or backoff < 0 or timeout <= 0 or batch_max < 1 or body_max < 256:
            raise ValueError("retries, backoff >= 0; timeout > 0; batch_max >= 1; body_max >= 256")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._https else 80)
        self._prefix = parts.path.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.batch_max = batch_max
        self.body_max = body_max
        self._conn = None

    # --- transport ------------------------------------------------------------
    def close(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _connection(self):
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=self.timeout)
        return self._conn

    def _once(self, method, path, data):
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        conn = self._connection()
        try:
            conn.request(method, self._prefix + path, body=data, headers=headers)
            r = conn.getresponse()
            raw = r.read()
        except BaseException:
            self.close()
            raise
        if r.getheader("Connection", "").lower() == "close":
            self.close()
        return r.status, raw

    def request(self, method, path, body=None):
        """One API call; returns (status, JSON document). Retries connection
        errors and 503; raises PascalHTTPError for other statuses >= 400."""
        data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        return self._send(method, path, data)

    def _send(self, method, path, data):
        last = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * (2 ** (attempt - 1)))
            try:
                status, raw = self._once(method, path, data)
            except _RETRYABLE as e:
                last = "%s %s: %s" % (method, path, e)
                continue
            if status == 503:
                last = "%s %s: 503 %s" % (method, path, raw[:200].decode("utf-8", "replace"))
                continue
            doc = self._decode(method, path, status, raw)
            if status >= 400:
                raise self._http_error(status, doc)
            return status, doc
        raise PascalUnavailable("no answer after %d attempts: %s" % (self.retries + 1, last))

    @staticmethod
    def _decode(method, path, status, raw):
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            raise PascalProtocolError("%s %s: %d with a body that is not JSON: %r"
                                      % (method, path, status, raw[:200])) from None

    @staticmethod
    def _http_error(status, doc):
        err = (doc or {}).get("error") if isinstance(doc, dict) else None
        if not isinstance(err, dict):
            return PascalHTTPError(status, "http_%d" % status, "answer without an error object")
        return PascalHTTPError(status, err.get("code", "unknown"), err.get("message", ""),
                               err.get("field"), err.get("candidates"))

    # --- predictions ----------------------------------------------------------
    def predict(self, device, calibration=None, explain=True, **query):
        """One scan (o, path, d, m, N, W) or GEMM (Mg, Ng, Kg) prediction.
        A refusal raises PascalHTTPError (422 code 'refused')."""
        body = dict(query, device=device, explain=bool(explain))
        if calibration is not None:
            body["calibration"] = calibration
        _, doc = self.request("POST", "/v1/predict", body)
        return Prediction.from_json(doc)

    def predict_many(self, queries, explain=False):
        """Predictions for a list of query dicts (each with its device), in
        order; a query the daemon refused is a PredictionError in its place."""
        items = [json.dumps(q, separators=(",", ":")) for q in queries]
        out = []
        start = 0
        while start < len(items):
            end = self._batch_end(items, start)
            try:
                out.extend(self._batch(items[start:end], explain, start))
            except PascalHTTPError as e:
                if e.status != 413 or end - start == 1:
                    raise
                self._shrink(e.code, end - start, items[start:end])
                continue
            start = end
        return out

    def _batch_end(self, items, start):
        size = _BODY_SLACK
        end = start
        while end < len(items) and end - start < self.batch_max:
            size += len(items[end].encode()) + 1
            if size > self.body_max and end > start:
                break
            end += 1
        return end

    def _shrink(self, code, count, items):
        if code == "batch_too_large":
            self.batch_max = max(1, count // 2)
        else:
            self.body_max = max(256, (sum(len(i.encode()) + 1 for i in items) + _BODY_SLACK) // 2)

    def _batch(self, items, explain, offset):
        data = '{"explain":%s,"queries":[%s]}' % ("true" if explain else "false", ",".join(items))
        _, doc = self._send("POST", "/v1/predict", data.encode())
        results = doc.get("results") if isinstance(doc, dict) else None
        if not isinstance(results, list) or len(results) != len(items):
            raise PascalProtocolError("batch of %d answered with %r results"
                                      % (len(items), None if results is None else len(results)))
        return [PredictionError.from_json(r, offset) if "error" in r else Prediction.from_json(r)
                for r in results]

    # --- bounds and devices ---------------------------------------------------
    def bounds(self, N, C, phases, ways=None, sets=None):
        """The paper's static bounds for N blocks, capacity C and the warps' phases."""
        body = {"N": N, "C": C, "phases": list(phases)}
        if ways is not None:
            body["ways"] = ways
        if sets is not None:
            body["sets"] = sets
        _, doc = self.request("POST", "/v1/bounds", body)
        return Bounds.from_json(doc)

    def devices(self, cuda_name=None, cc=None):
        """Registered devices, optionally filtered by CUDA name and compute capability."""
        params = {k: v for k, v in (("cuda_name", cuda_name), ("cc", cc)) if v is not None}
        query = "?" + urllib.parse.urlencode(params) if params else ""
        _, doc = self.request("GET", "/v1/devices" + query)
        return [Device.from_json(d) for d in doc["devices"]]

    def device(self, name):
        """One device (by name or unique CUDA name) with its calibrations (raw dicts)."""
        _, doc = self.request("GET", "/v1/devices/" + urllib.parse.quote(name, safe=""))
        return Device.from_json(doc), doc.get("calibrations", [])

    def calibration_bundle(self, calibration_id):
        """The frozen pascal-calibration/1 bundle of a calibration (its export)."""
        _, doc = self.request("GET", "/v1/calibrations/%d/export" % int(calibration_id))
        return doc

    def version(self):
        _, doc = self.request("GET", "/v1/version")
        return doc
