#!/usr/bin/python3
"""test_help.py - the programs explain themselves, and their help cannot drift
from what they parse.

- `pascal --help` names every command with one line; `pascal COMMAND --help`
  (exit 0) prints the synopsis and one line per option, and the options
  listed are exactly the options the synopsis names and exactly those the
  parser takes: each listed option, given without its value, is refused as
  missing a value or a bad value, never as unknown, and an option the help
  does not list is refused as unknown.
- `pascald --help` lists one line per option with its default; each listed
  flag is one the daemon's parser knows (a bad value is refused as a bad
  value for that key, not as an unknown option), and the options are exactly
  the configuration keys docs/http-api.md's table documents.
- `pascal-agent --help` lists one line per option.

Verified to fail before the change: `pascal bounds --help` printed the
synopsis only, and `pascald --help` listed no option one per line.

Usage: test_help.py PASCAL PASCALD PASCAL_AGENT SOURCE_DIR"""
import re
import subprocess
import sys
import unittest

PASCAL = PASCALD = AGENT = SOURCE = None
OPTION_LINE = re.compile(r"^  (?:-(\w), )?--([A-Za-z][\w-]*)(?: (\S+))?\s{2,}(\S.*)$")


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=60)


def option_lines(text, section="options:"):
    """{name: (meta, help)} of the lines after `section`, up to a blank line."""
    out, on = {}, False
    for line in text.splitlines():
        if line.strip() == section:
            on = True
            continue
        if on and not line.strip():
            break
        if on:
            m = OPTION_LINE.match(line)
            assert m, "not an option line: %r" % line
            assert m.group(2) not in out, "listed twice: " + m.group(2)
            out[m.group(2)] = (m.group(3), m.group(4))
    return out


class PascalHelp(unittest.TestCase):
    def commands(self):
        p = run(PASCAL, "--help")
        self.assertEqual(p.returncode, 0)
        cmds = re.findall(r"^  ([a-z]+) {2,}\S", p.stdout.split("commands:")[1], re.M)
        self.assertGreaterEqual(len(cmds), 12)
        return cmds

    def test_every_command_lists_exactly_what_it_parses(self):
        # `pascal sim` takes a workload first; each lists its own options
        # and its part of the synopsis ("gemm ... | scan ... | attention ...")
        for cmd in self.commands():
            for prefix in ([["gemm"], ["scan"], ["attention"]] if cmd == "sim" else [[]]):
                with self.subTest(cmd=cmd, workload=prefix):
                    p = run(PASCAL, cmd, *prefix, "--help")
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(p.stderr, "")
                    synopsis = p.stdout.splitlines()[0]
                    self.assertTrue(synopsis.startswith("usage: pascal %s " % cmd), synopsis)
                    if prefix:  # "w1 ... | w2 ... | w3 ...; each [common options]"
                        rest, _, common = synopsis[len("usage: pascal %s " % cmd):].partition("; each ")
                        parts = rest.split(" | ")
                        synopsis = [x for x in parts if x.startswith(prefix[0] + " ")][0] + " " + common
                    opts = option_lines(p.stdout)
                    self.assertTrue(opts, p.stdout)
                    for name, (meta, text) in opts.items():
                        self.assertGreater(len(text), 8, (name, text))  # a line that says something
                    named = set(re.findall(r"--([A-Za-z][\w-]*)", synopsis))
                    if re.search(r"(^|\s|\[)-o ", synopsis):
                        named.add("out")
                    self.assertEqual(named, set(opts), "synopsis and option table differ")
                    for name, (meta, _) in opts.items():
                        r = run(PASCAL, cmd, *prefix, "--" + name)
                        self.assertNotIn("unknown option", r.stderr, name)
                    r = run(PASCAL, cmd, *prefix, "--no-such-option", "1")
                    self.assertEqual(r.returncode, 2)
                    self.assertIn("unknown option", r.stderr)

    def test_required_and_ranges_come_from_the_table(self):
        opts = option_lines(run(PASCAL, "sim", "attention", "--help").stdout)
        self.assertIn("(required)", opts["seq-q"][1])
        self.assertNotIn("(required)", opts["kv-heads"][1])
        self.assertIn("[1..8]", opts["elem-bytes"][1])
        # the predict options are the query tables' fields, with their own lines
        opts = option_lines(run(PASCAL, "predict", "--help").stdout)
        for name in ("o", "path", "d", "m", "N", "W", "Mg", "Ng", "Kg", "seq_q", "stages"):
            self.assertIn(name, opts)
        self.assertIn("reduction", opts["Kg"][1])
        # help wins over a bad argument, and prints nothing on stderr
        p = run(PASCAL, "bounds", "--N", "x", "--help")
        self.assertEqual((p.returncode, p.stderr), (0, ""))


class PascaldHelp(unittest.TestCase):
    def test_one_line_per_option_each_known_to_the_parser(self):
        p = run(PASCALD, "--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        opts = option_lines(p.stdout)
        self.assertIn("config", opts)
        keys = {n for n in opts if n not in ("config", "help", "version")}
        for name in sorted(keys):
            meta, text = opts[name]
            if name not in ("config",):
                self.assertRegex(text, r"\(default [^)]*\)$", name)
            # a value the key refuses (not a number, a flag, an address or an
            # origin, and longer than any path): the parser names the key
            r = run(PASCALD, "--%s=!%s" % (name, "x" * 5000))
            self.assertEqual(r.returncode, 2, (name, r.stderr))
            self.assertNotIn("unknown option", r.stderr, name)
            self.assertIn(name.replace("-", "_"), r.stderr, name)
        r = run(PASCALD, "--no-such-option=1")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown option", r.stderr)
        # the configuration table of docs/http-api.md documents exactly these keys
        with open(SOURCE + "/docs/http-api.md", encoding="utf-8") as f:
            doc = f.read()
        table = doc.split("### Configuration", 1)[1].split("\n#", 1)[0]
        documented = set(re.findall(r"^\| `(\w+)` \|", table, re.M))
        self.assertEqual(documented, {k.replace("-", "_") for k in keys})
        tok = option_lines(p.stdout, "token options:")
        self.assertEqual(set(tok), {"role", "name", "id", "db"})


class AgentHelp(unittest.TestCase):
    def test_one_line_per_option(self):
        p = run(AGENT, "--help")
        self.assertEqual(p.returncode, 0)
        names = re.findall(r"^  --([a-z-]+)", p.stdout, re.M)
        for name in ("server", "device", "backend", "until-idle", "concurrency", "help"):
            self.assertIn(name, names)


if __name__ == "__main__":
    PASCAL, PASCALD, AGENT, SOURCE = sys.argv[1:5]
    del sys.argv[1:5]
    unittest.main()
