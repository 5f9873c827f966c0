#!/usr/bin/env python3
"""Prints a hash of a cubin's code: the bytes of every .text.* section (the kernels' SASS), by name,
without the other sections (notes and attributes may differ where the code does not). No CUDA tools
needed: cuobjdump is not on every machine."""
import hashlib
import struct
import sys

data = open(sys.argv[1], "rb").read()
assert data[:4] == b"\x7fELF" and data[4] == 2, "a 64-bit ELF"
(shoff,) = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
names_offset = sections[shstrndx][4]


def name(section):
    start = names_offset + section[0]
    return data[start:data.index(b"\0", start)].decode()


digest = hashlib.sha256()
for section in sorted(sections, key=name):
    if name(section).startswith(".text."):
        digest.update(name(section).encode() + data[section[4]:section[4] + section[5]])
print(digest.hexdigest())
