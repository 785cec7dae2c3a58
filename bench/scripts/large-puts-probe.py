# Large values through a small heap (docs/http-server.md, "Still open: large values through a small
# heap"): N threads each PUT a 1 MiB value over and over on a keep-alive connection for S seconds,
# to one node (start it with -Xmx128m), and the answers' status codes are counted.
# Usage: large-puts-probe.py PORT CLIENTS SECONDS
import http.client, sys, threading, time, collections
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
body = b"p" * (1 << 20)
codes = collections.Counter(); lock = threading.Lock()
def run(i):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    end = time.time() + secs; k = 0
    while time.time() < end:
        try:
            c.request("PUT", f"/v0/entity?id=t{i}-{k % 8}", body); r = c.getresponse(); r.read(); code = r.status
        except Exception as e:
            code = type(e).__name__; c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        with lock: codes[code] += 1
        k += 1
ts = [threading.Thread(target=run, args=(i,)) for i in range(n)]
[t.start() for t in ts]; [t.join() for t in ts]
print(f"PUT clients={n}: codes {dict(codes)}")
