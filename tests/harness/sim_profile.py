"""sim_profile.py - the `key = value` lines of a sim device profile
(deploy/profiles/*.profile, docs/sim-device.md) as strings, comments
stripped: for the scripts that record which profile a bundle was measured
on and the tests that check a bundle against it."""


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
