#!/usr/bin/env python3
"""A chart with hostile text (markup, quotes, control characters, a CDATA
end, a comment) written by the SVG writer is well-formed XML whose title,
description and series names read back as the original text."""
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "hostile.svg")
        subprocess.run([binary, path], check=True, stdout=subprocess.DEVNULL)
        root = ET.parse(path).getroot()
    hostile = '<script>alert("&amp;")</script>  ]]> <!-- x -->'  # \x02 became a space
    assert root.tag == SVG + "svg", root.tag
    assert root.find(SVG + "title").text == "K against W " + hostile
    assert root.find(SVG + "desc").text.startswith("two series; " + hostile)
    names = [g.get("data-series") for g in root.iter(SVG + "g") if g.get("class") == "series"]
    assert names == [hostile, "fitted"], names
    assert not list(root.iter(SVG + "script"))
    print("ok: hostile chart parses as XML and reads back")


if __name__ == "__main__":
    main()
