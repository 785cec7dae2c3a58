# Reading what a benchmark run leaves behind, shared by the scripts that lay one beside the other:
# the timeline `dht bench --out DIR` writes (DIR/timeline.txt: the worst latency of the requests
# intended in each 100 ms, slot starts in UTC) and the flushes and compactions of a node's log.
import datetime, re

UTC = datetime.timezone.utc


def utc(s):
    """An ISO time ending in Z, +0000 or +00:00 (at most microseconds kept) as an aware UTC instant."""
    s = s.replace('Z', '').replace('+0000', '').replace('+00:00', '')
    return datetime.datetime.fromisoformat(s[:26]).replace(tzinfo=UTC)


def timeline(path):
    """The slots of a bench timeline, in order: (slot start, worst latency in ms)."""
    slots = []
    for line in open(path):
        f = line.split()
        if line.startswith('#') or len(f) < 3: continue
        slots.append((utc(f[0]), float(f[2])))
    return slots


def storage_events(log_path, day):
    """
    The flushes and compactions of a node's log as (kind, start, end), kind 'flush' or 'compaction'.
    The log has local times without a date: day is the node's local date (a run across local
    midnight is not handled), and the times are read in this machine's time zone, so read the
    log where the node ran.
    """
    def at(s):
        return datetime.datetime.combine(day, datetime.time.fromisoformat(s)).astimezone().astimezone(UTC)
    events, start = [], {}
    for line in open(log_path):
        m = re.match(r'(\d\d:\d\d:\d\d\.\d+) .*LsmStore - (flushing|flushed|compacting|compacted) ', line)
        if not m: continue
        kind = 'flush' if m.group(2).startswith('flush') else 'compaction'
        if m.group(2) in ('flushing', 'compacting'): start[kind] = at(m.group(1))
        elif kind in start: events.append((kind, start.pop(kind), at(m.group(1))))
    return events
