#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Writes the seed corpus of fuzz_control: one file per seed, the first
# byte the peer (0 user 4242, 1 user 4343, 3 root, |4 admin), then the
# bytes the peer sends.  The numbers are common/proto.h's.
import os, struct, sys

V = 3
T = dict(status=100, list=101, restore=102, wipe=103, empty=104, quota=105,
         policy_get=106, policy_set=107, audit=108, ok=200)
NUM = ["none", "id", "uid", "all", "before", "since", "version", "overwrite",
       "flags", "limit", "umask", "kind", "xid", "quota", "retention",
       "errno", "time", "size", "owner", "deleter", "count", "bytes", "total",
       "done", "failed", "pid", "admin", "uptime", "watermark", "avail"]
STR = ["path", "prefix", "to", "action", "message", "name", "state", "fs",
       "target", "result", "server"]
NUM2 = ["entry", "trash"]	# numbers again, after the strings (version 3)
A = {n: i for i, n in enumerate(NUM)}
A.update({n: len(NUM) + i for i, n in enumerate(STR)})
A.update({n: len(NUM) + len(STR) + i for i, n in enumerate(NUM2)})

def msg(t, attrs=(), version=V, length=None):
    body = b""
    for k, v in attrs:
        if isinstance(v, int):
            val = struct.pack(">q", v)
        else:
            val = v if isinstance(v, bytes) else v.encode()
        body += struct.pack(">HH", A[k], len(val)) + val
    n = len(body) if length is None else length
    return struct.pack(">HHI", version, T.get(t, t) if isinstance(t, str)
                       else t, n) + body

FS = "/dev/shm/trashd-fuzz/fs"	# FZ_ROOT of fuzz_control.c
seeds = {
    "status": (0, msg("status")),
    "list": (0, msg("list")),
    "list-filters": (0, msg("list", [("prefix", FS + "/home/u"),
                     ("before", 1 << 62), ("since", 1), ("flags", 0x1),
                     ("limit", 3)])),
    "list-all-admin": (4, msg("list", [("all", 1)])),
    "list-other-denied": (0, msg("list", [("uid", 4343)])),
    "restore-path": (0, msg("restore", [("path", FS + "/home/u/a"),
                     ("umask", 0o22)])),
    "restore-dir": (0, msg("restore", [("path", FS + "/home/u")])),
    "restore-id-to": (0, msg("restore", [("id", 1), ("to", FS + "/x/y"),
                      ("overwrite", 1)])),
    "restore-version": (0, msg("restore", [("path", FS + "/home/u/a"),
                        ("version", 2), ("before", 1 << 60)])),
    "restore-dotdot": (0, msg("restore", [("path", FS + "/home/../etc")])),
    "restore-onbehalf": (4, msg("restore", [("path", FS + "/home/v/d"),
                         ("uid", 4343)])),
    "wipe-id": (0, msg("wipe", [("id", 2)])),
    "wipe-path": (1, msg("wipe", [("path", FS + "/home/v/d")])),
    "empty": (1, msg("empty")),
    "quota": (0, msg("quota")),
    "quota-all": (4, msg("quota", [("all", 1)])),
    "policy-get-default": (3, msg("policy_get", [("kind", 2)])),
    "policy-get-user": (3, msg("policy_get", [("kind", 0), ("xid", 4242)])),
    "policy-set": (3, msg("policy_set", [("kind", 1), ("xid", 100),
                   ("quota", 1 << 20), ("retention", 86400)])),
    "policy-unset": (3, msg("policy_set", [("kind", 0), ("xid", 4242),
                     ("quota", -1), ("retention", -1)])),
    "policy-set-default": (3, msg("policy_set", [("kind", 2),
                           ("quota", 1 << 30), ("retention", -1),
                           ("watermark", 5)])),
    "policy-set-watermark-fs": (4, msg("policy_set", [("kind", 2),
                                ("watermark", 12), ("fs", FS)])),
    "policy-unset-watermark": (3, msg("policy_set", [("kind", 2),
                               ("watermark", -1), ("fs", FS + "/home")])),
    "policy-set-watermark-user": (3, msg("policy_set", [("kind", 0),
                                  ("xid", 1), ("watermark", 50)])),
    "audit": (3, msg("audit", [("uid", 4242), ("action", "ctl-list"),
              ("since", 0), ("before", 1 << 62), ("limit", 5)])),
    "pipelined": (0, msg("status") + msg("list") + msg("quota")),
    "bad-version": (0, msg("status", version=7)),
    "oversized": (0, msg("status", length=1 << 20)),
    "truncated": (0, msg("list", [("prefix", "/x")])[:-1]),
    "unknown-type": (0, msg(999)),
    "reply-as-request": (0, msg("ok")),
    "bad-attr": (0, msg("list") [:4] + struct.pack(">I", 4) +
                 struct.pack(">HH", 99, 0)),
    "repeated-attr": (0, msg("list", [("uid", 1), ("uid", 2)])),
    "short-number": (0, struct.pack(">HHI", V, 101, 6) +
                     struct.pack(">HH", A["uid"], 2) + b"\0\1"),
    "nul-string": (0, msg("list", [("prefix", b"/a\0b")])),
    "garbage": (0, bytes(range(256))),
}
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, (peer, data) in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes([peer]) + data)
