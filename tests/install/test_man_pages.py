#!/usr/bin/python3
"""test_man_pages.py - the manual pages of pascald, pascal and pascal-agent
(man/*.1, written in the repository) are installed by `make install`'s
script and read with man(1), and say what the programs do:

- deploy/install.sh (what `make install` runs) stages the build into a
  temporary DESTDIR; `MANPATH=<root>/usr/local/share/man man pascald` (and
  pascal, pascal-agent) renders the installed page with its NAME, SYNOPSIS,
  OPTIONS or COMMANDS and EXIT STATUS sections; `man -l` reads each source
  page with no warning from groff;
- each page names exactly the options the program's --help lists: pascald's
  (its token options included), pascal-agent's, and per `pascal` command the
  options of `pascal COMMAND --help` in that command's section, every command
  having one. A new option without a line in the page fails here.

Verified to fail before the change: there was no man/ folder and nothing
under share/man after install.

Usage: test_man_pages.py SOURCE_DIR BUILD_DIR"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))
import ci_skip  # noqa: E402

SRC = BUILD = None
OPT = re.compile(r"--([A-Za-z][\w-]*)")


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120, **kw)


def help_options(*cmd, section="options:"):
    out, on = set(), False
    for line in run(*cmd).stdout.splitlines():
        if line.strip() == section:
            on = True
        elif on and not line.strip():
            break
        elif on:
            out.add(OPT.search(line).group(1))
    return out


def roff_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read().replace("\\-", "-")


def options_in(text):
    return set(OPT.findall(text))


class ManPages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("man"):
            ci_skip.missing("man", "man-db")
        cls.tmp = tempfile.TemporaryDirectory(prefix="pascal-man-")
        cls.root = os.path.join(cls.tmp.name, "root")
        p = run("sh", os.path.join(SRC, "deploy", "install.sh"), "--no-build", "--build-dir", BUILD,
                "--no-systemd", env=dict(os.environ, DESTDIR=cls.root))
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
        cls.manpath = os.path.join(cls.root, "usr", "local", "share", "man")
        cls.bin = os.path.join(BUILD, "bin")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_installed_pages_render(self):
        for name, sections in (("pascald", ("OPTIONS", "EXIT STATUS", "HTTP API")),
                               ("pascal", ("COMMANDS", "EXIT STATUS")),
                               ("pascal-agent", ("OPTIONS", "EXIT STATUS"))):
            with self.subTest(page=name):
                self.assertTrue(os.path.isfile(os.path.join(self.manpath, "man1", name + ".1")))
                env = dict(os.environ, MANPATH=self.manpath, MANWIDTH="100", LANG="C.UTF-8")
                p = run("man", "-P", "cat", name, env=env)
                self.assertEqual(p.returncode, 0, p.stderr)
                text = re.sub(".\b", "", p.stdout)  # no overstrike
                self.assertIn("NAME", text)
                self.assertRegex(text[:400], r"%s\s+-\s+" % re.escape(name))
                for s in ("SYNOPSIS",) + sections:
                    self.assertIn("\n" + s + "\n", text, name)
                # the source page renders without a groff warning
                w = run("man", "--warnings", "-l", "-P", "cat",
                        os.path.join(SRC, "man", name + ".1"), env=env)
                self.assertEqual((w.returncode, w.stderr), (0, ""), name)

    def test_pascald_page_names_every_option(self):
        text = roff_text(os.path.join(SRC, "man", "pascald.1"))
        want = help_options(os.path.join(self.bin, "pascald"), "--help")
        want |= help_options(os.path.join(self.bin, "pascald"), "--help", section="token options:")
        self.assertGreater(len(want), 20)
        self.assertEqual(options_in(text.split(".SH OPTIONS", 1)[1].split(".SH ", 1)[0]), want)

    def test_agent_page_names_every_option(self):
        text = roff_text(os.path.join(SRC, "man", "pascal-agent.1"))
        p = run(os.path.join(self.bin, "pascal-agent"), "--help")
        want = set(re.findall(r"^  --([a-z-]+)", p.stdout, re.M))
        self.assertGreater(len(want), 15)
        self.assertEqual(options_in(text.split(".SH OPTIONS", 1)[1].split(".SH ", 1)[0]), want)

    def test_pascal_page_has_every_command_and_option(self):
        text = roff_text(os.path.join(SRC, "man", "pascal.1"))
        sections = {}
        for part in text.split("\n.SS pascal ")[1:]:
            sections[part.split()[0]] = part.split("\n.S", 1)[0]
        top = run(os.path.join(self.bin, "pascal"), "--help").stdout
        cmds = re.findall(r"^  ([a-z]+) {2,}\S", top.split("commands:")[1], re.M)
        self.assertEqual(set(sections), set(cmds))
        for cmd in cmds:
            with self.subTest(cmd=cmd):
                want = help_options(os.path.join(self.bin, "pascal"), cmd, "--help")
                self.assertEqual(options_in(sections[cmd]), want)


if __name__ == "__main__":
    SRC, BUILD = sys.argv[1:3]
    del sys.argv[1:3]
    unittest.main()
