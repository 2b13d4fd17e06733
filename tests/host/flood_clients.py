#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""flood_clients.py - the clients of tests/host/floods.sh: attackers that hold connections to the
metrics port or the status socket, and a measurer that times normal scrapes and status calls.
Each prints "key=value" lines of what it saw; the script asserts on them. Exit 0 when it ran.

  flood_clients.py attack tcp HOST:PORT SRC N PERIOD SECONDS
      N connections to HOST:PORT from source address SRC, each sending the start of a GET and
      then one more header byte every PERIOD s, never ending the request
  flood_clients.py attack unix SOCKET N PERIOD SECONDS
      N connections to the status socket, each sending the start of a call and then one more
      byte (a space) every PERIOD s, never its NUL
    An attacker whose connection the server closes connects again 0.2 s later. Prints how many
    connections were made and closed by the server, the longest time one was held, and the
    shortest time before the server closed one (-1: none closed).
  flood_clients.py slowread SOCKET N CHUNK PERIOD SECONDS
      N connections to the status socket (threads), each calling io.reclaimd.Cgroups and then
      reading CHUNK bytes of the reply every PERIOD s, connecting again when closed. Prints
      slowread_connects, slowread_closed (closed by the server) and slowread_longest_s (the
      longest a connection was held).
  flood_clients.py pipeline SOCKET K
      K io.reclaimd.Status calls in one write on one connection; reads replies until the
      server closes it or 5 s pass. Prints pipeline_replies (answered without error) and
      pipeline_errors (error replies).
  flood_clients.py stats SOCKET
      One io.reclaimd.Status call; prints the counters of its "socket" object as key=value.
  flood_clients.py measure HOST:PORT|- SOCKET|- N INTERVAL
      N scrapes of GET /metrics and N io.reclaimd.Status calls, one of each every INTERVAL s (in
      two threads), each on a new connection; one answered within 1 s counts as ok. Status
      replies give the tick's lateness (late_last_us) and count: ticks is how many ticks ran
      between the first and the last answered call, ticks_seconds how long apart they were.
