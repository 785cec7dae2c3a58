#!/usr/bin/env python3
# A process that only sleeps: 1 ms at a time, until killed, writing "UTC-time late_ms" for every
# wake-up more than 2 ms late. It needs a CPU for microseconds per millisecond, so a late wake-up
# means every CPU was taken for that long (by anything: the node and the generator too) or the VM
# itself was not running: a moment any process would have been held up, whatever its own work.
# Usage: bench/scripts/stall-probe.py OUT
import sys, time, datetime
with open(sys.argv[1], 'w') as out:
    while True:
        t = time.monotonic()
        time.sleep(0.001)
        late = time.monotonic() - t - 0.001
        if late > 0.002:
            out.write("%s %.2f\n" % (datetime.datetime.now(datetime.timezone.utc).isoformat(), late * 1e3))
            out.flush()
