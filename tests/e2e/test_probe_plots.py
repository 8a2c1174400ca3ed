#!/usr/bin/python3
"""test_probe_plots.py - a device's probe data from the sim agent to the
capacity and static plots, through real processes: an admin sim agent
registers the tiny device with its capacity scan (the curve
`pascal-agent --probe` prints), the static cluster experiment that
`pascal-agent --static` prints is attached by registering the device again,
an agent completes a small calibration that then freezes; its exported
bundle carries both under `device`, and the plot routes draw them with the
series and points the data implies (SVG parsed as XML). A calibration whose
device has no probe data answers 404 naming what is missing."""
import json
import subprocess
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

from e2e import World, check, finish, parse_args, scan_plan, wait_for

SVG = "{http://www.w3.org/2000/svg}"


def agent_line(w, prefix, *args):
    """The JSON after `prefix` in the output of a device-only agent run."""
    r = subprocess.run([w.agent_bin, "--backend", "sim", "--profile", w.profile, *args],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "pascal-agent %s: %s" % (" ".join(args), r.stderr))
    lines = [l[len(prefix):] for l in r.stdout.splitlines() if l.startswith(prefix)]
    check(len(lines) == 1, "one %r line: %r" % (prefix, r.stdout[-500:]))
    return json.loads(lines[0])


def get_raw(w, path):
    try:
        with urllib.request.urlopen(w.url + path, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def series(raw):
    """{name: (markers, has_line)} of an SVG chart."""
    root = ET.fromstring(raw)
    check(root.tag == SVG + "svg", "an SVG document")
    out = {}
    for g in root.iter(SVG + "g"):
        if g.get("class") == "series":
            markers = sum(1 for e in g if e.get("class") == "marker")
            out[g.get("data-series")] = (markers, g.find(SVG + "polyline") is not None)
    return out


def calibrate(w, device):
    """A small scan calibration of `device`, run by one agent, frozen; its id."""
    cal, total = w.create_calibration(device, scan_plan([(1, "sync", 0)], [0, 1, 2, 4, 5, 6],
                                                        [128, 256]))
    a = w.agent("runner-" + device, device, "--until-idle")
    check(a.wait() == 0, "the agent completes the calibration: " + a.text()[-500:])
    st, c = w.api("GET", "/v1/calibrations/%d" % cal)
    check(c["progress"] == {"done": total, "total": total}, "all jobs done: %r" % c["progress"])
    st, frozen = w.api("POST", "/v1/calibrations/%d/freeze" % cal, None, w.admin)
    check(st == 200, "freeze: %s %s" % (st, frozen))
    return cal


def main():
    args = parse_args()
    with World(args) as w:
        probe = agent_line(w, "capacity probe: ", "--probe")
        table = agent_line(w, "static table: ", "--static", "--rounds", "200")
        # the admin agent registers the device and its capacity scan itself
        reg = w.agent("registrar", "tiny", "--until-idle", token=w.admin)
        check(reg.wait() == 0, "admin agent exits 0: " + reg.text())
        st, dev = w.api("GET", "/v1/devices/tiny")
        check(st == 200 and dev.get("capacity_probe") == probe,
              "the agent registered the probe's capacity scan: %r" % (dev.get("capacity_probe"),))
        check(dev.get("static_experiment") is None, "no static table yet")
        # the static table is attached by registering the device again
        body = {k: dev[k] for k in ("name", "arch", "sm_count", "capacity_blocks", "block_bytes")}
        bad = dict(body, static_experiment=dict(table, rows=[dict(table["rows"][0], K=-1)]))
        st, err = w.api("POST", "/v1/devices", bad, w.admin)
        check(st == 400 and err["error"]["field"] == "static_experiment.rows[0].K",
              "a negative K is refused naming it: %s %r" % (st, err))
        st, dev = w.api("POST", "/v1/devices", dict(body, static_experiment=table), w.admin)
        check(st == 200 and dev.get("static_experiment") == table,
              "the static table is filled in: %s %r" % (st, dev))
        other = json.loads(json.dumps(table))
        other["rows"][0]["K"] += 1
        st, err = w.api("POST", "/v1/devices", dict(body, static_experiment=other), w.admin)
        check(st == 409 and err["error"]["field"] == "static_experiment",
              "a different table is a conflict naming it: %s %r" % (st, err))

        cal = calibrate(w, "tiny")
        st, bundle = w.api("GET", "/v1/calibrations/%d/export" % cal)
        check(st == 200 and bundle["device"].get("capacity_probe") == probe and
              bundle["device"].get("static_experiment") == table,
              "the frozen bundle carries the probe data under device")
        # the exported bundle imports again (its content hash covers the data)
        w.api("POST", "/v1/devices", {"name": "twin", "arch": "sim", "sm_count": 4,
                                      "capacity_blocks": 64, "block_bytes": 16384}, w.admin)
        tampered = json.loads(json.dumps(bundle))
        tampered["device"]["capacity_probe"]["fill_ratio"][0] += 0.5
        st, err = w.api("POST", "/v1/calibrations/import", tampered, w.admin)
        check(st == 400 and err["error"]["field"] == "content_hash",
              "a bundle whose probe data was changed fails its hash: %s %r" % (st, err))

        st, raw = get_raw(w, "/v1/calibrations/%d/plots/capacity.svg" % cal)
        check(st == 200, "capacity plot: %s %r" % (st, raw[:300]))
        s = series(raw)
        check(s == {"fill / scanned bytes": (len(probe["size_blocks"]), True),
                    "chosen C = %d blocks" % dev["capacity_blocks"]: (0, True),
                    "tolerance 1.1": (0, True)}, "capacity plot series: %r" % s)
        st, raw = get_raw(w, "/v1/calibrations/%d/plots/static.svg" % cal)
        check(st == 200, "static plot: %s %r" % (st, raw[:300]))
        s = series(raw)
        n = len(table["rows"])
        check(s == {"gap law (Theorem 1)": (n, False), "exact SDCM": (n, False), "Che": (n, False),
                    "measured = predicted": (0, True)}, "static plot series: %r" % s)

        # a device registered without probe data: its plots say what is missing
        w.register_tiny("bare")
        bare = calibrate(w, "bare")
        for kind, field in (("capacity", "device.capacity_probe"),
                            ("static", "device.static_experiment")):
            st, raw = get_raw(w, "/v1/calibrations/%d/plots/%s.svg" % (bare, kind))
            err = json.loads(raw)["error"] if raw.startswith(b"{") else {}
            check(st == 404 and err.get("field") == field,
                  "%s plot of a bundle without the data: %s %r" % (kind, st, raw[:300]))
    finish()


if __name__ == "__main__":
    main()
