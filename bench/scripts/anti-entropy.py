#!/usr/bin/env python3
"""Anti-entropy cost on three local nodes (docs/benchmarks.md, "Anti-entropy").

Usage: DHT_CP=<class path> python3 bench/scripts/anti-entropy.py KEYS INTERVAL_MS
Loads KEYS keys of 100 bytes (ack=3, from=3), prints the anti-entropy counters of whole rounds
with nothing differing, then after writing 1 and 100 keys on one replica only (from=1), then wipes
node 2's data directory, restarts it and prints how long until it received every key.
"""
import json, os, shutil, subprocess, sys, time, threading, http.client, urllib.parse, socket
JAVA="/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"
# The class path of dht serve: the modules' classes and their dependencies, e.g. with
# mvn -B -q -pl cli -am dependency:build-classpath -Dmdep.outputFile=deps.txt and the modules' target/classes.
CP=os.environ['DHT_CP']
N=int(sys.argv[1]) if len(sys.argv)>1 else 100000
INTERVAL=sys.argv[2] if len(sys.argv)>2 else "10000"
base=os.environ.get('DATA','/tmp/anti-entropy-bench')
shutil.rmtree(base, ignore_errors=True)
def free():
    s=socket.socket(); s.bind(('127.0.0.1',0)); p=s.getsockname()[1]; s.close(); return p
ports=[free() for _ in range(3)]
urls=['http://localhost:%d'%p for p in ports]
procs={}
def start(i):
    d=f'{base}/n{i}'
    os.makedirs(d, exist_ok=True)
    log=open(f'{base}/n{i}.log','a')
    procs[i]=subprocess.Popen([JAVA,'--enable-native-access=ALL-UNNAMED','--sun-misc-unsafe-memory-access=allow','-Xmx512m','-Ddht.hints.bytes=0',
        '-cp',CP,'dht.cli.Main','serve','--port',str(ports[i]),'--data',d,'--cluster',','.join(urls),'--anti-entropy-interval',INTERVAL],stdout=log,stderr=log)
def ready(i):
    for _ in range(600):
        try:
            c=http.client.HTTPConnection('localhost',ports[i],timeout=2); c.request('GET','/v0/status'); r=c.getresponse(); r.read()
            if r.status==200: return
        except OSError: pass
        time.sleep(0.1)
    raise SystemExit('not ready')
def status(i):
    c=http.client.HTTPConnection('localhost',ports[i],timeout=10); c.request('GET','/v0/status'); return json.loads(c.getresponse().read())
def ae_totals():
    out={}
    for i in range(3):
        s=status(i)['antiEntropy']
        out[i]={k:sum(p[k] for p in s.values()) for k in ('exchanges','keysSent','keysReceived','bytesSent','bytesReceived','differingLeaves')}
    return out
for i in range(3): start(i)
for i in range(3): ready(i)
val='x'*100
def loader(t, nt, frm):
    c=http.client.HTTPConnection('localhost',ports[t%3],timeout=30)
    for k in range(t,N,nt):
        c.request('PUT','/v0/entity?id=key%07d&ack=3&from=3'%k, body=val); r=c.getresponse(); r.read()
        assert r.status==201, r.status
t0=time.time()
ts=[threading.Thread(target=loader,args=(t,8,3)) for t in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
print(f'loaded {N} keys in {time.time()-t0:.1f}s', flush=True)
def wait_round():
    # one full round on every node after now: each node's exchange count per peer rises by at least 2
    before=ae_totals()
    while True:
        time.sleep(1)
        now=ae_totals()
        if all(now[i]['exchanges']>=before[i]['exchanges']+4 for i in range(3)): return now
quiet0=wait_round(); quiet1=wait_round()
def delta(a,b): return {i:{k:b[i][k]-a[i][k] for k in a[i]} for i in a}
print('one round, nothing differs:', json.dumps(delta(quiet0,quiet1)), flush=True)
for diff in (1, 100):
    # keys written on one replica only (from=1): they differ on its two peers
    c=http.client.HTTPConnection('localhost',ports[0],timeout=30)
    for k in range(diff):
        c.request('PUT','/v0/entity?id=key%07d&ack=1&from=1'%(k*997 % N), body='y'*100); r=c.getresponse(); r.read()
    a=wait_round(); b=wait_round()
    print(f'{diff} keys differ, rounds after: first', json.dumps(delta(quiet1 if diff==1 else prev, a)), 'second', json.dumps(delta(a,b)), flush=True)
    prev=b
# wipe node 2
procs[2].terminate(); procs[2].wait()
shutil.rmtree(f'{base}/n2')
t0=time.time(); start(2); ready(2); t_ready=time.time()
def local_count(i):
    c=http.client.HTTPConnection('localhost',ports[i],timeout=60); c.request('GET','/v0/entities?start=%00&scope=local'); body=c.getresponse().read()
    return body.count(b'\n')
while True:
    st=status(2)['antiEntropy']; rec=sum(p['keysReceived'] for p in st.values())
    if rec>=N:
        break
    if time.time()-t0>600: print('timeout'); break
    time.sleep(0.5)
t_done=time.time()
print(f'wiped node: ready {t_ready-t0:.1f}s after start, {rec} keys received {t_done-t0:.1f}s after start', flush=True)
time.sleep(2)
print('local entries on wiped node:', local_count(2), 'status:', json.dumps(status(2)['antiEntropy']), flush=True)
for p in procs.values(): p.terminate()
for p in procs.values(): p.wait()
