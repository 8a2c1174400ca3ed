#!/usr/bin/python3
"""test_device_names.py - devices named as CUDA names them, over real HTTP:
the CUDA identity (cuda_name, compute_capability, l2_bytes) registered,
shown, filled in later and defended against contradiction; GET /v1/devices
filtered by cuda_name (case ignored) and cc; GET /v1/devices/{CUDA name};
predictions whose `device` is a CUDA name answer exactly as with the device
name; an unknown or ambiguous name is a 404 listing the close matches."""
import urllib.parse
import unittest

from harness import DEVICE, DaemonTest, make_frozen_calibration

H100 = "NVIDIA H100 80GB HBM3"


def dev(name, cuda_name=None, cc=None, l2=None, sm=132):
    d = {"name": name, "arch": "sm_90", "sm_count": sm, "capacity_blocks": 3200, "block_bytes": 16384}
    if cuda_name is not None:
        d["cuda_name"] = cuda_name
    if cc is not None:
        d["compute_capability"] = cc
    if l2 is not None:
        d["l2_bytes"] = l2
    return d


def q(s):
    return urllib.parse.quote(s, safe="")


class DeviceNames(DaemonTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for d in (dev("h100-a", H100, "9.0", 52428800), dev("h100-b", H100, "9.0", 52428800),
                  dev("gb10-x", "NVIDIA GB10", "12.1", 25165824, sm=48), dev("plain")):
            r = cls.d.request("POST", "/v1/devices", d, token=cls.admin)
            assert r.status == 201, r.raw

    def names(self, r):
        self.assertStatus(r, 200)
        return sorted(d["name"] for d in r.json["devices"])

    def test_identity_is_shown(self):
        r = self.req("GET", "/v1/devices/h100-a")
        self.assertStatus(r, 200)
        self.assertEqual((r.json["cuda_name"], r.json["compute_capability"], r.json["l2_bytes"]),
                         (H100, "9.0", 52428800))
        r = self.req("GET", "/v1/devices/plain")
        self.assertEqual((r.json["cuda_name"], r.json["compute_capability"], r.json["l2_bytes"]),
                         (None, None, None))

    def test_list_filters(self):
        self.assertEqual(self.names(self.req("GET", "/v1/devices?cuda_name=" + q(H100))),
                         ["h100-a", "h100-b"])
        self.assertEqual(self.names(self.req("GET", "/v1/devices?cuda_name=" + q(H100.lower()))),
                         ["h100-a", "h100-b"])
        self.assertEqual(self.names(self.req("GET", "/v1/devices?cuda_name=%s&cc=9.0" % q(H100))),
                         ["h100-a", "h100-b"])
        self.assertEqual(self.names(self.req("GET", "/v1/devices?cuda_name=%s&cc=9.1" % q(H100))), [])
        self.assertEqual(self.names(self.req("GET", "/v1/devices?cc=12.1")), ["gb10-x"])
        self.assertEqual(self.names(self.req("GET", "/v1/devices?cc=8.0")), [])
        for bad in ("9", "9.", ".0", "0.9", "9.0.1", "x.y", "123.0"):
            r = self.req("GET", "/v1/devices?cc=" + q(bad))
            self.assertStatus(r, 400)
            self.assertEqual(r.json["error"]["field"], "cc", bad)
        r = self.req("GET", "/v1/devices?gpu=" + q(H100))
        self.assertStatus(r, 400)
        self.assertEqual(r.json["error"]["field"], "gpu")

    def test_unknown_cuda_name_lists_close_matches(self):
        r = self.req("GET", "/v1/devices?cuda_name=" + q("NVIDIA H100"))
        self.assertStatus(r, 404, "not_found")
        self.assertEqual(r.json["error"]["field"], "cuda_name")
        cands = [c["name"] for c in r.json["error"]["candidates"]]
        self.assertEqual(sorted(cands), ["h100-a", "h100-b"])
        self.assertIn("h100-a", r.json["error"]["message"])
        r = self.req("GET", "/v1/devices?cuda_name=" + q("AMD MI300X"))
        self.assertStatus(r, 404, "not_found")
        self.assertEqual(r.json["error"]["candidates"], [])
        # a device *name* is not a CUDA name: the filter still finds nothing
        r = self.req("GET", "/v1/devices?cuda_name=gb10-x")
        self.assertStatus(r, 404, "not_found")
        self.assertIn("no device has the CUDA name", r.json["error"]["message"])
        self.assertEqual([c["name"] for c in r.json["error"]["candidates"]], ["gb10-x"])

    def test_get_by_cuda_name(self):
        r = self.req("GET", "/v1/devices/" + q("nvidia gb10"))
        self.assertStatus(r, 200)
        self.assertEqual(r.json["name"], "gb10-x")
        self.assertEqual(r.json["calibrations"], [])
        r = self.req("GET", "/v1/devices/" + q(H100))
        self.assertStatus(r, 404, "not_found")
        self.assertIn("names 2 devices", r.json["error"]["message"])
        self.assertEqual(sorted(c["name"] for c in r.json["error"]["candidates"]), ["h100-a", "h100-b"])
        self.assertEqual({c["cuda_name"] for c in r.json["error"]["candidates"]}, {H100})
        r = self.req("GET", "/v1/devices/gb10-y")
        self.assertStatus(r, 404, "not_found")
        self.assertEqual(r.json["error"]["field"], "name")
        self.assertEqual([c["name"] for c in r.json["error"]["candidates"]][:1], ["gb10-x"])

    def test_register_conflicts_and_fill_in(self):
        r = self.req("POST", "/v1/devices", dev("h100-a", "NVIDIA H200", "9.0"), token=self.admin)
        self.assertStatus(r, 409)
        self.assertEqual(r.json["error"]["field"], "cuda_name")
        r = self.req("POST", "/v1/devices", dev("h100-a", H100, "9.1"), token=self.admin)
        self.assertStatus(r, 409)
        self.assertEqual(r.json["error"]["field"], "compute_capability")
        # a registration that does not know the identity is the same device
        r = self.req("POST", "/v1/devices", dev("h100-a"), token=self.admin)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["cuda_name"], H100)
        # one that knows it completes a device registered without it
        r = self.req("POST", "/v1/devices", dev("fill-me"), token=self.admin)
        self.assertStatus(r, 201)
        r = self.req("POST", "/v1/devices", dev("fill-me", "NVIDIA L40S", "8.9", 100663296), token=self.admin)
        self.assertStatus(r, 200)
        self.assertEqual((r.json["cuda_name"], r.json["compute_capability"], r.json["l2_bytes"]),
                         ("NVIDIA L40S", "8.9", 100663296))
        for body, field in ((dev("bad1", " NVIDIA X"), "device.cuda_name"),
                            (dev("bad2", "NVIDIA\u00e9"), "device.cuda_name"),
                            (dev("bad3", "x" * 64), "cuda_name"),
                            (dev("bad4", "NVIDIA X", "9"), "compute_capability"),
                            (dev("bad5", "NVIDIA X", 9.0), "compute_capability"),
                            (dev("bad6", "NVIDIA X", "9.0", 0), "l2_bytes")):
            r = self.req("POST", "/v1/devices", body, token=self.admin)
            self.assertStatus(r, 400)
            self.assertEqual(r.json["error"]["field"], field, body)
            self.assertStatus(self.req("GET", "/v1/devices/" + body["name"]), 404)


