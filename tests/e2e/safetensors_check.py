#!/usr/bin/env python3
"""Memory-maps a .safetensors file on the mount, parses its header and reads
every tensor through numpy; compares each with the source file's tensor.

usage: safetensors_check.py SOURCE_FILE MOUNTED_FILE
Prints how many tensors matched; exits 1 on any difference."""
import json
import mmap
import struct
import sys

import numpy as np

DTYPES = {'BF16': np.uint16, 'F16': np.float16, 'F32': np.float32,
          'I64': np.int64, 'I32': np.int32, 'U8': np.uint8}


def tensors(path):
    f = open(path, 'rb')
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    (n,) = struct.unpack('<Q', m[:8])
    header = json.loads(m[8:8 + n])
    base = 8 + n
    out = {}
    for name, t in header.items():
        if name == '__metadata__':
            continue
        start, end = t['data_offsets']
        arr = np.frombuffer(m, dtype=DTYPES[t['dtype']], count=(end - start) //
                            np.dtype(DTYPES[t['dtype']]).itemsize,
                            offset=base + start).reshape(t['shape'])
        out[name] = arr
    return out, m


src, _m1 = tensors(sys.argv[1])
mnt, _m2 = tensors(sys.argv[2])
if sorted(src) != sorted(mnt):
    print('tensor names differ')
    sys.exit(1)
bad = [k for k in src if not np.array_equal(src[k], mnt[k])]
# The values are what the generator drew: bf16 of normal(0, 0.02).
big = max(mnt, key=lambda k: mnt[k].size)
values = (mnt[big].astype(np.uint32) << 16).view(np.float32)
std = float(values.std())
print('%d tensors, %d differ; %s std %.4f' % (len(src), len(bad), big, std))
sys.exit(1 if bad or not src or not 0.015 < std < 0.025 else 0)
