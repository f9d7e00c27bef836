#!/usr/bin/env python3
"""Starts or stops a private nginx serving WebDAV PUT/GET on a free localhost port, for the remote-cache
tests: `nginx_dav.py start DIR` writes DIR/nginx.conf, starts nginx (its files, logs and pid in DIR),
waits until it answers and prints its base URL (also in DIR/url); `nginx_dav.py stop DIR` stops it. A
watchdog stops it after 10 minutes in any case, so that a test failing before its last line leaves no
server behind. The access log (DIR/logs/access.log) records each request's method, path, status and
Authorization header; DIR/logs/connections.log each request's connection number and its place on that
connection (how many requests a kept-alive connection carried).
Besides /cache/ (the store), /garbage/ answers every request with 200 and a body that is no entry, and
/readonly/ refuses PUT (403), as a full or read-only server would.
`nginx_dav.py start DIR tls` serves the same over HTTPS instead: it makes a certificate authority
(DIR/ca.pem) and a server certificate it signed for the address 127.0.0.1 only (so that a client asking
for "localhost" must refuse it), with the openssl command, and prints https://127.0.0.1:PORT."""
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request


def nginx():
    return shutil.which("nginx") or "/usr/sbin/nginx"


def stop(d):
    try:  # the watchdog first, so that it does not outlive the server
        os.kill(int(open(os.path.join(d, "watchdog.pid")).read().strip()), signal.SIGKILL)
        os.remove(os.path.join(d, "watchdog.pid"))
    except (OSError, ValueError):
        pass
    pid_file = os.path.join(d, "nginx.pid")
    try:
        pid = int(open(pid_file).read().strip())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGQUIT)
    except ProcessLookupError:
        return
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)


def make_certificates(d):
    """A CA and a server certificate for IP 127.0.0.1 signed by it (EC keys: quick to make)."""
    def run(*args):
        subprocess.run(["openssl", *args], check=True, cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=ptxlink test CA")
    run("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    open(os.path.join(d, "san.ext"), "w").write("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.pem", "-days", "2", "-extfile", "san.ext")


def start(d, tls=False):
    d = os.path.abspath(d)
    stop(d)
    os.makedirs(os.path.join(d, "store", "cache"), exist_ok=True)
    os.makedirs(os.path.join(d, "logs"), exist_ok=True)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    user = "user root;\n" if os.geteuid() == 0 else ""
    listen = f"127.0.0.1:{port}"
    if tls:
        make_certificates(d)
        listen += f" ssl;\n    ssl_certificate {d}/server.pem;\n    ssl_certificate_key {d}/server.key"
    conf = f"""{user}daemon on;
pid {d}/nginx.pid;
error_log {d}/logs/error.log;
events {{ worker_connections 64; }}
http {{
  log_format requests '$request_method $uri $status "$http_authorization"';
  log_format connections '$connection $connection_requests $request_method $uri';
  access_log {d}/logs/access.log requests;
  access_log {d}/logs/connections.log connections;
  client_body_temp_path {d}/body;
  proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi;
  uwsgi_temp_path {d}/uwsgi;
  scgi_temp_path {d}/scgi;
  client_max_body_size 512m;
  server {{
    listen {listen};
    root {d}/store;
    location /cache/ {{ dav_methods PUT; create_full_put_path on; dav_access user:rw; }}
    location /garbage/ {{ return 200 "this is not a cache entry"; }}
    location /readonly/ {{ limit_except GET {{ deny all; }} }}
  }}
}}
"""
    open(os.path.join(d, "nginx.conf"), "w").write(conf)
    subprocess.run([nginx(), "-p", d, "-c", os.path.join(d, "nginx.conf")], check=True)
    url = ("https" if tls else "http") + "://127.0.0.1:%d" % port
    context = ssl.create_default_context(cafile=os.path.join(d, "ca.pem")) if tls else None
    for _ in range(100):
        try:
            urllib.request.urlopen(url + "/garbage/", timeout=1, context=context).read()
            break
        except OSError:
            time.sleep(0.05)
    else:
        stop(d)
        sys.exit("nginx_dav: nginx does not answer on " + url)
    open(os.path.join(d, "url"), "w").write(url)
    pid = open(os.path.join(d, "nginx.pid")).read().strip()
    watchdog = subprocess.Popen([sys.executable, os.path.abspath(__file__), "watchdog", pid], start_new_session=True,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    open(os.path.join(d, "watchdog.pid"), "w").write(str(watchdog.pid))
    print(url)


def watchdog(pid):
    # By the server's pid, not its folder: a test run again removes the folder of the one before.
    time.sleep(600)
    try:
        os.kill(int(pid), signal.SIGQUIT)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    if sys.argv[1] == "start":
        start(sys.argv[2], tls=sys.argv[3:] == ["tls"])
    else:
        {"stop": stop, "watchdog": watchdog}[sys.argv[1]](sys.argv[2])