class PredictByCudaName(DaemonTest):
    def test_predict_with_cuda_name(self):
        make_frozen_calibration(self, device=dict(DEVICE, cuda_name="NVIDIA Test GPU",
                                                  compute_capability="9.0"))
        base = "/v1/predict?o=1&path=tma&d=2&m=4&N=1024&W=16&device="
        by_name = self.req("GET", base + DEVICE["name"])
        self.assertStatus(by_name, 200)
        by_cuda = self.req("GET", base + q("NVIDIA Test GPU"))
        self.assertStatus(by_cuda, 200)
        self.assertEqual(by_cuda.json, by_name.json)
        self.assertEqual(by_cuda.json["device"], DEVICE["name"])
        body = {"queries": [{"device": "nvidia test gpu", "o": 1, "path": "tma", "d": 2, "m": 4,
                             "N": 1024, "W": 16},
                            {"device": "NVIDIA Tset GPU", "o": 1, "path": "tma", "d": 2, "m": 4,
                             "N": 1024, "W": 16}]}
        r = self.req("POST", "/v1/predict", body)
        self.assertStatus(r, 200)
        items = r.json["results"]
        self.assertEqual(items[0]["K"], by_name.json["K"])
        self.assertEqual(items[1]["error"]["code"], "not_found")
        self.assertEqual(items[1]["error"]["field"], "device")

        r = self.req("GET", base + q("NVIDIA Tset GPU"))
        self.assertStatus(r, 404, "not_found")
        self.assertEqual([c["name"] for c in r.json["error"]["candidates"]], [DEVICE["name"]])
        self.assertIn("testdev", r.json["error"]["message"])

        # a second device with the same CUDA name makes it ambiguous
        r = self.req("POST", "/v1/devices", dict(DEVICE, name="testdev-2", cuda_name="NVIDIA Test GPU"),
                     token=self.admin)
        self.assertStatus(r, 201)
        r = self.req("GET", base + q("NVIDIA Test GPU"))
        self.assertStatus(r, 404, "not_found")
        self.assertEqual(sorted(c["name"] for c in r.json["error"]["candidates"]),
                         ["testdev", "testdev-2"])
        # the device name itself still answers
        self.assertStatus(self.req("GET", base + DEVICE["name"]), 200)


if __name__ == "__main__":
    unittest.main()
