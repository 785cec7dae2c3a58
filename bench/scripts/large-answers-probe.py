# Clients that ask for large answers and never read them (the black-box probe of 26 Nov): N
# connections each pipeline 400 GETs of key 'big' and read nothing, while this script fetches
# /v0/status and GETs 'big' once a second like a client that reads; then it closes them and checks
# that every permit and reserved byte came back. Driven by large-answers-probe.sh.
# Usage: large-answers-probe.py PORT CLIENTS SECONDS
import socket, sys, time, json, urllib.request
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
base = f"http://127.0.0.1:{port}"
req = b"GET /v0/entity?id=big HTTP/1.1\r\nHost: x\r\n\r\n" * 400
socks = []
for i in range(n):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port)); s.sendall(req); socks.append(s)
worst_status = worst_get = 0.0; codes = {}
end = time.time() + secs
while time.time() < end:
    t = time.time()
    try:
        urllib.request.urlopen(base + "/v0/status", timeout=10).read(); worst_status = max(worst_status, time.time() - t)
    except Exception as e:
        codes["status-" + type(e).__name__] = codes.get("status-" + type(e).__name__, 0) + 1
    t = time.time()
    try:
        r = urllib.request.urlopen(base + "/v0/entity?id=big", timeout=10); b = r.read(); c = r.status
    except urllib.error.HTTPError as e:
        c = e.code
    except Exception as e:
        c = type(e).__name__
    worst_get = max(worst_get, time.time() - t); codes[c] = codes.get(c, 0) + 1
    time.sleep(max(0, 1 - (time.time() - t)))
st = json.loads(urllib.request.urlopen(base + "/v0/status", timeout=10).read())["requests"]
for s in socks: s.close()
time.sleep(3)
after = json.loads(urllib.request.urlopen(base + "/v0/status", timeout=10).read())["requests"]
print(f"clients={n}: worst status {worst_status*1000:.1f} ms, worst reading GET {worst_get*1000:.1f} ms, GET codes {codes}; "
      f"while held inFlight={st['inFlight']} answerBytes={st.get('answerBytes')}; after close inFlight={after['inFlight']} answerBytes={after.get('answerBytes')}")
