"""sim_profile.py - the `key = value` lines of a sim device profile
(deploy/profiles/*.profile, docs/sim-device.md) as strings, comments
stripped: for the scripts that record which profile a bundle was measured
on and the tests that check a bundle against it."""
import os


def profile_values(path):
    """{key: value} of the profile file at path."""
    vals = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if "=" in line:
                k, v = (s.strip() for s in line.split("=", 1))
                vals[k] = v
    return vals


def check_sim_bundle(test, bundle, workload, device, name, source):
    """A shipped sim bundle names its workload, device and sim profile, and
    its device geometry is the profile's; returns the profile's values."""
    test.assertEqual((bundle["workload"], bundle["device"]["name"]), (workload, device), name)
    prov = bundle["provenance"]
    test.assertEqual(prov["source"], "sim", name)
    prof = profile_values(os.path.join(source, prov["profile_file"]))
    test.assertEqual(prov["profile"], prof["name"], name)
    test.assertEqual((bundle["device"]["sm_count"], bundle["device"]["capacity_blocks"],
                      bundle["device"]["block_bytes"]),
                     (int(prof["sm_count"]), int(prof["capacity_blocks"]),
                      int(prof["block_bytes"])), name)
    return prof
