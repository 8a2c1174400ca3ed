"""nginx.py - Debian's nginx started on a free loopback port with its own
temporary prefix, in front of pascald backends, using
deploy/nginx-replicas.conf.example with its addresses replaced. Shared by
tests/api/test_nginx_replicas.py and bench/scale-out/run.py."""
import os
import re
import shutil
import socket
import subprocess
import time

from harness import SOURCE

EXAMPLE = os.path.join(SOURCE, "deploy", "nginx-replicas.conf.example")
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def site_config(port, primary, backends):
    """The example with its listen address, primary and read pool replaced."""
    with open(EXAMPLE) as f:
        text = f.read()
    text = text.replace("listen 127.0.0.1:8080;", "listen 127.0.0.1:%d;" % port)
    reads = re.search(r"upstream pascal_reads \{\n(.*?)\n    keepalive", text, re.S)
    line = re.search(r"    server 127\.0\.0\.1:8081 ([^;]*);", reads.group(1)).group(1)
    pool = "\n".join("    server 127.0.0.1:%d %s;" % (b, line) for b in backends)
    text = text[:reads.start(1)] + pool + text[reads.end(1):]
    return text.replace("server 127.0.0.1:8081;", "server 127.0.0.1:%d;" % primary)


class Nginx:
    def __init__(self, workdir, primary, backends):
        self.prefix = os.path.join(workdir, "nginx")
        os.makedirs(os.path.join(self.prefix, "tmp"), exist_ok=True)
        self.port = free_port()
        with open(os.path.join(self.prefix, "site.conf"), "w") as f:
            f.write(site_config(self.port, primary, backends))
        tmp = os.path.join(self.prefix, "tmp")
        with open(os.path.join(self.prefix, "nginx.conf"), "w") as f:
            f.write("daemon off;\nworker_processes 1;\npid %s/nginx.pid;\n"
                    "error_log %s/error.log warn;\nevents { worker_connections 1024; }\n"
                    "http {\n  access_log off;\n" % (self.prefix, self.prefix)
                    + "".join("  %s_temp_path %s/%s;\n" % (k, tmp, k)
                              for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
                    + "  include %s/site.conf;\n}\n" % self.prefix)
        self.proc = None

    def start(self):
        conf = os.path.join(self.prefix, "nginx.conf")
        args = [NGINX, "-p", self.prefix, "-e", os.path.join(self.prefix, "error.log"), "-c", conf]
        subprocess.run(args + ["-t", "-q"], check=True, capture_output=True)
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nginx did not start: " + self.error_log())

    def error_log(self):
        try:
            with open(os.path.join(self.prefix, "error.log"), errors="replace") as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def stop(self):
        if self.proc:
            self.proc.terminate()  # SIGTERM: fast shutdown of master and worker
            self.proc.wait(timeout=10)
            self.proc = None
