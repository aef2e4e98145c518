#!/usr/bin/env python3
"""Random-offset, random-length reads of every file under MOUNT, compared
with the same ranges of the files under SOURCE, from several threads.

usage: read_checker.py SOURCE MOUNT READS THREADS SEED
Exits 1 (printing the first mismatches) when any read differs."""
import os
import random
import sys
import threading

source, mount, reads, threads, seed = sys.argv[1], sys.argv[2], int(
    sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
files = []
for root, _, names in os.walk(source):
    for n in names:
        p = os.path.join(root, n)
        if os.path.isfile(p) and not os.path.islink(p):
            files.append(os.path.relpath(p, source))
errors = []
done = [0]
lock = threading.Lock()


def worker(k):
    rng = random.Random(seed * 1000 + k)
    fds = {}
    for _ in range(reads // threads):
        rel = rng.choice(files)
        size = os.path.getsize(os.path.join(source, rel))
        off = rng.randrange(0, size + 1) if size else 0
        # Mostly small reads, some spanning several chunks.
        length = rng.choice([1, 17, 4096, 65536, 300000, 3 << 20])
        if rel not in fds:
            fds[rel] = (open(os.path.join(source, rel), 'rb'),
                        os.open(os.path.join(mount, rel), os.O_RDONLY))
        src, mfd = fds[rel]
        src.seek(off)
        want = src.read(length)
        got = os.pread(mfd, length, off)
        with lock:
            done[0] += 1
            if got != want:
                errors.append('%s at %d len %d: got %d bytes, want %d' %
                              (rel, off, length, len(got), len(want)))
    for src, mfd in fds.values():
        src.close()
        os.close(mfd)


ts = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print('%d reads over %d files, %d mismatches' % (done[0], len(files),
                                                 len(errors)))
for e in errors[:5]:
    print('MISMATCH', e)
sys.exit(1 if errors or done[0] == 0 else 0)
