#!/bin/bash
# --cluster-secret-file checks: mode, length, directory, empty
source /tmp/tB2-work/env.sh; S=$W/sf; mkdir -p $S
printf '0123456789abcdef0123' > $S/ok; chmod 600 $S/ok
printf '0123456789abcdef0123' > $S/g; chmod 640 $S/g
printf '0123456789abcdef0123' > $S/o; chmod 604 $S/o
printf '0123456789abcdef0123' > $S/gw; chmod 620 $S/gw
printf 'short' > $S/short; chmod 600 $S/short
printf '   0123456789abc   \n\n' > $S/ws; chmod 600 $S/ws
: > $S/empty; chmod 600 $S/empty
printf '                     \n' > $S/blank; chmod 600 $S/blank
mkdir -p $S/dir; chmod 700 $S/dir
ln -sf $S/g $S/link-to-g
for f in ok g o gw short ws empty blank dir link-to-g; do
  rm -rf $W/data/sf; timeout 20 $D serve --port 22411 --data $W/data/sf --cluster-secret-file $S/$f > $W/logs/sf.log 2>&1 & pid=$!
  for i in $(seq 30); do kill -0 $pid 2>/dev/null || break; curl -sf -o /dev/null localhost:22411/v0/status && break; sleep 0.3; done
  if kill -0 $pid 2>/dev/null; then echo "[$f $(stat -c %a $S/$f)] RUNS"; kill $pid; wait $pid; else wait $pid; echo "[$f] rc=$?: $(head -1 $W/logs/sf.log | cut -c1-200)"; fi
done
for t in 0 -5 abc 630720001 1.5; do $D put --url http://localhost:22500 --ttl "$t" clik v >/dev/null 2>$W/logs/cli.err; echo "cli put --ttl $t rc=$? $(head -1 $W/logs/cli.err)"; done
$D put --url http://localhost:22500 --ttl 2 clik v; echo "rc=$?"; $D get --url http://localhost:22500 clik; echo " rc=$?"; sleep 2.5; $D get --url http://localhost:22500 clik; echo "rc=$?"
