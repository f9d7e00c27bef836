#!/usr/bin/env python3
"""Reads nginx_dav.py's connections.log (connection number, request's place on it, method, path) and prints
"N requests on M connections" for the requests below PATH_PREFIX (argv[2]), so that a test can check that
kept-alive connections carried more than one request each."""
import sys

conns, requests = set(), 0
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) >= 4 and parts[3].startswith(sys.argv[2]):
        conns.add(parts[0])
        requests += 1
print("%d requests on %d connections" % (requests, len(conns)))