"""
import json
import select
import socket
import sys
import threading
import time

RECONNECT_S = 0.2
ANSWER_S = 1.0


def now():
    return time.monotonic()


def attack(kind, target, src, n, period, seconds):
    if kind == "tcp":
        host, port = target.rsplit(":", 1)
        head = b"GET /metrics HTTP/1.1\r\nHost: reclaimd\r\nX-Slow: "
        tail = b"a"
    else:
        head = b'{"method":"io.reclaimd.Status","parameters":{'
        tail = b" "
    conns = [None] * n
    opened = [0.0] * n
    sent = [0] * n
    next_send = [0.0] * n
    next_connect = [0.0] * n
    connects = closed = failed_connects = 0
    longest = 0.0  # the longest time a connection was held open (closed or still open)
    shortest = None  # the shortest time a connection was held before the server closed it
    end = now() + seconds

    def close(i, t):
        nonlocal closed, longest, shortest
        longest = max(longest, t - opened[i])
        shortest = t - opened[i] if shortest is None else min(shortest, t - opened[i])
        conns[i].close()
        conns[i] = None
        next_connect[i] = t + RECONNECT_S

    while now() < end:
        t = now()
        for i in range(n):
            if conns[i] is None and t >= next_connect[i]:
                try:
                    if kind == "tcp":
                        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                        s.bind((src, 0))
                        s.settimeout(1.0)
                        s.connect((host, int(port)))
                    else:
                        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                        s.settimeout(1.0)
                        s.connect(target)
                    s.setblocking(False)
                except OSError:
                    failed_connects += 1
                    next_connect[i] = t + RECONNECT_S
                    continue
                conns[i] = s
                connects += 1
                opened[i] = t
                sent[i] = 0
                next_send[i] = t
            if conns[i] is not None and t >= next_send[i]:
                try:
                    conns[i].send(head if sent[i] == 0 else tail)
                    sent[i] += 1
                    next_send[i] = t + period
                except OSError:
                    closed += 1
                    close(i, t)
        live = [c for c in conns if c is not None]
        if live:
            readable, _, _ = select.select(live, [], [], 0.05)
        else:
            readable = []
            time.sleep(0.05)
        t = now()
        for i in range(n):
            if conns[i] is not None and conns[i] in readable:
                try:
                    data = conns[i].recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    closed += 1
                    close(i, t)
    t = now()
    for i in range(n):
        if conns[i] is not None:
            longest = max(longest, t - opened[i])
            conns[i].close()
    print(f"attack_connects={connects}")
    print(f"attack_connect_failures={failed_connects}")
    print(f"attack_closed_by_server={closed}")
    print(f"attack_longest_held_s={longest:.2f}")
    print(f"attack_shortest_closed_s={-1 if shortest is None else shortest:.2f}")


def scrape(hostport):
    host, port = hostport.rsplit(":", 1)
    t0 = now()
    try:
        with socket.create_connection((host, int(port)), timeout=ANSWER_S) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: reclaimd\r\nConnection: close\r\n\r\n")
            data = b""
            while now() - t0 < ANSWER_S:
                s.settimeout(max(0.01, ANSWER_S - (now() - t0)))
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return False, now() - t0
    dt = now() - t0
    ok = data.startswith(b"HTTP/1.1 200") and b"reclaimd_" in data and dt <= ANSWER_S
    return ok, dt


def find_tick(obj):
    if isinstance(obj, dict):
        if "late_last_us" in obj:
            return obj
        for v in obj.values():
            r = find_tick(v)
            if r is not None:
                return r
    return None


def status_call(path):
    t0 = now()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(ANSWER_S)
            s.connect(path)
            s.sendall(b'{"method":"io.reclaimd.Status"}\0')
            data = b""
            while not data.endswith(b"\0") and now() - t0 < ANSWER_S:
                s.settimeout(max(0.01, ANSWER_S - (now() - t0)))
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return False, now() - t0, None
    dt = now() - t0
    if not data.endswith(b"\0") or dt > ANSWER_S:
        return False, dt, None
    try:
        reply = json.loads(data[:-1])
    except ValueError:
        return False, dt, None
    if "error" in reply:
        return False, dt, None
    return True, dt, find_tick(reply.get("parameters"))


def slowread(path, n, chunk, period, seconds):
    end = now() + seconds
    lock = threading.Lock()
    st = {"connects": 0, "closed": 0, "longest": 0.0}

    def one():
        while now() < end:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.connect(path)
            except OSError:
                time.sleep(RECONNECT_S)
                continue
            t0 = now()
            with lock:
                st["connects"] += 1
            closed = False
            try:
                s.sendall(b'{"method":"io.reclaimd.Cgroups"}\0')
                s.settimeout(5)
                while now() < end:
                    if not s.recv(chunk):
                        closed = True
                        break
                    time.sleep(period)
            except OSError:
                closed = True
            s.close()
            with lock:
                st["closed"] += closed
                st["longest"] = max(st["longest"], now() - t0)
            if closed:
                time.sleep(RECONNECT_S)

    ts = [threading.Thread(target=one, daemon=True) for _ in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print(f"slowread_connects={st['connects']}")
    print(f"slowread_closed={st['closed']}")
    print(f"slowread_longest_s={st['longest']:.1f}")


def pipeline(path, k):
    replies = errors = 0
    data = b""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        s.sendall(b'{"method":"io.reclaimd.Status"}\0' * k)
        end = now() + 5
        while now() < end:
            s.settimeout(max(0.01, end - now()))
            try:
                chunk = s.recv(1 << 20)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
            *done, data = data.split(b"\0")
            for m in done:
                try:
                    err = "error" in json.loads(m)
                except ValueError:
                    err = True
                errors += err
                replies += not err
            if replies + errors >= k:
                break
    print(f"pipeline_replies={replies}")
    print(f"pipeline_errors={errors}")


def stats(path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(path)
        s.sendall(b'{"method":"io.reclaimd.Status"}\0')
        data = b""
        while not data.endswith(b"\0"):
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            data += chunk
    sock = json.loads(data.rstrip(b"\0"))["parameters"]
    stack = [sock]
    while stack:  # the "socket" object, wherever Status puts it
        o = stack.pop()
        if isinstance(o, dict):
            if isinstance(o.get("socket"), dict):
                for k, v in o["socket"].items():
                    print(f"{k}={v}")
                return
            stack.extend(o.values())


def measure(hostport, path, n, interval):
    res = {}

    def run_scrapes():
        ok, worst = 0, 0.0
        for _ in range(n):
            t0 = now()
            good, dt = scrape(hostport)
            ok += good
            worst = max(worst, dt)
            time.sleep(max(0.0, interval - (now() - t0)))
        res["scrape_ok"], res["scrape_max_ms"] = ok, int(worst * 1000)

    def run_calls():
        ok, worst, late = 0, 0.0, []
        first = last = None
        first_t = last_t = 0.0
        for _ in range(n):
            t0 = now()
            good, dt, tick = status_call(path)
            ok += good
            worst = max(worst, dt)
            if tick is not None:
                late.append(tick["late_last_us"])
                if first is None:
                    first, first_t = tick["count"], now()
                last, last_t = tick["count"], now()
            time.sleep(max(0.0, interval - (now() - t0)))
        res["call_ok"], res["call_max_ms"] = ok, int(worst * 1000)
        res["late_max_us"] = max(late) if late else -1
        res["late_mean_us"] = int(sum(late) / len(late)) if late else -1
        res["ticks"] = (last - first) if late else -1
        res["ticks_seconds"] = f"{last_t - first_t:.1f}"  # between the first and last reply

    threads = []
    if hostport != "-":
        threads.append(threading.Thread(target=run_scrapes))
    if path != "-":
        threads.append(threading.Thread(target=run_calls))
    t0 = now()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    res["seconds"] = f"{now() - t0:.1f}"
    for k, v in res.items():
        print(f"{k}={v}")


def main(argv):
    if len(argv) >= 8 and argv[1] == "attack" and argv[2] == "tcp":
        attack("tcp", argv[3], argv[4], int(argv[5]), float(argv[6]), float(argv[7]))
    elif len(argv) >= 7 and argv[1] == "attack" and argv[2] == "unix":
        attack("unix", argv[3], None, int(argv[4]), float(argv[5]), float(argv[6]))
    elif len(argv) >= 7 and argv[1] == "slowread":
        slowread(argv[2], int(argv[3]), int(argv[4]), float(argv[5]), float(argv[6]))
    elif len(argv) >= 4 and argv[1] == "pipeline":
        pipeline(argv[2], int(argv[3]))
    elif len(argv) >= 3 and argv[1] == "stats":
        stats(argv[2])
    elif len(argv) >= 6 and argv[1] == "measure":
        measure(argv[2], argv[3], int(argv[4]), float(argv[5]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
