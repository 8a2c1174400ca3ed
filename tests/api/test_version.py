#!/usr/bin/python3
"""test_version.py - one version everywhere: `pascald --version`,
`pascal --version`, `pascal-agent --version` and GET /v1/version over real
HTTP print the same string, whose release part is the project version read
independently from CMakeLists.txt."""
import os
import re
import subprocess
import unittest

from harness import DaemonTest, PASCAL_CLI, PASCALD, SOURCE

AGENT = os.path.join(os.path.dirname(PASCAL_CLI), "pascal-agent")
VERSION_RX = re.compile(r"^(\d+\.\d+\.\d+)(\+g[0-9A-Za-z.]+)?$")


def project_version():
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(pascal VERSION (\d+\.\d+\.\d+)", f.read())
    return m.group(1)


def printed_version(binary, name):
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, (binary, out.returncode, out.stderr)
    m = re.match(r"^%s (\S+)\n$" % re.escape(name), out.stdout)
    assert m, (binary, out.stdout)
    return m.group(1)


class VersionTest(DaemonTest):
    def test_binaries_agree_with_the_project_version(self):
        versions = {name: printed_version(binary, name) for binary, name in
                    ((PASCALD, "pascald"), (PASCAL_CLI, "pascal"), (AGENT, "pascal-agent"))}
        self.assertEqual(len(set(versions.values())), 1, versions)
        v = versions["pascald"]
        m = VERSION_RX.match(v)
        self.assertIsNotNone(m, v)
        self.assertEqual(m.group(1), project_version())

    def test_http_version_is_the_binaries_version(self):
        r = self.req("GET", "/v1/version")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["version"], printed_version(PASCALD, "pascald"))
        self.assertEqual(r.json["release"], project_version())
        self.assertEqual(r.json["api"], "v1")


if __name__ == "__main__":
    unittest.main()
